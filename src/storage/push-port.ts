/**
 * The push part of the storage port (docs/decisions/0026-push.md): the leases that count an
 * account's server-sent event streams across instances, and webhooks: an app's endpoints, the
 * position of each watched account's change log already turned into deliveries, the outbox of
 * deliveries that instances claim, and the attempts made. Times are Unix seconds.
 */

import type { ChangeKind } from './changes-port.js';

export interface SseLeasesRepo {
  /**
   * Takes one of the account's slots 0 … max-1 for `holder` until `expiresAt`: a slot nobody
   * holds, or whose lease ran out at or before `now`. Two instances never take one slot: the slot
   * is the table's key. Returns the slot, or null when all are held.
   */
  claim(userPk: number, holder: string, max: number, now: number, expiresAt: number): Promise<number | null>;
  /** Moves these holders' leases to `expiresAt`; returns the holders that still held one. */
  renew(holders: readonly string[], expiresAt: number): Promise<string[]>;
  release(holders: readonly string[]): Promise<void>;
  /** Forgets the leases that ran out before `now`; returns how many. */
  prune(now: number): Promise<number>;
}

export interface WebhookEndpoint {
  /** Public, random (`ep_…`): never reused, so a removal typed twice cannot reach another. */
  readonly id: string;
  readonly clientPk: number;
  readonly url: string;
  /** `whsec_…`: signs every delivery; kept as it is, since a hash could not sign. */
  readonly secret: string;
  readonly createdAt: number;
  /** The first failed attempt since the last one that succeeded; null while it succeeds. */
  readonly failingSince: number | null;
  /** When it was disabled for failing too long; null while enabled. */
  readonly disabledAt: number | null;
}

export interface NewWebhookEndpoint {
  readonly id: string;
  readonly clientPk: number;
  readonly url: string;
  readonly secret: string;
  readonly createdAt: number;
}

/** An account whose change log moved past the position its deliveries were made for. */
export interface MovedAccount {
  readonly userPk: number;
  /** The position told so far. */
  readonly from: number;
  /** The account's position now. */
  readonly to: number;
}

/** An enabled endpoint of an app the account granted, with that grant's scope. */
export interface Watcher {
  readonly endpointId: string;
  readonly scope: string;
}

/** A delivery an instance claimed, with what sending it needs. */
export interface ClaimedDelivery {
  readonly id: number;
  readonly endpointId: string;
  readonly url: string;
  readonly secret: string;
  readonly type: 'changes' | 'test';
  /** Null for a test event. */
  readonly userPk: number | null;
  readonly userid: string | null;
  /** The account's position as claimed: the cursor told. */
  readonly position: number | null;
  readonly kinds: readonly ChangeKind[];
  /**
   * Whether the account still grants the endpoint's app (a live grant), as claimed; always true
   * for a test event. A delivery owed to an account that revoked the app since is not sent.
   */
  readonly granted: boolean;
  /** Attempts made before this one. */
  readonly attempts: number;
  /** The message id of the last attempt, and the body it sent (null before the first). */
  readonly msgId: string;
  readonly msgBody: string | null;
}

export interface NewWebhookAttempt {
  readonly endpointId: string;
  readonly userPk: number | null;
  readonly msgId: string;
  /** 1 for the first attempt of a delivery. */
  readonly attempt: number;
  readonly at: number;
  /** The HTTP status answered; null when none came (refused, unreachable, timed out). */
  readonly status: number | null;
  readonly error: string | null;
  readonly latencyMs: number;
}

export interface WebhookAttempt extends NewWebhookAttempt {
  readonly id: number;
}

/** What becomes of a claimed delivery after its attempt. */
export type DeliveryOutcome =
  /** Sent (or given up): gone, unless kinds changed while it was sent, which are due again at `dueAt` under `nextMsgId`. */
  | { readonly done: true; readonly dueAt: number; readonly nextMsgId: string }
  /** To try again at `dueAt`, having made `attempts`, last as `msgId` with `msgBody`. */
  | { readonly done: false; readonly dueAt: number; readonly attempts: number; readonly msgId: string; readonly msgBody: string };

