import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import {
  api,
  authorize,
  createAccount,
  createApp,
  issueCode,
  testContext,
  tokenRequest,
  type TestApp,
  type TestContext,
  type TokenPair,
} from '../../test/harness.js';
import { CLOSING, CONTENT_TYPE, multipartBody, part } from '../../test/multipart-body.js';
import { RUBY_SAMPLE_SCOPE, rubySampleTokenRequest, type RubySampleRequest } from '../../test/ruby-sample.js';
import { withContext } from '../../test/with-context.js';
import { sha256Hex } from '../lib/crypto.js';
import type { Account } from '../storage/store.js';

const errorCode = (res: { json(): unknown }): number | undefined => (res.json() as { errorCode?: number }).errorCode;

describe('token endpoint', () => {
  let ctx: TestContext;
  let account: Account;
  let app: TestApp;

  before(async () => {
    ctx = await testContext();
    account = await createAccount(ctx);
    app = await createApp(ctx);
  });
  after(() => ctx.close());

  describe('authorization_code grant', () => {
    it('exchanges a code (HTTP Basic) for the documented token response', async () => {
      const code = await issueCode(ctx, account, app, 'basic tasks');
      const res = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code, vers: '1.2.3', os: '14', device: 'Pixel', udid: 'abc' });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['pragma'], 'no-cache');
      const body = res.json() as TokenPair;
      assert.deepEqual(Object.keys(body), ['access_token', 'expires_in', 'token_type', 'scope', 'refresh_token']);
      assert.equal(body.expires_in, 7200);
      assert.equal(body.token_type, 'Bearer');
      assert.equal(body.scope, 'basic tasks');
      assert.match(body.access_token, /^[0-9a-f]{40}$/);
      assert.match(body.refresh_token, /^[0-9a-f]{40}$/);
      assert.notEqual(body.access_token, body.refresh_token);
      // Stored only as hashes; client statistics recorded.
      const row = await ctx.deps.store.read.oauth.token(sha256Hex(body.access_token));
      assert.ok(row);
      const grant = await ctx.deps.store.read.oauth.grant(row.grantId);
      assert.deepEqual([grant?.vers, grant?.os, grant?.device, grant?.udid], ['1.2.3', '14', 'Pixel', 'abc']);
      assert.equal((await api(ctx, body.access_token, '/3/account/get.php')).statusCode, 200);
    });

    it('accepts client_id and client_secret in the form instead of Basic', async () => {
      const code = await issueCode(ctx, account, app);
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/3/account/token.php',
        payload: { grant_type: 'authorization_code', code, client_id: app.clientId, client_secret: app.clientSecret },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.ok((res.json() as TokenPair).access_token);
    });

    it('accepts the same credentials in both places, refuses two different ones', async () => {
      const code = await issueCode(ctx, account, app);
      const other = await createApp(ctx);
      const both = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code, client_id: other.clientId, client_secret: other.clientSecret });
      assert.equal(errorCode(both), 102);
      const same = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code, client_id: app.clientId, client_secret: app.clientSecret });
      assert.equal(same.statusCode, 200, same.body);
    });

    it('accepts a multipart body and parameters in the query string of a POST', async () => {
      const code = await issueCode(ctx, account, app);
      const { payload, contentType } = multipartBody({ grant_type: 'authorization_code', code, f: 'xml' });
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/3/account/token.php',
        headers: { authorization: app.basic, 'content-type': contentType },
        payload,
      });
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /^<\?xml version="1.0" encoding="UTF-8"\?><response><access_token>[0-9a-f]{40}<\/access_token><expires_in>7200<\/expires_in><token_type>Bearer<\/token_type><scope>basic tasks write<\/scope><refresh_token>[0-9a-f]{40}<\/refresh_token><\/response>$/);

      const code2 = await issueCode(ctx, account, app);
      const q = await ctx.app.inject({
        method: 'POST',
        url: `/3/account/token.php?grant_type=authorization_code&code=${code2}`,
        headers: { authorization: app.basic, 'content-type': 'application/json' },
        payload: '',
      });
      assert.equal(q.statusCode, 200, q.body);
    });

    it('echoes the requested scope string exactly, unknown words and odd spacing included', async () => {
      const t = await authorize(ctx, account, app, 'basic tasks folders write');
      assert.equal(t.scope, 'basic tasks folders write');
      const spaced = await authorize(ctx, account, app, 'basic  tasks\twrite');
      assert.equal(spaced.scope, 'basic  tasks\twrite');
      assert.equal((await api(ctx, spaced.access_token, '/3/account/get.php')).statusCode, 200);
    });

    it('fails with 102 (HTTP 200) on a wrong secret or an unknown client, without spending the code', async () => {
      const code = await issueCode(ctx, account, app);
      const wrong = { ...app, basic: `Basic ${Buffer.from(`${app.clientId}:${'0'.repeat(40)}`).toString('base64')}` };
      const res = await tokenRequest(ctx, wrong, { grant_type: 'authorization_code', code });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { errorCode: 102, errorDesc: 'Error requesting a token: invalid client credentials' });
      const unknown = { ...app, basic: `Basic ${Buffer.from(`nobody:${app.clientSecret}`).toString('base64')}` };
      assert.equal(errorCode(await tokenRequest(ctx, unknown, { grant_type: 'authorization_code', code })), 102);
      const none = await ctx.app.inject({ method: 'POST', url: '/3/account/token.php', payload: { grant_type: 'authorization_code', code } });
      assert.equal(errorCode(none), 102);
      assert.equal((await tokenRequest(ctx, app, { grant_type: 'authorization_code', code })).statusCode, 200);
    });

    it('a replayed code fails with 102 and revokes the tokens issued from it', async () => {
      const code = await issueCode(ctx, account, app);
      const first = (await tokenRequest(ctx, app, { grant_type: 'authorization_code', code })).json() as TokenPair;
      assert.equal((await api(ctx, first.access_token, '/3/account/get.php')).statusCode, 200);
      const replay = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code });
      assert.equal(errorCode(replay), 102);
      assert.match((replay.json() as { errorDesc: string }).errorDesc, /already used/);
      assert.equal((await api(ctx, first.access_token, '/3/account/get.php')).statusCode, 401, 'access token revoked at once');
      const refresh = await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
      assert.equal(errorCode(refresh), 102, 'refresh token revoked');
    });

    it("a code of another app fails with 102 and stays usable by its own app", async () => {
      const other = await createApp(ctx);
      const code = await issueCode(ctx, account, app);
      assert.equal(errorCode(await tokenRequest(ctx, other, { grant_type: 'authorization_code', code })), 102);
      assert.equal((await tokenRequest(ctx, app, { grant_type: 'authorization_code', code })).statusCode, 200);
    });

    it('a code expires after AUTH_CODE_TTL_SECONDS (600 by default)', async () => {
      const code = await issueCode(ctx, account, app);
      ctx.clock.advance(600);
      const res = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code });
      assert.equal(errorCode(res), 102);
      assert.match((res.json() as { errorDesc: string }).errorDesc, /expired/);
    });

    it('a redirect_uri, if sent, must be the registered one', async () => {
      const code = await issueCode(ctx, account, app);
      assert.equal(errorCode(await tokenRequest(ctx, app, { grant_type: 'authorization_code', code, redirect_uri: 'https://evil.example/cb' })), 102);
      const ok = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code, redirect_uri: app.redirectUri });
      assert.equal(ok.statusCode, 200, ok.body);
    });

    it('a redirect_uri sent to authorize must come again, identical (RFC 6749 4.1.3); failing does not spend the code', async () => {
      const registered = app.redirectUri;
      const code = await issueCode(ctx, account, app, 'basic', { redirectUri: registered });
      const missing = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code });
      assert.equal(errorCode(missing), 102);
      assert.match((missing.json() as { errorDesc: string }).errorDesc, /redirect_uri is required/);
      for (const other of [`${registered}/`, ` ${registered}`, registered.toUpperCase(), 'https://evil.example/cb']) {
        const res = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code, redirect_uri: other });
        assert.equal(errorCode(res), 102, other);
      }
      const ok = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code, redirect_uri: registered });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.ok((ok.json() as TokenPair).access_token, 'the failed exchanges left the code unspent');
    });

    it('missing or unknown grant_type, missing code: 102', async () => {
      const forms: Array<Record<string, string>> = [
        { code: 'x' },
        { grant_type: 'password', username: 'a', password: 'b' },
        { grant_type: 'authorization_code' },
        { grant_type: 'authorization_code', code: 'nope' },
      ];
      for (const form of forms) {
        assert.equal(errorCode(await tokenRequest(ctx, app, form)), 102, JSON.stringify(form));
      }
    });

    it('answers errors in XML when asked', async () => {
      const res = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code: 'nope', f: 'xml' });
      assert.equal(res.body, '<?xml version="1.0" encoding="UTF-8"?><error id="102">Error requesting a token: invalid authorization code</error>');
    });

    it('every answer, errors included, carries Cache-Control: no-store and Pragma: no-cache (RFC 6749 5.1, 5.2)', async () => {
      const code = await issueCode(ctx, account, app);
      const answers = {
        token: await tokenRequest(ctx, app, { grant_type: 'authorization_code', code }),
        102: await tokenRequest(ctx, app, { grant_type: 'authorization_code', code: 'nope' }),
        'malformed body': await ctx.app.inject({
          method: 'POST',
          url: '/3/account/token.php',
          headers: { authorization: app.basic, 'content-type': 'application/json' },
          payload: '{nope',
        }),
        101: await ctx.app.inject({ method: 'POST', url: '/3/account/token.php', remoteAddress: '203.0.113.9', payload: { grant_type: 'authorization_code', code } }),
        405: await ctx.app.inject({ method: 'GET', url: '/3/account/token.php' }),
      };
      for (const [name, res] of Object.entries(answers)) {
        assert.equal(res.headers['cache-control'], 'no-store', name);
        assert.equal(res.headers['pragma'], 'no-cache', name);
      }
    });

    it('one value sent in the query and again in the body counts once: the Ruby sample exchanges its code and refreshes', async () => {
      // An account of its own: the token requests of the others count against RATE_LIMIT_TOKEN_PER_USER.
      const rubyUser = await createAccount(ctx);
      const code = await issueCode(ctx, rubyUser, app, RUBY_SAMPLE_SCOPE);
      const send = (r: RubySampleRequest) => ctx.app.inject({ method: 'POST', url: r.url, headers: r.headers, payload: r.body });
      const exchanged = await send(rubySampleTokenRequest(app.clientId, app.clientSecret, { code }));
      assert.equal(exchanged.statusCode, 200, exchanged.body);
      const tokens = exchanged.json() as TokenPair;
      assert.equal(tokens.scope, RUBY_SAMPLE_SCOPE);
      assert.equal((await api(ctx, tokens.access_token, '/3/account/get.php')).statusCode, 200);
      const refreshed = await send(rubySampleTokenRequest(app.clientId, app.clientSecret, { refreshToken: tokens.refresh_token }));
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      assert.equal((refreshed.json() as TokenPair).scope, RUBY_SAMPLE_SCOPE);
      // The same request with another client_id in its query names two apps: refused, nothing spent.
      const other = await createApp(ctx);
      const next = await issueCode(ctx, rubyUser, app, RUBY_SAMPLE_SCOPE);
      const sample = rubySampleTokenRequest(app.clientId, app.clientSecret, { code: next });
      const mixed = await send({ ...sample, url: sample.url.replace(app.clientId, other.clientId) });
      assert.deepEqual(mixed.json(), { errorCode: 102, errorDesc: 'Error requesting a token: client_id was sent more than once' });
      assert.equal((await send(sample)).statusCode, 200, 'the refused request did not spend the code');
    });

    it('a parameter sent twice (within the query, within the body, or in both with different values) is refused with 102 (RFC 6749 3.2), before anything is spent', async () => {
      const code = await issueCode(ctx, account, app);
      const post = (url: string, payload: string, contentType = 'application/x-www-form-urlencoded') =>
        ctx.app.inject({ method: 'POST', url, headers: { authorization: app.basic, 'content-type': contentType }, payload });
      const twice = await post('/3/account/token.php', `grant_type=authorization_code&code=${code}&code=${code}`);
      assert.deepEqual(twice.json(), { errorCode: 102, errorDesc: 'Error requesting a token: code was sent more than once' });
      const both = await post(`/3/account/token.php?code=${code.replace(/.$/, (c) => (c === '0' ? '1' : '0'))}`, `grant_type=authorization_code&code=${code}`);
      assert.deepEqual(both.json(), { errorCode: 102, errorDesc: 'Error requesting a token: code was sent more than once' }, 'different values in the query and in the body');
      const sameInBothButTwiceInBody = await post(`/3/account/token.php?code=${code}`, `grant_type=authorization_code&code=${code}&code=${code}`);
      assert.equal(errorCode(sameInBothButTwiceInBody), 102, 'twice in the body, whatever the query holds');
      const multipart = await post('/3/account/token.php', `${part('grant_type', 'authorization_code')}${part('code', code)}${part('code', code)}${CLOSING}`, CONTENT_TYPE);
      assert.equal(errorCode(multipart), 102, 'twice in a multipart body');
      const emptyToo = await post('/3/account/token.php', `grant_type=authorization_code&redirect_uri=&redirect_uri=${encodeURIComponent(app.redirectUri)}&code=${code}`);
      assert.match((emptyToo.json() as { errorDesc: string }).errorDesc, /redirect_uri was sent more than once/);
      const secret = await post('/3/account/token.php', `grant_type=authorization_code&code=${code}&client_secret=a&client_secret=b`);
      assert.equal(errorCode(secret), 102);
      // Parameters the endpoint does not read are ignored, repeated or not (RFC 6749 3.1).
      const ok = await post('/3/account/token.php', `grant_type=authorization_code&code=${code}&extra=1&extra=2`);
      assert.equal(ok.statusCode, 200, ok.body);
      assert.ok((ok.json() as TokenPair).access_token, 'the refused requests did not spend the code');
    });

    it('GET is refused: codes and secrets must not travel in URLs', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/3/account/token.php?grant_type=authorization_code&code=x' });
      assert.equal(res.statusCode, 405);
      assert.equal(res.headers['allow'], 'POST');
    });

    it('a malformed body is error 102', async () => {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/3/account/token.php',
        headers: { authorization: app.basic, 'content-type': 'application/json' },
        payload: '{nope',
      });
      assert.equal(res.statusCode, 200);
      assert.equal(errorCode(res), 102);
    });
  });

  describe('refresh_token grant', () => {
    let tokens: TokenPair;
    beforeEach(async () => {
      tokens = await authorize(ctx, account, app, 'basic tasks');
    });

    it('rotates: new access and refresh tokens, the old refresh token is spent', async () => {
      const res = await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, vers: '2' });
      assert.equal(res.statusCode, 200);
      const next = res.json() as TokenPair;
      assert.notEqual(next.access_token, tokens.access_token);
      assert.notEqual(next.refresh_token, tokens.refresh_token);
      assert.equal(next.scope, 'basic tasks');
      assert.equal(next.expires_in, 7200);
      assert.equal((await api(ctx, next.access_token, '/3/account/get.php')).statusCode, 200);
      // The previous access token stays valid until it expires (it was not stolen; only rotated).
      assert.equal((await api(ctx, tokens.access_token, '/3/account/get.php')).statusCode, 200);
    });

    it('a replayed refresh token fails with 102 and revokes the whole family', async () => {
      const next = (await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).json() as TokenPair;
      // Past REFRESH_TOKEN_REUSE_SECONDS (30 by default): within them the same answer comes back (below).
      ctx.clock.advance(30);
      const replay = await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
      assert.equal(errorCode(replay), 102);
      assert.match((replay.json() as { errorDesc: string }).errorDesc, /already used/);
      assert.equal((await api(ctx, next.access_token, '/3/account/get.php')).statusCode, 401);
      assert.equal((await api(ctx, tokens.access_token, '/3/account/get.php')).statusCode, 401);
      assert.equal(errorCode(await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: next.refresh_token })), 102);
    });

    it('expires after 30 days unused, not before', async () => {
      ctx.clock.advance(30 * 86400 - 1);
      const ok = await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
      assert.equal(ok.statusCode, 200);
      const next = ok.json() as TokenPair;
      ctx.clock.advance(30 * 86400);
      const res = await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: next.refresh_token });
      assert.equal(errorCode(res), 102);
      assert.match((res.json() as { errorDesc: string }).errorDesc, /expired/);
    });

    it('belongs to its app: another app cannot use it', async () => {
      const other = await createApp(ctx);
      assert.equal(errorCode(await tokenRequest(ctx, other, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })), 102);
      assert.equal((await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).statusCode, 200);
    });

    it('may narrow the scope, never widen it', async () => {
      const wide = await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'basic tasks write' });
      assert.equal(errorCode(wide), 102);
      const narrow = await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'basic' });
      assert.equal(narrow.statusCode, 200);
      assert.equal((narrow.json() as TokenPair).scope, 'basic');
    });

    it('a narrowed scope works whatever white space separates it, and an omitted one restores the original', async () => {
      const narrow = (await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'basic\ttasks' })).json() as TokenPair;
      assert.equal(narrow.scope, 'basic\ttasks', 'echoed as requested');
      assert.equal((await api(ctx, narrow.access_token, '/3/account/get.php')).statusCode, 200, 'and it grants basic');
      const only = (await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: narrow.refresh_token, scope: 'tasks' })).json() as TokenPair;
      assert.equal((await api(ctx, only.access_token, '/3/account/get.php')).statusCode, 401, 'basic narrowed away');
      const back = (await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: only.refresh_token })).json() as TokenPair;
      assert.equal(back.scope, 'basic tasks');
      assert.equal((await api(ctx, back.access_token, '/3/account/get.php')).statusCode, 200);
    });

    it('an access token is not a refresh token', async () => {
      assert.equal(errorCode(await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: tokens.access_token })), 102);
    });
  });
});

