import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { api, authorize, createAccount, createApp, testContext, tokenRequest, type TestContext } from '../../test/harness.js';
import { multipartBody } from '../../test/multipart-body.js';

/** The hosted service's exact body for a bad token; one client compares it byte for byte. */
const HOSTED_ERROR_2 = '{"errorCode":2,"errorDesc":"Unauthorized","errors":[{"status":"2","message":"Unauthorized"}]}';

describe('where the access token and parameters may arrive', () => {
  let ctx: TestContext;
  let token: string;

  before(async () => {
    ctx = await testContext();
    token = (await authorize(ctx, await createAccount(ctx), await createApp(ctx), 'basic tasks')).access_token;
  });
  after(() => ctx.close());

  const cases: Array<[string, () => InjectOptions]> = [
    ['Bearer header on GET', () => ({ method: 'GET', url: '/3/account/get.php', headers: { authorization: `Bearer ${token}` } })],
    ['lower-case bearer scheme', () => ({ method: 'GET', url: '/3/account/get.php', headers: { authorization: `bearer ${token}` } })],
    ['query string of GET', () => ({ method: 'GET', url: `/3/account/get.php?access_token=${token}` })],
    [
      'query string of a POST with an empty application/json body',
      () => ({ method: 'POST', url: `/3/account/get.php?access_token=${token}`, headers: { 'content-type': 'application/json' }, payload: '' }),
    ],
    [
      'url-encoded POST body',
      () => ({ method: 'POST', url: '/3/account/get.php', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `access_token=${token}` }),
    ],
    [
      'multipart POST body',
      () => {
        const m = multipartBody({ access_token: token });
        return { method: 'POST', url: '/3/account/get.php', headers: { 'content-type': m.contentType }, payload: m.payload };
      },
    ],
    [
      'JSON object body',
      () => ({ method: 'POST', url: '/3/account/get.php', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ access_token: token }) }),
    ],
    [
      'query string of a POST with a body of an unknown type',
      () => ({ method: 'POST', url: `/3/account/get.php?access_token=${token}`, headers: { 'content-type': 'text/plain' }, payload: 'hello' }),
    ],
  ];
  for (const [name, request] of cases) {
    it(`accepts the token in the ${name}`, async () => {
      const res = await ctx.app.inject(request());
      assert.equal(res.statusCode, 200, res.body);
      assert.ok((res.json() as { userid?: string }).userid);
    });
  }

  it('reads f=xml from a multipart body, and from the query when the body has none', async () => {
    const m = multipartBody({ access_token: token, f: 'xml' });
    const res = await ctx.app.inject({ method: 'POST', url: '/3/account/get.php', headers: { 'content-type': m.contentType }, payload: m.payload });
    assert.match(res.body, /^<\?xml[^>]*\?><account>/);
    const res2 = await ctx.app.inject({ method: 'GET', url: `/3/account/get.php?access_token=${token}&f=XML` });
    assert.match(res2.body, /<account>/);
  });

  it('lets the body win over the query string when both carry a parameter', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/3/account/get.php?f=json',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token}` },
      payload: 'f=xml',
    });
    assert.match(res.body, /<account>/);
  });

  it('a Bearer header that is not one token is error 2, not "no token"', async () => {
    for (const authorization of ['Bearer', 'Bearer a b', 'Bearer  ']) {
      const res = await ctx.app.inject({ method: 'GET', url: '/3/account/get.php', headers: { authorization } });
      assert.equal(res.statusCode, 401, authorization);
      assert.equal((res.json() as { errorCode: number }).errorCode, 2, authorization);
    }
  });

  it('refuses two different tokens (header and parameter) with error 2', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/3/account/get.php?access_token=${'0'.repeat(40)}`,
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.statusCode, 401);
    assert.equal((res.json() as { errorCode: number }).errorCode, 2);
  });
});

describe('authentication errors', () => {
  let ctx: TestContext;
  let account: Awaited<ReturnType<typeof createAccount>>;
  let app: Awaited<ReturnType<typeof createApp>>;

  before(async () => {
    ctx = await testContext();
    account = await createAccount(ctx);
    app = await createApp(ctx);
  });
  after(() => ctx.close());

  it('error 1 with HTTP 401 when no token is sent, in JSON and in XML', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/3/account/get.php' });
    assert.equal(res.statusCode, 401);
    assert.equal(res.body, '{"errorCode":1,"errorDesc":"No access token was given"}');
    assert.match(res.headers['www-authenticate'] as string, /^Bearer realm="Tickler"/);
    const xml = await ctx.app.inject({ method: 'GET', url: '/3/account/get.php?f=xml' });
    assert.equal(xml.statusCode, 401);
    assert.equal(xml.body, '<?xml version="1.0" encoding="UTF-8"?><error id="1">No access token was given</error>');
  });

  it('error 2 for an unknown token, byte for byte as the hosted service sends it', async () => {
    const res = await api(ctx, 'f'.repeat(40), '/3/account/get.php');
    assert.equal(res.statusCode, 401);
    assert.equal(res.body, HOSTED_ERROR_2);
    assert.match(res.headers['www-authenticate'] as string, /error="invalid_token"/);
    const xml = await api(ctx, 'f'.repeat(40), '/3/account/get.php', { f: 'xml' });
    assert.equal(xml.body, '<?xml version="1.0" encoding="UTF-8"?><error id="2">Unauthorized</error>');
  });

  it('an access token works for 7200 seconds and then gives error 2', async () => {
    const { access_token } = await authorize(ctx, account, app, 'basic');
    ctx.clock.advance(7199);
    assert.equal((await api(ctx, access_token, '/3/account/get.php')).statusCode, 200);
    ctx.clock.advance(1);
    const res = await api(ctx, access_token, '/3/account/get.php');
    assert.equal(res.statusCode, 401);
    assert.equal(res.body, HOSTED_ERROR_2);
  });

  it('a token without the basic scope cannot read the account: error 2 naming the scope', async () => {
    const { access_token } = await authorize(ctx, account, app, 'tasks write folders');
    const res = await api(ctx, access_token, '/3/account/get.php');
    assert.equal(res.statusCode, 401);
    const body = res.json() as { errorCode: number; errorDesc: string };
    assert.equal(body.errorCode, 2);
    assert.match(body.errorDesc, /scope does not include "basic"/);
    assert.match(res.headers['www-authenticate'] as string, /insufficient_scope/);
  });

  it('a revocation made by another instance is seen once the cache time has passed', async () => {
    const { access_token } = await authorize(ctx, account, app, 'basic');
    assert.equal((await api(ctx, access_token, '/3/account/get.php')).statusCode, 200); // now cached
    const row = await ctx.deps.store.read.oauth.token((await import('../lib/crypto.js')).sha256Hex(access_token));
    // Revoke behind this process's back, as another instance sharing the database would.
    await ctx.deps.store.transaction((tx) => tx.oauth.revokeGrant(row!.grantId, 0, 'test'));
    ctx.clock.advance(ctx.config.tokenCacheSeconds + 1);
    assert.equal((await api(ctx, access_token, '/3/account/get.php')).statusCode, 401);
  });
});

describe('errors of the transport', () => {
  let ctx: TestContext;
  let token: string;

  before(async () => {
    ctx = await testContext({ MAX_BODY_BYTES: String(4 * 1024 * 1024) });
    token = (await authorize(ctx, await createAccount(ctx), await createApp(ctx), 'basic')).access_token;
  });
  after(() => ctx.close());

  it('an unknown path answers 404 with code 0 in the requested format, without echoing the query', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `/3/nothing/here.php?access_token=${token}` });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { errorCode: 0, errorDesc: 'Unknown endpoint: GET /3/nothing/here.php' });
    assert.ok(!res.body.includes(token));
    const xml = await ctx.app.inject({ method: 'GET', url: '/3/nothing.php?f=xml' });
    assert.equal(xml.body, '<?xml version="1.0" encoding="UTF-8"?><error id="0">Unknown endpoint: GET /3/nothing.php</error>');
  });

  it('a URL that cannot be decoded answers 400 with code 0, in the requested format, without echoing it', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `/3/account/get%ZZ.php?access_token=${token}&f=xml` });
    assert.equal(res.statusCode, 400);
    assert.equal(res.body, '<?xml version="1.0" encoding="UTF-8"?><error id="0">Malformed request: the URL could not be read</error>');
    assert.ok(!res.body.includes(token));
  });

  it('a method no endpoint takes answers 405 with Allow, in the API format', async () => {
    for (const method of ['DELETE', 'PUT', 'PATCH', 'OPTIONS'] as const) {
      const res = await ctx.app.inject({ method, url: '/3/account/get.php?f=xml' });
      assert.equal(res.statusCode, 405, method);
      assert.equal(res.headers['allow'], 'GET, POST');
      assert.match(res.body, /<error id="0">Method not allowed/);
    }
  });

  it('a malformed JSON body gets an error record, not a stack trace', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/3/account/get.php?f=xml&access_token=${token}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"access_token": ',
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /^<\?xml[^>]*\?><error id="0">Malformed request/);
    assert.doesNotMatch(res.body, /at .*\.js|SyntaxError/);
  });

  it('a JSON body nested too deeply to handle is treated as absent, never a 500', async () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    const post = (payload: string) =>
      ctx.app.inject({ method: 'POST', url: '/3/account/get.php', headers: { 'content-type': 'application/json' }, payload });
    // The token nested too deeply: no token at all (error 1).
    const noToken = await post(`{"access_token":${deep}}`);
    assert.equal(noToken.statusCode, 401);
    assert.equal((noToken.json() as { errorCode: number }).errorCode, 1);
    // `f` nested too deeply: no format asked for, so JSON.
    const noFormat = await post(`{"access_token":"${token}","f":${deep}}`);
    assert.equal(noFormat.statusCode, 200);
    assert.equal(typeof (noFormat.json() as { userid: unknown }).userid, 'string');
  });

  it('a broken multipart body gets an error record', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/3/account/get.php',
      headers: { 'content-type': 'multipart/form-data; boundary=zzz' },
      payload: '--zzz\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated',
    });
    assert.equal(res.statusCode, 400);
    assert.equal((res.json() as { errorCode: number }).errorCode, 0);
  });

  it('a body over the limit answers 413 with code 0', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/3/account/get.php',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `access_token=${token}&pad=${'a'.repeat(4 * 1024 * 1024)}`,
    });
    assert.equal(res.statusCode, 413);
    assert.deepEqual(res.json(), { errorCode: 0, errorDesc: 'The request body is too large' });
  });

  it('a server fault answers 500 with code 0 and no details', async () => {
    const broken = await testContext();
    const t = (await authorize(broken, await createAccount(broken), await createApp(broken), 'basic')).access_token;
    await broken.deps.store.close();
    const res = await api(broken, t, '/3/account/get.php');
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json(), { errorCode: 0, errorDesc: 'Internal server error' });
    await broken.close();
  });

  it('/healthz answers ok', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });
});

describe('maintenance mode', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await testContext({ MAINTENANCE_MODE: 'true' });
  });
  after(() => ctx.close());

  it('every API call answers error 4 with HTTP 503 and Retry-After', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/3/account/get.php?access_token=x' });
    assert.equal(res.statusCode, 503);
    assert.equal((res.json() as { errorCode: number }).errorCode, 4);
    assert.ok(Number(res.headers['retry-after']) > 0);
    const xml = await ctx.app.inject({ method: 'POST', url: '/3/account/token.php?f=xml' });
    assert.equal(xml.statusCode, 503);
    assert.match(xml.body, /<error id="4">/);
  });

  it('the authorize page says so instead of signing in', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/3/account/authorize.php?client_id=x' });
    assert.equal(res.statusCode, 503);
    assert.match(res.body, /maintenance/i);
  });
});

describe('API rate limits', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await testContext({ RATE_LIMIT_API_PER_USER: '3/1h', RATE_LIMIT_API_PER_CLIENT: '5/1h' });
  });
  after(() => ctx.close());

  it('per user: error 3 with HTTP 429 and Retry-After past the limit, other users unaffected, reset next window', async () => {
    ctx.clock.set(Date.UTC(2026, 0, 1, 10, 0, 0));
    const app = await createApp(ctx);
    const ann = (await authorize(ctx, await createAccount(ctx), app, 'basic')).access_token;
    const bob = (await authorize(ctx, await createAccount(ctx), await createApp(ctx), 'basic')).access_token;
    for (let i = 0; i < 3; i++) assert.equal((await api(ctx, ann, '/3/account/get.php')).statusCode, 200);
    const res = await api(ctx, ann, '/3/account/get.php', { f: 'xml' });
    assert.equal(res.statusCode, 429);
    assert.match(res.body, /<error id="3">Too many API requests<\/error>/);
    assert.equal(res.headers['retry-after'], '3600');
    assert.equal((await api(ctx, bob, '/3/account/get.php')).statusCode, 200);
    // Refreshing the token does not reset the user's count.
    ctx.clock.advance(1800);
    assert.equal((await api(ctx, ann, '/3/account/get.php')).headers['retry-after'], '1800');
    ctx.clock.advance(1800);
    assert.equal((await api(ctx, ann, '/3/account/get.php')).statusCode, 200);
  });

  it('every counted call carries RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers), refused ones beside Retry-After', async () => {
    ctx.clock.set(Date.UTC(2026, 0, 4, 10, 15, 0));
    const app = await createApp(ctx);
    const ann = (await authorize(ctx, await createAccount(ctx), app, 'basic tasks write')).access_token;
    const first = await api(ctx, ann, '/3/account/get.php');
    assert.equal(first.headers['ratelimit-policy'], '"user";q=3;w=3600, "app";q=5;w=3600');
    assert.equal(first.headers['ratelimit'], '"user";r=2;t=2700, "app";r=4;t=2700');
    // Writes too; the body is what it always was.
    const added = await api(ctx, ann, '/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'counted' }]) });
    assert.equal(added.headers['ratelimit'], '"user";r=1;t=2700, "app";r=3;t=2700');
    assert.deepEqual(Object.keys(added.json<Array<Record<string, unknown>>>()[0] ?? {}), ['id', 'title', 'modified', 'completed']);
    ctx.clock.advance(700);
    await api(ctx, ann, '/3/account/get.php');
    const refused = await api(ctx, ann, '/3/account/get.php');
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers['ratelimit-policy'], '"user";q=3;w=3600, "app";q=5;w=3600');
    assert.equal(refused.headers['ratelimit'], '"user";r=0;t=2000, "app";r=1;t=2000');
    assert.equal(refused.headers['retry-after'], '2000');
    ctx.clock.advance(1000);
    // Refused from memory: only the user's count is known.
    const later = await api(ctx, ann, '/3/account/get.php');
    assert.equal(later.headers['ratelimit'], '"user";r=0;t=1000');
    assert.equal(later.headers['retry-after'], '1000');
    // Calls that are not counted carry none: no token, a bad token, an unknown endpoint.
    for (const uncounted of [await api(ctx, '', '/3/account/get.php'), await api(ctx, 'nope', '/3/account/get.php'), await api(ctx, ann, '/3/nothing.php')]) {
      assert.equal(uncounted.headers['ratelimit'], undefined);
      assert.equal(uncounted.headers['ratelimit-policy'], undefined);
    }
  });

  it('per app: all users of one app together', async () => {
    ctx.clock.set(Date.UTC(2026, 0, 2, 10, 0, 0));
    const app = await createApp(ctx);
    const tokens = [];
    for (let i = 0; i < 3; i++) tokens.push((await authorize(ctx, await createAccount(ctx), app, 'basic')).access_token);
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push((await api(ctx, tokens[i % 3] as string, '/3/account/get.php')).statusCode);
    assert.deepEqual(codes, [200, 200, 200, 200, 200, 429]);
  });

  it("a user past their own limit does not use up the app's", async () => {
    ctx.clock.set(Date.UTC(2026, 0, 3, 10, 0, 0));
    const app = await createApp(ctx);
    const greedy = (await authorize(ctx, await createAccount(ctx), app, 'basic')).access_token;
    const other = (await authorize(ctx, await createAccount(ctx), app, 'basic')).access_token;
    const codes = [];
    for (let i = 0; i < 12; i++) codes.push((await api(ctx, greedy, '/3/account/get.php')).statusCode);
    assert.deepEqual(codes, [200, 200, 200, ...Array(9).fill(429)]);
    assert.equal((await api(ctx, other, '/3/account/get.php')).statusCode, 200, 'the app still has room for its other users');
  });
});

describe('logs', () => {
  it('never contain tokens, codes, secrets or passwords', async () => {
    const lines: string[] = [];
    const ctx = await testContext({ LOG_LEVEL: 'info' }, { logStream: { write: (l: string) => void lines.push(l) } });
    try {
      const account = await createAccount(ctx);
      const app = await createApp(ctx);
      const { issueCode } = await import('../../test/harness.js');
      const code = await issueCode(ctx, account, app, 'basic');
      const exchange = await ctx.app.inject({
        method: 'POST',
        url: `/3/account/token.php?grant_type=authorization_code&code=${code}&client_id=${app.clientId}&client_secret=${app.clientSecret}`,
      });
      const tokens = exchange.json() as { access_token: string; refresh_token: string };
      await ctx.app.inject({ method: 'GET', url: `/3/account/get.php?access_token=${tokens.access_token}` });
      await api(ctx, tokens.access_token, '/3/account/get.php');
      await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
      await ctx.app.inject({ method: 'GET', url: `/3/nothing.php?access_token=${tokens.access_token}&refresh_token=${tokens.refresh_token}` });
      // Percent-encoded names are read as the plain ones, so they must be redacted too.
      const encoded = await ctx.app.inject({ method: 'GET', url: `/3/account/get.php?access%5Ftoken=${tokens.access_token}&f=xml` });
      assert.equal(encoded.statusCode, 200, 'the encoded name authenticates');
      await ctx.app.inject({ method: 'GET', url: `/3/account/get.php?%61ccess_token=${tokens.access_token}&ACCESS_TOKEN=${tokens.access_token}` });
      // A consent request id is a bearer of a pending authorization: redacted too.
      const pendingId = 'p'.repeat(43);
      await ctx.app.inject({ method: 'GET', url: `/3/account/authorize.php?request=${pendingId}` });
      // The secrets of reset and invitation links, and of a revocation in the query.
      const { makeInvite, makeResetLink } = await import('../features/users/links.service.js');
      const links = [await makeResetLink(ctx.deps, account.pk, 3600), await makeInvite(ctx.deps, account.pk, '')].map((l) => new URL(l.url));
      for (const l of links) await ctx.app.inject({ method: 'GET', url: `${l.pathname}${l.search}` });
      await ctx.app.inject({ method: 'POST', url: `/3/account/revoke.php?token=${tokens.refresh_token}`, headers: { authorization: app.basic } });
      const linkSecrets = links.map((l) => [...l.searchParams.values()][0] as string);
      const log = lines.join('');
      assert.ok(!log.includes(pendingId), 'the consent request id is not logged');
      assert.ok(lines.length >= 5, 'one line per request');
      for (const secret of [code, tokens.access_token, tokens.refresh_token, app.clientSecret, ...linkSecrets]) {
        assert.ok(!log.includes(secret), `log contains ${secret.slice(0, 6)}…`);
      }
      assert.match(log, /access_token=\[redacted\]/);
    } finally {
      await ctx.close();
    }
  });
});
