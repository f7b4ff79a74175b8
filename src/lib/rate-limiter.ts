import type { RateRule } from './rate-rule.js';

export interface RateDecision {
  readonly allowed: boolean;
  /** Whole seconds until the current window ends (for Retry-After); 0 when allowed. */
  readonly retryAfterSeconds: number;
  /** What is left of the rule's window, where the limiter knows it (the RateLimit header); none for no limit. */
  readonly quota?: Quota;
}

/** A window's quota as a client may read it (draft-ietf-httpapi-ratelimit-headers: `r` and `t`). */
export interface Quota {
  /** Events the window still allows after this one (0 when refused). */
  readonly remaining: number;
  /** Whole seconds until the window ends and the full quota is back. */
  readonly resetSeconds: number;
}

/**
 * Fixed-window counters by key. The server only talks to this interface, so the counters can
 * live in process memory (one instance) or in the shared database (several instances). Keys read
 * `area:kind:id…`, with a constant `area:kind` (`signin:account:…`, `api:user:…`).
 */
export interface RateLimiter {
  /** Counts one event for `key` and says whether it stayed within the rule. */
  hit(key: string, rule: RateRule, nowMs: number): Promise<RateDecision>;
  /**
   * hit(), answered at once: only a limiter whose counts live in this process has it. Every API
   * call counts two keys, and the promises of two hits were a measurable share of account/get.
   */
  hitNow?(key: string, rule: RateRule, nowMs: number): RateDecision;
  /**
   * Says whether one more event would be within the rule, without counting it. With `failClosed`,
   * a key that hit() could not count (a full table of the in-memory limiter) is refused, as hit()
   * would refuse it: for limits that check first and count failures after (app passwords).
   */
  check(key: string, rule: RateRule, nowMs: number, options?: CheckOptions): Promise<RateDecision>;
  /** Writes whatever counts it still holds (the server is closing); never fails. */
  close?(): Promise<void>;
}

export interface CheckOptions {
  readonly failClosed?: boolean;
}

/** The answer to a hit within its rule (shared by every limiter). */
export const ALLOWED: RateDecision = Object.freeze({ allowed: true, retryAfterSeconds: 0 });

/** Window bounds in whole seconds for `nowMs`. */
export function windowOf(rule: RateRule, nowMs: number): { start: number; end: number } {
  const now = Math.floor(nowMs / 1000);
  const start = now - (now % rule.windowSeconds);
  return { start, end: start + rule.windowSeconds };
}

export function decide(count: number, rule: RateRule, end: number, nowMs: number): RateDecision {
  const left = end - Math.floor(nowMs / 1000);
  const quota: Quota = { remaining: Math.max(0, rule.limit - count), resetSeconds: Math.max(0, left) };
  if (count <= rule.limit) return { allowed: true, retryAfterSeconds: 0, quota };
  return { allowed: false, retryAfterSeconds: Math.max(1, left), quota };
}

interface Window {
  start: number;
  end: number;
  count: number;
}

/**
 * Keys read `area:kind:…` (`token:fail:…`, `signin:account:…`, `api:user:…`); each `area:kind`
 * gets its own table, so that keys an attacker can make up fill only their own kind's table.
 * The prefixes are constants in the code, so the number of tables is fixed.
 */
function namespaceOf(key: string): string {
  const first = key.indexOf(':');
  const second = first < 0 ? -1 : key.indexOf(':', first + 1);
  return second < 0 ? '' : key.slice(0, second);
}

/** The live windows of one kind of key, at most `maxKeys` of them. */
class WindowTable {
  readonly windows = new Map<string, Window>();
  /** No held window ends before this second: a sweep before it would find nothing to drop. */
  private earliestEnd = Infinity;

  constructor(private readonly maxKeys: number) {}

  add(key: string, w: Window): void {
    this.windows.set(key, w);
    if (w.end < this.earliestEnd) this.earliestEnd = w.end;
  }

  /** Whether one more key can be held, after dropping ended windows if any may have ended. */
  hasRoom(now: number): boolean {
    this.sweep(now);
    return this.windows.size < this.maxKeys;
  }

  /**
   * Drops ended windows. Windows are aligned to their rule's period, so the held ones end at a
   * few shared instants, and a full pass runs at most once per such instant, however many
   * requests arrive meanwhile (each request sweeping a full table was a CPU sink).
   */
  sweep(now: number): void {
    if (now < this.earliestEnd) return;
    let earliest = Infinity;
    for (const [key, w] of this.windows) {
      if (w.end <= now) this.windows.delete(key);
      else if (w.end < earliest) earliest = w.end;
    }
    this.earliestEnd = earliest;
  }

  /** The answer for a key the full table cannot hold: limited until its first window ends. */
  refusal(now: number): RateDecision {
    return { allowed: false, retryAfterSeconds: Math.max(1, this.earliestEnd - now) };
  }
}

/**
 * Counters in this process only: right for a single instance (the SQLite deployment).
 *
 * Memory is bounded without ever forgetting a live count: a table that is full of windows still
 * running refuses keys it does not hold (fails closed) instead of evicting one. Evicting would let
 * anyone who can invent keys (a made-up client id, a typed e-mail address) wipe a victim's
 * sign-in count with junk requests, and guessing would resume. See docs/decisions/0006.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly tables = new Map<string, WindowTable>();

  /** At most this many keys per kind of key (`area:kind`). */
  constructor(private readonly maxKeys = 100_000) {}

  async hit(key: string, rule: RateRule, nowMs: number): Promise<RateDecision> {
    return this.hitNow(key, rule, nowMs);
  }

  hitNow(key: string, rule: RateRule, nowMs: number): RateDecision {
    if (rule.limit === 0) return ALLOWED;
    const now = Math.floor(nowMs / 1000);
    const { start, end } = windowOf(rule, nowMs);
    const table = this.table(key);
    table.sweep(now);
    let w = table.windows.get(key);
    if (!w) {
      if (!table.hasRoom(now)) return table.refusal(now);
      w = { start, end, count: 0 };
      table.add(key, w);
    } else if (start > w.start) {
      // Only a newer window starts the count again. An older one (the clock stepped back) counts
      // in the held window, as the database counters do: restarting would double a client's limit.
      w.start = start;
      w.end = end;
      w.count = 0;
    }
    w.count += 1;
    return decide(w.count, rule, w.end, nowMs);
  }

  /**
   * Never creates or changes a count: a key not held counts 0 (checks must not fill the tables).
   * A full table does not refuse here: the token endpoint checks every request before it knows
   * whether the request will fail, so refusing would let one flood of made-up client ids stop
   * every app's token requests. Limits that must fail closed count with `hit` before the work
   * (sign-ins do), or check with `failClosed` (app passwords, which count only failures).
   */
  async check(key: string, rule: RateRule, nowMs: number, options: CheckOptions = {}): Promise<RateDecision> {
    if (rule.limit === 0) return ALLOWED;
    const { start, end } = windowOf(rule, nowMs);
    const table = this.tables.get(namespaceOf(key));
    const w = table?.windows.get(key);
    if (w && w.start >= start) return decide(w.count + 1, rule, w.end, nowMs);
    // A key the full table does not hold: its failure could not be counted either.
    const now = Math.floor(nowMs / 1000);
    if (options.failClosed && !w && table && !table.hasRoom(now)) return table.refusal(now);
    return decide(1, rule, end, nowMs);
  }

  private table(key: string): WindowTable {
    const name = namespaceOf(key);
    let t = this.tables.get(name);
    if (!t) {
      t = new WindowTable(this.maxKeys);
      this.tables.set(name, t);
    }
    return t;
  }
}
