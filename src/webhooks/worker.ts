import type { Deps } from '../deps.js';
import { encodeCursor } from '../features/changes/cursor.js';
import { kindsFor } from '../features/changes/feed-kinds.js';
import { unixSeconds } from '../lib/clock.js';
import { randomHex } from '../lib/crypto.js';
import { grantedScopes, parseScope } from '../oauth/scopes.js';
import type { ChangeKind } from '../storage/changes-port.js';
import type { ClaimedDelivery, DeliveryOutcome, MovedAccount, Watcher } from '../storage/push-port.js';
import { retryDelay, DISABLE_AFTER_SECONDS, MAX_ATTEMPTS } from './schedule.js';
import { postTo, DELIVERY_TIMEOUT_MS, type SendResult } from './send.js';
import { newMessageId, signedHeaders } from './signature.js';
import { resolveTarget, systemLookup, TargetRefused, type Lookup } from './targets.js';

/**
 * The webhook worker of one instance (docs/decisions/0026-push.md). It fills the outbox from the
 * change log and delivers what is due, both through the database, so that any number of instances
 * may run it and a crash or a kill loses nothing:
 *
 * - **Filling.** Each watched account's told position (webhook_marks) is compared with its
 *   position; an account that moved is taken by one instance (the told position moved from what
 *   it read to the account's position, compare-and-set), which adds, in the same transaction, one
 *   pending delivery per enabled endpoint of the apps the account granted whose scope reads a kind
 *   that changed. A pending delivery takes the kinds of later changes into itself (bursts
 *   coalesce). The tasks' services never take part: the change log is written by the database.
 * - **Delivering.** Due deliveries are claimed for CLAIM_SECONDS (skipping rows another instance is
 *   claiming), sent, and settled in one transaction with the record of the attempt: sent, or due
 *   again after a back-off, or given up after MAX_ATTEMPTS. A claim whose instance died runs out
 *   and the delivery is claimed again.
 *
 * It runs after every commit the store's notices tell of (any account, any instance), and every
 * `tickMs` for what is due by the clock (deps.clock: tests move it) and what notices missed.
 */

export interface WorkerOptions {
  readonly tickMs: number;
  /** How long a claim holds: longer than a delivery's timeout, so that two instances never send one delivery at once. */
  readonly claimSeconds: number;
  /** Deliveries claimed, and sent side by side, at once. */
  readonly batch: number;
  readonly timeoutMs: number;
  /** How names are resolved (tests resolve names of their own). */
  readonly lookup: Lookup;
  readonly log: (err: unknown, what: string) => void;
}

export const WORKER_DEFAULTS: WorkerOptions = {
  tickMs: 1000,
  claimSeconds: 30,
  batch: 10,
  timeoutMs: DELIVERY_TIMEOUT_MS,
  lookup: systemLookup,
  log: () => undefined,
};

/** Watched accounts turned into deliveries per round. */
const MOVED_PER_ROUND = 200;
/** Rounds of one run at most: a run ends, and the next tick goes on. */
const ROUNDS = 50;
/** How often (real time) accounts granted to an app with endpoints but not watched are looked for. */
const MISSING_EVERY_MS = 60_000;

