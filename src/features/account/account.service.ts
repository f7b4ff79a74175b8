import { ApiError } from '../../errors.js';
import type { Deps } from '../../deps.js';
import { reportedStamp, unixSeconds } from '../../lib/clock.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import { STAMP_NAMES, type Account, type IdBlock, type LockedAccount, type Repos, type SettledAccount, type StampName } from '../../storage/store.js';

/**
 * The account as last read (through the account cache), or error 2 if it was removed. An account
 * the cache holds is answered without a promise (Store.heldSettledAccount).
 */
export function settledAccountOf(deps: Deps, auth: AuthContext): SettledAccount | Promise<SettledAccount> {
  return deps.store.heldSettledAccount?.(auth.userPk) ?? readSettledAccount(deps, auth);
}

async function readSettledAccount(deps: Deps, auth: AuthContext): Promise<SettledAccount> {
  const settled = await deps.store.settledAccount(auth.userPk, deps.clock);
  // A token can outlive its account only if the account was removed; it no longer authorises anything.
  if (!settled) throw new ApiError(2);
  return settled;
}

/**
 * The account as account/get reports it: its stamps no later than the last second whose writes
 * are all visible (docs/decisions/0003-change-stamps.md), so that a client which saves them and
 * fetches `after=` them next time misses no write, however writes and syncs interleave. A copy of
 * the read's stamps changed in place: building them by name made a slow object (0.46 against
 * 0.08 µs).
 */
export function reportedAccount({ account, asOfMs }: SettledAccount): Account {
  const stamps: Record<StampName, number> = { ...account.stamps };
  for (const n of STAMP_NAMES) stamps[n] = reportedStamp(stamps[n], asOfMs);
  return { ...account, stamps };
}

/** Ids an add took with its account's lock: `count` of `kind` from `first`. */
export interface TakenIds extends IdBlock {
  readonly first: number;
}

/**
 * The first step of every write to an account's records: serialises the account's writers, then
 * reads the clock for the write's stamps. The order matters: Store.settledAccount counts on every
 * write it does not show having read its clock after its lock. Returns the account as locked,
 * and with `ids` (an add's) the block the lock took (AccountsRepo.lock; useTakenIds).
 */
export async function lockAccount(deps: Deps, tx: Repos, userPk: number, ids?: IdBlock): Promise<{ now: number; account: LockedAccount; taken?: TakenIds }> {
  const account = await tx.accounts.lock(userPk, ids);
  // A token can outlive its account only if the account was removed (as in settledAccountOf above).
  if (!account) throw new ApiError(2);
  const taken = ids && account.firstId !== null ? { ...ids, first: account.firstId } : undefined;
  return { now: unixSeconds(deps.clock), account, ...(taken && { taken }) };
}

/**
 * The first id of `used` new records from the block an add's lock took; the ids past them (the
 * refused items') go back (AccountsRepo.releaseIds), so ids go to the records added only.
 */
export async function useTakenIds(tx: Repos, userPk: number, taken: TakenIds, used: number): Promise<number> {
  if (used > taken.count) throw new Error(`${used} new records, ${taken.count} ids taken`);
  if (used < taken.count) await tx.accounts.releaseIds(userPk, taken.kind, taken.first + used, taken.first + taken.count);
  return taken.first;
}
