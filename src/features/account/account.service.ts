import { ApiError } from '../../errors.js';
import type { Deps } from '../../deps.js';
import { reportedStamp, unixSeconds } from '../../lib/clock.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import { STAMP_NAMES, type Account, type LockedAccount, type Repos, type Stamps } from '../../storage/store.js';

/**
 * The account as account/get reports it: its stamps no later than the last second whose writes
 * are all visible (docs/decisions/0003-change-stamps.md), so that a client which saves them and
 * fetches `after=` them next time misses no write, however writes and syncs interleave.
 */
export async function getAccount(deps: Deps, auth: AuthContext): Promise<Account> {
  const settled = await deps.store.settledAccount(auth.userPk, deps.clock);
  // A token can outlive its account only if the account was removed; it no longer authorises anything.
  if (!settled) throw new ApiError(2);
  const { account, asOfMs } = settled;
  const stamps = Object.fromEntries(STAMP_NAMES.map((n) => [n, reportedStamp(account.stamps[n], asOfMs)])) as Stamps;
  return { ...account, stamps };
}

/**
 * The first step of every write to an account's records: serialises the account's writers, then
 * reads the clock for the write's stamps. The order matters: Store.settledAccount counts on every
 * write it does not show having read its clock after its lock. Returns the account as locked.
 */
export async function lockAccount(deps: Deps, tx: Repos, userPk: number): Promise<{ now: number; account: LockedAccount }> {
  const account = await tx.accounts.lock(userPk);
  // A token can outlive its account only if the account was removed (as in getAccount above).
  if (!account) throw new ApiError(2);
  return { now: unixSeconds(deps.clock), account };
}
