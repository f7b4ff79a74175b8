import { BoundedMap } from '../lib/bounded-map.js';
import { settlesAtMs, type Clock } from '../lib/clock.js';
import type { Account, AccountChanges, AccountsRepo, IdBlock, LockedAccount, Repos, SettledAccount, Store, StampName, Stamps } from './store.js';

/**
 * A short in-process cache of settled account reads (Store.settledAccount, what account/get
 * reads) in front of any adapter. account/get starts every sync and is what clients poll, and
 * reading the 27-column row was a third of its cost under load
 * (docs/decisions/0007-http-performance.md).
 *
 * Correctness:
 * - Every transaction that calls a method changing an account row drops that account when the
 *   transaction ends, so this process never serves its own stale writes.
 * - A read that raced a write does not store what it read: each account has a generation number,
 *   bumped on every invalidation, and a read caches only if the generation did not move.
 * - Writes by another process or instance are seen within `seconds` at most. An entry keeps the
 *   moment it was read (`asOfMs`), so what account/get reports from it is what it would have
 *   reported then: older than the truth, never newer, and a client following the sync recipe
 *   fetches again rather than missing a change.
 */
export function withAccountCache(inner: Store, clock: Clock, seconds: number): Store {
  if (seconds <= 0) return inner;
  const entries = new BoundedMap<number, { settled: SettledAccount; until: number }>(50_000);
  const generations = new Map<number, number>();

  const invalidate = (pk: number): void => {
    entries.delete(pk);
    generations.set(pk, (generations.get(pk) ?? 0) + 1);
  };

  function heldSettledAccount(pk: number): SettledAccount | undefined {
    const hit = entries.get(pk);
    return hit && hit.until > clock.now() ? hit.settled : undefined;
  }

  async function settledAccount(pk: number, readClock: Clock): Promise<SettledAccount | null> {
    const now = clock.now();
    const hit = entries.get(pk);
    if (hit && hit.until > now) return hit.settled;
    const generation = generations.get(pk) ?? 0;
    const read = await inner.settledAccount(pk, readClock);
    if (!read) return null;
    const settled = Object.freeze({ account: Object.freeze(read.account), asOfMs: read.asOfMs });
    // A stamp too recent to be reported yet would be reported by a read a moment later: the entry
    // lives no longer than that, so this process's own writes show as soon as they settle.
    const settles = settlesAtMs(Math.max(...Object.values(read.account.stamps)));
    const until = settles > read.asOfMs ? Math.min(now + seconds * 1000, settles) : now + seconds * 1000;
    if ((generations.get(pk) ?? 0) === generation) entries.set(pk, { settled, until });
    return settled;
  }

  /**
   * The methods of AccountsRepo that change an account row. A new one must be added here. A lock
   * that takes ids counts as one: it opens an add, whose insert moves the stamp with the rows
   * (tasks.insertMany, documents.insertMany), which the adds do only after such a lock.
   */
  function tracking(accounts: AccountsRepo, touched: Set<number>): AccountsRepo {
    const wrapped: AccountsRepo = Object.create(accounts) as AccountsRepo;
    wrapped.lock = (pk: number, ids?: IdBlock): Promise<LockedAccount | null> => {
      if (ids) touched.add(pk);
      return accounts.lock(pk, ids);
    };
    wrapped.touch = (pk: number, names: readonly StampName[], now: number): Promise<Partial<Stamps>> => {
      touched.add(pk);
      return accounts.touch(pk, names, now);
    };
    wrapped.update = (pk: number, changes: AccountChanges): Promise<Account | null> => {
      touched.add(pk);
      return accounts.update(pk, changes);
    };
    wrapped.setAdmin = (pk: number, isAdmin: boolean): Promise<void> => {
      touched.add(pk);
      return accounts.setAdmin(pk, isAdmin);
    };
    wrapped.delete = (pk: number): Promise<boolean> => {
      touched.add(pk);
      return accounts.delete(pk);
    };
    return wrapped;
  }

  return {
    dialect: inner.dialect,
    read: inner.read,
    settledAccount,
    heldSettledAccount,
    async transaction<T>(fn: (tx: Repos) => Promise<T>): Promise<T> {
      const touched = new Set<number>();
      try {
        return await inner.transaction((tx) => fn({ ...tx, accounts: tracking(tx.accounts, touched) }));
      } finally {
        // After commit (or rollback): from here on, reads see the new row.
        for (const pk of touched) invalidate(pk);
      }
    },
    counters: inner.counters,
    notices: inner.notices,
    migrate: () => inner.migrate(),
    migrationStatus: () => inner.migrationStatus(),
    close: () => inner.close(),
  };
}
