import { decide, windowOf, type RateDecision, type RateLimiter } from '../lib/rate-limiter.js';
import type { RateRule } from '../lib/rate-rule.js';
import type { CountersRepo } from './store.js';

const ALLOWED: RateDecision = Object.freeze({ allowed: true, retryAfterSeconds: 0 });

/** An instance counts at most 1/SHARE of a limit per key that the database has not heard of yet. */
export const UNWRITTEN_SHARE = 64;
/** How long hits counted here may wait before they are written (ms). */
export const FLUSH_MS = 1000;

/** This instance's view of one key's current window. */
interface Slot {
  readonly start: number;
  readonly end: number;
  /** The shared count as last read from the database (this instance's writes included). */
  known: number;
  /** Hits allowed here and not written yet. */
  held: number;
}

/**
 * Rate limits shared by instances through the database, for the API calls' limits (every call
 * counts one hit per user and one per app): StoreRateLimiter's one write per hit made every call
 * on PostgreSQL wait for two writes, all of one app's calls queueing on its counter's row
 * (docs/decisions/0006, "API limits counted in batches").
 *
 * Far from its limit, a key's hits are counted here and written together, at most FLUSH_MS later,
 * one statement for every key that has some. Close to it, every hit is written at once and decided
 * by the count the database returns, as StoreRateLimiter decides. "Far" means: fewer than
 * limit / UNWRITTEN_SHARE hits held, and the last count read plus those held at least that much
 * below the limit. So one instance is exact, and each further instance can let through at most
 * limit / UNWRITTEN_SHARE calls more per window. A limit below UNWRITTEN_SHARE is written hit by hit.
 * The first hit of a window on an instance is written at once (the count may have started
 * elsewhere). Hits held when the process dies are never written: at most one FLUSH_MS of them.
 */
export class BatchedRateLimiter implements RateLimiter {
  private readonly slots = new Map<string, Slot>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** The latest moment a hit was counted at: held windows that ended before it are dropped. */
  private lastNowMs = 0;
  /** Ended windows are swept when this many keys are held (so each key costs O(1) on average). */
  private sweepAt = 1024;

  constructor(
    private readonly counters: CountersRepo,
    private readonly flushMs = FLUSH_MS,
  ) {}

  async hit(key: string, rule: RateRule, nowMs: number): Promise<RateDecision> {
    if (rule.limit === 0) return ALLOWED;
    if (nowMs > this.lastNowMs) this.lastNowMs = nowMs;
    const { start, end } = windowOf(rule, nowMs);
    let slot = this.slots.get(key);
    // A later window starts afresh; an earlier one (a clock stepped back) counts in the held one.
    if (!slot || start > slot.start) {
      if (this.slots.size >= this.sweepAt) this.sweep();
      slot = { start, end, known: 0, held: 0 };
      this.slots.set(key, slot);
    } else {
      const spare = Math.floor(rule.limit / UNWRITTEN_SHARE);
      if (slot.held < spare && slot.known + slot.held + 1 <= rule.limit - spare) {
        slot.held += 1;
        this.schedule();
        return ALLOWED;
      }
    }
    const by = slot.held + 1;
    slot.held = 0;
    const count = await this.counters.hit(key, slot.start, slot.end, by);
    if (count > slot.known) slot.known = count;
    return decide(count, rule, slot.end, nowMs);
  }

  /** The written count plus the hits held here: one more would be allowed or not. Never counts. */
  async check(key: string, rule: RateRule, nowMs: number): Promise<RateDecision> {
    if (rule.limit === 0) return ALLOWED;
    const { start, end } = windowOf(rule, nowMs);
    const slot = this.slots.get(key);
    const held = slot && slot.start >= start ? slot.held : 0;
    return decide((await this.counters.peek(key, start)) + held + 1, rule, end, nowMs);
  }

  /**
   * Writes every held hit, in one statement per 250 keys, and forgets windows that have ended
   * (what they held limits nothing any more). A write that fails gives its hits back to be
   * written at the next flush.
   */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.sweep();
    const due: Array<{ key: string; slot: Slot; by: number }> = [];
    for (const [key, slot] of this.slots) {
      if (slot.held > 0) {
        due.push({ key, slot, by: slot.held });
        slot.held = 0;
      }
    }
    if (due.length === 0) return;
    try {
      const counts = await this.counters.hitMany(due.map(({ key, slot, by }) => ({ key, windowStart: slot.start, windowEnd: slot.end, by })));
      due.forEach(({ slot }, i) => {
        const count = counts[i] ?? 0;
        if (count > slot.known) slot.known = count;
      });
    } catch (err) {
      for (const { slot, by } of due) slot.held += by;
      this.schedule();
      throw err;
    }
  }

  /** Writes what is held and stops the timer (the server is closing; the database is still open). */
  async close(): Promise<void> {
    this.closed = true;
    // A database that fails now loses at most one FLUSH_MS of counts; closing must not fail for it.
    await this.flush().catch(() => undefined);
  }

  /** How many keys' windows are held here (for tests of the bound). */
  get size(): number {
    return this.slots.size;
  }

  /** Forgets windows that have ended: of a user who stopped calling, of a key always written. */
  private sweep(): void {
    for (const [key, slot] of this.slots) if (slot.end * 1000 <= this.lastNowMs) this.slots.delete(key);
    this.sweepAt = Math.max(1024, 2 * this.slots.size);
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    // A failed write is retried by the next flush; nothing waits on this one.
    this.timer = setTimeout(() => void this.flush().catch(() => undefined), this.flushMs);
    this.timer.unref();
  }
}
