/**
 * The storage port: everything services may ask of a database, and nothing about SQL.
 * One adapter per database (sqlite/, postgres/) implements it; store.contract.ts checks each.
 *
 * Reads that need no isolation go through `store.read`. Anything that writes, or that must see a
 * consistent picture while deciding what to write, runs inside `store.transaction(fn)`: the adapter
 * commits when `fn` resolves and rolls back when it throws. Inside, `tx.accounts.lock(userPk)`
 * serialises writers of one account (a row lock on PostgreSQL; SQLite has one writer anyway).
 * Every method is asynchronous so that a networked database fits without changing services.
 * Times are Unix seconds unless a name says otherwise.
 */

import type { Clock } from '../lib/clock.js';
import type { CaldavRepo } from './caldav-port.js';
import type { AppPasswordsRepo } from './app-passwords-port.js';
import type { ChangeNotices, ChangesRepo } from './changes-port.js';
import type { AttachmentsRepo, DocumentKind, DocumentsRepo } from './documents-port.js';
import type { CalendarFeedsRepo } from './feeds-port.js';
import type { IdempotencyRepo } from './idempotency-port.js';
import type { ImportsRepo } from './imports-port.js';
import type { OrganizersRepo } from './organizers-port.js';
import type { SseLeasesRepo, WebhooksRepo } from './push-port.js';
import type { SharingRepo } from './sharing-port.js';
import type { TasksRepo } from './tasks-port.js';

export type * from './caldav-port.js';
export type * from './app-passwords-port.js';
export type * from './changes-port.js';
export type * from './documents-port.js';
export type * from './feeds-port.js';
export type * from './idempotency-port.js';
export type * from './imports-port.js';
export type * from './organizers-port.js';
export type * from './push-port.js';
export type * from './sharing-port.js';
export type * from './tasks-port.js';

export const STAMP_NAMES = [
  'lastedit_task',
  'lastdelete_task',
  'lastedit_folder',
  'lastedit_context',
  'lastedit_goal',
  'lastedit_location',
  'lastedit_note',
  'lastdelete_note',
  'lastedit_list',
  'lastedit_outline',
] as const;
export type StampName = (typeof STAMP_NAMES)[number];
export type Stamps = Readonly<Record<StampName, number>>;

export const PREF_NAMES = [
  'dateformat',
  'timezone',
  'hidemonths',
  'hotlistpriority',
  'hotlistduedate',
  'hotliststar',
  'hotliststatus',
  'showtabnums',
] as const;
export type PrefName = (typeof PREF_NAMES)[number];
export type Prefs = Readonly<Record<PrefName, number>>;

export type ProLevel = 0 | 1 | 2;

export interface Account {
  /** Internal key; every per-account table is keyed by it first. Never shown to clients. */
  readonly pk: number;
  /** Public identifier (account/get `userid`). */
  readonly userid: string;
  readonly email: string;
  readonly alias: string;
  readonly pro: ProLevel;
  readonly prefs: Prefs;
  readonly stamps: Stamps;
  readonly createdAt: number;
  /** Admins invite people and see every registered app (docs/web.md). */
  readonly isAdmin: boolean;
}

/** An account as a write call's lock found it, with how many tasks it holds (its write budget). */
export interface LockedAccount extends Account {
  readonly taskCount: number;
  /** The kept counts of the account's notes, outlines and lists (migration 14), as locked. */
  readonly documentCounts: Readonly<Record<Exclude<DocumentKind, 'row'>, number>>;
  /** The first id of the block lock() was asked to take with the lock; null when it was asked none. */
  readonly firstId: number | null;
}

/** Ids a write call takes with its account's lock (AccountsRepo.lock): `count` of `kind`. */
export interface IdBlock {
  readonly kind: RecordKind;
  readonly count: number;
}

export interface NewAccount {
  readonly userid: string;
  readonly email: string;
  /** Lower-cased, trimmed e-mail: the unique key. */
  readonly emailKey: string;
  readonly passwordHash: string;
  readonly alias: string;
  readonly pro: ProLevel;
  readonly prefs: Prefs;
  readonly createdAt: number;
  readonly isAdmin?: boolean;
}

/** What the account settings page may change; absent fields stay as they are. */
export interface AccountChanges {
  readonly alias?: string;
  readonly email?: string;
  /** Required with `email`: the unique key of the new address. */
  readonly emailKey?: string;
  readonly prefs?: Prefs;
}

