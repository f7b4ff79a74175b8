import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, authorize, createAccount, createApp, testContext, tokenRequest, type TestApp, type TestContext, type TokenPair } from '../../test/harness.js';
import { withContext } from '../../test/with-context.js';
import { createDeps } from '../deps.js';
import type { ApiError } from '../errors.js';
import { openWith, sha256Hex } from '../lib/crypto.js';
import { grantTokens, RETRY_PURPOSE } from './token.service.js';

const NO_INFO = { vers: null, os: null, device: null, udid: null };

const errorCode = (res: { json(): unknown }): number | undefined => (res.json() as { errorCode?: number }).errorCode;

/** docs/decisions/0011-refresh-reuse-interval.md */
describe('refresh reuse interval (REFRESH_TOKEN_REUSE_SECONDS, 30 by default)', () => {
  let ctx: TestContext;
  let app: TestApp;
  before(async () => {
    ctx = await testContext();
    app = await createApp(ctx);
  });
  after(() => ctx.close());

  const refresh = (refreshToken: string) => tokenRequest(ctx, app, { grant_type: 'refresh_token', refresh_token: refreshToken });
  const works = async (t: TokenPair) => (await api(ctx, t.access_token, '/3/account/get.php')).statusCode === 200;

  it('the token just rotated, presented again within the interval, gets the same answer and revokes nothing', async () => {
    const first = await authorize(ctx, await createAccount(ctx), app, 'basic tasks');
    const next = (await refresh(first.refresh_token)).json() as TokenPair;
    ctx.clock.advance(29);
    const again = await refresh(first.refresh_token);
    assert.equal(again.statusCode, 200, again.body);
    const retried = again.json() as TokenPair;
    assert.deepEqual(Object.keys(retried), ['access_token', 'expires_in', 'token_type', 'scope', 'refresh_token']);
    assert.equal(retried.access_token, next.access_token);
    assert.equal(retried.refresh_token, next.refresh_token);
    assert.equal(retried.scope, 'basic tasks');
    assert.equal(retried.expires_in, 7200 - 29, 'what is left of the same access token');
    assert.ok((await works(first)) && (await works(next)), 'nothing revoked');
    const newest = (await refresh(next.refresh_token)).json() as TokenPair;
    assert.ok(await works(newest), 'the family goes on from the answer both holders got');
  });

  it('two refreshes at once with one token both get the one answer (two processes, one token file)', async () => {
    const first = await authorize(ctx, await createAccount(ctx), app, 'basic');
    const answers = (await Promise.all([refresh(first.refresh_token), refresh(first.refresh_token)])).map((r) => r.json() as TokenPair);
    assert.ok(answers[0]?.refresh_token);
    assert.equal(answers[0]?.refresh_token, answers[1]?.refresh_token);
    assert.equal(answers[0]?.access_token, answers[1]?.access_token);
    assert.ok(await works(answers[0] as TokenPair));
  });

  it('after the interval, the same token is a replay: 102 and the family is revoked', async () => {
    const first = await authorize(ctx, await createAccount(ctx), app, 'basic');
    const next = (await refresh(first.refresh_token)).json() as TokenPair;
    ctx.clock.advance(30);
    const late = await refresh(first.refresh_token);
    assert.equal(errorCode(late), 102);
    assert.match(late.json<{ errorDesc: string }>().errorDesc, /already used; this authorization is revoked/);
    assert.equal(await works(next), false);
    assert.equal(errorCode(await refresh(next.refresh_token)), 102);
  });

  it('an older token is a replay even within the interval: only the predecessor of the newest may come again', async () => {
    const first = await authorize(ctx, await createAccount(ctx), app, 'basic');
    const second = (await refresh(first.refresh_token)).json() as TokenPair;
    const third = (await refresh(second.refresh_token)).json() as TokenPair;
    assert.ok(third.refresh_token);
    const old = await refresh(first.refresh_token);
    assert.equal(errorCode(old), 102);
    assert.equal(await works(third), false, 'the family with its access tokens is revoked');
    assert.equal(errorCode(await refresh(third.refresh_token)), 102);
  });

  it('once its successor has been used, the predecessor is a replay too', async () => {
    const first = await authorize(ctx, await createAccount(ctx), app, 'basic');
    const second = (await refresh(first.refresh_token)).json() as TokenPair;
    assert.equal(errorCode(await refresh(first.refresh_token)), undefined, 'a retry, within the interval');
    const third = (await refresh(second.refresh_token)).json() as TokenPair;
    assert.equal(errorCode(await refresh(first.refresh_token)), 102);
    assert.equal(await works(third), false);
  });

  it('keeps the answer only sealed: the database holds no token of it in plain text', async () => {
    const first = await authorize(ctx, await createAccount(ctx), app, 'basic');
    const next = (await refresh(first.refresh_token)).json() as TokenPair;
    const kept = await ctx.deps.store.read.oauth.retryAnswer(sha256Hex(first.refresh_token));
    assert.ok(kept);
    for (const secret of [next.access_token, next.refresh_token, first.refresh_token]) assert.ok(!kept.sealed.includes(secret));
    assert.equal(kept.until, (await ctx.deps.store.read.oauth.token(sha256Hex(first.refresh_token)))?.usedAt as number + 30);
  });

  it('the seal opens with the spent token only: not with its hash, which the database holds', async () => {
    const first = await authorize(ctx, await createAccount(ctx), app, 'basic');
    const next = (await refresh(first.refresh_token)).json() as TokenPair;
    const kept = await ctx.deps.store.read.oauth.retryAnswer(sha256Hex(first.refresh_token));
    assert.ok(kept);
    assert.equal(openWith(sha256Hex(first.refresh_token), RETRY_PURPOSE, kept.sealed), undefined);
    assert.equal(openWith(next.refresh_token, RETRY_PURPOSE, kept.sealed), undefined);
    assert.equal((JSON.parse(openWith(first.refresh_token, RETRY_PURPOSE, kept.sealed) as string) as { refreshToken: string }).refreshToken, next.refresh_token);
  });

  it('a setting lowered since the rotation applies at once to the answers kept before', async () => {
    const first = await authorize(ctx, await createAccount(ctx), app, 'basic');
    (await refresh(first.refresh_token)).json();
    ctx.clock.advance(10);
    // The same database, served with REFRESH_TOKEN_REUSE_SECONDS=5 (a restart with a new setting).
    const lowered = createDeps({ ...ctx.config, refreshTokenReuseSeconds: 5 }, ctx.deps.store, ctx.clock);
    await assert.rejects(
      grantTokens(lowered, app.client, { grantType: 'refresh_token', refreshToken: first.refresh_token, code: undefined, redirectUri: undefined, scope: undefined, codeVerifier: undefined, info: NO_INFO }),
      (err: ApiError) => err.code === 102,
    );
  });

  it('an answer whose access token has run out (the family reached its end) is not given again: a replay', async () => {
    await withContext({ REFRESH_TOKEN_MAX_AGE_DAYS: '1' }, async (short) => {
      const shortApp = await createApp(short);
      const first = await authorize(short, await createAccount(short), shortApp, 'basic');
      short.clock.advance(86400 - 10);
      const next = (await tokenRequest(short, shortApp, { grant_type: 'refresh_token', refresh_token: first.refresh_token })).json() as TokenPair;
      assert.equal(next.expires_in, 10, 'cut to the end of the family');
      short.clock.advance(15);
      const again = await tokenRequest(short, shortApp, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
      assert.equal(errorCode(again), 102, `no answer with a spent access token: ${again.body}`);
    });
  });

  it('with REFRESH_TOKEN_REUSE_SECONDS=0, every reuse is a replay, as before the interval existed', async () => {
    await withContext({ REFRESH_TOKEN_REUSE_SECONDS: '0' }, async (strict) => {
      const strictApp = await createApp(strict);
      const first = await authorize(strict, await createAccount(strict), strictApp, 'basic');
      const next = (await tokenRequest(strict, strictApp, { grant_type: 'refresh_token', refresh_token: first.refresh_token })).json() as TokenPair;
      assert.equal(await strict.deps.store.read.oauth.retryAnswer(sha256Hex(first.refresh_token)), null, 'nothing kept');
      assert.equal(errorCode(await tokenRequest(strict, strictApp, { grant_type: 'refresh_token', refresh_token: first.refresh_token })), 102);
      assert.equal((await api(strict, next.access_token, '/3/account/get.php')).statusCode, 401);
    });
  });
});
