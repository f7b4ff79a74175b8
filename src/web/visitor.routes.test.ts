import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, formInputs, submit } from '../../test/browser.js';
import { createAccount, PASSWORD, testContext, type TestContext } from '../../test/harness.js';
import { withContext } from '../../test/with-context.js';
import { landed, signedInBrowser, text } from '../../test/web-pages.js';
import { makeInvite } from '../features/users/links.service.js';
import { CONTENT_SECURITY_POLICY } from './html.js';

/** The start page, sign-in and sign-out, sign-up under each REGISTRATION, invitations. */

describe('the start page', () => {
  it('a fresh server says how its first account is made; GET / is a page, not an API error', async () => {
    await withContext({}, async (ctx) => {
      const res = await new Browser(ctx.app).get('/');
      assert.equal(res.statusCode, 200);
      assert.match(res.headers['content-type'] as string, /^text\/html/);
      assert.match(text(res), /Tickler at 127\.0\.0\.1:3000/);
      assert.match(text(res), /no accounts yet.*bin\/tickler user add .* --admin/);
      assert.match(text(res), /does not take new accounts on the web/, 'REGISTRATION is closed by default');
      assert.doesNotMatch(res.body, /href="\/signup"/);
      assert.equal(res.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
      assert.match(CONTENT_SECURITY_POLICY, /default-src 'none'.*frame-ancestors 'none'/);
      assert.doesNotMatch(CONTENT_SECURITY_POLICY, /script-src/, 'no script at all: default-src none covers it');
    });
  });

  it('offers sign-up when REGISTRATION is open, and says invitations when it is invite', async () => {
    await withContext({ REGISTRATION: 'open' }, async (ctx) => {
      await createAccount(ctx);
      const res = await new Browser(ctx.app).get('/');
      assert.match(res.body, /href="\/signup"/);
      assert.doesNotMatch(text(res), /no accounts yet/);
    });
    await withContext({ REGISTRATION: 'invite' }, async (ctx) => {
      assert.match(text(await new Browser(ctx.app).get('/')), /by invitation/);
    });
  });

  it('a favicon under both names, and links with PUBLIC_URL’s path prefix', async () => {
    await withContext({ PUBLIC_URL: 'https://todo.example.org/tickler' }, async (ctx) => {
      for (const path of ['/favicon.ico', '/favicon.svg']) {
        const res = await ctx.app.inject({ method: 'GET', url: path });
        assert.equal(res.statusCode, 200, path);
        assert.equal(res.headers['content-type'], 'image/svg+xml');
      }
      const page = await new Browser(ctx.app, '127.0.0.1', 'https://todo.example.org').get('/signin');
      assert.match(page.body, /action="\/tickler\/signin"/);
      assert.match(page.body, /href="\/tickler\/favicon.svg"/);
      assert.match(text(page), /todo\.example\.org\/tickler/);
    });
  });

  it('a query parameter sent twice counts as absent on every page that reads one (it answered 500)', async () => {
    await withContext({ REGISTRATION: 'invite' }, async (ctx) => {
      const account = await createAccount(ctx);
      const invite = new URL((await makeInvite(ctx.deps, account.pk, 'twice')).url).searchParams.get('invite') as string;
      const signup = await ctx.app.inject({ method: 'GET', url: `/signup?invite=${invite}&invite=` });
      assert.equal(signup.statusCode, 200, signup.body);
      assert.doesNotMatch(signup.body, new RegExp(invite), 'the invitation is not taken from a repeated parameter');
      const reset = await ctx.app.inject({ method: 'GET', url: '/reset?token=a&token=b' });
      assert.equal(reset.statusCode, 200, reset.body);
      const signin = await ctx.app.inject({ method: 'GET', url: '/signin?next=/account&next=/developer' });
      assert.equal(signin.statusCode, 200, signin.body);
      const browser = await signedInBrowser(ctx, account);
      const list = await browser.get('/?view=all&view=starred&q=a&q=b');
      assert.equal(list.statusCode, 200, list.body);
    });
  });
});

describe('signing in and out on the web pages', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await testContext({ RATE_LIMIT_SIGNIN_PER_ACCOUNT: '3/15m' });
  });
  after(() => ctx.close());

  it('the form focuses its first field; a wrong password comes back by redirect, with the message focused', async () => {
    const account = await createAccount(ctx);
    const b = new Browser(ctx.app);
    const form = await b.get('/signin');
    assert.match(form.body, /id="f-email"[^>]*autofocus/);
    const res = await submit(b, '/signin', { email: account.email, password: 'wrong password' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers['location'], '/signin?next=%2F');
    const page = await b.follow(res);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /class="error" role="alert" tabindex="-1" autofocus/);
    assert.doesNotMatch(page.body, /id="f-email"[^>]*autofocus/, 'one autofocus: the message');
    assert.match(text(page), /do not match an account/);
    assert.ok(!b.cookies.has('tickler_session'));
    // Read once: a reload shows the plain form.
    assert.doesNotMatch(text(await b.get('/signin')), /do not match/);
  });

  it('signs in, goes back where it was asked (a local page only), and signs out', async () => {
    const account = await createAccount(ctx);
    const b = new Browser(ctx.app);
    assert.equal((await b.get('/account/apps')).headers['location'], '/signin?next=%2Faccount%2Fapps');
    const res = await submit(b, '/signin?next=%2Faccount%2Fapps', { email: account.email, password: PASSWORD }, '/signin');
    assert.equal(res.headers['location'], '/account/apps');
    assert.match(text(await b.follow(res)), /Connected apps/);
    for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', '/../x']) {
      const c = new Browser(ctx.app);
      // Another account each time: each sign-in spends one of the account's three attempts here.
      const r = await submit(c, `/signin?next=${encodeURIComponent(next)}`, { email: (await createAccount(ctx)).email, password: PASSWORD }, '/signin');
      assert.equal(r.headers['location'], '/', next);
    }
    const home = await b.get('/');
    const out = await b.post('/signout', formInputs(home.body, '/signout'));
    assert.match(text(await landed(b, out)), /You are signed out/);
    assert.equal((await b.get('/account')).statusCode, 303, 'signed out');
  });

  it('is throttled with the sign-in rules: the page after the redirect answers 429 with Retry-After', async () => {
    ctx.clock.set(Date.UTC(2026, 4, 1, 12));
    const account = await createAccount(ctx);
    const b = new Browser(ctx.app, '198.51.100.23');
    for (let i = 0; i < 3; i++) await submit(b, '/signin', { email: account.email, password: `guess ${i}` });
    const res = await submit(b, '/signin', { email: account.email, password: PASSWORD });
    assert.ok(Number(res.headers['retry-after']) > 0);
    const page = await b.follow(res);
    assert.equal(page.statusCode, 429);
    assert.ok(Number(page.headers['retry-after']) > 0);
    assert.match(text(page), /Too many sign-in attempts/);
  });

  it('shares the session with the authorize page', async () => {
    const account = await createAccount(ctx);
    const b = await signedInBrowser(ctx, account);
    const { createApp } = await import('../../test/harness.js');
    const app = await createApp(ctx);
    const consent = await b.get(`/3/account/authorize.php?response_type=code&client_id=${app.clientId}&state=s&scope=basic`);
    assert.match(text(consent), /Allow Test App to use your Tickler account\?/);
  });

  it('refuses a post from another site, whatever its token', async () => {
    const account = await createAccount(ctx);
    const b = new Browser(ctx.app);
    const fields = formInputs((await b.get('/signin')).body, '/signin');
    const res = await b.crossSitePost('/signin', { ...fields, email: account.email, password: PASSWORD });
    assert.equal(res.statusCode, 403);
    assert.equal(res.cookies.find((c) => c.name === 'tickler_session'), undefined);
    const noToken = await b.post('/signin', { email: account.email, password: PASSWORD });
    assert.equal(noToken.statusCode, 403);
  });

  it('answers 503 in maintenance', async () => {
    await withContext({ MAINTENANCE_MODE: 'true' }, async (m) => {
      const res = await new Browser(m.app).get('/');
      assert.equal(res.statusCode, 503);
      assert.match(text(res), /maintained/);
    });
  });
});