export interface Credentials {
  readonly pk: number;
  readonly passwordHash: string;
}

export interface Client {
  readonly pk: number;
  readonly clientId: string;
  /** SHA-256 of the secret; the secret itself is never stored. */
  readonly secretHash: string;
  readonly name: string;
  /**
   * Every redirect address registered, in the order registered; each is compared by exact string
   * match. At least one.
   */
  readonly redirectUris: readonly string[];
  /** The app's web site, shown beside its name; null when none was given. */
  readonly website: string | null;
  /** The account that registered it on the web pages; null when registered with the command line. */
  readonly ownerPk: number | null;
  /** When its icon was last uploaded (its address changes with it); null without an icon. */
  readonly iconUpdatedAt: number | null;
  readonly createdAt: number;
}

export interface NewClient {
  readonly clientId: string;
  readonly secretHash: string;
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly website?: string | null;
  readonly ownerPk?: number | null;
  readonly createdAt: number;
}

/** What the developer pages may change of an app; absent fields stay as they are. */
export interface ClientChanges {
  readonly name?: string;
  readonly website?: string | null;
  readonly redirectUris?: readonly string[];
  readonly secretHash?: string;
}

export interface ClientIcon {
  /** image/png, image/jpeg, image/gif or image/webp: checked against the bytes when uploaded. */
  readonly mediaType: string;
  readonly data: Buffer;
  readonly updatedAt: number;
}

export interface AuthCode {
  readonly codeHash: string;
  readonly clientPk: number;
  readonly userPk: number;
  readonly scope: string;
  readonly expiresAt: number;
  readonly usedAt: number | null;
  /** The grant created when the code was exchanged (for revocation on replay). */
  readonly grantId: number | null;
  /** RFC 7636 S256 code challenge, when the app sent one. */
  readonly codeChallenge: string | null;
  /** RFC 6749 4.1.3: the redirect_uri the authorization request carried, which the exchange must repeat; null when it had none. */
  readonly redirectUri: string | null;
}

export type NewAuthCode = Omit<AuthCode, 'usedAt' | 'grantId'>;

/**
 * An authorization request as the consent page showed it, kept until it is answered. The page's
 * form carries only the request's random id; the answer may come only from the browser session
 * the page was shown in, once, before expiresAt.
 */
