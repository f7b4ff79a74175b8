import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { newAccount } from '../../test/factories.js';
import type { OpenStore } from './store.contract.js';
import { UniqueViolation, type Repos, type Store } from './store.js';

/**
 * The calendar feeds part of the storage contract (feeds-port.ts): made for the account or one
 * of its folders, found by their hash only, listed without it, deleted only by their account,
 * their last fetch recorded at most once per interval, gone with their folder and their account.
 * Each adapter's test file calls it.
 */

const NOW = 1_800_000_000;
let seq = 0;

export function feedsContract(label: string, open: OpenStore): void {
  describe(`calendar feeds storage contract: ${label}`, () => {
    let store: Store;
    let cleanup: (() => Promise<void>) | undefined;
    const tx = <T>(fn: (r: Repos) => Promise<T>): Promise<T> => store.transaction(fn);

    beforeEach(async () => {
      const opened = await open();
      store = opened.store;
      cleanup = opened.cleanup;
      await store.migrate();
    });
    afterEach(async () => {
      await cleanup?.();
      cleanup = undefined;
    });

    const account = () => tx((r) => r.accounts.create(newAccount('feed', ++seq)));
    const folder = (userPk: number, id: number, name: string) => tx((r) => r.organizers.insert(userPk, 'folder', { id, name, private: 0, archived: 0, ord: id }));
    const make = (userPk: number, folderId: number | null, secretHash: string, createdAt = NOW) =>
      tx((r) => r.calendarFeeds.create({ userPk, folder: folderId, secretHash, createdAt }));

    it('makes them for the account or a folder, finds one by its hash only, lists an account’s oldest first without the hash', async () => {
      const a = await account();
      const b = await account();
      await folder(a.pk, 7, 'Work');
      const all = await make(a.pk, null, 'hash-1', NOW);
      const work = await make(a.pk, 7, 'hash-2', NOW + 5);
      const other = await make(b.pk, null, 'hash-3');
      assert.deepEqual(all, { id: all.id, userPk: a.pk, folder: null, createdAt: NOW, lastFetchedAt: null });
      assert.equal(work.folder, 7);
      assert.ok(work.id > all.id);
      assert.deepEqual(await store.read.calendarFeeds.list(a.pk), [all, work]);
      assert.deepEqual(await store.read.calendarFeeds.list(b.pk), [other]);
      assert.equal('secretHash' in (all as object), false, 'a listed feed carries no hash');
      assert.deepEqual(await store.read.calendarFeeds.byHash('hash-2'), { ...work, secretHash: 'hash-2' });
      assert.equal((await store.read.calendarFeeds.byHash('hash-3'))?.userPk, b.pk);
      for (const miss of ['hash-4', 'HASH-1', 'hash-1 ', '', 'hash-\u0000']) assert.equal(await store.read.calendarFeeds.byHash(miss), null, JSON.stringify(miss));
    });

    it('refuses a hash stored already, and a folder the account does not have; keeps nothing of either', async () => {
      const a = await account();
      const b = await account();
      await folder(b.pk, 3, 'Theirs');
      await make(a.pk, null, 'same-hash');
      await assert.rejects(make(a.pk, null, 'same-hash'), (err: unknown) => err instanceof UniqueViolation && err.what === 'calendar feed');
      await assert.rejects(make(a.pk, 3, 'other-hash'), 'another account’s folder');
      assert.deepEqual((await store.read.calendarFeeds.list(a.pk)).map((f) => f.folder), [null]);
      assert.equal(await store.read.calendarFeeds.byHash('other-hash'), null);
    });

    it('deletes one only through its own account', async () => {
      const a = await account();
      const b = await account();
      const f = await make(a.pk, null, 'hash-d');
      assert.equal(await tx((r) => r.calendarFeeds.delete(b.pk, f.id)), false, 'another account cannot delete it');
      assert.ok(await store.read.calendarFeeds.byHash('hash-d'));
      assert.equal(await tx((r) => r.calendarFeeds.delete(a.pk, f.id)), true);
      assert.equal(await store.read.calendarFeeds.byHash('hash-d'), null);
      assert.deepEqual(await store.read.calendarFeeds.list(a.pk), []);
      assert.equal(await tx((r) => r.calendarFeeds.delete(a.pk, f.id)), false, 'twice: nothing left');
    });

    it('records a fetch unless one at or after the given time is recorded', async () => {
      const a = await account();
      const f = await make(a.pk, null, 'hash-u');
      assert.equal(await tx((r) => r.calendarFeeds.recordFetch(f.id, NOW + 100, NOW + 40)), true);
      assert.equal((await store.read.calendarFeeds.byHash('hash-u'))?.lastFetchedAt, NOW + 100);
      // Another instance, a moment later, with the same minute in mind: it writes nothing.
      assert.equal(await tx((r) => r.calendarFeeds.recordFetch(f.id, NOW + 130, NOW + 70)), false);
      assert.equal((await store.read.calendarFeeds.byHash('hash-u'))?.lastFetchedAt, NOW + 100);
      assert.equal(await tx((r) => r.calendarFeeds.recordFetch(f.id, NOW + 200, NOW + 140)), true);
      assert.equal((await store.read.calendarFeeds.byHash('hash-u'))?.lastFetchedAt, NOW + 200);
      assert.equal(await tx((r) => r.calendarFeeds.recordFetch(f.id + 1000, NOW + 300, NOW + 240)), false, 'no such feed');
    });

    it('a folder’s feeds go with the folder, the account’s feeds stay', async () => {
      const a = await account();
      await folder(a.pk, 1, 'Home');
      await folder(a.pk, 2, 'Garden');
      await make(a.pk, 1, 'hash-home');
      await make(a.pk, 2, 'hash-garden');
      await make(a.pk, null, 'hash-all');
      assert.equal(await tx((r) => r.organizers.remove(a.pk, 'folder', 1)), true);
      assert.equal(await store.read.calendarFeeds.byHash('hash-home'), null);
      assert.deepEqual((await store.read.calendarFeeds.list(a.pk)).map((f) => f.folder), [2, null]);
    });

    it('go with their account', async () => {
      const a = await account();
      const b = await account();
      await folder(a.pk, 1, 'Home');
      await make(a.pk, null, 'hash-a');
      await make(a.pk, 1, 'hash-a1');
      await make(b.pk, null, 'hash-b');
      assert.equal(await tx((r) => r.accounts.delete(a.pk)), true);
      assert.equal(await store.read.calendarFeeds.byHash('hash-a'), null);
      assert.equal(await store.read.calendarFeeds.byHash('hash-a1'), null);
      assert.deepEqual(await store.read.calendarFeeds.list(a.pk), []);
      assert.equal((await store.read.calendarFeeds.list(b.pk)).length, 1);
    });
  });
}
