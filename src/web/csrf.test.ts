import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, DEFAULT_ORIGIN, formInputs, postHeaders, submit } from '../../test/browser.js';
import { registeredRoutes } from '../../test/fuzz/routes.js';
import { createAccount, testContext, type TestContext } from '../../test/harness.js';
import { landed, signedInBrowser, text } from '../../test/web-pages.js';
import type { Account } from '../storage/store.js';

/**
 * CSRF tokens are bound to the browser's session (src/web/csrf.ts, docs/decisions/0021): someone
 * who can plant a cookie for the host (a sibling subdomain, plain http) puts their own CSRF cookie
 * into the victim's browser and posts their own form token. Every form post of the server is
 * tried that way, found in the router itself, so that a form added later is held to it too.
 */

/** The page forms: every POST route but the API's (the authorize page's forms are pages). */
function formPosts(ctx: TestContext): string[] {
  return registeredRoutes(ctx.app)
    .filter((r) => r.method === 'POST' && (!r.url.startsWith('/3/') || r.url === '/3/account/authorize.php'))
    .map((r) => r.url.replace(/:[^/]+/g, '1'));
}

interface Planted {
  readonly csrfCookie: string;
  readonly token: string;
}

describe('a CSRF cookie and token planted from another browser', () => {
  let ctx: TestContext;
  let victim: Account;
  let a: Browser;
  /** B's own CSRF cookie and a token of B's signed-in pages. */
  let signedInB: Planted;
  /** Another browser's CSRF cookie and a token of its sign-in page, made with no session. */
  let visitorB: Planted;

  const planted = (browser: Browser, name: string): Planted => {
    const csrfCookie = browser.cookies.get('tickler_csrf');
    assert.ok(csrfCookie, `${name} has a CSRF cookie`);
    return { csrfCookie, token: '' };
  };

  before(async () => {
    ctx = await testContext({ REGISTRATION: 'open' });
    victim = await createAccount(ctx);
    a = await signedInBrowser(ctx, victim);
    const b = await signedInBrowser(ctx, await createAccount(ctx));
    signedInB = { ...planted(b, 'B'), token: formInputs((await b.get('/notes/new')).body, '/notes')['_csrf'] as string };
    const visitor = new Browser(ctx.app);
    const signInPage = await visitor.get('/signin');
    visitorB = { ...planted(visitor, 'a visitor'), token: formInputs(signInPage.body, '/signin')['_csrf'] as string };
    assert.notEqual(signedInB.csrfCookie, a.cookies.get('tickler_csrf'));
  });
  after(() => ctx.close());

  /** A's cookies with B's CSRF cookie in place of A's, and B's token; as a current browser posts it, or with neither Origin nor Sec-Fetch-Site (curl, an older browser). */
  function plantedPost(url: string, b: Planted, origin: string | null) {
    const cookies = new Map(a.cookies);
    cookies.set('tickler_csrf', b.csrfCookie);
    return ctx.app.inject({
      method: 'POST',
      url,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...postHeaders(origin),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      payload: new URLSearchParams({ _csrf: b.token, title: 'Planted', text: 'planted', folder: '0', action: 'allow' }).toString(),
    });
  }

  it('is refused on every form (403, the form-refused page), with A signed in, whatever headers come with it', async () => {
    const urls = formPosts(ctx);
    for (const expected of ['/notes', '/signout', '/account', '/3/account/authorize.php', '/signin']) {
      assert.ok(urls.includes(expected) || urls.some((u) => u.startsWith(expected)), `the form posts include ${expected}`);
    }
    for (const url of urls) {
      for (const [name, b] of [['signed-in B', signedInB], ['a visitor', visitorB]] as const) {
        for (const origin of [DEFAULT_ORIGIN, null]) {
          const res = await plantedPost(url, b, origin);
          const how = `${url}, ${name}'s cookie and token, ${origin === null ? 'without Origin or Sec-Fetch-Site' : 'same-origin'}`;
          assert.equal(res.statusCode, 403, `${how}: ${res.statusCode} ${res.headers['location'] ?? ''}`);
          assert.match(text(res), /This form has expired or did not come from this site/, how);
          assert.equal(res.headers['set-cookie'], undefined, `${how}: no cookie is set or cleared`);
        }
      }
    }
    // Nothing was done as A: still signed in (signout refused), and no note added.
    const notes = await a.get('/notes');
    assert.equal(notes.statusCode, 200);
    assert.doesNotMatch(text(notes), /Planted/);
  });

  it('while A, with A\'s own cookie and token, posts as before', async () => {
    const added = await landed(a, await submit(a, '/notes/new', { title: 'Mine', folder: '0', text: 'x' }, '/notes'));
    assert.match(text(added), /Mine/);
    // A token of this session is good for any of its forms, and curl-like posts without Origin
    // or Sec-Fetch-Site are taken when their token is.
    const token = formInputs((await a.get('/notes/new')).body, '/notes')['_csrf'] as string;
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/signout',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...a.cookies.headers() },
      payload: `_csrf=${encodeURIComponent(token)}`,
    });
    assert.equal(res.statusCode, 303);
    a.cookies.keep(([] as string[]).concat(res.headers['set-cookie'] ?? []));
    assert.equal((await a.get('/account')).statusCode, 303, 'signed out');
  });

  it('a page left open past its session\'s end: its form post is sent to sign in again, and does nothing', async () => {
    const b = await signedInBrowser(ctx, await createAccount(ctx));
    const form = formInputs((await b.get('/notes/new')).body, '/notes');
    b.cookies.delete('tickler_session');
    const res = await b.post('/notes', { ...form, title: 'Late', folder: '0', text: 'x' });
    assert.equal(res.statusCode, 303);
    assert.match(String(res.headers['location']), /^\/signin/);
    assert.match(text(await b.follow(res)), /Your session has ended/);
  });
});
