import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DEFAULT_PREFS } from '../features/users/users.service.js';
import { ManualClock, settlesAtMs } from '../lib/clock.js';
import { withAccountCache } from './account-cache.js';
import { freshDatabase, type TestDatabase } from '../../test/database.js';
import { newTask } from '../../test/factories.js';
import { parseDatabaseUrl } from '../config.js';
import { openStore } from './open.js';
import type { Account, Store } from './store.js';

describe('account cache', () => {
  let dir: string;
  let database: TestDatabase;
  let adapter: Store;
  let clock: ManualClock;
  let store: Store;
  let account: Account;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-cache-'));
    // SQLite, or PostgreSQL in the second pass (TEST_STORE=postgres; scripts/test.mjs).
    database = await freshDatabase(dir);
    adapter = await openStore(parseDatabaseUrl(database.url, 'DATABASE_URL', 3));
    await adapter.migrate();
    clock = new ManualClock();
    store = withAccountCache(adapter, clock, 5);
    account = await store.transaction((tx) =>
      tx.accounts.create({ userid: 'tdcache', email: 'c@example.org', emailKey: 'c@example.org', passwordHash: 'x', alias: 'C', pro: 0, prefs: DEFAULT_PREFS, createdAt: 1 }),
    );
  });
  afterEach(async () => {
    await store.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What account/get reads, through the cache. */
  const settled = (on: Store = store) => on.settledAccount(account.pk, clock);
  const lastEdit = async (on: Store = store, name: 'lastedit_task' | 'lastedit_goal' = 'lastedit_task') => (await settled(on))?.account.stamps[name];

  /** A write behind the cache's back, as another process or instance would make it. */
  const writeElsewhere = (now: number) => adapter.transaction((tx) => tx.accounts.touch(account.pk, ['lastedit_task'], now));

  it('serves repeated reads from memory until the entry expires, with the moment they were read', async () => {
    const first = await settled();
    assert.equal(first?.account.stamps.lastedit_task, 0);
    assert.equal(first?.asOfMs, clock.now());
    await writeElsewhere(100);
    clock.advance(1);
    const cached = await settled();
    assert.equal(cached?.account.stamps.lastedit_task, 0, 'cached');
    assert.equal(cached?.asOfMs, first?.asOfMs, 'as of the moment it was read, not of now');
    clock.advance(4);
    const fresh = await settled();
    assert.equal(fresh?.account.stamps.lastedit_task, 100, 'expired after 5 s');
    assert.equal(fresh?.asOfMs, clock.now());
  });

  it('hands what it holds without a promise (heldSettledAccount), only while settledAccount would answer the same', async () => {
    const held = () => store.heldSettledAccount?.(account.pk);
    assert.equal(adapter.heldSettledAccount, undefined, 'the adapters hold nothing');
    assert.equal(held(), undefined, 'nothing read yet');
    const first = await settled();
    assert.equal(held(), first, 'the read the cache keeps');
    clock.advance(4);
    assert.equal(held(), first);
    clock.advance(1);
    assert.equal(held(), undefined, 'expired after 5 s: it must be read again');
    const second = await settled();
    await store.transaction((tx) => tx.accounts.touch(account.pk, ['lastedit_goal'], 200));
    assert.notEqual(second, undefined);
    assert.equal(held(), undefined, "dropped by this process's own write");
    assert.equal((await settled())?.account.stamps.lastedit_goal, 200);
  });

  it('keeps an entry that holds a stamp too recent to report only until a new read would report it', async () => {
    const second = Math.floor(clock.now() / 1000);
    await store.transaction((tx) => tx.accounts.touch(account.pk, ['lastedit_task'], second));
    const first = await settled();
    assert.equal(first?.asOfMs, clock.now());
    clock.advance(1);
    assert.equal((await settled())?.asOfMs, first?.asOfMs, 'cached: the stamp would not be reported yet anyway');
    clock.set(settlesAtMs(second));
    assert.equal((await settled())?.asOfMs, settlesAtMs(second), 'read again as soon as it would be reported');
    clock.advance(1);
    assert.equal((await settled())?.asOfMs, settlesAtMs(second), 'then cached for the full time');
  });

  it('drops an account as soon as a transaction of this process changes it', async () => {
    await settled();
    await store.transaction((tx) => tx.accounts.touch(account.pk, ['lastedit_goal'], 200));
    assert.equal(await lastEdit(store, 'lastedit_goal'), 200);
  });

  // An add moves its stamp with the rows it inserts (tasks.insertMany), not through an account method: the cache drops the account its lock took ids of.
  it('drops it too when an add moves its stamp with the rows it inserts, after a lock that took its ids', async () => {
    await settled();
    await store.transaction(async (tx) => {
      await tx.accounts.lock(account.pk, { kind: 'task', count: 1 });
      await tx.tasks.insertMany(account.pk, [newTask(1)], 250);
    });
    assert.equal(await lastEdit(store, 'lastedit_task'), 250);
  });

  it('does not keep a row that was read before a write committed but answered after it', async () => {
    // An adapter whose reads return their (old) row only when the gate opens, as a slow network read would.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let readDone!: () => void;
    const hasRead = new Promise<void>((resolve) => (readDone = resolve));
    const slow: Store = {
      dialect: adapter.dialect,
      read: adapter.read,
      settledAccount: async (pk, c) => {
        const read = await adapter.settledAccount(pk, c);
        readDone();
        await gate;
        return read;
      },
      transaction: (fn) => adapter.transaction(fn),
      counters: adapter.counters,
      notices: adapter.notices,
      migrate: () => adapter.migrate(),
      migrationStatus: () => adapter.migrationStatus(),
      close: () => adapter.close(),
    };
    const cached = withAccountCache(slow, clock, 5);
    const racing = cached.settledAccount(account.pk, clock);
    await hasRead;
    await cached.transaction((tx) => tx.accounts.touch(account.pk, ['lastedit_task'], 300));
    open();
    assert.equal((await racing)?.account.stamps.lastedit_task, 0, 'the racing read saw the old row');
    assert.equal(await lastEdit(cached), 300, 'and did not keep it');
  });

  it('a rolled-back transaction also drops the entry (harmless) and keeps the old row', async () => {
    await settled();
    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.accounts.touch(account.pk, ['lastedit_task'], 400);
        throw new Error('boom');
      }),
    );
    assert.equal(await lastEdit(), 0);
  });

  it('is off with 0 seconds: the adapter is used as it is', () => {
    assert.equal(withAccountCache(adapter, clock, 0), adapter);
  });

  it('hands out frozen accounts, so no caller can change what others read', async () => {
    const a = await settled();
    assert.ok(Object.isFrozen(a));
    assert.ok(Object.isFrozen(a?.account));
  });
});