export class WebhookWorker {
  private readonly options: WorkerOptions;
  private readonly instance = randomHex(8);
  private claims = 0;
  private lookedForMissing = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private stopNotices: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly deps: Deps,
    options: Partial<WorkerOptions> = {},
  ) {
    this.options = { ...WORKER_DEFAULTS, ...options };
  }

  start(): void {
    if (this.timer || this.stopped) return;
    this.stopNotices = this.deps.store.notices.subscribeAll(() => this.poke());
    this.timer = setInterval(() => this.poke(), this.options.tickMs);
    this.timer.unref();
    this.poke();
  }

  /** Stops taking work and waits for the deliveries under way (each within its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.stopNotices?.();
    await this.running;
  }

  /** Runs now, or once more after the run under way. */
  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.runOnce()
      .catch((err: unknown) => this.options.log(err, 'the webhook worker'))
      .finally(() => {
        this.running = undefined;
        if (this.again && !this.stopped) {
          this.again = false;
          this.poke();
        }
      });
  }

  /** One run: fill the outbox from the accounts that moved, then send what is due. */
  async runOnce(): Promise<void> {
    if (performance.now() - this.lookedForMissing >= MISSING_EVERY_MS) {
      this.lookedForMissing = performance.now();
      await this.deps.store.transaction((tx) => tx.webhooks.watchMissing(unixSeconds(this.deps.clock)));
    }
    for (let round = 0; round < ROUNDS && !this.stopped; round++) {
      const moved = await this.deps.store.read.webhooks.moved(MOVED_PER_ROUND);
      for (const m of moved) await this.fill(m);
      const sent = await this.deliverDue();
      if (moved.length < MOVED_PER_ROUND && sent < this.options.batch) return;
    }
  }

  private async fill(m: MovedAccount): Promise<void> {
    const now = unixSeconds(this.deps.clock);
    await this.deps.store.transaction(async (tx) => {
      // Another instance took it first: its transaction holds what this one would write.
      if (!(await tx.webhooks.advance(m.userPk, m.from, m.to))) return;
      // Back (a database restored from a backup): nothing new to tell.
      if (m.to <= m.from) return;
      const watchers = await tx.webhooks.watchers(m.userPk, now);
      // No app of the account has an endpoint any more: it is not watched (a new grant watches it again).
      if (watchers.length === 0) return tx.webhooks.unwatch(m.userPk, m.to);
      const changed = await tx.changes.kindsSince(m.userPk, m.from, m.to);
      for (const [endpointId, reads] of readsByEndpoint(watchers)) {
        const kinds = changed.filter((k) => reads.has(k));
        if (kinds.length > 0) await tx.webhooks.enqueue(endpointId, m.userPk, kinds, now, now, newMessageId());
      }
    });
  }

  /** Claims what is due and sends it; returns how many were claimed. */
  private async deliverDue(): Promise<number> {
    const now = unixSeconds(this.deps.clock);
    // A read first: on SQLite every commit is a notice, and a claim that wrote nothing would
    // still commit, tell the notices, and run the worker again, for ever.
    if (!(await this.deps.store.read.webhooks.anyDue(now))) return 0;
    const claimer = `${this.instance}-${++this.claims}`;
    const due = await this.deps.store.transaction((tx) => tx.webhooks.claim(claimer, now, now + this.options.claimSeconds, this.options.batch));
    await Promise.all(due.map((d) => this.deliver(d, claimer)));
    return due.length;
  }

  private async deliver(d: ClaimedDelivery, claimer: string): Promise<void> {
    if (!d.granted) {
      // The account revoked the app after the delivery was owed: the app hears nothing more of it.
      await this.deps.store.transaction((tx) => tx.webhooks.settle(d.id, claimer, { done: true, dueAt: unixSeconds(this.deps.clock), nextMsgId: newMessageId() }));
      return;
    }
    const body = bodyOf(d);
    // A retry of the same message keeps its id (receivers drop what they have seen); one whose
    // body changed (newer changes coalesced into it) is another message.
    const msgId = d.msgBody === null || d.msgBody === body ? d.msgId : newMessageId();
    const at = unixSeconds(this.deps.clock);
    const result = await this.send(d, msgId, at, body);
    const attempt = d.attempts + 1;
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    await this.deps.store.transaction(async (tx) => {
      let outcome: DeliveryOutcome = { done: true, dueAt: at, nextMsgId: newMessageId() };
      let error = result.error;
      if (d.type === 'changes' && ok) await tx.webhooks.succeeded(d.endpointId);
      if (d.type === 'changes' && !ok) {
        const failingSince = await tx.webhooks.failed(d.endpointId, at);
        if (at - failingSince >= DISABLE_AFTER_SECONDS) {
          await tx.webhooks.disable(d.endpointId, at);
          error = `${error ?? `HTTP ${result.status}`}; failing for 3 days: the endpoint is disabled`;
        } else if (attempt >= MAX_ATTEMPTS) {
          error = `${error ?? `HTTP ${result.status}`}; given up after ${MAX_ATTEMPTS} attempts`;
        } else {
          outcome = { done: false, dueAt: at + retryDelay(attempt), attempts: attempt, msgId, msgBody: body };
        }
      }
      await tx.webhooks.recordAttempt({ endpointId: d.endpointId, userPk: d.userPk, msgId, attempt, at, status: result.status, error, latencyMs: result.latencyMs });
      await tx.webhooks.settle(d.id, claimer, outcome);
    });
  }

  private async send(d: ClaimedDelivery, msgId: string, at: number, body: string): Promise<SendResult> {
    const allowPrivate = this.deps.config.webhookAllowPrivate;
    try {
      const target = await resolveTarget(new URL(d.url), allowPrivate, this.options.lookup);
      return await postTo(target, signedHeaders(d.secret, msgId, at, body), body, this.options.timeoutMs);
    } catch (err) {
      // Refused here (the address is not public now), or something else went wrong: an attempt that failed.
      return { status: null, error: err instanceof TargetRefused ? `refused: ${err.message}` : String((err as Error).message ?? err), latencyMs: 0 };
    }
  }
}

/** What each endpoint's grants let it read, by endpoint. */
function readsByEndpoint(watchers: readonly Watcher[]): Map<string, Set<ChangeKind>> {
  const out = new Map<string, Set<ChangeKind>>();
  for (const w of watchers) {
    const reads = out.get(w.endpointId) ?? new Set<ChangeKind>();
    for (const k of kindsFor(grantedScopes(parseScope(w.scope) ?? []))) reads.add(k.kind);
    out.set(w.endpointId, reads);
  }
  return out;
}

/** The JSON a delivery sends: the account, the cursor the feed answers it now, and the kinds that changed. */
export function bodyOf(d: ClaimedDelivery): string {
  if (d.type === 'test') return JSON.stringify({ type: 'test' });
  return JSON.stringify({ type: 'changes', userid: d.userid, cursor: encodeCursor(d.userid ?? '', d.position ?? 0), kinds: d.kinds });
}
