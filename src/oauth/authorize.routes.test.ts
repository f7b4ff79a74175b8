import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, hiddenInputs } from '../../test/browser.js';
import { createAccount, createApp, PASSWORD, testContext, tokenRequest, type TestApp, type TestContext } from '../../test/harness.js';
import type { Account } from '../storage/store.js';
import { authorizeUrl, decide, PATH, signedIn, signInOutcome } from './authorize.test-kit.js';

describe('authorize page', () => {
  let ctx: TestContext;
  let app: TestApp;
  let account: Account;

  before(async () => {
    ctx = await testContext();
    app = await createApp(ctx, 'https://app.example.org/callback', 'Sync <b>Pro</b>');
    account = await createAccount(ctx, { email: 'Ann@Example.org' });
  });
  after(() => ctx.close());

  describe('requests that cannot be trusted are shown an error page and never redirected', () => {
    const cases: Array<[string, () => string]> = [
      ['no client_id', () => `${PATH}?response_type=code&state=x&scope=basic`],
      ['an unknown client_id', () => `${PATH}?response_type=code&client_id=nobody&state=x&scope=basic&redirect_uri=https%3A%2F%2Fevil.example%2F`],
      ['a redirect_uri other than the registered one', () => authorizeUrl(app, { redirect_uri: 'https://evil.example/cb' })],
      ['a redirect_uri differing only by a trailing slash', () => authorizeUrl(app, { redirect_uri: 'https://app.example.org/callback/' })],
    ];
    for (const [name, url] of cases) {
      it(name, async () => {
        const res = await new Browser(ctx.app).get(url());
        assert.equal(res.statusCode, 400);
        assert.equal(res.headers['location'], undefined);
        assert.match(res.headers['content-type'] as string, /^text\/html/);
      });
    }
  });

  describe('bad parameters of a known client go back to its registered address with an error', () => {
    const cases: Array<[string, Record<string, string | undefined>, string, string | undefined]> = [
      ['missing state', { state: undefined }, 'invalid_request', undefined],
      ['empty state', { state: '' }, 'invalid_request', undefined],
      ['over-long state', { state: 'x'.repeat(1001) }, 'invalid_request', undefined],
      ['missing response_type', { response_type: undefined }, 'invalid_request', 'st4te'],
      ['response_type=token', { response_type: 'token' }, 'unsupported_response_type', 'st4te'],
      ['missing scope', { scope: undefined }, 'invalid_scope', 'st4te'],
      ['blank scope', { scope: '  ' }, 'invalid_scope', 'st4te'],
      ['malformed scope', { scope: 'basic "tasks"' }, 'invalid_scope', 'st4te'],
    ];
    for (const [name, extra, error, state] of cases) {
      it(`${name} → error=${error}${state ? ' with the state' : ''}`, async () => {
        const res = await new Browser(ctx.app).get(authorizeUrl(app, extra));
        assert.equal(res.statusCode, 302);
        const loc = new URL(res.headers['location'] as string);
        assert.equal(`${loc.origin}${loc.pathname}`, 'https://app.example.org/callback');
        assert.equal(loc.searchParams.get('error'), error);
        assert.equal(loc.searchParams.get('state'), state ?? null);
        assert.equal(loc.searchParams.get('code'), null);
      });
    }
  });

  describe('a parameter sent twice is refused (RFC 6749 3.1), by the same page-or-redirect rules', () => {
    const base = () => authorizeUrl(app);
    const enc = encodeURIComponent;
    it('two client_ids, or two redirect addresses (even equal ones): an error page, never a redirect', async () => {
      for (const url of [`${base()}&client_id=${app.clientId}`, `${base()}&redirect_uri=${enc(app.redirectUri)}&redirect_uri=${enc(app.redirectUri)}`]) {
        const res = await new Browser(ctx.app).get(url);
        assert.equal(res.statusCode, 400, url);
        assert.equal(res.headers['location'], undefined);
        assert.match(res.body, /more than one/);
      }
    });

    const cases: Array<[string, string, string | null]> = [
      ['two scopes', '&scope=write', 'st4te'],
      ['two response_types', '&response_type=code', 'st4te'],
      ['two code_challenges', '&code_challenge=x&code_challenge=y&code_challenge_method=S256', 'st4te'],
      ['two states: neither is echoed', '&state=other', null],
    ];
    for (const [name, extra, state] of cases) {
      it(`${name} → error=invalid_request${state ? ' with the state' : ''}`, async () => {
        const res = await new Browser(ctx.app).get(`${base()}${extra}`);
        assert.equal(res.statusCode, 302);
        const loc = new URL(res.headers['location'] as string);
        assert.equal(`${loc.origin}${loc.pathname}`, 'https://app.example.org/callback');
        assert.equal(loc.searchParams.get('error'), 'invalid_request');
        assert.match(loc.searchParams.get('error_description') ?? '', /was sent more than once/);
        assert.equal(loc.searchParams.get('state'), state);
      });
    }

    it('a field of the sign-in form sent twice gets an error page and signs no one in', async () => {
      const b = new Browser(ctx.app);
      const fields = Object.entries(hiddenInputs((await b.get(base())).body));
      const res = await b.post(PATH, [...fields, ['email', 'someone@example.org'], ['email', account.email], ['password', PASSWORD]]);
      assert.equal(res.statusCode, 400);
      assert.ok(!b.cookies.has('tickler_session'));
    });

    it('a parameter this server does not read may repeat: it is ignored', async () => {
      const res = await new Browser(ctx.app).get(`${base()}&utm=1&utm=2`);
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /Sign in to continue/);
    });
  });

  it('the sign-in page is a real form with a CSRF token, served with protective headers', async () => {
    const res = await new Browser(ctx.app).get(authorizeUrl(app));
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<form method="post" action="\/3\/account\/authorize.php">/);
    assert.match(res.body, /name="email"/);
    assert.match(res.body, /name="password" type="password"/);
    assert.ok(hiddenInputs(res.body)['_csrf'], 'csrf token');
    assert.match(res.body, /Sync &#60;b&#62;Pro&#60;\/b&#62;/, 'app name escaped');
    assert.equal(res.headers['cache-control'], 'no-store');
    // same-origin, not no-referrer: under no-referrer a browser's own form posts carry Origin: null.
    assert.equal(res.headers['referrer-policy'], 'same-origin');
    assert.equal(res.headers['x-frame-options'], 'DENY');
    const csp = res.headers['content-security-policy'] as string;
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /form-action/, 'form-action would block the redirect after consent in Chromium');
    const csrfCookie = res.cookies.find((c) => c.name === 'tickler_csrf') as { httpOnly?: boolean; sameSite?: string } | undefined;
    assert.ok(csrfCookie?.httpOnly);
    assert.equal(csrfCookie?.sameSite, 'Lax');
  });

  describe('CSRF', () => {
    it('a post without the token is refused with a page, not a redirect', async () => {
      const b = new Browser(ctx.app);
      const page = await b.get(authorizeUrl(app));
      const { _csrf: _ignored, ...fields } = hiddenInputs(page.body);
      const res = await b.post(PATH, { ...fields, email: account.email, password: PASSWORD });
      assert.equal(res.statusCode, 403);
      assert.equal(res.headers['location'], undefined);
      assert.equal(res.cookies.find((c) => c.name === 'tickler_session'), undefined);
    });

    it('a token from another browser is refused', async () => {
      const attacker = new Browser(ctx.app);
      const token = hiddenInputs((await attacker.get(authorizeUrl(app))).body)['_csrf'];
      const victim = new Browser(ctx.app);
      const page = await victim.get(authorizeUrl(app));
      const res = await victim.post(PATH, { ...hiddenInputs(page.body), _csrf: token, email: account.email, password: PASSWORD });
      assert.equal(res.statusCode, 403);
    });

    it('a post with no CSRF cookie at all is refused', async () => {
      const b = new Browser(ctx.app);
      const fields = hiddenInputs((await b.get(authorizeUrl(app))).body);
      b.cookies.clear();
      assert.equal((await b.post(PATH, { ...fields, email: account.email, password: PASSWORD })).statusCode, 403);
    });
  });

  it('a wrong password shows the form again with a message and no session', async () => {
    const b = new Browser(ctx.app);
    const page = await b.get(authorizeUrl(app));
    const posted = await b.post(PATH, { ...hiddenInputs(page.body), email: account.email, password: 'wrong password' });
    // Post/Redirect/Get: back to the page, so that a reload does not send the password again.
    assert.equal(posted.statusCode, 303);
    assert.ok((posted.headers['location'] as string).startsWith(`${PATH}?`));
    const res = await b.follow(posted);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /autofocus id="problem"/, 'the message takes the focus');
    assert.match(res.body, new RegExp(`value="${account.email.replace(/[.]/g, '\\.')}"`), 'the e-mail is filled in again');
    assert.match(res.body, /do not match an account/);
    assert.ok(!b.cookies.has('tickler_session'));
  });

  it('signing in (e-mail in any case) sets an HttpOnly, SameSite=Lax session and returns to the consent page', async () => {
    const b = new Browser(ctx.app);
    const page = await b.get(authorizeUrl(app));
    const res = await b.post(PATH, { ...hiddenInputs(page.body), email: ' ANN@example.ORG ', password: PASSWORD });
    assert.equal(res.statusCode, 303);
    const loc = res.headers['location'] as string;
    assert.ok(loc.startsWith(`${PATH}?`), loc);
    assert.equal(new URLSearchParams(loc.split('?')[1]).get('client_id'), app.clientId);
    const session = res.cookies.find((c) => c.name === 'tickler_session') as { httpOnly?: boolean; sameSite?: string; path?: string; secure?: boolean };
    assert.ok(session.httpOnly);
    assert.equal(session.sameSite, 'Lax');
    assert.equal(session.path, '/');
    const consent = await b.get(loc);
    assert.match(consent.body, /Allow Sync &#60;b&#62;Pro&#60;\/b&#62; to use your Tickler account\?/);
    assert.match(consent.body, /Ann@Example.org/);
    assert.match(consent.body, /See your account details/);
    assert.match(consent.body, /See your tasks, goals, contexts, folders and locations/);
    assert.match(consent.body, /value="allow"/);
    assert.match(consent.body, /value="deny"/);
  });

  it('a session id planted before sign-in is never adopted (no session fixation)', async () => {
    const planted = 'attacker-chosen-session-id';
    const b = new Browser(ctx.app);
    b.cookies.set('tickler_session', planted);
    await signedIn(ctx, app, account, b);
    const issued = b.cookies.get('tickler_session');
    assert.ok(issued && issued !== planted);
    const attacker = new Browser(ctx.app);
    attacker.cookies.set('tickler_session', planted);
    assert.match((await attacker.get(authorizeUrl(app))).body, /Sign in to continue/);
  });

  it('Allow redirects to the registered address with a single-use code and the state', async () => {
    const b = await signedIn(ctx, app, account);
    const res = await decide(b, app, 'allow', { state: 'a b&c=d/é' });
    assert.equal(res.statusCode, 303);
    const loc = new URL(res.headers['location'] as string);
    assert.equal(`${loc.origin}${loc.pathname}`, 'https://app.example.org/callback');
    assert.equal(loc.searchParams.get('state'), 'a b&c=d/é');
    const code = loc.searchParams.get('code') as string;
    assert.match(code, /^[0-9a-f]{40}$/);
    const token = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code });
    assert.equal((token.json() as { scope: string }).scope, 'basic tasks');
  });

  it('a code from a request that named its redirect_uri is exchanged only with that redirect_uri (RFC 6749 4.1.3)', async () => {
    // Another account: each sign-in spends one of the account's ten attempts in this window.
    const b = await signedIn(ctx, app, await createAccount(ctx));
    const res = await decide(b, app, 'allow', { redirect_uri: app.redirectUri });
    const code = new URL(res.headers['location'] as string).searchParams.get('code') as string;
    assert.equal((await tokenRequest(ctx, app, { grant_type: 'authorization_code', code })).json<{ errorCode: number }>().errorCode, 102);
    const ok = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code, redirect_uri: app.redirectUri });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.ok(ok.json<{ access_token?: string }>().access_token);
  });

  it('Cancel on the sign-in step answers the app with access_denied and the state, signing no one in', async () => {
    const b = new Browser(ctx.app);
    const page = await b.get(authorizeUrl(app, { state: 'keep me' }));
    assert.match(page.body, /name="cancel"[^>]*formnovalidate/);
    assert.match(page.body, /id="email"[^>]*autofocus/, 'the first field has the focus');
    const res = await b.post(PATH, { ...hiddenInputs(page.body), cancel: '1' });
    assert.equal(res.statusCode, 303);
    const loc = new URL(res.headers['location'] as string);
    assert.equal(`${loc.origin}${loc.pathname}`, 'https://app.example.org/callback');
    assert.equal(loc.searchParams.get('error'), 'access_denied');
    assert.equal(loc.searchParams.get('state'), 'keep me');
    assert.ok(!b.cookies.has('tickler_session'));
  });

  it('the pages carry the product name and the server address; the consent page says where the answer goes', async () => {
    const signInPage = await new Browser(ctx.app).get(authorizeUrl(app));
    assert.match(signInPage.body, /<a class="brand" href="\/"><img src="\/favicon.svg" alt="">Tickler<\/a><span class="where">127\.0\.0\.1:3000<\/span>/);
    const b = await signedIn(ctx, app, await createAccount(ctx));
    const consent = await b.get(authorizeUrl(app));
    assert.match(consent.body, /Your answer goes to <strong>https:\/\/app.example.org\/callback<\/strong>/);
  });

  it('Deny redirects with error=access_denied and the state', async () => {
    const b = await signedIn(ctx, app, account);
    const res = await decide(b, app, 'deny');
    assert.equal(res.statusCode, 303);
    const loc = new URL(res.headers['location'] as string);
    assert.equal(loc.searchParams.get('error'), 'access_denied');
    assert.equal(loc.searchParams.get('state'), 'st4te');
    assert.equal(loc.searchParams.get('code'), null);
  });

  it('Allow without a session gets the expired page and issues nothing', async () => {
    const b = await signedIn(ctx, app, account);
    const consent = await b.get(authorizeUrl(app));
    b.cookies.delete('tickler_session');
    // The page's token was made for the session: without it, the post is refused before anything
    // reads it (src/web/csrf.ts).
    const stale = await b.post(PATH, { ...hiddenInputs(consent.body), action: 'allow' });
    assert.equal(stale.statusCode, 403);
    assert.equal(stale.headers['location'], undefined);
    assert.match(stale.body, /This form has expired/);
    // With a token of this browser as it is now (a visitor's), the request itself is refused.
    const visitorToken = hiddenInputs((await b.get('/signin')).body)['_csrf'] as string;
    const posted = await b.post(PATH, { ...hiddenInputs(consent.body), _csrf: visitorToken, action: 'allow' });
    // Changed on review: it used to send the browser back to the sign-in form; a consent request
    // belongs to the session it was shown to, and a request without a session has none.
    assert.equal(posted.statusCode, 400);
    assert.equal(posted.headers['location'], undefined);
    assert.match(posted.body, /This page has expired/);
  });

  it('consent is given for the account the page showed, not whoever signed in since in another tab', async () => {
    const other = await createAccount(ctx);
    const b = await signedIn(ctx, app, account);
    const consent = await b.get(authorizeUrl(app));
    // Another tab of the same browser signs in as someone else.
    await b.post(PATH, { ...hiddenInputs(consent.body.slice(consent.body.lastIndexOf('<form'))) });
    await signedIn(ctx, app, other, b);
    // The page's token was made for the first session: refused before anything reads the post.
    const stale = await b.post(PATH, { ...hiddenInputs(consent.body), action: 'allow' });
    assert.equal(stale.statusCode, 403);
    assert.equal(stale.headers['location'], undefined);
    // With a token of the session signed in now, the request itself is refused.
    const nowToken = hiddenInputs((await b.get(authorizeUrl(app))).body)['_csrf'] as string;
    const res = await b.post(PATH, { ...hiddenInputs(consent.body), _csrf: nowToken, action: 'allow' });
    // Changed on review: the page used to be shown again for the account signed in now, carrying
    // the first request's state and challenge; a request belongs to the session it was shown to.
    assert.equal(res.statusCode, 400, 'the page has expired, nothing is issued');
    assert.equal(res.headers['location'], undefined);
    assert.match(res.body, /This page has expired/);
  });

  it("a consent request id used from another browser gets nothing, not even the request's state", async () => {
    // Fresh accounts: the sign-in throttle counts per account, and later tests sign in as `account`.
    const victim = await signedIn(ctx, app, await createAccount(ctx));
    const consent = await victim.get(authorizeUrl(app, { state: 'victim-state-123' }));
    const fields = hiddenInputs(consent.body);
    const signoutFields = hiddenInputs(consent.body.slice(consent.body.lastIndexOf('<form')));
    const attacker = await signedIn(ctx, app, await createAccount(ctx));
    // The attacker's own CSRF token, the victim's request id, each of the answers.
    const own = hiddenInputs((await attacker.get(authorizeUrl(app))).body);
    for (const action of ['allow', 'deny', undefined]) {
      const form = { _csrf: own['_csrf'], request: action === undefined ? signoutFields['request'] : fields['request'], ...(action && { action }) };
      const res = await attacker.post(PATH, form);
      assert.equal(res.statusCode, 400, String(action));
      assert.equal(res.headers['location'], undefined);
      assert.doesNotMatch(res.body, /victim-state-123/);
    }
    // Nor does a browser with no session at all (a CSRF token of its own from the sign-in page).
    const stranger = new Browser(ctx.app);
    const strangerCsrf = hiddenInputs((await stranger.get(authorizeUrl(app))).body)['_csrf'];
    for (const action of ['allow', undefined]) {
      const res = await stranger.post(PATH, { _csrf: strangerCsrf, request: action ? fields['request'] : signoutFields['request'], ...(action && { action }) });
      assert.equal(res.statusCode, 400, `no session, ${String(action)}`);
      assert.equal(res.headers['location'], undefined);
      assert.doesNotMatch(res.body, /victim-state-123/);
    }
    // The victim's own page still works.
    const mine = await victim.post(PATH, { ...fields, action: 'allow' });
    assert.equal(mine.statusCode, 303);
    assert.equal(new URL(mine.headers['location'] as string).searchParams.get('state'), 'victim-state-123');
  });

  it('a device cookie the server did not issue for the account is replaced at sign-in', async () => {
    const b = new Browser(ctx.app);
    b.cookies.set('tickler_device', 'attacker-chosen-value');
    await signedIn(ctx, app, account, b);
    assert.notEqual(b.cookies.get('tickler_device'), 'attacker-chosen-value');
    const { sha256Hex } = await import('../lib/crypto.js');
    assert.equal(await ctx.deps.store.read.accounts.isKnownDevice(account.pk, sha256Hex('attacker-chosen-value')), false);
  });

  it('the hidden fields are checked again on post: a swapped redirect_uri gets an error page', async () => {
    const b = await signedIn(ctx, app, account);
    const consent = await b.get(authorizeUrl(app));
    const res = await b.post(PATH, { ...hiddenInputs(consent.body), redirect_uri: 'https://evil.example/cb', action: 'allow' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.headers['location'], undefined);
  });

  it('sessions end after SESSION_TTL_HOURS', async () => {
    const b = await signedIn(ctx, app, account);
    ctx.clock.advance(ctx.config.sessionTtlSeconds + 1);
    assert.match((await b.get(authorizeUrl(app))).body, /Sign in to continue/);
  });

  it('"Sign in as someone else" ends the session', async () => {
    const b = await signedIn(ctx, app, account);
    const consent = await b.get(authorizeUrl(app));
    const signoutForm = consent.body.slice(consent.body.lastIndexOf('<form'));
    const old = b.cookies.get('tickler_session') as string;
    const res = await b.follow(await b.post(PATH, hiddenInputs(signoutForm)));
    assert.match(res.body, /Sign in to continue/);
    assert.ok(!b.cookies.has('tickler_session'));
    const replay = new Browser(ctx.app);
    replay.cookies.set('tickler_session', old);
    assert.match((await replay.get(authorizeUrl(app))).body, /Sign in to continue/);
  });

  it('keeps a registered query string and supports custom schemes of native apps', async () => {
    for (const uri of ['https://app.example.org/cb?tenant=7', 'com.example.tasks:/oauth2redirect']) {
      const native = await createApp(ctx, uri);
      const b = await signedIn(ctx, native, account);
      const res = await decide(b, native, 'allow');
      const loc = res.headers['location'] as string;
      assert.ok(loc.startsWith(uri.includes('?') ? `${uri}&code=` : `${uri}?code=`), loc);
      assert.match(loc, /&state=st4te$/);
    }
  });

  it('names unknown scope words on the consent page as granting nothing', async () => {
    const b = await signedIn(ctx, app, account);
    const consent = await b.get(authorizeUrl(app, { scope: 'basic folders' }));
    assert.match(consent.body, /folders.*grants nothing/);
  });
});