/** Attempts an endpoint's page shows, and the most kept per endpoint. */
export const ATTEMPTS_KEPT = 100;

export interface WebhooksRepo {
  /** Adds the endpoint, and starts watching, from their positions now, the accounts that granted its app. */
  addEndpoint(e: NewWebhookEndpoint, now: number): Promise<WebhookEndpoint>;
  /** An app's endpoints, oldest first. */
  endpoints(clientPk: number): Promise<WebhookEndpoint[]>;
  endpoint(id: string): Promise<WebhookEndpoint | null>;
  /** Removes it with its deliveries and attempts; returns whether it existed. */
  removeEndpoint(id: string): Promise<boolean>;
  setSecret(id: string, secret: string): Promise<boolean>;
  /** Enables a disabled endpoint (failing forgotten) and watches its app's accounts again. */
  enable(id: string, now: number): Promise<boolean>;

  /**
   * Starts watching the account from its position now, when the app has an enabled endpoint and
   * the account is not watched already (a new grant).
   */
  watch(userPk: number, clientPk: number): Promise<void>;
  /** Watches, from their positions now, the accounts granted to an app with an enabled endpoint that are not watched; returns how many. */
  watchMissing(now: number): Promise<number>;
  /** Watched accounts whose position is not the one told, at most `limit`. */
  moved(limit: number): Promise<MovedAccount[]>;
  /** Moves the account's told position from `from` to `to`; false when another instance moved it first. */
  advance(userPk: number, from: number, to: number): Promise<boolean>;
  /** Stops watching the account, if its told position is still `seq`. */
  unwatch(userPk: number, seq: number): Promise<void>;
  /** The enabled endpoints of apps the account granted (live grants), one row per grant. */
  watchers(userPk: number, now: number): Promise<Watcher[]>;

  /**
   * One pending delivery per endpoint and account: a new one due at `dueAt`, or the kinds added
   * to the one waiting (to its next delivery's, while an instance is sending it).
   */
  enqueue(endpointId: string, userPk: number, kinds: readonly ChangeKind[], now: number, dueAt: number, msgId: string): Promise<void>;
  /** A test event, due at once. */
  enqueueTest(endpointId: string, now: number, msgId: string): Promise<void>;
  /**
   * Claims up to `limit` deliveries due at `now` that nobody holds (or whose claim ran out) for
   * `claimer` until `until`, oldest due first; on PostgreSQL skipping rows another instance is
   * claiming (FOR UPDATE SKIP LOCKED). A changes delivery of a disabled endpoint is not claimed.
   */
  claim(claimer: string, now: number, until: number, limit: number): Promise<ClaimedDelivery[]>;
  /** Whether claim() would find anything at `now`: a read, so that an idle worker writes nothing. */
  anyDue(now: number): Promise<boolean>;
  /** Settles a delivery this claimer still holds; false when its claim was lost (and nothing changed). */
  settle(id: number, claimer: string, outcome: DeliveryOutcome): Promise<boolean>;
  /** Records an attempt, keeping the endpoint's last ATTEMPTS_KEPT. */
  recordAttempt(a: NewWebhookAttempt): Promise<void>;
  /** The endpoint's attempts, newest first. */
  attempts(endpointId: string, limit: number): Promise<WebhookAttempt[]>;
  /** Deliveries waiting for the endpoint (tests apart). */
  pending(endpointId: string): Promise<number>;
  /** A changes attempt succeeded: the endpoint is failing no more. */
  succeeded(endpointId: string): Promise<void>;
  /**
   * A changes attempt failed at `now`: the endpoint is failing since then unless it was already;
   * returns since when.
   */
  failed(endpointId: string, now: number): Promise<number>;
  /** Disables the endpoint and drops its pending changes deliveries. */
  disable(endpointId: string, now: number): Promise<void>;
}
