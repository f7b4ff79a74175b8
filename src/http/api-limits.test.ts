import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RateLimits } from '../config.js';
import { MemoryRateLimiter, type RateLimiter } from '../lib/rate-limiter.js';
import { ApiLimits, limitField, policyField, type ApiDecision } from './api-limits.js';

const T0 = Date.UTC(2026, 0, 15, 9, 0, 0);
const RULE = { limit: 2, windowSeconds: 60 };
const limits = { apiPerUser: RULE, apiPerClient: { limit: 4, windowSeconds: 60 } } as unknown as RateLimits;

/** The same counts as MemoryRateLimiter, but only through promises, as a shared database's limiter answers. */
function onlyAsync(inner: MemoryRateLimiter): RateLimiter {
  return { hit: (key, rule, nowMs) => inner.hit(key, rule, nowMs), check: (key, rule, nowMs) => inner.check(key, rule, nowMs) };
}

/** A sequence of calls (user, app, at ms) and each one's decision. */
async function run(apiLimits: ApiLimits, calls: ReadonlyArray<readonly [number, number, number]>): Promise<ApiDecision[]> {
  const out: ApiDecision[] = [];
  for (const [user, app, at] of calls) out.push(await apiLimits.count(user, app, at));
  return out;
}

describe('ApiLimits', () => {
  const calls: ReadonlyArray<readonly [number, number, number]> = [
    [1, 10, T0],
    [1, 10, T0 + 1000],
    [1, 10, T0 + 2000], // the user's third: refused (the app's third counted), remembered until the window ends
    [1, 10, T0 + 3000], // answered from memory: the app not counted
    [2, 10, T0 + 4000], // another user: the app's fourth, allowed (had call 4 counted it, its fifth)
    [2, 10, T0 + 5000], // the app's fifth: refused
    [1, 10, T0 + 60_000], // a new window for both
  ];

  it('answers at once where the counts live in this process, and decides as the limiter behind promises does', async () => {
    const memory = new ApiLimits(new MemoryRateLimiter(), limits);
    const first = memory.count(1, 10, T0);
    assert.equal(first instanceof Promise, false, 'no promise: the guard need not wait a turn');
    const shared = new ApiLimits(onlyAsync(new MemoryRateLimiter()), limits);
    assert.equal(shared.count(1, 10, T0) instanceof Promise, true);

    const fresh = (limiter: RateLimiter) => run(new ApiLimits(limiter, limits), calls);
    const decisions = await fresh(new MemoryRateLimiter());
    assert.deepEqual(decisions, await fresh(onlyAsync(new MemoryRateLimiter())));
    assert.deepEqual(
      decisions.map((d) => d.allowed),
      [true, true, false, false, true, false, true],
    );
    assert.deepEqual(decisions[0], { allowed: true, retryAfterSeconds: 0, user: { remaining: 1, resetSeconds: 60 }, app: { remaining: 3, resetSeconds: 60 } });
    assert.deepEqual(decisions[2], { allowed: false, retryAfterSeconds: 58, user: { remaining: 0, resetSeconds: 58 }, app: { remaining: 1, resetSeconds: 58 } });
    assert.deepEqual(decisions[3], { allowed: false, retryAfterSeconds: 57, user: { remaining: 0, resetSeconds: 57 } }, 'from memory, counting down; the app not counted');
    assert.deepEqual(decisions[5], { allowed: false, retryAfterSeconds: 55, user: { remaining: 0, resetSeconds: 55 }, app: { remaining: 0, resetSeconds: 55 } }, "the app's limit");
    assert.deepEqual(decisions[6]?.user, { remaining: 1, resetSeconds: 60 }, 'a new window');
  });
});

describe('the RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers)', () => {
  it('name each limit in force as a quoted string, with its quota and window, then what is left and when it resets', () => {
    assert.equal(policyField({ apiPerUser: { limit: 3600, windowSeconds: 3600 }, apiPerClient: { limit: 100000, windowSeconds: 3600 } } as RateLimits), '"user";q=3600;w=3600, "app";q=100000;w=3600');
    assert.equal(limitField({ allowed: true, retryAfterSeconds: 0, user: { remaining: 3599, resetSeconds: 1800 }, app: { remaining: 0, resetSeconds: 20 } }), '"user";r=3599;t=1800, "app";r=0;t=20');
  });

  it('leave out a limit that is off, and say nothing when none is known', () => {
    const off = { limit: 0, windowSeconds: 1 };
    assert.equal(policyField({ apiPerUser: off, apiPerClient: { limit: 10, windowSeconds: 60 } } as RateLimits), '"app";q=10;w=60');
    assert.equal(policyField({ apiPerUser: off, apiPerClient: off } as RateLimits), undefined);
    assert.equal(limitField({ allowed: true, retryAfterSeconds: 0, user: { remaining: 5, resetSeconds: 1 } }), '"user";r=5;t=1');
    assert.equal(limitField({ allowed: true, retryAfterSeconds: 0 }), undefined);
  });
});