describe('PKCE (RFC 7636, S256 only)', () => {
  let ctx: TestContext;
  let app: TestApp;
  let account: Account;
  const verifier = 'a-long-random-verifier-of-at-least-43-characters-0123456789';
  let challenge: string;

  before(async () => {
    ctx = await testContext();
    app = await createApp(ctx, 'com.example.tasks:/oauth2redirect', 'Native');
    account = await createAccount(ctx);
    const { createHash } = await import('node:crypto');
    challenge = createHash('sha256').update(verifier).digest('base64url');
  });
  after(() => ctx.close());

  async function codeFor(extra: Record<string, string>): Promise<string> {
    const b = await signedIn(ctx, app, account, new Browser(ctx.app));
    const consent = await b.get(authorizeUrl(app, extra));
    const res = await b.post(PATH, { ...hiddenInputs(consent.body), action: 'allow' });
    return new URL(res.headers['location'] as string).searchParams.get('code') as string;
  }
  const exchange = (code: string, more: Record<string, string> = {}) =>
    tokenRequest(ctx, app, { grant_type: 'authorization_code', code, ...more }).then((r) => r.json() as { errorCode?: number; access_token?: string });

  it('a code issued with a challenge needs the matching verifier; a failed try does not spend it', async () => {
    const code = await codeFor({ code_challenge: challenge, code_challenge_method: 'S256' });
    assert.equal((await exchange(code)).errorCode, 102, 'no verifier');
    assert.equal((await exchange(code, { code_verifier: `${verifier}x` })).errorCode, 102, 'wrong verifier');
    assert.ok((await exchange(code, { code_verifier: verifier })).access_token);
  });

  it('a verifier for a code issued without a challenge is refused (no downgrade)', async () => {
    const code = await codeFor({});
    assert.equal((await exchange(code, { code_verifier: verifier })).errorCode, 102);
  });

  it('plain, or a malformed challenge, goes back to the app as invalid_request', async () => {
    for (const extra of [{ code_challenge: challenge, code_challenge_method: 'plain' }, { code_challenge: challenge }, { code_challenge: 'short', code_challenge_method: 'S256' }]) {
      const res = await new Browser(ctx.app).get(authorizeUrl(app, extra));
      assert.equal(res.statusCode, 302);
      assert.equal(new URL((res.headers['location'] as string).replace('com.example.tasks:', 'https://x')).searchParams.get('error'), 'invalid_request');
    }
  });
});

