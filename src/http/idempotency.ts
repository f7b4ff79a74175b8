import type { Deps } from '../deps.js';
import { ApiError } from '../errors.js';
import { unixSeconds } from '../lib/clock.js';
import { randomHex, sha256Hex } from '../lib/crypto.js';
import type { AuthContext } from '../oauth/access-tokens.js';
import type { IdempotencyScope, StoredAnswer } from '../storage/store.js';
import type { Params } from './params.js';

/**
 * Safe retries: the rules of `Idempotency-Key` on POSTs to the API (docs/decisions/0022). No
 * Fastify here: src/http/idempotent-answer.ts reads the request and sends what this decides.
 */

/** How long a key and its answer are kept (issue 41: 24 hours per app, account and key). */
export const KEEP_SECONDS = 24 * 3600;

/** 1 to 255 visible ASCII characters: the IETF draft's keys (UUIDs and the like) and nothing a log or a database could read otherwise. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The key a request carries, checked (1105 otherwise). Node joins a header sent twice with ", ",
 * which the rule refuses: which of two keys counts is not for the server to choose.
 */
export function idempotencyKey(header: string | readonly string[] | undefined): string {
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (typeof value !== 'string' || !KEY.test(value)) {
    throw new ApiError(1105, { desc: 'Invalid Idempotency-Key: it must be 1 to 255 visible ASCII characters, sent once' });
  }
  return value;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !Buffer.isBuffer(v);
}

/**
 * What makes two requests "the same" for a key: the method, the path, the format asked for and
 * every parameter as the API reads it (query and body together, the body's value where both carry
 * a name: Params), compared by name whatever the order or the place they came in. Each value is
 * compared as the text sent, JSON inside a parameter included: a retry repeats its request, and
 * no rule here may call two different `tasks` the same. The access token is left out: an app that
 * refreshed its token between two tries sends the same request.
 */
export function fingerprintOf(path: string, format: string, sources: readonly unknown[], params: Params): string {
  const names = new Set<string>();
  for (const source of sources) if (isPlainObject(source)) for (const name of Object.keys(source)) names.add(name);
  names.delete('access_token');
  // `f` is compared as read (f=XML and f=xml answer alike): `format`.
  names.delete('f');
  const entries = [...names].sort().map((name) => [name, params.get(name) ?? null]);
  return sha256Hex(JSON.stringify(['POST', path, format, entries]));
}

/** A request that holds its key: it renews its lease while it runs, then keeps its answer or gives the key up. */
export class Attempt {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: Deps,
    readonly scope: IdempotencyScope,
    readonly id: string,
  ) {
    const lease = deps.config.idempotencyLeaseSeconds;
    // Three renewals a lease: one late or failed renewal does not let the key go.
    this.timer = setInterval(() => void this.renew().catch(() => undefined), (lease * 1000) / 3);
    this.timer.unref();
  }

  private async renew(): Promise<boolean> {
    const until = unixSeconds(this.deps.clock) + this.deps.config.idempotencyLeaseSeconds;
    return this.deps.store.transaction((tx) => tx.idempotency.renew(this.scope, this.id, until));
  }

  /** Keeps the answer; false when the key was taken over meanwhile (this attempt's lease ran out). */
  async finish(answer: StoredAnswer): Promise<boolean> {
    this.stop();
    return this.deps.store.transaction((tx) => tx.idempotency.finish(this.scope, this.id, answer));
  }

  /** Gives the key up: the request ended without an answer worth keeping (a server fault). */
  async release(): Promise<void> {
    this.stop();
    await this.deps.store.transaction((tx) => tx.idempotency.release(this.scope, this.id));
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** What a request with a key does: run (holding the key), or send the kept answer again. */
export type Begun = { readonly attempt: Attempt } | { readonly replay: StoredAnswer };

/**
 * Claims the key for this request, or says why not: the key was used with other parameters
 * (1103), or a request with it is still running (1104); or gives the answer kept for it.
 */
export async function beginOnce(deps: Deps, auth: AuthContext, key: string, fingerprint: string): Promise<Begun> {
  const now = unixSeconds(deps.clock);
  const scope: IdempotencyScope = { userPk: auth.userPk, clientPk: auth.clientPk, key };
  const id = randomHex(16);
  const held = await deps.store.transaction((tx) =>
    tx.idempotency.claim({ ...scope, fingerprint, attempt: id, nowSeconds: now, lockedUntil: now + deps.config.idempotencyLeaseSeconds, expiresAt: now + KEEP_SECONDS }),
  );
  if (held === null) return { attempt: new Attempt(deps, scope, id) };
  // Other parameters first: retrying will never help, whether the first request ended or not.
  if (held.fingerprint !== fingerprint) throw new ApiError(1103);
  if (held.state === 'running') throw new ApiError(1104);
  return { replay: held.answer };
}
