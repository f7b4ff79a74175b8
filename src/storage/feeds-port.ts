/**
 * Calendar feeds (docs/feeds.md): read-only iCalendar subscriptions of an account's tasks, or of
 * one folder's, each at an address holding a random secret. Only the SHA-256 of the secret is
 * kept: the secret is long and random, so a fast hash is right (as for app passwords). Revoking a
 * feed deletes its row; a folder's feeds go with the folder, an account's with the account.
 */

/** A feed as the page and the command line list it: never its hash. */
export interface CalendarFeed {
  /** Unique on the server (the command line's `--revoke ID` names it). */
  readonly id: number;
  readonly userPk: number;
  /** The folder whose tasks it holds; null: every task of the account. */
  readonly folder: number | null;
  readonly createdAt: number;
  /** The last fetch recorded (at most once a minute: feeds.service.ts); null: never fetched. */
  readonly lastFetchedAt: number | null;
}

/** A feed with the hash its address is found by. */
export interface StoredCalendarFeed extends CalendarFeed {
  /** SHA-256 (hex) of the secret in the feed's address; the secret itself is never stored. */
  readonly secretHash: string;
}

export interface NewCalendarFeed {
  readonly userPk: number;
  /** A folder of the account (the caller checked it), or null. */
  readonly folder: number | null;
  readonly secretHash: string;
  readonly createdAt: number;
}

export interface CalendarFeedsRepo {
  /** Throws UniqueViolation('calendar feed') for a hash already stored (never in practice: 160 random bits). */
  create(input: NewCalendarFeed): Promise<CalendarFeed>;
  /** The feed whose secret has this hash, of any account, or null. */
  byHash(secretHash: string): Promise<StoredCalendarFeed | null>;
  /** The account's feeds, oldest first. */
  list(userPk: number): Promise<CalendarFeed[]>;
  /** Deletes one feed of the account; false when the account has none with this id. */
  delete(userPk: number, id: number): Promise<boolean>;
  /**
   * Records a fetch at `nowSeconds`, unless one at or after `unlessSince` is recorded already
   * (another instance was quicker). Returns whether it wrote.
   */
  recordFetch(id: number, nowSeconds: number, unlessSince: number): Promise<boolean>;
}
