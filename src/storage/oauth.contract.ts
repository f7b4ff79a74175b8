import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { newAccount } from '../../test/factories.js';
import { pruneExpired } from './prune.js';
import type { OpenStore } from './store.contract.js';
import type { AuthRequest, Grant, Repos, Store } from './store.js';

/**
 * The parts of the storage contract that bind OAuth answers to what was asked: codes that remember
 * the redirect_uri, refresh answers kept for a retry, and pending authorization requests. Each
 * adapter's test file calls it with a factory for a fresh, empty database; every test gets its own.
 */

const NOW = 1_800_000_000;
const DAY = 86400;
let seq = 0;

export function oauthContract(label: string, open: OpenStore): void {
  describe(`oauth storage contract: ${label}`, () => {
    let store: Store;
    let cleanup: (() => Promise<void>) | undefined;
    let userPk: number;
    let clientPk: number;

    const tx = <T>(fn: (r: Repos) => Promise<T>): Promise<T> => store.transaction(fn);

    beforeEach(async () => {
      const opened = await open();
      store = opened.store;
      cleanup = opened.cleanup;
      await store.migrate();
      const n = ++seq;
      userPk = (await tx((r) => r.accounts.create(newAccount('oauth', n)))).pk;
      clientPk = (
        await tx((r) => r.clients.create({ clientId: `app${n}`, secretHash: 'h', name: 'App', redirectUris: ['https://app.example.org/cb'], createdAt: NOW }))
      ).pk;
    });

    afterEach(async () => {
      await cleanup?.();
      cleanup = undefined;
    });

    const createGrant = (): Promise<Grant> =>
      tx((r) =>
        r.oauth.createGrant({ userPk, clientPk, scope: 'basic', createdAt: NOW, expiresAt: NOW + 90 * DAY, vers: null, os: null, device: null, udid: null }),
      );
    const refreshToken = (grant: Grant, hash: string): Promise<void> =>
      tx((r) => r.oauth.createToken({ hash, kind: 'refresh', grantId: grant.id, userPk, clientPk, scope: 'basic', createdAt: NOW, expiresAt: NOW + 30 * DAY }));

    describe('codes', () => {
      it('keep the redirect_uri of the authorization request, or null', async () => {
        const base = { clientPk, userPk, scope: 'basic', expiresAt: NOW + 600, codeChallenge: null };
        await tx((r) => r.oauth.createCode({ ...base, codeHash: 'with', redirectUri: 'https://app.example.org/cb?x=1' }));
        await tx((r) => r.oauth.createCode({ ...base, codeHash: 'without', redirectUri: null }));
        assert.equal((await store.read.oauth.code('with'))?.redirectUri, 'https://app.example.org/cb?x=1');
        assert.equal((await store.read.oauth.code('without'))?.redirectUri, null);
      });
    });

    describe('refresh retry answers', () => {
      it('round-trip on the spent token; none kept, or an unknown token, is null', async () => {
        const g = await createGrant();
        await refreshToken(g, 'r1');
        assert.equal(await store.read.oauth.retryAnswer('r1'), null);
        await tx((r) => r.oauth.keepRetryAnswer(g.id, 'r1', { sealed: 'sealed-1', until: NOW + 30 }));
        assert.deepEqual(await store.read.oauth.retryAnswer('r1'), { sealed: 'sealed-1', until: NOW + 30 });
        assert.equal(await store.read.oauth.retryAnswer('no-such-token'), null);
      });

      it('only the newest rotation of a family keeps one; other families are untouched', async () => {
        const g = await createGrant();
        const other = await createGrant();
        for (const hash of ['r1', 'r2']) await refreshToken(g, hash);
        await refreshToken(other, 'o1');
        await tx((r) => r.oauth.keepRetryAnswer(other.id, 'o1', { sealed: 'other', until: NOW + 30 }));
        await tx((r) => r.oauth.keepRetryAnswer(g.id, 'r1', { sealed: 'first', until: NOW + 30 }));
        await tx((r) => r.oauth.keepRetryAnswer(g.id, 'r2', { sealed: 'second', until: NOW + 60 }));
        assert.equal(await store.read.oauth.retryAnswer('r1'), null, 'forgotten: r1 is no longer the newest spent token');
        assert.deepEqual(await store.read.oauth.retryAnswer('r2'), { sealed: 'second', until: NOW + 60 });
        assert.deepEqual(await store.read.oauth.retryAnswer('o1'), { sealed: 'other', until: NOW + 30 });
        await tx((r) => r.oauth.keepRetryAnswer(g.id, 'r2', null));
        assert.equal(await store.read.oauth.retryAnswer('r2'), null, 'null forgets');
        assert.notEqual(await store.read.oauth.token('r2'), null, 'the token itself stays');
      });

      it('prune forgets answers whose time has passed and keeps the rest, tokens included', async () => {
        const g = await createGrant();
        const h = await createGrant();
        await refreshToken(g, 'old');
        await refreshToken(h, 'live');
        await tx((r) => r.oauth.keepRetryAnswer(g.id, 'old', { sealed: 'a', until: NOW - 1 }));
        await tx((r) => r.oauth.keepRetryAnswer(h.id, 'live', { sealed: 'b', until: NOW + 30 }));
        await pruneExpired(store, NOW);
        assert.equal(await store.read.oauth.retryAnswer('old'), null);
        assert.notEqual(await store.read.oauth.token('old'), null);
        assert.deepEqual(await store.read.oauth.retryAnswer('live'), { sealed: 'b', until: NOW + 30 });
      });
    });

    describe('pending authorization requests', () => {
      const request = (over: Partial<AuthRequest> = {}): AuthRequest => ({
        idHash: `req-${++seq}`,
        sessionHash: 'session-a',
        userPk,
        clientPk,
        scope: 'basic  tasks',
        state: 'st4te é',
        redirectUri: null,
        codeChallenge: null,
        createdAt: NOW,
        expiresAt: NOW + 600,
        ...over,
      });

      it('create then get round-trips every field; unknown is null', async () => {
        const r1 = request({ redirectUri: 'https://app.example.org/cb', codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' });
        const r2 = request();
        await tx((r) => r.authRequests.create(r1, 10));
        await tx((r) => r.authRequests.create(r2, 10));
        assert.deepEqual(await store.read.authRequests.get(r1.idHash), r1);
        assert.deepEqual(await store.read.authRequests.get(r2.idHash), r2);
        assert.equal(await store.read.authRequests.get('no-such-request'), null);
      });

      it('take answers once, only to its session and only before it expires', async () => {
        const r1 = request();
        await tx((r) => r.authRequests.create(r1, 10));
        assert.equal(await tx((r) => r.authRequests.take(r1.idHash, 'session-b', NOW)), null, 'another session');
        assert.equal(await tx((r) => r.authRequests.take(r1.idHash, 'session-a', r1.expiresAt)), null, 'expired');
        assert.deepEqual(await store.read.authRequests.get(r1.idHash), r1, 'refused takes change nothing');
        assert.deepEqual(await tx((r) => r.authRequests.take(r1.idHash, 'session-a', r1.expiresAt - 1)), r1);
        assert.equal(await tx((r) => r.authRequests.take(r1.idHash, 'session-a', NOW)), null, 'a second take');
        assert.equal(await store.read.authRequests.get(r1.idHash), null);
      });

      it('of takes racing for one request, exactly one gets it', async () => {
        const r1 = request();
        await tx((r) => r.authRequests.create(r1, 10));
        const taken = await Promise.all(Array.from({ length: 5 }, () => tx((r) => r.authRequests.take(r1.idHash, 'session-a', NOW))));
        assert.equal(taken.filter((t) => t !== null).length, 1);
      });

      it('a session keeps only its newest `keep` requests; other sessions keep theirs', async () => {
        const other = request({ sessionHash: 'session-b' });
        await tx((r) => r.authRequests.create(other, 2));
        const mine = [request(), request(), request()];
        for (const r1 of mine) await tx((r) => r.authRequests.create(r1, 2));
        assert.equal(await store.read.authRequests.get(mine[0]!.idHash), null, 'the oldest is dropped');
        assert.notEqual(await store.read.authRequests.get(mine[1]!.idHash), null);
        assert.notEqual(await store.read.authRequests.get(mine[2]!.idHash), null);
        assert.notEqual(await store.read.authRequests.get(other.idHash), null);
      });

      it('prune deletes expired requests only, with the other expired credentials', async () => {
        const expired = request({ expiresAt: NOW - 1 });
        const edge = request({ expiresAt: NOW });
        const live = request({ expiresAt: NOW + 600 });
        for (const r1 of [expired, edge, live]) await tx((r) => r.authRequests.create(r1, 10));
        assert.equal(await tx((r) => r.authRequests.prune(NOW)), 1);
        assert.equal(await store.read.authRequests.get(expired.idHash), null);
        assert.notEqual(await store.read.authRequests.get(edge.idHash), null);
        await pruneExpired(store, NOW + 1);
        assert.equal(await store.read.authRequests.get(edge.idHash), null, 'pruneExpired includes them');
        assert.notEqual(await store.read.authRequests.get(live.idHash), null);
      });
    });
  });
}
