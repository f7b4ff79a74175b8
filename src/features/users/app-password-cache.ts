import { BoundedMap } from '../../lib/bounded-map.js';
import { KeyedMutex } from '../../lib/keyed-mutex.js';
import type { Account } from '../../storage/store.js';

/** An app password this process has seen signed in with, under the hash of the password sent. */
export interface ProvenAppPassword {
  /** The e-mail key it was sent with: another address with the same password is no hit. */
  readonly emailKey: string;
  /** The account as read when the password was last checked in the database. */
  readonly account: Account;
  readonly id: number;
  readonly readOnly: boolean;
  /** Milliseconds: until then it is trusted without asking the database. */
  until: number;
  /** Milliseconds: the last use recorded in the database, by this process or as found there. */
  usedAt: number;
}

/**
 * What this process remembers of app-password sign-ins (app-passwords.service.ts). CalDAV clients
 * send their credentials with every request, so a sign-in that was right a moment ago is answered
 * from here for TOKEN_CACHE_SECONDS, as access tokens are (docs/decisions/0002-caches.md): a
 * revocation in this process drops its entry at once, another instance's is seen within that
 * time. An entry stays after its time, until the bound pushes it out: the password was right, so
 * its next check asks the database but is no guess, and is not throttled (docs/decisions/0024).
 * Only right passwords make entries, so strangers cannot fill it.
 *
 * `turns` makes the checks of one sign-in's counts run one at a time in this process (its keys,
 * address first), so that guesses sent at once are counted exactly, as the sign-in page's are.
 */
export class AppPasswordCache {
  private readonly entries: BoundedMap<string, ProvenAppPassword>;
  readonly turns = new KeyedMutex();

  constructor(
    /** TOKEN_CACHE_SECONDS: 0 asks the database at every sign-in. */
    readonly cacheSeconds: number,
    maxEntries = 10_000,
  ) {
    this.entries = new BoundedMap(maxEntries);
  }

  get(hash: string): ProvenAppPassword | undefined {
    return this.entries.get(hash);
  }

  set(hash: string, entry: ProvenAppPassword): void {
    this.entries.set(hash, entry);
  }

  delete(hash: string): void {
    this.entries.delete(hash);
  }

  /** Drops the entries of one app password; called when it is revoked in this process. */
  forgetPassword(id: number): void {
    for (const [hash, entry] of this.entries) if (entry.id === id) this.entries.delete(hash);
  }

  /** Drops the entries of an account; called when it is deleted in this process. */
  forgetUser(userPk: number): void {
    for (const [hash, entry] of this.entries) if (entry.account.pk === userPk) this.entries.delete(hash);
  }

  /** Entries held (for tests). */
  get size(): number {
    return this.entries.size;
  }
}