describe('signing up', () => {
  it('REGISTRATION=closed: no sign-up, the page says so and a post creates nothing', async () => {
    await withContext({}, async (ctx) => {
      const b = new Browser(ctx.app);
      const page = await b.get('/signup');
      assert.match(text(page), /does not take new accounts on the web/);
      const res = await b.post('/signup', { _csrf: formInputs((await b.get('/signin')).body, '/signin')['_csrf'] as string, email: 'new@example.org', password: 'long enough pw' });
      assert.equal(res.statusCode, 303);
      assert.equal(await ctx.deps.store.read.accounts.hasAny(), false);
    });
  });

  it('REGISTRATION=open: anyone signs up, is signed in, and is no admin', async () => {
    await withContext({ REGISTRATION: 'open' }, async (ctx) => {
      const b = new Browser(ctx.app);
      const res = await submit(b, '/signup', { email: ' New@Example.org ', alias: '', password: 'a long passphrase' });
      assert.equal(res.headers['location'], '/');
      // The start page of a signed-in person is the task list, with the welcome above quick add.
      assert.match(text(await b.follow(res)), /Welcome! Your account is ready.*Add a task/);
      const account = (await ctx.deps.store.read.accounts.list())[0];
      assert.equal(account?.email, 'New@Example.org');
      assert.equal(account?.alias, 'New');
      assert.equal(account?.isAdmin, false);
      // The same address again, in another case: refused, the fields kept (never the password).
      const c = new Browser(ctx.app);
      const page = await landed(c, await submit(c, '/signup', { email: 'new@example.org', alias: 'Twin', password: 'a long passphrase' }));
      assert.match(text(page), /exists already/);
      assert.match(page.body, /value="Twin"/);
      assert.doesNotMatch(page.body, /a long passphrase/);
      const short = await landed(c, await submit(c, '/signup', { email: 'short@example.org', password: 'short' }));
      assert.match(text(short), /at least 8 characters/);
    });
  });

  it('is throttled per address (RATE_LIMIT_SIGNUP_PER_ADDRESS)', async () => {
    await withContext({ REGISTRATION: 'open', RATE_LIMIT_SIGNUP_PER_ADDRESS: '2/1h' }, async (ctx) => {
      const b = new Browser(ctx.app, '203.0.113.9');
      for (let i = 0; i < 2; i++) assert.equal((await submit(b, '/signup', { email: `s${i}@example.org`, password: 'a long passphrase' })).headers['location'], '/');
      const third = await submit(new Browser(ctx.app, '203.0.113.9'), '/signup', { email: 's3@example.org', password: 'a long passphrase' });
      assert.ok(Number(third.headers['retry-after']) > 0);
      assert.equal((await ctx.deps.store.read.accounts.list()).length, 2);
      assert.equal((await submit(new Browser(ctx.app, '203.0.113.10'), '/signup', { email: 's4@example.org', password: 'a long passphrase' })).headers['location'], '/', 'another address is not held back');
    });
  });

  it('REGISTRATION=invite: only with an admin’s link, which makes one account', async () => {
    await withContext({ REGISTRATION: 'invite' }, async (ctx) => {
      const b = new Browser(ctx.app);
      assert.match(text(await b.get('/signup')), /by invitation/);
      const admin = await createAccount(ctx);
      const invite = await makeInvite(ctx.deps, admin.pk, 'for Bob');
      const path = new URL(invite.url).pathname + new URL(invite.url).search;
      const secret = new URL(invite.url).searchParams.get('invite') as string;
      const page = await b.get(path);
      assert.match(text(page), /You were invited/);
      const res = await b.post('/signup', { ...formInputs(page.body, '/signup'), email: 'bob@example.org', password: 'a long passphrase' });
      assert.equal(res.headers['location'], '/');
      // Used: the link makes no second account.
      const c = new Browser(ctx.app);
      const second = await c.get(path);
      assert.match(text(second), /used or has expired/);
      const forced = await c.post('/signup', { ...formInputs((await c.get('/signin')).body, '/signin'), invite: secret, email: 'eve@example.org', password: 'a long passphrase' });
      assert.equal(forced.statusCode, 303);
      assert.equal((await ctx.deps.store.read.accounts.list()).length, 2);
      // Without one, a post is refused too.
      const none = await c.post('/signup', { ...formInputs((await c.get('/signin')).body, '/signin'), email: 'mallory@example.org', password: 'a long passphrase' });
      assert.equal(none.statusCode, 303);
      assert.equal((await ctx.deps.store.read.accounts.list()).length, 2);
    });
  });
});
