import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DEFAULT_PREFS } from '../features/users/users.service.js';
import { ManualClock } from '../lib/clock.js';
import { withAccountCache } from './account-cache.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Account, Store } from './store.js';

describe('account cache', () => {
  let dir: string;
  let adapter: SqliteStore;
  let clock: ManualClock;
  let store: Store;
  let account: Account;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-cache-'));
    adapter = new SqliteStore({ path: join(dir, 't.db'), synchronous: 'FULL' });
    await adapter.migrate();
    clock = new ManualClock();
    store = withAccountCache(adapter, clock, 5);
    account = await store.transaction((tx) =>
      tx.accounts.create({ userid: 'tdcache', email: 'c@example.org', emailKey: 'c@example.org', passwordHash: 'x', alias: 'C', pro: 0, prefs: DEFAULT_PREFS, createdAt: 1 }),
    );
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A write behind the cache's back, as another process or instance would make it. */
  const writeElsewhere = (now: number) => adapter.transaction((tx) => tx.accounts.touch(account.pk, ['lastedit_task'], now));

  it('serves repeated reads from memory until the entry expires', async () => {
    assert.equal((await store.read.accounts.get(account.pk))?.stamps.lastedit_task, 0);
    await writeElsewhere(100);
    assert.equal((await store.read.accounts.get(account.pk))?.stamps.lastedit_task, 0, 'cached');
    clock.advance(5);
    assert.equal((await store.read.accounts.get(account.pk))?.stamps.lastedit_task, 100, 'expired after 5 s');
  });

  it('drops an account as soon as a transaction of this process changes it', async () => {
    await store.read.accounts.get(account.pk);
    await store.transaction((tx) => tx.accounts.touch(account.pk, ['lastedit_goal'], 200));
    assert.equal((await store.read.accounts.get(account.pk))?.stamps.lastedit_goal, 200);
  });

  it('does not keep a row that was read before a write committed but answered after it', async () => {
    // An adapter whose reads return their (old) row only when the gate opens, as a slow network read would.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const slowAccounts = Object.create(adapter.read.accounts) as typeof adapter.read.accounts;
    slowAccounts.get = async (pk: number) => {
      const row = await adapter.read.accounts.get(pk);
      await gate;
      return row;
    };
    const slow: Store = {
      dialect: adapter.dialect,
      read: { ...adapter.read, accounts: slowAccounts },
      transaction: (fn) => adapter.transaction(fn),
      counters: adapter.counters,
      migrate: () => adapter.migrate(),
      migrationStatus: () => adapter.migrationStatus(),
      close: () => adapter.close(),
    };
    const cached = withAccountCache(slow, clock, 5);
    const racing = cached.read.accounts.get(account.pk);
    await cached.transaction((tx) => tx.accounts.touch(account.pk, ['lastedit_task'], 300));
    open();
    assert.equal((await racing)?.stamps.lastedit_task, 0, 'the racing read saw the old row');
    assert.equal((await cached.read.accounts.get(account.pk))?.stamps.lastedit_task, 300, 'and did not keep it');
  });

  it('a rolled-back transaction also drops the entry (harmless) and keeps the old row', async () => {
    await store.read.accounts.get(account.pk);
    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.accounts.touch(account.pk, ['lastedit_task'], 400);
        throw new Error('boom');
      }),
    );
    assert.equal((await store.read.accounts.get(account.pk))?.stamps.lastedit_task, 0);
  });

  it('is off with 0 seconds: the adapter is used as it is', () => {
    assert.equal(withAccountCache(adapter, clock, 0), adapter);
  });

  it('hands out frozen accounts, so no caller can change what others read', async () => {
    const a = await store.read.accounts.get(account.pk);
    assert.ok(Object.isFrozen(a));
  });
});
