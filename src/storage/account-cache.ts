import { BoundedMap } from '../lib/bounded-map.js';
import type { Clock } from '../lib/clock.js';
import type { Account, AccountsRepo, Repos, Store, StampName, Stamps } from './store.js';

/**
 * A short in-process cache of account rows in front of any adapter. account/get starts every
 * sync and is what clients poll, and reading the 27-column row was a third of its cost under load
 * (docs/decisions/0007-http-performance.md).
 *
 * Correctness:
 * - Every transaction that calls a method changing an account row drops that account when the
 *   transaction ends, so this process never serves its own stale writes.
 * - A read that raced a write does not store what it read: each account has a generation number,
 *   bumped on every invalidation, and a read caches only if the generation did not move.
 * - Writes by another process or instance are seen within `seconds` at most. A stale account is
 *   always older, never newer, than the truth, so a client following the sync recipe (fetch
 *   `after` the saved stamp, then save the stamp it read) fetches again rather than missing a change.
 */
export function withAccountCache(inner: Store, clock: Clock, seconds: number): Store {
  if (seconds <= 0) return inner;
  const entries = new BoundedMap<number, { account: Account; until: number }>(50_000);
  const generations = new Map<number, number>();

  const invalidate = (pk: number): void => {
    entries.delete(pk);
    generations.set(pk, (generations.get(pk) ?? 0) + 1);
  };

  const cachedAccounts: AccountsRepo = Object.create(inner.read.accounts) as AccountsRepo;
  cachedAccounts.get = async function cachedGet(pk: number): Promise<Account | null> {
    const now = clock.now();
    const hit = entries.get(pk);
    if (hit && hit.until > now) return hit.account;
    const generation = generations.get(pk) ?? 0;
    const account = await inner.read.accounts.get(pk);
    if (account && (generations.get(pk) ?? 0) === generation) entries.set(pk, { account: Object.freeze(account), until: now + seconds * 1000 });
    return account;
  };
  const read: Repos = { ...inner.read, accounts: cachedAccounts };

  /** The methods of AccountsRepo that change an account row. A new one must be added here. */
  function tracking(accounts: AccountsRepo, touched: Set<number>): AccountsRepo {
    const wrapped: AccountsRepo = Object.create(accounts) as AccountsRepo;
    wrapped.touch = (pk: number, names: readonly StampName[], now: number): Promise<Partial<Stamps>> => {
      touched.add(pk);
      return accounts.touch(pk, names, now);
    };
    return wrapped;
  }

  return {
    dialect: inner.dialect,
    read,
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
    migrate: () => inner.migrate(),
    migrationStatus: () => inner.migrationStatus(),
    close: () => inner.close(),
  };
}
