import { ALLOWED, decide, windowOf, type RateDecision, type RateLimiter } from '../lib/rate-limiter.js';
import type { RateRule } from '../lib/rate-rule.js';
import { COUNTER_HITS_PER_STATEMENT, type CountersRepo } from './store.js';

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
  /** Hits being written, whose count has not come back yet. */
  pending: number;
}

interface Due {
  readonly key: string;
  readonly slot: Slot;
  readonly by: number;
}

/**
 * Rate limits shared by instances through the database, for the API calls' limits (every call
 * counts one hit per user and one per app): StoreRateLimiter's one write per hit made every call
 * on PostgreSQL wait for two writes, all of one app's calls queueing on its counter's row
 * (docs/decisions/0006, "API limits counted in batches").
 *
 * Far from its limit, a key's hits are counted here and written together, at most FLUSH_MS later,
 * one statement for up to COUNTER_HITS_PER_STATEMENT keys. Close to it, every hit is written at
 * once and decided by the count the database returns, as StoreRateLimiter decides. "Far" means:
 * fewer than limit / UNWRITTEN_SHARE hits held or on their way to the database, and the last
 * count read plus those at least that much below the limit. So one instance is exact, however its
 * calls interleave, and each further instance can let through at most limit / UNWRITTEN_SHARE
 * calls more per window. A limit below UNWRITTEN_SHARE is written hit by hit. The first hit of a
 * window on an instance is written at once (the count may have started elsewhere). Hits held when
 * the process dies are never written: at most one FLUSH_MS of them.
 */
export class BatchedRateLimiter implements RateLimiter {
  private readonly slots = new Map<string, Slot>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** The flush on its way, if any (close() waits for it). */
  private flushing: Promise<void> = Promise.resolve();
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
      slot = { start, end, known: 0, held: 0, pending: 0 };
      this.slots.set(key, slot);
    } else if (!this.closed) {
      // Hits being written count as unwritten until their count comes back: calls arriving
      // together while a write is on its way must not each be judged by the count before it.
      const spare = Math.floor(rule.limit / UNWRITTEN_SHARE);
      const unwritten = slot.held + slot.pending;
      if (unwritten < spare && slot.known + unwritten + 1 <= rule.limit - spare) {
        slot.held += 1;
        this.schedule();
        // Judged by this instance's view: what other instances hold unwritten is not in it.
        return decide(slot.known + unwritten + 1, rule, slot.end, nowMs);
      }
    }
    const by = slot.held + 1;
    slot.held = 0;
    slot.pending += by;
    let count: number;
    try {
      count = await this.counters.hit(key, slot.start, slot.end, by);
    } catch (err) {
      // The hits held before this one were allowed: the next write takes them.
      slot.held += by - 1;
      throw err;
    } finally {
      slot.pending -= by;
    }
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
   * Writes every held hit, in one statement per COUNTER_HITS_PER_STATEMENT keys, and forgets
   * windows that have ended (what they held limits nothing any more). A statement that fails
   * gives its hits back to be written at the next flush; the others stay written.
   */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.sweep();
    const due: Due[] = [];
    for (const [key, slot] of this.slots) {
      if (slot.held > 0) {
        due.push({ key, slot, by: slot.held });
        slot.pending += slot.held;
        slot.held = 0;
      }
    }
    if (due.length === 0) return;
    const writing = this.write(due);
    const before = this.flushing;
    this.flushing = writing.then(
      () => before,
      () => before,
    );
    await writing;
  }

  /** Writes what is held and stops the timer (the server is closing; the database is still open). */
  async close(): Promise<void> {
    // From here on every hit is written at once: nothing would write what is held later.
    this.closed = true;
    await this.flushing;
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

  private async write(due: readonly Due[]): Promise<void> {
    let failed: unknown = null;
    for (let i = 0; i < due.length; i += COUNTER_HITS_PER_STATEMENT) {
      const part = due.slice(i, i + COUNTER_HITS_PER_STATEMENT);
      try {
        const counts = await this.counters.hitMany(part.map(({ key, slot, by }) => ({ key, windowStart: slot.start, windowEnd: slot.end, by })));
        part.forEach(({ slot }, j) => {
          const count = counts[j] ?? 0;
          if (count > slot.known) slot.known = count;
        });
      } catch (err) {
        for (const { slot, by } of part) slot.held += by;
        failed ??= err;
      } finally {
        for (const { slot, by } of part) slot.pending -= by;
      }
    }
    if (failed !== null) {
      this.schedule();
      throw failed;
    }
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    // A failed write is retried by the next flush; nothing waits on this one.
    this.timer = setTimeout(() => void this.flush().catch(() => undefined), this.flushMs);
    this.timer.unref();
  }
}