describe('refresh token absolute lifetime', () => {
  it('no family outlives REFRESH_TOKEN_MAX_AGE_DAYS, however often it is refreshed', async () => {
    await withContext({ REFRESH_TOKEN_MAX_AGE_DAYS: '2' }, async (ctx) => {
      const app = await createApp(ctx);
      let t = await authorize(ctx, await createAccount(ctx), app, 'basic');
      for (let i = 0; i < 3; i++) {
        ctx.clock.advance(12 * 3600);
        const res = await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: t.refresh_token });
        assert.equal(res.statusCode, 200, res.body);
        t = res.json() as TokenPair;
      }
      // 36 hours in: the last access token is cut to the family's end, not a full 2 hours later.
      ctx.clock.advance(11 * 3600);
      const late = (await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: t.refresh_token })).json() as TokenPair;
      assert.equal(late.expires_in, 3600);
      ctx.clock.advance(3600);
      assert.equal((await api(ctx, late.access_token, '/3/account/get.php')).statusCode, 401);
      const res = await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: late.refresh_token });
      assert.equal(errorCode(res), 102);
    });
  });
});

describe('transport security (error 101)', () => {
  let ctx: TestContext;
  let trusted: TestContext;
  before(async () => {
    ctx = await testContext();
    trusted = await testContext({ TRUST_PROXY: '10.0.0.1' });
  });
  after(async () => {
    await ctx.close();
    await trusted.close();
  });

  const exchange = (c: TestContext, app: TestApp, code: string, remoteAddress: string, headers: Record<string, string> = {}) =>
    c.app.inject({
      method: 'POST',
      url: '/3/account/token.php',
      remoteAddress,
      headers: { authorization: app.basic, ...headers },
      payload: { grant_type: 'authorization_code', code },
    });

  it('plain HTTP from another machine is refused with 101; loopback is allowed', async () => {
    const app = await createApp(ctx);
    const account = await createAccount(ctx);
    const code = await issueCode(ctx, account, app);
    const res = await exchange(ctx, app, code, '203.0.113.9');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { errorCode: 101, errorDesc: 'SSL connection is required' });
    // A client cannot talk its way in with a header when no proxy is trusted.
    assert.equal(errorCode(await exchange(ctx, app, code, '203.0.113.9', { 'x-forwarded-proto': 'https' })), 101);
    assert.equal((await exchange(ctx, app, code, '::1')).statusCode, 200);
  });

  it('101 takes f=xml from the body as every other token error does, whatever the body holds', async () => {
    const app = await createApp(ctx);
    const xml101 = '<?xml version="1.0" encoding="UTF-8"?><error id="101">SSL connection is required</error>';
    const form = await ctx.app.inject({
      method: 'POST',
      url: '/3/account/token.php',
      remoteAddress: '203.0.113.9',
      headers: { authorization: app.basic, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=authorization_code&code=x&f=xml',
    });
    assert.equal(form.body, xml101);
    const { payload, contentType } = multipartBody({ grant_type: 'authorization_code', code: 'x', f: 'xml' });
    const multipart = await ctx.app.inject({ method: 'POST', url: '/3/account/token.php', remoteAddress: '203.0.113.9', headers: { 'content-type': contentType }, payload });
    assert.equal(multipart.body, xml101);
    const unreadable = await ctx.app.inject({
      method: 'POST',
      url: '/3/account/token.php?f=xml',
      remoteAddress: '203.0.113.9',
      headers: { 'content-type': 'application/json' },
      payload: '{nope',
    });
    assert.equal(unreadable.body, xml101, 'an unreadable body is still refused for its transport, in the format of the query');
  });

  it('behind a trusted proxy, X-Forwarded-Proto decides', async () => {
    const app = await createApp(trusted);
    const account = await createAccount(trusted);
    const fwd = { 'x-forwarded-for': '198.51.100.7' };
    const code = await issueCode(trusted, account, app);
    assert.equal(errorCode(await exchange(trusted, app, code, '10.0.0.1', { ...fwd, 'x-forwarded-proto': 'http' })), 101);
    const ok = await exchange(trusted, app, code, '10.0.0.1', { ...fwd, 'x-forwarded-proto': 'https' });
    assert.equal(ok.statusCode, 200, ok.body);
    // The same headers from an untrusted address count for nothing.
    const code2 = await issueCode(trusted, account, app);
    assert.equal(errorCode(await exchange(trusted, app, code2, '10.0.0.2', { ...fwd, 'x-forwarded-proto': 'https' })), 101);
  });

  it('with TRUST_PROXY=true a forged X-Forwarded-For: 127.0.0.1 does not pass for the loopback address', async () => {
    await withContext({ TRUST_PROXY: 'true' }, async (all) => {
      const app = await createApp(all);
      const code = await issueCode(all, await createAccount(all), app);
      for (const xff of ['127.0.0.1', '::1', '127.0.0.1, 127.0.0.1']) {
        assert.equal(errorCode(await exchange(all, app, code, '203.0.113.9', { 'x-forwarded-for': xff })), 101, xff);
      }
      assert.equal((await exchange(all, app, code, '127.0.0.1')).statusCode, 200, 'a client on this machine still may');
    });
  });

  it('behind a proxy on this machine, plain HTTP it relays from elsewhere is refused, even without X-Forwarded-For', async () => {
    await withContext({ TRUST_PROXY: 'loopback' }, async (local) => {
      const app = await createApp(local);
      const account = await createAccount(local);
      const code = await issueCode(local, account, app);
      const relayed: Array<Record<string, string>> = [
        { 'x-forwarded-proto': 'http' },
        { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'http' },
        { 'x-forwarded-for': '127.0.0.1, 203.0.113.9' },
      ];
      for (const headers of relayed) assert.equal(errorCode(await exchange(local, app, code, '127.0.0.1', headers)), 101, JSON.stringify(headers));
      const ok = await exchange(local, app, code, '127.0.0.1', { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https' });
      assert.equal(ok.statusCode, 200, ok.body);
      const direct = await exchange(local, app, await issueCode(local, account, app), '::1');
      assert.equal(direct.statusCode, 200, 'a client on this machine talking to the server directly');
    });
  });
});

describe('token rate limits (error 103)', () => {
  it('failed client authentications: 103 with HTTP 429 and Retry-After, per client id and address', async () => {
    await withContext({ RATE_LIMIT_TOKEN_AUTH_FAILURES: '3/1h' }, async (ctx) => {
      const app = await createApp(ctx);
      const bad = { ...app, basic: `Basic ${Buffer.from(`${app.clientId}:wrong`).toString('base64')}` };
      for (let i = 0; i < 3; i++) assert.equal(errorCode(await tokenRequest(ctx, bad, { grant_type: 'authorization_code', code: 'x' })), 102);
      const res = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code: 'x', f: 'xml' });
      assert.equal(res.statusCode, 429);
      assert.match(res.body, /<error id="103">/);
      assert.ok(Number(res.headers['retry-after']) > 0);
      // Another app is not affected.
      const other = await createApp(ctx);
      assert.equal(errorCode(await tokenRequest(ctx, other, { grant_type: 'authorization_code', code: 'x' })), 102);
    });
  });

  it("a stranger's wrong secrets do not lock the real app out, and authenticated requests have their own budget", async () => {
    await withContext({ RATE_LIMIT_TOKEN_AUTH_FAILURES: '3/1h', RATE_LIMIT_TOKEN_PER_CLIENT: '3/1h' }, async (ctx) => {
      const app = await createApp(ctx);
      const account = await createAccount(ctx);
      const wrong = { grant_type: 'authorization_code', code: 'x', client_id: app.clientId, client_secret: 'wrong' };
      // Another machine (a loopback address other than the app's, so that plain HTTP is allowed).
      const stranger = [];
      for (let i = 0; i < 5; i++) {
        const res = await ctx.app.inject({ method: 'POST', url: '/3/account/token.php', remoteAddress: '127.0.0.66', payload: wrong });
        stranger.push(errorCode(res));
      }
      assert.deepEqual(stranger, [102, 102, 102, 103, 103]);
      const statuses = [];
      for (let i = 0; i < 4; i++) {
        const code = await issueCode(ctx, account, app, 'basic');
        statuses.push((await tokenRequest(ctx, app, { grant_type: 'authorization_code', code })).statusCode);
      }
      assert.deepEqual(statuses, [200, 200, 200, 429]);
    });
  });

  it("per app: RATE_LIMIT_TOKEN_PER_CLIENT counts the app's authenticated requests only, not failures", async () => {
    await withContext({ RATE_LIMIT_TOKEN_PER_CLIENT: '2/1h' }, async (ctx) => {
      const app = await createApp(ctx);
      const bad = { ...app, basic: `Basic ${Buffer.from(`${app.clientId}:wrong`).toString('base64')}` };
      for (let i = 0; i < 5; i++) assert.equal(errorCode(await tokenRequest(ctx, bad, { grant_type: 'authorization_code', code: 'x' })), 102);
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        const code = await issueCode(ctx, await createAccount(ctx), app, 'basic');
        statuses.push((await tokenRequest(ctx, app, { grant_type: 'authorization_code', code })).statusCode);
      }
      assert.deepEqual(statuses, [200, 200, 429], 'two users of one app, then the ceiling');
    });
  });

  it('per user: checked before the code is spent', async () => {
    await withContext({ RATE_LIMIT_TOKEN_PER_USER: '2/1h' }, async (ctx) => {
      const app = await createApp(ctx);
      const account = await createAccount(ctx);
      await authorize(ctx, account, app);
      await authorize(ctx, account, app);
      const code = await issueCode(ctx, account, app);
      const res = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code });
      assert.equal(res.statusCode, 429);
      assert.equal(errorCode(res), 103);
      ctx.clock.advance(3600);
      assert.equal((await tokenRequest(ctx, app, { grant_type: 'authorization_code', code })).statusCode, 200, 'the code was not spent');
      // Another user of the same app is not affected.
      assert.ok((await authorize(ctx, await createAccount(ctx), app)).access_token);
    });
  });
});

