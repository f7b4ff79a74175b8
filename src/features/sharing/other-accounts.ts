import { unixSeconds } from '../../lib/clock.js';
import type { Clock } from '../../lib/clock.js';
import type { Repos, StampName } from '../../storage/store.js';

/**
 * The stamps a write call gives other accounts' records (the copies of a joint task, a reassigned
 * task). Each other account is locked before its clock is read, as lockAccount does for the
 * caller's: Store.settledAccount counts on every write it does not show having read its clock
 * after taking the account's lock, or a participant's sync could record a stamp past a write it
 * has not seen yet. Two calls locking two accounts in opposite orders may deadlock on PostgreSQL:
 * the store runs such a transaction again (pg-store's retry of 40P01).
 */
export class OtherAccounts {
  private readonly stamps = new Map<string, number>();
  private readonly locked = new Set<number>();

  constructor(
    private readonly tx: Repos,
    private readonly clock: Clock,
  ) {}

  /** Records accounts the call locked already (in key order, before its first write). */
  lockedAlready(pks: readonly number[]): void {
    for (const pk of pks) this.locked.add(pk);
  }

  /** Locks the account (once per call); false when it no longer exists. */
  async lock(pk: number): Promise<boolean> {
    if (this.locked.has(pk)) return true;
    const account = await this.tx.accounts.lock(pk);
    if (!account) return false;
    this.locked.add(pk);
    return true;
  }

  /** The call's stamp `name` of another account, taken at its first use after locking it. */
  async stamp(pk: number, name: Extract<StampName, 'lastedit_task' | 'lastdelete_task'>): Promise<number> {
    const key = `${pk}:${name}`;
    const known = this.stamps.get(key);
    if (known !== undefined) return known;
    await this.lock(pk);
    const stamp = (await this.tx.accounts.touch(pk, [name], unixSeconds(this.clock)))[name] as number;
    this.stamps.set(key, stamp);
    return stamp;
  }
}
