import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { newAccount } from '../../test/factories.js';
import { pruneExpired } from './prune.js';
import type { IdempotencyClaim, IdempotencyScope, Repos, Store, StoredAnswer } from './store.js';
import type { OpenStore } from './store.contract.js';

const NOW = 1_800_000_000;
const DAY = 86400;
const LEASE = 60;
let seq = 0;

/**
 * Idempotency-Keys (idempotency-port.ts, docs/decisions/0022) on every database: claims, leases,
 * answers, take-overs of dead claims, expiry. Each adapter's test file calls it with a factory for
 * a fresh, empty database.
 */
export function idempotencyContract(label: string, open: OpenStore): void {
  describe(`idempotency storage contract: ${label}`, () => {
    let store: Store;
    let cleanup: (() => Promise<void>) | undefined;
    let scope: IdempotencyScope;
    let userPk: number;
    let clientPk: number;

    const tx = <T>(fn: (r: Repos) => Promise<T>): Promise<T> => store.transaction(fn);
    const claim = (over: Partial<IdempotencyClaim> = {}) =>
      tx((r) => r.idempotency.claim({ ...scope, fingerprint: 'fp1', attempt: 'a1', nowSeconds: NOW, lockedUntil: NOW + LEASE, expiresAt: NOW + DAY, ...over }));
    const answer: StoredAnswer = { status: 200, contentType: 'application/json; charset=utf-8', body: '[{"id":1,"title":"é 😀 <x> \\n"}]' };

    beforeEach(async () => {
      const opened = await open();
      store = opened.store;
      cleanup = opened.cleanup;
      await store.migrate();
      const n = ++seq;
      userPk = (await tx((r) => r.accounts.create(newAccount('idem', n)))).pk;
      clientPk = (await tx((r) => r.clients.create({ clientId: `idem${n}`, secretHash: 'h', name: 'App', redirectUris: ['https://app.example.org/cb'], createdAt: NOW }))).pk;
      scope = { userPk, clientPk, key: 'key-1' };
    });

    afterEach(async () => {
      await cleanup?.();
      cleanup = undefined;
    });

    it('a new key is taken and shows as running; a second claim, either fingerprint, finds it running and changes nothing', async () => {
      assert.equal(await claim(), null);
      assert.deepEqual(await store.read.idempotency.get(scope, NOW), { state: 'running', fingerprint: 'fp1', lockedUntil: NOW + LEASE });
      assert.deepEqual(await claim({ attempt: 'a2', nowSeconds: NOW + 1 }), { state: 'running', fingerprint: 'fp1', lockedUntil: NOW + LEASE });
      assert.deepEqual(await claim({ attempt: 'a2', fingerprint: 'fp2', nowSeconds: NOW + 1 }), { state: 'running', fingerprint: 'fp1', lockedUntil: NOW + LEASE });
      assert.equal(await tx((r) => r.idempotency.finish(scope, 'a2', answer)), false, 'only the attempt holding the key keeps an answer');
    });

    it('keeps the answer of the attempt that holds the key, byte for byte, until it expires', async () => {
      await claim();
      assert.equal(await tx((r) => r.idempotency.finish(scope, 'a1', answer)), true);
      assert.deepEqual(await claim({ attempt: 'a2', nowSeconds: NOW + 5 }), { state: 'done', fingerprint: 'fp1', answer });
      assert.deepEqual(await claim({ attempt: 'a2', fingerprint: 'fp2', nowSeconds: NOW + DAY - 1 }), { state: 'done', fingerprint: 'fp1', answer });
      assert.equal(await tx((r) => r.idempotency.finish(scope, 'a1', { ...answer, body: 'other' })), false, 'an answer is kept once');
      assert.equal(await tx((r) => r.idempotency.release(scope, 'a1')), false, 'a kept answer is not released');
      // Expired: free again, for any parameters; the old answer is gone.
      assert.equal(await store.read.idempotency.get(scope, NOW + DAY), null);
      assert.equal(await claim({ attempt: 'a3', fingerprint: 'fp2', nowSeconds: NOW + DAY, lockedUntil: NOW + DAY + LEASE, expiresAt: NOW + 2 * DAY }), null);
      assert.deepEqual(await store.read.idempotency.get(scope, NOW + DAY), { state: 'running', fingerprint: 'fp2', lockedUntil: NOW + DAY + LEASE });
    });

    it('a claim whose lease ended is taken over by the same parameters only; the late attempt keeps nothing', async () => {
      await claim();
      assert.equal(await tx((r) => r.idempotency.renew(scope, 'a1', NOW + 30 + LEASE)), true);
      assert.equal((await claim({ attempt: 'a2', nowSeconds: NOW + 89 }))?.state, 'running', 'the renewed lease still holds');
      const later = { nowSeconds: NOW + 90, lockedUntil: NOW + 90 + LEASE, expiresAt: NOW + 90 + DAY };
      assert.deepEqual(await claim({ ...later, attempt: 'a2', fingerprint: 'fp2' }), { state: 'running', fingerprint: 'fp1', lockedUntil: NOW + 90 }, 'other parameters never take it over');
      assert.equal(await claim({ ...later, attempt: 'a2' }), null);
      assert.equal(await tx((r) => r.idempotency.renew(scope, 'a1', NOW + 200)), false);
      assert.equal(await tx((r) => r.idempotency.finish(scope, 'a1', answer)), false);
      assert.equal(await tx((r) => r.idempotency.release(scope, 'a1')), false);
      assert.equal(await tx((r) => r.idempotency.finish(scope, 'a2', answer)), true);
      assert.deepEqual(await store.read.idempotency.get(scope, NOW + 100), { state: 'done', fingerprint: 'fp1', answer });
    });

    it('a released key is free at once', async () => {
      await claim();
      assert.equal(await tx((r) => r.idempotency.release(scope, 'a2')), false, 'only by its attempt');
      assert.equal(await tx((r) => r.idempotency.release(scope, 'a1')), true);
      assert.equal(await store.read.idempotency.get(scope, NOW), null);
      assert.equal(await claim({ attempt: 'a2', fingerprint: 'fp2' }), null);
    });

    it('keys are per app and per account', async () => {
      const otherUser = (await tx((r) => r.accounts.create(newAccount('idem-other', seq)))).pk;
      const otherApp = (await tx((r) => r.clients.create({ clientId: `idem-other${seq}`, secretHash: 'h', name: 'Other', redirectUris: ['https://o.example.org/cb'], createdAt: NOW }))).pk;
      await claim();
      await tx((r) => r.idempotency.finish(scope, 'a1', answer));
      for (const other of [{ ...scope, userPk: otherUser }, { ...scope, clientPk: otherApp }, { ...scope, key: 'KEY-1' }]) {
        assert.equal(await tx((r) => r.idempotency.claim({ ...other, fingerprint: 'fp2', attempt: 'b', nowSeconds: NOW, lockedUntil: NOW + LEASE, expiresAt: NOW + DAY })), null, JSON.stringify(other));
      }
    });

    it('two claims at once: one takes the key, the other finds it running', async () => {
      const results = await Promise.all(['x', 'y'].map((attempt) => claim({ attempt })));
      assert.deepEqual(results.filter((r) => r === null).length, 1);
      assert.equal(results.find((r) => r !== null)?.state, 'running');
    });

    it('expired keys are pruned with the other credentials, live ones kept', async () => {
      await claim();
      await claim({ ...scope, key: 'key-2', expiresAt: NOW + 10 });
      await pruneExpired(store, NOW + 10);
      assert.equal((await store.read.idempotency.get(scope, NOW + 10))?.state, 'running');
      assert.equal(await store.read.idempotency.get({ ...scope, key: 'key-2' }, NOW), null);
      assert.equal(await tx((r) => r.idempotency.prune(NOW + DAY)), 1);
    });
  });
}
