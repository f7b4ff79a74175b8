import type { RateLimits } from '../config.js';
import { BoundedMap } from '../lib/bounded-map.js';
import type { Quota, RateDecision, RateLimiter } from '../lib/rate-limiter.js';
import { limitItem, policyItem } from './rate-limit-fields.js';

/** An API call's decision, with what is left of each of its two limits where known. */
export interface ApiDecision extends RateDecision {
  /** RATE_LIMIT_API_PER_USER's window: this user's calls, all apps together. */
  readonly user?: Quota;
  /** RATE_LIMIT_API_PER_CLIENT's window: this app's calls, all users together. */
  readonly app?: Quota;
}

/**
 * The limits as the RateLimit-Policy field (src/http/rate-limit-fields.ts):
 * `"user";q=3600;w=3600, "app";q=100000;w=3600`. A limit that is off is no policy; undefined when
 * both are off.
 */
export function policyField(limits: RateLimits): string | undefined {
  const items = [policyItem('user', limits.apiPerUser), policyItem('app', limits.apiPerClient)].filter((i) => i !== undefined);
  return items.length > 0 ? items.join(', ') : undefined;
}

/** The RateLimit field of a decision: `"user";r=3599;t=1800, "app";r=99990;t=1800`. */
export function limitField(d: ApiDecision): string | undefined {
  const items = [limitItem('user', d.user), limitItem('app', d.app)].filter((i) => i !== undefined);
  return items.length > 0 ? items.join(', ') : undefined;
}

/**
 * The two limits of every API call (error 3): per user, all apps together, and per app, all users
 * together. Both counts are written at once: on PostgreSQL each is a database write, and one after
 * the other they made every call wait for two round trips.
 *
 * Counting both at once also counts the app when the user is refused, so a user past their limit
 * would keep spending the app's ceiling and could lock out every other user of a shared app.
 * A refused user is therefore answered from memory until their window ends, counting nothing:
 * the app pays for one refused call per user, window and instance at most.
 */
export class ApiLimits {
  /** User → second at which their refusal ends. A forgotten entry only costs one more count. */
  private readonly refusedUntil = new BoundedMap<number, number>(10_000);
  /** The RateLimit-Policy field of every counted call (the same for all: the configured limits). */
  readonly policy: string | undefined;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly limits: RateLimits,
  ) {
    this.policy = policyField(limits);
  }

  /**
   * Counts one call of the user through the app. Answered at once (no promise) where the counts
   * live in this process (RateLimiter.hitNow: the single-instance deployment), else a promise.
   */
  count(userPk: number, clientPk: number, nowMs: number): ApiDecision | Promise<ApiDecision> {
    const now = Math.floor(nowMs / 1000);
    const until = this.refusedUntil.get(userPk);
    if (until !== undefined) {
      // The app's count is not read for a refusal answered from memory: only the user's is known.
      if (until > now) return { allowed: false, retryAfterSeconds: until - now, user: { remaining: 0, resetSeconds: until - now } };
      this.refusedUntil.delete(userPk);
    }
    const userKey = `api:user:${userPk}`;
    const appKey = `api:client:${clientPk}`;
    if (this.limiter.hitNow) {
      return this.decide(userPk, now, this.limiter.hitNow(userKey, this.limits.apiPerUser, nowMs), this.limiter.hitNow(appKey, this.limits.apiPerClient, nowMs));
    }
    return this.countShared(userPk, now, userKey, appKey, nowMs);
  }

  private async countShared(userPk: number, now: number, userKey: string, appKey: string, nowMs: number): Promise<ApiDecision> {
    // Both start at once and are awaited in turn (Promise.all's array and extra promise cost a
    // third of this function); the second's failure is handled when the first's is thrown.
    const userHit = this.limiter.hit(userKey, this.limits.apiPerUser, nowMs);
    const appHit = this.limiter.hit(appKey, this.limits.apiPerClient, nowMs);
    appHit.catch(() => undefined);
    const user = await userHit;
    const app = await appHit;
    return this.decide(userPk, now, user, app);
  }

  private decide(userPk: number, now: number, user: RateDecision, app: RateDecision): ApiDecision {
    if (!user.allowed) this.refusedUntil.set(userPk, now + user.retryAfterSeconds);
    const allowed = user.allowed && app.allowed;
    // Both refused: the later end, since retrying at the earlier one would be refused again.
    const retryAfterSeconds = allowed ? 0 : Math.max(user.retryAfterSeconds, app.retryAfterSeconds);
    return { allowed, retryAfterSeconds, ...(user.quota && { user: user.quota }), ...(app.quota && { app: app.quota }) };
  }

  /** Writes the counts the limiter still holds (src/storage/batched-rate-limiter.ts). */
  async close(): Promise<void> {
    await this.limiter.close?.();
  }
}
