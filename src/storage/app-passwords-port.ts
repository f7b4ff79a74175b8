/**
 * App passwords (docs/decisions/0024-app-passwords.md): passwords a person makes for one app each
 * (a phone's CalDAV account), kept only as the SHA-256 of the password, which is random and long
 * enough that a fast hash is right (as for app client secrets). Revoking one deletes its row.
 */

/** An app password as the pages and the command line list it: never its hash. */
export interface AppPassword {
  /** Unique on the server (the command line's `--revoke ID` names it). */
  readonly id: number;
  readonly userPk: number;
  /** What the person called it ("iPhone"). */
  readonly name: string;
  /** The app may read but not change anything (the CalDAV face refuses its writes). */
  readonly readOnly: boolean;
  readonly createdAt: number;
  /** The last use recorded (at most once a minute: app-passwords.service.ts); null: never used. */
  readonly lastUsedAt: number | null;
  /** The User-Agent of that use, shortened; null when none was sent yet. */
  readonly lastDevice: string | null;
}

/** An app password with the hash a sign-in compares. */
export interface StoredAppPassword extends AppPassword {
  /** SHA-256 (hex) of the password in its canonical form; the password itself is never stored. */
  readonly secretHash: string;
}

export interface NewAppPassword {
  readonly userPk: number;
  readonly name: string;
  readonly secretHash: string;
  readonly readOnly: boolean;
  readonly createdAt: number;
}

export interface AppPasswordsRepo {
  /** Throws UniqueViolation('app password') for a hash already stored (never in practice: 80 random bits). */
  create(input: NewAppPassword): Promise<AppPassword>;
  /** The app password whose secret has this hash, of any account, or null. */
  byHash(secretHash: string): Promise<StoredAppPassword | null>;
  /** The account's app passwords, oldest first. */
  list(userPk: number): Promise<AppPassword[]>;
  /** Deletes one app password of the account; false when the account has none with this id. */
  delete(userPk: number, id: number): Promise<boolean>;
  /**
   * Records a use at `nowSeconds` from `device` (null keeps the device recorded before), unless a
   * use at or after `unlessSince` is recorded already (another instance was quicker). Returns
   * whether it wrote.
   */
  recordUse(id: number, nowSeconds: number, device: string | null, unlessSince: number): Promise<boolean>;
}