describe('sign-in throttling', () => {
  let ctx: TestContext;
  let app: TestApp;
  let account: Account;
  before(async () => {
    ctx = await testContext({ RATE_LIMIT_SIGNIN_PER_ACCOUNT: '3/15m', RATE_LIMIT_SIGNIN_PER_ADDRESS: '6/15m' });
    app = await createApp(ctx);
    account = await createAccount(ctx);
  });
  after(() => ctx.close());

  /**
   * A sign-in; its status is what the page shows (signInOutcome): 303 signed in, 200 the form
   * again, 429 throttled. The body and headers are those of the page it comes back to.
   */
  async function attempt(b: Browser, email: string, password: string) {
    const page = await b.get(authorizeUrl(app));
    const posted = await b.post(PATH, { ...hiddenInputs(page.body), email, password });
    const statusCode = signInOutcome(posted, b);
    if (statusCode === 303) return posted;
    const shown = await b.follow(posted);
    assert.equal(shown.statusCode, statusCode);
    assert.equal(posted.headers['retry-after'], shown.headers['retry-after'], 'the post says when to retry, and so does the page');
    return shown;
  }

  it('stops guessing on an account, but not its owner on a browser that signed in before', async () => {
    ctx.clock.set(Date.UTC(2026, 2, 1, 12, 0, 0));
    // The owner's first sign-in from this browser is one of the shared count's three attempts.
    const owner = await signedIn(ctx, app, account, new Browser(ctx.app, '192.0.2.10'));
    owner.cookies.delete('tickler_session');
    const attacker = new Browser(ctx.app, '198.51.100.66');
    for (let i = 0; i < 2; i++) assert.equal((await attempt(attacker, account.email, `guess ${i}`)).statusCode, 200);
    const blocked = await attempt(attacker, account.email, PASSWORD);
    assert.equal(blocked.statusCode, 429, 'even the right password is not tried');
    assert.match(blocked.body, /Too many sign-in attempts/);
    assert.ok(Number(blocked.headers['retry-after']) > 0);
    // A fresh browser of anyone else shares the attacker's count...
    assert.equal((await attempt(new Browser(ctx.app, '203.0.113.5'), account.email, PASSWORD)).statusCode, 429);
    // ...but the owner's known browser has its own.
    assert.equal((await attempt(owner, account.email, PASSWORD)).statusCode, 303);
    ctx.clock.advance(15 * 60);
    assert.equal((await attempt(new Browser(ctx.app, '203.0.113.5'), account.email, PASSWORD)).statusCode, 303);
  });

  it('guesses sent in parallel are counted before the password is checked', async () => {
    ctx.clock.set(Date.UTC(2026, 2, 4, 12, 0, 0));
    const victim = await createAccount(ctx);
    const b = new Browser(ctx.app, '198.51.100.99');
    const fields = hiddenInputs((await b.get(authorizeUrl(app))).body);
    // Twelve wrong guesses and the right password, all at once.
    const guesses = [...Array.from({ length: 12 }, (_, i) => `guess ${i}`), PASSWORD];
    const statuses = await Promise.all(guesses.map((password) => b.post(PATH, { ...fields, email: victim.email, password }).then((r) => signInOutcome(r, b))));
    assert.equal(statuses.filter((s) => s !== 429).length, 3, statuses.join(' '));
    assert.equal(statuses.at(-1), 429, 'the right password, past the limit, was not even tried');
  });

  it('unknown addresses are throttled exactly like real ones (no account enumeration)', async () => {
    ctx.clock.set(Date.UTC(2026, 2, 2, 12, 0, 0));
    const b = new Browser(ctx.app, '198.51.100.77');
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await attempt(b, 'nobody@example.org', 'whatever1')).statusCode);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  });

  it('one address spraying many accounts is stopped', async () => {
    ctx.clock.set(Date.UTC(2026, 2, 3, 12, 0, 0));
    const b = new Browser(ctx.app, '198.51.100.88');
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await attempt(b, `victim${i}@example.org`, 'password1')).statusCode);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429]);
  });

  it("an address past its limit does not spend an account's count (nor add keys for made-up addresses)", async () => {
    ctx.clock.set(Date.UTC(2026, 2, 5, 12, 0, 0));
    const sprayer = new Browser(ctx.app, '198.51.100.111');
    for (let i = 0; i < 6; i++) await attempt(sprayer, `other${i}@example.org`, 'password1');
    for (let i = 0; i < 5; i++) assert.equal((await attempt(sprayer, 'target@example.org', 'password1')).statusCode, 429);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await attempt(new Browser(ctx.app, '203.0.113.111'), 'target@example.org', 'password1')).statusCode);
    assert.deepEqual(statuses, [200, 200, 200, 429], 'the account kept its whole count');
  });
});

describe('authorize page behind https', () => {
  it('uses Secure cookies with the __Host- prefix', async () => {
    const ctx = await testContext({ PUBLIC_URL: 'https://todo.example.org' });
    try {
      const app = await createApp(ctx);
      const account = await createAccount(ctx);
      const b = new Browser(ctx.app, '127.0.0.1', 'https://todo.example.org');
      const page = await b.get(authorizeUrl(app));
      const csrf = page.cookies.find((c) => c.name === '__Host-tickler_csrf') as { secure?: boolean } | undefined;
      assert.ok(csrf?.secure);
      const res = await b.post(PATH, { ...hiddenInputs(page.body), email: account.email, password: PASSWORD });
      assert.equal(res.statusCode, 303);
      const session = res.cookies.find((c) => c.name === '__Host-tickler_session') as { secure?: boolean; path?: string } | undefined;
      assert.ok(session?.secure);
      assert.equal(session?.path, '/');
    } finally {
      await ctx.close();
    }
  });
});
