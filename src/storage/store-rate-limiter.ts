import { ALLOWED, decide, windowOf, type RateDecision, type RateLimiter } from '../lib/rate-limiter.js';
import type { RateRule } from '../lib/rate-rule.js';
import type { Store } from './store.js';

/**
 * Rate limits whose counters live in the database, so that several instances serving one user in
 * turn share them (PostgreSQL deployments). One statement per counted event.
 */
export class StoreRateLimiter implements RateLimiter {
  constructor(private readonly store: Store) {}

  async hit(key: string, rule: RateRule, nowMs: number): Promise<RateDecision> {
    if (rule.limit === 0) return ALLOWED;
    const { start, end } = windowOf(rule, nowMs);
    return decide(await this.store.counters.hit(key, start, end), rule, end, nowMs);
  }

  async check(key: string, rule: RateRule, nowMs: number): Promise<RateDecision> {
    if (rule.limit === 0) return ALLOWED;
    const { start, end } = windowOf(rule, nowMs);
    return decide((await this.store.counters.peek(key, start)) + 1, rule, end, nowMs);
  }
}
