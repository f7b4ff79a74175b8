import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { newAccount } from '../../test/factories.js';
import type { OpenStore } from './store.contract.js';
import { UniqueViolation, type Repos, type Store } from './store.js';

/**
 * The app passwords part of the storage contract (app-passwords-port.ts): made, found by their
 * hash only, listed without it, deleted only by their account, their last use recorded at most
 * once per interval, gone with their account. Each adapter's test file calls it.
 */

const NOW = 1_800_000_000;
let seq = 0;

export function appPasswordsContract(label: string, open: OpenStore): void {
  describe(`app passwords storage contract: ${label}`, () => {
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

    const account = () => tx((r) => r.accounts.create(newAccount('ap', ++seq)));
    const make = (userPk: number, name: string, secretHash: string, readOnly = false, createdAt = NOW) =>
      tx((r) => r.appPasswords.create({ userPk, name, secretHash, readOnly, createdAt }));

    it('makes them, finds one by its hash only, lists an account’s oldest first without the hash', async () => {
      const a = await account();
      const b = await account();
      const phone = await make(a.pk, 'iPhone ☎', 'hash-1', false, NOW);
      const laptop = await make(a.pk, 'Laptop', 'hash-2', true, NOW + 5);
      const other = await make(b.pk, 'iPhone', 'hash-3');
      assert.deepEqual(phone, { id: phone.id, userPk: a.pk, name: 'iPhone ☎', readOnly: false, createdAt: NOW, lastUsedAt: null, lastDevice: null });
      assert.equal(laptop.readOnly, true);
      assert.ok(laptop.id > phone.id);
      assert.deepEqual(await store.read.appPasswords.list(a.pk), [phone, laptop]);
      assert.deepEqual(await store.read.appPasswords.list(b.pk), [other]);
      assert.equal('secretHash' in (phone as object), false, 'a listed password carries no hash');
      assert.deepEqual(await store.read.appPasswords.byHash('hash-2'), { ...laptop, secretHash: 'hash-2' });
      assert.equal((await store.read.appPasswords.byHash('hash-3'))?.userPk, b.pk);
      for (const miss of ['hash-4', 'HASH-1', 'hash-1 ', '', 'hash-\u0000']) assert.equal(await store.read.appPasswords.byHash(miss), null, JSON.stringify(miss));
    });

    it('refuses a hash stored already, and keeps nothing of the refused one', async () => {
      const a = await account();
      await make(a.pk, 'One', 'same-hash');
      await assert.rejects(make(a.pk, 'Two', 'same-hash'), (err: unknown) => err instanceof UniqueViolation && err.what === 'app password');
      assert.deepEqual((await store.read.appPasswords.list(a.pk)).map((p) => p.name), ['One']);
    });

    it('deletes one only through its own account', async () => {
      const a = await account();
      const b = await account();
      const p = await make(a.pk, 'iPhone', 'hash-d');
      assert.equal(await tx((r) => r.appPasswords.delete(b.pk, p.id)), false, 'another account cannot delete it');
      assert.ok(await store.read.appPasswords.byHash('hash-d'));
      assert.equal(await tx((r) => r.appPasswords.delete(a.pk, p.id)), true);
      assert.equal(await store.read.appPasswords.byHash('hash-d'), null);
      assert.deepEqual(await store.read.appPasswords.list(a.pk), []);
      assert.equal(await tx((r) => r.appPasswords.delete(a.pk, p.id)), false, 'twice: nothing left');
    });

    it('records a use unless one at or after the given time is recorded; a use without a device keeps the last one', async () => {
      const a = await account();
      const p = await make(a.pk, 'iPhone', 'hash-u');
      assert.equal(await tx((r) => r.appPasswords.recordUse(p.id, NOW + 100, 'iOS/17.4 dataaccessd/1.0', NOW + 40)), true);
      assert.deepEqual(await store.read.appPasswords.byHash('hash-u'), { ...p, secretHash: 'hash-u', lastUsedAt: NOW + 100, lastDevice: 'iOS/17.4 dataaccessd/1.0' });
      // Another instance, a moment later, with the same minute in mind: it writes nothing.
      assert.equal(await tx((r) => r.appPasswords.recordUse(p.id, NOW + 130, 'DAVx5/4.3', NOW + 70)), false);
      assert.equal((await store.read.appPasswords.byHash('hash-u'))?.lastDevice, 'iOS/17.4 dataaccessd/1.0');
      assert.equal(await tx((r) => r.appPasswords.recordUse(p.id, NOW + 200, null, NOW + 140)), true);
      const used = await store.read.appPasswords.byHash('hash-u');
      assert.deepEqual([used?.lastUsedAt, used?.lastDevice], [NOW + 200, 'iOS/17.4 dataaccessd/1.0']);
      assert.equal(await tx((r) => r.appPasswords.recordUse(p.id + 1000, NOW + 300, 'x', NOW + 240)), false, 'no such password');
    });

    it('go with their account', async () => {
      const a = await account();
      const b = await account();
      await make(a.pk, 'iPhone', 'hash-a');
      await make(b.pk, 'iPhone', 'hash-b');
      assert.equal(await tx((r) => r.accounts.delete(a.pk)), true);
      assert.equal(await store.read.appPasswords.byHash('hash-a'), null);
      assert.deepEqual(await store.read.appPasswords.list(a.pk), []);
      assert.equal((await store.read.appPasswords.list(b.pk)).length, 1);
    });
  });
}