export interface AuthRequest {
  /** SHA-256 of the id the form carries. */
  readonly idHash: string;
  /** SHA-256 of the id of the browser session the page was shown in. */
  readonly sessionHash: string;
  readonly userPk: number;
  readonly clientPk: number;
  /** As requested: the code, and then the token answer, carry it unchanged. */
  readonly scope: string;
  readonly state: string;
  /** The redirect_uri the request carried (the registered one), or null when it had none. */
  readonly redirectUri: string | null;
  readonly codeChallenge: string | null;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** A rotation's answer, kept for a retry within the reuse interval (docs/decisions/0011). */
export interface RetryAnswer {
  /** The answer sealed under a key derived from the spent refresh token: the database cannot read it. */
  readonly sealed: string;
  /** A retry must come before this. */
  readonly until: number;
}

export interface ClientInfo {
  readonly vers: string | null;
  readonly os: string | null;
  readonly device: string | null;
  readonly udid: string | null;
}

/** One authorisation of one app by one user: the family of tokens descending from a code. */
export interface Grant extends ClientInfo {
  readonly id: number;
  readonly userPk: number;
  readonly clientPk: number;
  readonly scope: string;
  readonly createdAt: number;
  /** Absolute end of the family: no refresh token of it lives past this. */
  readonly expiresAt: number;
  readonly revokedAt: number | null;
  /** The last time a token was issued from it (the grant itself, or a refresh). */
  readonly lastUsedAt: number;
}

export type NewGrant = Omit<Grant, 'id' | 'revokedAt' | 'lastUsedAt'>;

export type TokenKind = 'access' | 'refresh';

export interface Token {
  readonly hash: string;
  readonly kind: TokenKind;
  readonly grantId: number;
  readonly userPk: number;
  readonly clientPk: number;
  readonly scope: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly usedAt: number | null;
}

export type NewToken = Omit<Token, 'usedAt'>;

/** A token joined with its grant's revocation state: what the access check needs. */
export interface TokenWithGrant extends Token {
  readonly grantRevokedAt: number | null;
  readonly grantExpiresAt: number;
}

export interface Session {
  readonly idHash: string;
  readonly userPk: number;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** A one-time link: a password reset for the account, or an invitation made by the admin. */
export interface AccountLink {
  /** SHA-256 of the secret the link carries. */
  readonly idHash: string;
  readonly kind: 'reset' | 'invite';
  /** The account to reset, or the admin who invited. */
  readonly userPk: number;
  /** An invitation's note to its maker ("for Bob"); empty for resets. */
  readonly note: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** The kinds of per-account records, each with its own id counter. */
export type RecordKind = 'task' | 'goal' | 'context' | 'folder' | 'location' | 'note';

export interface AccountsRepo {
  create(input: NewAccount): Promise<Account>;
  get(pk: number): Promise<Account | null>;
  credentialsByEmail(emailKey: string): Promise<Credentials | null>;
  /** The internal key of the account with this public userid, or null. */
  pkByUserid(userid: string): Promise<number | null>;
  /**
   * Serialises writers of this account until the transaction ends (no-op outside one). A write
   * reads the clock for its stamps after this (lockAccount() in features/account does both):
   * Store.settledAccount relies on it. Returns the account as the lock found it (null: none).
   * With `ids`, also takes that block of ids, as allocateIds() would, once the account is locked
   * (one statement on PostgreSQL: an add's lock and ids in one round trip); a block the call
   * does not use all of goes back with releaseIds().
   */
  lock(pk: number, ids?: IdBlock): Promise<LockedAccount | null>;
  /**
   * Moves the named stamps to nextStamp(previous, nowSeconds) (never back) and returns the new
   * values. Every write that changes what a stamp covers calls this in the same transaction, or
   * moves the stamp by the same rule with the rows it inserts (an add: tasks.insertMany,
   * documents.insertMany).
   */
  touch(pk: number, names: readonly StampName[], nowSeconds: number): Promise<Partial<Stamps>>;
  /**
   * Reserves `count` consecutive ids of `kind` in this account and returns the first. Ids start
   * at 1 and are never handed out twice (a rolled-back transaction releases its block).
   */
  allocateIds(pk: number, kind: RecordKind, count: number): Promise<number>;
  /**
   * The ids of `kind` from `from` up to `end` (excluded), the end of the last block this
   * transaction took, were not used: the next block starts at `from` again. Does nothing when ids
   * past `end` have been handed out since.
   */
  releaseIds(pk: number, kind: RecordKind, from: number, end: number): Promise<void>;
  isKnownDevice(pk: number, deviceHash: string): Promise<boolean>;
  rememberDevice(pk: number, deviceHash: string, nowSeconds: number): Promise<void>;
  /** Every account, oldest first. */
  list(): Promise<Account[]>;
  /** Whether there is any account at all (a fresh server has none). */
  hasAny(): Promise<boolean>;
  /** Throws UniqueViolation('email') when the new address is taken. Returns the account as changed, or null. */
  update(pk: number, changes: AccountChanges): Promise<Account | null>;
  setPasswordHash(pk: number, passwordHash: string): Promise<void>;
  setAdmin(pk: number, isAdmin: boolean): Promise<void>;
  /**
   * Deletes the account and, through foreign keys that cascade, every row of it in every table:
   * records, tombstones, meta, grants, tokens, codes, sessions, devices, links, app passwords,
   * calendar feeds, and the apps it registered. Returns whether it existed.
   */
  delete(pk: number): Promise<boolean>;
}

export interface ClientsRepo {
  create(input: NewClient): Promise<Client>;
  byClientId(clientId: string): Promise<Client | null>;
  get(pk: number): Promise<Client | null>;
  /** Every app, oldest first; with `ownerPk`, only that account's. */
  list(ownerPk?: number): Promise<Client[]>;
  /** Returns the app as changed, or null when there is none. */
  update(pk: number, changes: ClientChanges): Promise<Client | null>;
  /** Deletes the app; its grants, tokens, codes, meta and icon go with it (cascade). */
  delete(pk: number): Promise<boolean>;
  icon(pk: number): Promise<ClientIcon | null>;
  /** Stores the icon (null removes it). */
  setIcon(pk: number, icon: ClientIcon | null): Promise<void>;
}

export interface OAuthRepo {
  createCode(input: NewAuthCode): Promise<void>;
  code(codeHash: string): Promise<AuthCode | null>;
  markCodeUsed(codeHash: string, usedAt: number, grantId: number): Promise<void>;
  createGrant(input: NewGrant): Promise<Grant>;
  grant(id: number): Promise<Grant | null>;
  /**
   * Grants that can still be used (not revoked, not past their end, holding a refresh token that
   * has not expired), newest first; of one account, of one app, or of both.
   */
  liveGrants(filter: { readonly userPk?: number; readonly clientPk?: number }, nowSeconds: number): Promise<Grant[]>;
  recordClientInfo(grantId: number, info: ClientInfo, nowSeconds: number): Promise<void>;
  /** The grants among `ids` that can no longer be used (revoked, past their end, or gone), ascending. */
  endedGrants(ids: readonly number[], nowSeconds: number): Promise<number[]>;
  /** Revokes the whole family; returns true if it was not revoked before. */
  revokeGrant(id: number, nowSeconds: number, reason: string): Promise<boolean>;
  createToken(input: NewToken): Promise<void>;
  token(hash: string): Promise<TokenWithGrant | null>;
  markTokenUsed(hash: string, usedAt: number): Promise<void>;
  /**
   * Keeps `answer` on the spent refresh token `hash` of family `grantId`, and forgets the answer
   * kept on any other token of the family: only the newest rotation may be retried. With null,
   * only forgets.
   */
  keepRetryAnswer(grantId: number, hash: string, answer: RetryAnswer | null): Promise<void>;
  /** The answer kept on a spent refresh token, or null (none kept, or forgotten since). */
  retryAnswer(hash: string): Promise<RetryAnswer | null>;
  /**
   * Deletes codes, tokens and grants that can no longer matter, and forgets retry answers whose
   * time has passed; returns rows removed.
   */
  prune(nowSeconds: number): Promise<number>;
}

export interface AuthRequestsRepo {
  /** Stores a pending request and drops the session's older ones beyond the newest `keep`. */
  create(request: AuthRequest, keep: number): Promise<void>;
  get(idHash: string): Promise<AuthRequest | null>;
  /**
   * Removes the request and returns it, if it belongs to the session and has not expired (now <
   * expiresAt); otherwise null and nothing changes. Two takes of one request: one gets it.
   */
  take(idHash: string, sessionHash: string, nowSeconds: number): Promise<AuthRequest | null>;
  /** Deletes expired requests; returns how many. */
  prune(nowSeconds: number): Promise<number>;
}

export interface SessionsRepo {
  create(session: Session): Promise<void>;
  get(idHash: string): Promise<Session | null>;
  delete(idHash: string): Promise<void>;
  /** Ends every session of the account but `keepIdHash` (the one in use), if given; returns how many. */
  deleteForUser(userPk: number, keepIdHash?: string): Promise<number>;
  prune(nowSeconds: number): Promise<number>;
}

export interface AccountLinksRepo {
  create(link: AccountLink): Promise<void>;
  /** The link, if it is of this kind and has not expired (now < expiresAt). */
  get(idHash: string, kind: AccountLink['kind'], nowSeconds: number): Promise<AccountLink | null>;
  /** Removes and returns the link, under the same conditions as get(): two takes, one gets it. */
  take(idHash: string, kind: AccountLink['kind'], nowSeconds: number): Promise<AccountLink | null>;
  /** The account's unexpired links of a kind, newest first. */
  list(userPk: number, kind: AccountLink['kind'], nowSeconds: number): Promise<AccountLink[]>;
  /** Deletes one link of the account (by the hash it is listed under), or all of a kind; returns how many. */
  delete(userPk: number, kind: AccountLink['kind'], idHash?: string): Promise<number>;
  prune(nowSeconds: number): Promise<number>;
}

/** Everything reachable inside (or outside) a transaction. */
export interface Repos {
  readonly accounts: AccountsRepo;
  readonly clients: ClientsRepo;
  readonly oauth: OAuthRepo;
  readonly authRequests: AuthRequestsRepo;
  readonly sessions: SessionsRepo;
  readonly accountLinks: AccountLinksRepo;
  readonly tasks: TasksRepo;
  readonly organizers: OrganizersRepo;
  readonly documents: DocumentsRepo;
  readonly attachments: AttachmentsRepo;
  readonly imports: ImportsRepo;
  readonly sharing: SharingRepo;
  /** The change log (changes-port.ts): written by the database itself with every change of a record. */
  readonly changes: ChangesRepo;
  /** What CalDAV keeps beside tasks and folders (caldav-port.ts). */
  readonly caldav: CaldavRepo;
  readonly idempotency: IdempotencyRepo;
  /** App passwords (app-passwords-port.ts): what CalDAV clients sign in with. */
  readonly appPasswords: AppPasswordsRepo;
  /** Calendar feeds (feeds-port.ts): the secret addresses of read-only iCalendar subscriptions. */
  readonly calendarFeeds: CalendarFeedsRepo;
  /** The leases counting an account's event streams across instances (push-port.ts). */
  readonly sseLeases: SseLeasesRepo;
  /** Webhook endpoints, the outbox of their deliveries and its claims (push-port.ts). */
  readonly webhooks: WebhooksRepo;
}

/** The most keys CountersRepo.hitMany takes: 4 parameters each, far below either database's limit. */
export const COUNTER_HITS_PER_STATEMENT = 250;

/** Events of one key to count at once (CountersRepo.hitMany). */
export interface CounterHits {
  readonly key: string;
  readonly windowStart: number;
  readonly windowEnd: number;
  readonly by: number;
}

/** Fixed-window event counters shared by every instance of the server (rate limits). */
export interface CountersRepo {
  /** Counts `by` events (default 1) for `key` in the window [start, end); returns the window's count so far. */
  hit(key: string, windowStart: number, windowEnd: number, by?: number): Promise<number>;
  /**
   * hit() for several keys (each once, at most COUNTER_HITS_PER_STATEMENT) in one statement, so
   * all are counted or none; the counts come back in the order given.
   */
  hitMany(hits: readonly CounterHits[]): Promise<number[]>;
  /** The count of `key` in the window that starts at `windowStart` (0 when none). */
  peek(key: string, windowStart: number): Promise<number>;
  /** Deletes counters of windows that have ended; returns how many. */
  prune(nowSeconds: number): Promise<number>;
}

export interface MigrationStatus {
  readonly applied: readonly number[];
  readonly pending: readonly number[];
}

/** What account/get reads (Store.settledAccount). */
export interface SettledAccount {
  readonly account: Account;
  /** The clock just before the read (ms): every write the account does not show is stamped later. */
  readonly asOfMs: number;
}

export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  /** Autocommit reads only; every write goes through transaction(). */
  readonly read: Repos;
  /**
   * The account once every write transaction of it that had begun has ended, with the clock read
   * just before (docs/decisions/0003-change-stamps.md): a write this does not show locked the
   * account after this read's lock, and reads its stamps' clock after its lock, so it is stamped
   * no earlier than `asOfMs`. SQLite queues the read behind the writer's mutex; on PostgreSQL the
   * read waits for every transaction that took the account with `tx.accounts.lock()` (which is
   * why a write must lock the account before it reads its clock or moves a stamp). Null for no
   * account.
   */
  settledAccount(pk: number, clock: Clock): Promise<SettledAccount | null>;
  /**
   * What settledAccount would answer, when this process holds it (the account cache): answered
   * without a promise, which is a measurable share of account/get (docs/decisions/0007).
   * Undefined when it must be read; absent on the adapters, which hold nothing.
   */
  readonly heldSettledAccount?: (pk: number) => SettledAccount | undefined;
  /**
   * Runs `fn` in one transaction: commit when it resolves, roll back when it throws. Never call
   * the store's transaction(), migrate() or migrationStatus() from inside `fn`: transactions do
   * not nest, and on SQLite the inner call would wait forever for the outer one.
   */
  transaction<T>(fn: (tx: Repos) => Promise<T>): Promise<T>;
  /** Each call is one atomic statement of its own (no transaction needed). */
  readonly counters: CountersRepo;
  /** Word of commits that moved an account's change log, from every instance (changes-port.ts). */
  readonly notices: ChangeNotices;
  /** Both check first that the database can hold Tickler's data (UnsupportedDatabase if not). */
  migrate(): Promise<MigrationStatus>;
  migrationStatus(): Promise<MigrationStatus>;
  close(): Promise<void>;
}

/** Thrown by an adapter whose database cannot hold Tickler's data as it is (the message says why). */
export class UnsupportedDatabase extends Error {
  override name = 'UnsupportedDatabase';
}

/** Thrown by an adapter when a unique key is taken (e-mail, client id). */
export class UniqueViolation extends Error {
  override name = 'UniqueViolation';
  constructor(readonly what: string) {
    super(`${what} already exists`);
  }
}
