/**
 * The storage port of Idempotency-Key (docs/decisions/0022): one row per app, account and key,
 * holding first a claim (which attempt runs the request, and until when its lease lasts) and then
 * the answer, kept until it expires. Every method is one statement, called inside a transaction.
 */

/** One key of one app and one account. */
export interface IdempotencyScope {
  readonly userPk: number;
  readonly clientPk: number;
  /** As the app sent it: 1 to 255 visible ASCII characters. */
  readonly key: string;
}

/** What an attempt asks for when it claims a key. */
export interface IdempotencyClaim extends IdempotencyScope {
  /** The request's parameters as read, hashed (src/http/idempotency.ts). */
  readonly fingerprint: string;
  /** A random id of this attempt: a late answer of an attempt whose claim was taken over is not kept. */
  readonly attempt: string;
  readonly nowSeconds: number;
  /** The end of the claim's lease, renewed while the request runs. */
  readonly lockedUntil: number;
  /** When the key, and its answer, are forgotten. */
  readonly expiresAt: number;
}

/** A stored answer: what a replay sends again. */
export interface StoredAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** A key someone else holds: its request is running, or its answer is kept. */
export type HeldKey =
  | { readonly state: 'running'; readonly fingerprint: string; readonly lockedUntil: number }
  | { readonly state: 'done'; readonly fingerprint: string; readonly answer: StoredAnswer };

export interface IdempotencyRepo {
  /**
   * Takes the key for `claim.attempt` when it is free: never used, expired, or claimed with the
   * same fingerprint by an attempt whose lease has ended (its request died). Returns null when it
   * took the key, otherwise the key as held (and changes nothing). Two claims at once: one takes it.
   */
  claim(claim: IdempotencyClaim): Promise<HeldKey | null>;
  /** Moves the lease of the running attempt on; false when the attempt no longer holds the key. */
  renew(scope: IdempotencyScope, attempt: string, lockedUntil: number): Promise<boolean>;
  /** Keeps the attempt's answer; false (nothing kept) when the attempt no longer holds the key. */
  finish(scope: IdempotencyScope, attempt: string, answer: StoredAnswer): Promise<boolean>;
  /** Gives the key up, if the attempt still runs and holds it: the next request with it runs afresh. */
  release(scope: IdempotencyScope, attempt: string): Promise<boolean>;
  /** The key as held at `nowSeconds`, or null (never used, or expired). */
  get(scope: IdempotencyScope, nowSeconds: number): Promise<HeldKey | null>;
  /** Deletes expired keys; returns how many. */
  prune(nowSeconds: number): Promise<number>;
}
