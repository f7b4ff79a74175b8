import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, hiddenInputs } from '../../test/browser.js';
import { createAccount, createApp, PASSWORD, testContext, tokenRequest, type TestApp, type TestContext } from '../../test/harness.js';
import { authorizeUrl, PATH, signedIn } from './authorize.test-kit.js';

/**
 * The sign-in and consent posts: consent answers the pending request kept on the server, once, by
 * its session; a post another site made is refused whatever token it carries.
 */
let ctx: TestContext;
let app: TestApp;

before(async () => {
  ctx = await testContext();
  app = await createApp(ctx, 'https://app.example.org/callback', 'Sync <b>Pro</b>');
});
after(() => ctx.close());

describe('consent grants exactly what the page showed', () => {
  /** A fresh account (each sign-in spends one of an account's attempts), signed in, with a consent page. */
  async function consentShown(extra: Record<string, string> = {}) {
    const b = await signedIn(ctx, app, await createAccount(ctx));
    const consent = await b.get(authorizeUrl(app, extra));
    assert.equal(consent.statusCode, 200);
    return { b, consent, fields: hiddenInputs(consent.body) };
  }
  const codeOf = (res: { headers: Record<string, unknown> }): string | null =>
    res.headers['location'] === undefined ? null : new URL(res.headers['location'] as string).searchParams.get('code');

  it('the page names the app, each scope and the address the answer goes to; its form carries only the request id', async () => {
    const { consent, fields } = await consentShown();
    assert.deepEqual(Object.keys(fields).sort(), ['_csrf', 'request']);
    assert.match(fields['request'] ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(consent.body, /Allow Sync &#60;b&#62;Pro&#60;\/b&#62;/);
    assert.match(consent.body, /See your account details/);
    assert.match(consent.body, /Your answer goes to <strong>https:\/\/app.example.org\/callback<\/strong>/);
  });

  it('a consent post that carries any part of an authorization request is refused, and issues nothing', async () => {
    for (const edit of [{ scope: 'basic tasks write' }, { client_id: app.clientId }, { state: 'other' }, { code_challenge: 'x'.repeat(43) }]) {
      const { b, fields } = await consentShown();
      const res = await b.post(PATH, { ...fields, ...edit, action: 'allow' });
      assert.equal(res.statusCode, 400, JSON.stringify(edit));
      assert.equal(res.headers['location'], undefined);
      // The request itself is untouched: the page's own answer still works, with what it showed.
      const ok = await b.post(PATH, { ...fields, action: 'allow' });
      const token = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code: codeOf(ok) ?? '' });
      assert.equal(token.json<{ scope: string }>().scope, 'basic tasks');
    }
  });

  it('one consent, one code: a second Allow, or Allow after Deny, gets an error page and no code', async () => {
    const { b, fields } = await consentShown();
    const first = await b.post(PATH, { ...fields, action: 'allow' });
    assert.ok(codeOf(first));
    const again = await b.post(PATH, { ...fields, action: 'allow' });
    assert.equal(again.statusCode, 400);
    assert.equal(again.headers['location'], undefined);
    assert.match(again.body, /answered already/);
    const denied = await consentShown();
    assert.equal((await denied.b.post(PATH, { ...denied.fields, action: 'deny' })).statusCode, 303);
    assert.equal((await denied.b.post(PATH, { ...denied.fields, action: 'allow' })).statusCode, 400);
  });

  it('Allows sent at once for one page: exactly one code', async () => {
    const { b, fields } = await consentShown();
    const answers = await Promise.all(Array.from({ length: 4 }, () => b.post(PATH, { ...fields, action: 'allow' })));
    assert.equal(answers.filter((r) => codeOf(r) !== null).length, 1, answers.map((r) => r.statusCode).join(' '));
  });

  it('only the browser session the page was shown to can answer it', async () => {
    const { b, fields } = await consentShown();
    const other = await signedIn(ctx, app, await createAccount(ctx));
    const otherCsrf = hiddenInputs((await other.get(authorizeUrl(app))).body)['_csrf'] as string;
    const posted = await other.post(PATH, { request: fields['request'], _csrf: otherCsrf, action: 'allow' });
    assert.ok((posted.headers['location'] as string).startsWith(`${PATH}?`), 'back to the page, not to the app');
    const res = await other.follow(posted);
    assert.equal(res.statusCode, 200, 'the other browser sees a consent page of its own');
    assert.equal(res.headers['location'], undefined);
    assert.match(res.body, /Allow Sync/);
    assert.ok(codeOf(await b.post(PATH, { ...fields, action: 'allow' })), 'the page is still answerable by its own session');
  });

  it('a consent page expires after 10 minutes', async () => {
    const { b, fields } = await consentShown();
    ctx.clock.advance(600);
    const res = await b.post(PATH, { ...fields, action: 'allow' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.headers['location'], undefined);
  });

  it('an unknown request id gets the error page', async () => {
    const { b, fields } = await consentShown();
    const res = await b.post(PATH, { ...fields, request: 'x'.repeat(43), action: 'allow' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.headers['location'], undefined);
  });
});

describe('where a post comes from (Origin, Sec-Fetch-Site)', () => {
  /** The sign-in post of a fresh page, with the given headers instead of a browser's own. */
  async function signInPost(headers: Record<string, string>, email = 'nobody@example.org') {
    const b = new Browser(ctx.app, '127.0.0.1', null);
    const fields = hiddenInputs((await b.get(authorizeUrl(app))).body);
    const body = new URLSearchParams({ ...fields, email, password: PASSWORD }).toString();
    return ctx.app.inject({
      method: 'POST',
      url: PATH,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...b.cookies.headers(), ...headers },
      payload: body,
    });
  }

  const refused: Array<[string, Record<string, string>]> = [
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site (a sibling origin)', { 'sec-fetch-site': 'same-site' }],
    ['cross-site, though Origin names this server', { 'sec-fetch-site': 'cross-site', origin: 'http://127.0.0.1:3000' }],
    ['an Origin other than PUBLIC_URL', { origin: 'https://evil.example' }],
    ['the same host on another port', { origin: 'http://127.0.0.1:3001' }],
    ['Origin: null', { origin: 'null' }],
  ];
  for (const [name, headers] of refused) {
    it(`refuses ${name} with the error page (403), valid CSRF token and cookies notwithstanding`, async () => {
      const res = await signInPost(headers);
      assert.equal(res.statusCode, 403);
      assert.match(res.body, /did not come from this site/);
      assert.equal(res.headers['location'], undefined);
      assert.equal(res.cookies.find((c) => c.name === 'tickler_session'), undefined);
    });
  }

  const accepted: Array<[string, Record<string, string>]> = [
    ['a same-origin post from PUBLIC_URL', { 'sec-fetch-site': 'same-origin', origin: 'http://127.0.0.1:3000' }],
    ['Origin alone (a browser without Sec-Fetch-Site)', { origin: 'http://127.0.0.1:3000' }],
    ['neither header (an older browser, curl): the CSRF token decides', {}],
  ];
  for (const [name, headers] of accepted) {
    it(`accepts ${name}`, async () => {
      // Another account each time: a sign-in spends one of the account's attempts.
      const res = await signInPost(headers, (await createAccount(ctx)).email);
      assert.equal(res.statusCode, 303, res.body);
    });
  }

  it('the consent answer is checked the same way', async () => {
    const b = await signedIn(ctx, app, await createAccount(ctx));
    const fields = hiddenInputs((await b.get(authorizeUrl(app))).body);
    const res = await ctx.app.inject({
      method: 'POST',
      url: PATH,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...b.cookies.headers(), 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      payload: new URLSearchParams({ ...fields, action: 'allow' }).toString(),
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.headers['location'], undefined);
    assert.ok(new URL((await b.post(PATH, { ...fields, action: 'allow' })).headers['location'] as string).searchParams.get('code'), 'the page itself can still answer');
  });
});