describe('token RateLimit fields (draft-ietf-httpapi-ratelimit-headers)', () => {
  it("state the app's ceiling and, for a request about a user, the user's limit; refusals say r=0 beside Retry-After; failed authentications say nothing", async () => {
    await withContext({ RATE_LIMIT_TOKEN_PER_USER: '2/1h', RATE_LIMIT_TOKEN_PER_CLIENT: '10/1h' }, async (ctx) => {
      // The test clock starts half past the hour.
      const app = await createApp(ctx);
      const account = await createAccount(ctx);
      const ok = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code: await issueCode(ctx, account, app) });
      assert.equal(ok.statusCode, 200);
      assert.equal(ok.headers['ratelimit-policy'], '"app";q=10;w=3600, "user";q=2;w=3600');
      assert.equal(ok.headers['ratelimit'], '"app";r=9;t=1800, "user";r=1;t=1800');
      await authorize(ctx, account, app);
      const refused = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code: await issueCode(ctx, account, app) });
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.headers['ratelimit'], '"app";r=7;t=1800, "user";r=0;t=1800');
      assert.equal(refused.headers['retry-after'], '1800');
      // No user named (an unknown code): the app's ceiling only.
      const unknown = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code: 'nope' });
      assert.equal(errorCode(unknown), 102);
      assert.equal(unknown.headers['ratelimit-policy'], '"app";q=10;w=3600');
      assert.equal(unknown.headers['ratelimit'], '"app";r=6;t=1800');
      const bad = await tokenRequest(ctx, { ...app, basic: `Basic ${Buffer.from(`${app.clientId}:wrong`).toString('base64')}` }, { grant_type: 'authorization_code', code: 'x' });
      assert.equal(errorCode(bad), 102);
      assert.equal(bad.headers['ratelimit'], undefined);
      assert.equal(bad.headers['ratelimit-policy'], undefined);
      // Revocation counts in the app's ceiling too.
      const revoked = await ctx.app.inject({ method: 'POST', url: '/3/account/revoke.php', headers: { authorization: app.basic }, payload: { token: 'nope' } });
      assert.equal(revoked.headers['ratelimit'], '"app";r=5;t=1800');
    });
  });
});

describe('XML token response', () => {
  it('has root <response> with one child per field', async () => {
    await withContext({}, async (ctx) => {
      const app = await createApp(ctx);
      const code = await issueCode(ctx, await createAccount(ctx), app, 'basic');
      const res = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code, f: 'xml' });
      const parsed = new XMLParser({ parseTagValue: false }).parse(res.body) as { response: Record<string, string> };
      assert.deepEqual(Object.keys(parsed.response), ['access_token', 'expires_in', 'token_type', 'scope', 'refresh_token']);
      assert.equal(parsed.response['expires_in'], '7200');
    });
  });
});
