import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, authorize, createAccount, createApp, signIn, testContext, tokenRequest, type TestApp, type TestContext } from '../../test/harness.js';
import { REVOKE_PATH } from './revoke.routes.js';

/** RFC 7009 token revocation at /3/account/revoke.php: an app signs out. */

let ctx: TestContext;
before(async () => {
  ctx = await testContext();
});
after(() => ctx.close());

function revoke(app: TestApp | null, form: Record<string, string>, extra: { remoteAddress?: string; url?: string; body?: string } = {}) {
  return ctx.app.inject({
    method: 'POST',
    url: extra.url ?? REVOKE_PATH,
    remoteAddress: extra.remoteAddress ?? '127.0.0.1',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(app && { authorization: app.basic }) },
    payload: extra.body ?? new URLSearchParams(form).toString(),
  });
}

describe('token revocation (RFC 7009)', () => {
  it('a refresh token ends its family: the access token and the refresh token stop at once', async () => {
    const { app, token } = await signIn(ctx);
    // A second authorization of the same app, whose refresh token the app revokes.
    const pair = await authorize(ctx, await createAccount(ctx), app);
    const res = await revoke(app, { token: pair.refresh_token, token_type_hint: 'refresh_token' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {});
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal((await api(ctx, pair.access_token, '/3/account/get.php')).statusCode, 401);
    assert.equal((await tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: pair.refresh_token })).json<{ errorCode: number }>().errorCode, 102);
    assert.equal((await api(ctx, token, '/3/account/get.php')).statusCode, 200, 'another authorization of the app is untouched');
  });

  it('an access token ends its family too, whatever the hint says; in XML with f=xml', async () => {
    const { app, token } = await signIn(ctx);
    const res = await revoke(app, { token, token_type_hint: 'whatever', f: 'xml' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, '<?xml version="1.0" encoding="UTF-8"?><response></response>');
    assert.equal((await api(ctx, token, '/3/account/get.php')).statusCode, 401);
  });

  it('an unknown, or already revoked, token is no error (RFC 7009 2.2)', async () => {
    const { app, token } = await signIn(ctx);
    assert.equal((await revoke(app, { token: 'f'.repeat(40) })).statusCode, 200);
    assert.equal((await revoke(app, { token })).statusCode, 200);
    assert.equal((await revoke(app, { token })).statusCode, 200);
  });

  it("another app's token is refused with 104 and left alone", async () => {
    const { token } = await signIn(ctx);
    const other = await createApp(ctx);
    const res = await revoke(other, { token });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { errorCode: 104, errorDesc: 'Error revoking a token: the token was not issued to this app' });
    assert.equal((await api(ctx, token, '/3/account/get.php')).statusCode, 200);
  });

  it('bad client credentials are 104 with HTTP 401; a missing or repeated token is 104', async () => {
    const { app, token } = await signIn(ctx);
    const bad = await revoke({ ...app, basic: `Basic ${Buffer.from(`${app.clientId}:wrong`).toString('base64')}` }, { token });
    assert.equal(bad.statusCode, 401);
    assert.equal(bad.json<{ errorCode: number }>().errorCode, 104);
    assert.equal((await revoke(null, { token })).json<{ errorCode: number }>().errorCode, 104);
    const missing = await revoke(app, {});
    assert.deepEqual([missing.statusCode, missing.json<{ errorDesc: string }>().errorDesc], [400, 'Error revoking a token: token is required']);
    const other = await signIn(ctx);
    const twice = await revoke(app, { token }, { url: `${REVOKE_PATH}?token=${other.token}` });
    assert.deepEqual(twice.json(), { errorCode: 104, errorDesc: 'Error revoking a token: token was sent more than once' }, 'different values in the query and in the body');
    const twiceInBody = await revoke(app, {}, { url: REVOKE_PATH, body: `token=${token}&token=${token}` });
    assert.match(twiceInBody.json<{ errorDesc: string }>().errorDesc, /token was sent more than once/, 'twice in the body');
    assert.equal((await api(ctx, token, '/3/account/get.php')).statusCode, 200, 'nothing was revoked');
    assert.equal((await api(ctx, other.token, '/3/account/get.php')).statusCode, 200, 'nothing was revoked');
  });

  it('one value sent in the query and again in the body counts once', async () => {
    const { app, token } = await signIn(ctx);
    const res = await revoke(app, { token, client_id: app.clientId }, { url: `${REVOKE_PATH}?token=${token}&client_id=${app.clientId}` });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {});
    assert.equal((await api(ctx, token, '/3/account/get.php')).statusCode, 401, 'revoked');
  });

  it('POST only (405), and over plain HTTP only from this machine (101)', async () => {
    const { app, token } = await signIn(ctx);
    const get = await ctx.app.inject({ method: 'GET', url: REVOKE_PATH });
    assert.equal(get.statusCode, 405);
    assert.equal(get.headers['allow'], 'POST');
    const far = await revoke(app, { token }, { remoteAddress: '203.0.113.50' });
    assert.equal(far.json<{ errorCode: number }>().errorCode, 101);
    assert.equal((await api(ctx, token, '/3/account/get.php')).statusCode, 200);
  });
});
