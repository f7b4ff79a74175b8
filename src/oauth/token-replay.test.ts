import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { api, authorize, createAccount, createApp, testContext, tokenRequest, type TestApp, type TestContext, type TokenPair } from '../../test/harness.js';
import type { Account } from '../storage/store.js';
import { createCode } from './authorize.service.js';

const errorCode = (res: { json(): unknown }): number => (res.json() as { errorCode: number }).errorCode;

/**
 * Breaks that a mutation audit found no test catching: a replayed family whose access tokens sit in
 * the token cache, and a PKCE verifier of the wrong shape that still hashes to its challenge.
 */
describe('token endpoint: what a replay and a malformed verifier must not get past', () => {
  let ctx: TestContext;
  let account: Account;
  let app: TestApp;

  before(async () => {
    // The default token cache (5 s): access tokens used once are then trusted from memory.
    ctx = await testContext();
    account = await createAccount(ctx);
    app = await createApp(ctx);
  });
  after(() => ctx.close());

  const refresh = async (token: string) => tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: token });

  it('a replayed refresh token stops the family\'s access tokens at once, even those the cache holds', async () => {
    const first = await authorize(ctx, account, app, 'basic');
    const second = (await refresh(first.refresh_token)).json() as TokenPair;
    const third = (await refresh(second.refresh_token)).json() as TokenPair;
    // Each access token is checked once: from here on the cache answers for it.
    for (const t of [first, second, third]) assert.equal((await api(ctx, t.access_token, '/3/account/get.php')).statusCode, 200);
    // The oldest refresh token again (never a token a lost answer could explain): a replay.
    assert.equal(errorCode(await refresh(first.refresh_token)), 102);
    for (const t of [first, second, third]) {
      assert.equal((await api(ctx, t.access_token, '/3/account/get.php')).statusCode, 401, 'revoked at once, not after the cache time');
    }
  });

  it('a spent PKCE code presented again revokes only when its verifier comes with it (a code seen in transit cannot end the authorization)', async () => {
    const verifier = 'v'.repeat(50);
    const challenge = createHash('sha256').update(verifier, 'ascii').digest('base64url');
    const req = { client: app.client, state: 's', scope: 'basic', scopeWords: ['basic'], codeChallenge: challenge, redirectUri: null };
    const code = new URL(await ctx.deps.store.transaction((tx) => createCode(ctx.deps, tx, req, account.pk))).searchParams.get('code') as string;
    const tokens = (await tokenRequest(ctx, app, { grant_type: 'authorization_code', code, code_verifier: verifier })).json() as TokenPair;
    for (const wrong of [undefined, 'w'.repeat(50)]) {
      const res = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code, ...(wrong && { code_verifier: wrong }) });
      assert.equal(errorCode(res), 102);
      assert.equal((await api(ctx, tokens.access_token, '/3/account/get.php')).statusCode, 200, 'not revoked');
    }
    const replay = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code, code_verifier: verifier });
    assert.match((replay.json() as { errorDesc: string }).errorDesc, /revoked/);
    assert.equal((await api(ctx, tokens.access_token, '/3/account/get.php')).statusCode, 401, 'revoked with the verifier');
  });

  it('a code_verifier that hashes to the challenge but is not 43 to 128 unreserved characters is refused (RFC 7636 4.1)', async () => {
    for (const verifier of ['short', 'x'.repeat(42), 'a'.repeat(129), `${'a'.repeat(42)} `, `${'a'.repeat(42)}+`]) {
      const challenge = createHash('sha256').update(verifier, 'ascii').digest('base64url');
      const req = { client: app.client, state: 's', scope: 'basic', scopeWords: ['basic'], codeChallenge: challenge, redirectUri: null };
      const location = await ctx.deps.store.transaction((tx) => createCode(ctx.deps, tx, req, account.pk));
      const code = new URL(location).searchParams.get('code') as string;
      const res = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code, code_verifier: verifier });
      assert.equal(errorCode(res), 102, JSON.stringify(verifier));
      assert.match((res.json() as { errorDesc: string }).errorDesc, /code_verifier/);
    }
  });
});
