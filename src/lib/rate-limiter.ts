import type { RateRule } from './rate-rule.js';

export interface RateDecision {
  readonly allowed: boolean;
  /** Whole seconds until the current window ends (for Retry-After); 0 when allowed. */
  readonly retryAfterSeconds: number;
}

/**
 * Fixed-window counters by key. The server only talks to this interface, so the counters can
 * live in process memory (one instance) or in the shared database (several instances).
 */
export interface RateLimiter {
  /** Counts one event for `key` and says whether it stayed within the rule. */
  hit(key: string, rule: RateRule, nowMs: number): Promise<RateDecision>;
  /** Says whether one more event would be within the rule, without counting it. */
  check(key: string, rule: RateRule, nowMs: number): Promise<RateDecision>;
}

const ALLOWED: RateDecision = Object.freeze({ allowed: true, retryAfterSeconds: 0 });

interface Window {
  start: number;
  end: number;
  count: number;
}

/** Window bounds in whole seconds for `nowMs`. */
export function windowOf(rule: RateRule, nowMs: number): { start: number; end: number } {
  const now = Math.floor(nowMs / 1000);
  const start = now - (now % rule.windowSeconds);
  return { start, end: start + rule.windowSeconds };
}

export function decide(count: number, rule: RateRule, end: number, nowMs: number): RateDecision {
  if (count <= rule.limit) return ALLOWED;
  return { allowed: false, retryAfterSeconds: Math.max(1, end - Math.floor(nowMs / 1000)) };
}

/** Counters in this process only: right for a single instance (the SQLite deployment). */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, Window>();
  private hits = 0;

  /** At most this many keys are held; past it the oldest are dropped (memory stays bounded). */
  constructor(private readonly maxKeys = 200_000) {}

  async hit(key: string, rule: RateRule, nowMs: number): Promise<RateDecision> {
    if (rule.limit === 0) return ALLOWED;
    const w = this.current(key, rule, nowMs);
    w.count += 1;
    if (++this.hits % 4096 === 0) this.sweep(nowMs);
    return decide(w.count, rule, w.end, nowMs);
  }

  async check(key: string, rule: RateRule, nowMs: number): Promise<RateDecision> {
    if (rule.limit === 0) return ALLOWED;
    const w = this.current(key, rule, nowMs);
    return decide(w.count + 1, rule, w.end, nowMs);
  }

  private current(key: string, rule: RateRule, nowMs: number): Window {
    const { start, end } = windowOf(rule, nowMs);
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      if (!w && this.windows.size >= this.maxKeys) this.sweep(nowMs);
      if (!w && this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value as string);
      w = { start, end, count: 0 };
      this.windows.set(key, w);
    }
    return w;
  }

  /** Drops finished windows so that memory stays bounded by the keys active now. */
  private sweep(nowMs: number): void {
    const now = Math.floor(nowMs / 1000);
    for (const [key, w] of this.windows) if (w.end <= now) this.windows.delete(key);
  }
}
