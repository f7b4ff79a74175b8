import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { RateDecision, RateLimiter } from './rate-limiter.js';
import type { RateRule } from './rate-rule.js';

/**
 * What every rate limiter must do, whatever holds its counters: the in-memory one (one SQLite
 * process) and the database-backed one (instances sharing PostgreSQL; src/storage/store-rate-limiter.ts).
 * Each test gets a fresh limiter from `open`.
 */

/** A window boundary: windows are aligned to multiples of their length since the epoch. */
const T0 = Date.UTC(2026, 0, 15, 9, 0, 0);

/** A decision without its quota (tested on its own below). */
const verdict = async (d: Promise<RateDecision>) => {
  const { allowed, retryAfterSeconds } = await d;
  return { allowed, retryAfterSeconds };
};

export function rateLimiterContract(name: string, open: () => Promise<{ limiter: RateLimiter; close(): Promise<void> }>): void {
  describe(`rate limiter contract: ${name}`, () => {
    let rl: RateLimiter;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ limiter: rl, close } = await open());
    });
    afterEach(() => close());

    for (const limit of [1, 3, 10]) {
      test(`limit ${limit} allows exactly ${limit} hits, then refuses until the window ends`, async () => {
        const rule: RateRule = { limit, windowSeconds: 60 };
        for (let i = 1; i <= limit; i++) {
          assert.deepEqual(await verdict(rl.hit('k', rule, T0 + i)), { allowed: true, retryAfterSeconds: 0 }, `hit ${i}`);
        }
        // 20.5 s into the minute: 39.5 s left, announced as the 40 whole seconds a client must wait.
        const refused = await verdict(rl.hit('k', rule, T0 + 20_500));
        assert.deepEqual(refused, { allowed: false, retryAfterSeconds: 40 });
        // Refused hits keep being refused; they do not reset anything.
        assert.equal((await rl.hit('k', rule, T0 + 59_000)).allowed, false);
      });
    }

    test('a limit of 640 allows exactly 640 hits in a window, and counts the next window afresh', async () => {
      const rule: RateRule = { limit: 640, windowSeconds: 60 };
      for (const start of [T0, T0 + 60_000]) {
        let allowed = 0;
        for (let i = 0; i < 700; i++) if ((await rl.hit('api:user:7', rule, start + i)).allowed) allowed++;
        assert.equal(allowed, 640);
        assert.equal((await rl.check('api:user:7', rule, start + 1_000)).allowed, false);
      }
    });

    test('retry-after counts down to 1 in the last second, never 0', async () => {
      const rule: RateRule = { limit: 1, windowSeconds: 60 };
      await rl.hit('k', rule, T0);
      const cases: Array<[number, number]> = [
        [0, 60],
        [1_000, 59],
        [58_999, 2],
        [59_000, 1],
        [59_999, 1],
      ];
      for (const [offset, retry] of cases) {
        assert.deepEqual(await verdict(rl.check('k', rule, T0 + offset)), { allowed: false, retryAfterSeconds: retry }, `+${offset} ms`);
      }
    });

    test('a new window starts a new count', async () => {
      const rule: RateRule = { limit: 2, windowSeconds: 60 };
      for (const offset of [0, 1, 2]) await rl.hit('k', rule, T0 + offset);
      assert.equal((await rl.hit('k', rule, T0 + 59_999)).allowed, false);
      // The first millisecond of the next window.
      assert.equal((await rl.hit('k', rule, T0 + 60_000)).allowed, true);
      assert.equal((await rl.hit('k', rule, T0 + 60_001)).allowed, true);
      assert.deepEqual(await verdict(rl.hit('k', rule, T0 + 60_002)), { allowed: false, retryAfterSeconds: 60 });
      // Skipping several windows also starts afresh.
      assert.equal((await rl.hit('k', rule, T0 + 10 * 60_000)).allowed, true);
    });

    test('a hit says what the window has left and when it ends (the RateLimit header); no limit, no quota', async () => {
      const rule: RateRule = { limit: 3, windowSeconds: 60 };
      const quotas = [];
      for (const at of [T0, T0 + 1_000, T0 + 20_500, T0 + 30_000]) quotas.push((await rl.hit('k', rule, at)).quota);
      assert.deepEqual(quotas, [
        { remaining: 2, resetSeconds: 60 },
        { remaining: 1, resetSeconds: 59 },
        { remaining: 0, resetSeconds: 40 },
        { remaining: 0, resetSeconds: 30 },
      ]);
      assert.equal((await rl.hit('k', { limit: 0, windowSeconds: 1 }, T0)).quota, undefined);
    });

    test('keys are counted separately', async () => {
      const rule: RateRule = { limit: 1, windowSeconds: 60 };
      assert.equal((await rl.hit('user:1', rule, T0)).allowed, true);
      assert.equal((await rl.hit('user:1', rule, T0)).allowed, false);
      for (const key of ['user:2', 'user:10', 'USER:1', 'user:1 ', '']) {
        assert.equal((await rl.hit(key, rule, T0)).allowed, true, JSON.stringify(key));
      }
      // Keys that look like object properties must not collide with anything built in.
      for (const key of ['__proto__', 'constructor', 'toString']) {
        assert.equal((await rl.hit(key, rule, T0)).allowed, true, key);
        assert.equal((await rl.hit(key, rule, T0)).allowed, false, key);
      }
    });

    test('limit 0 means no limit for hit and check', async () => {
      const off: RateRule = { limit: 0, windowSeconds: 1 };
      for (let i = 0; i < 5000; i++) {
        const d = await rl.hit('k', off, T0);
        if (!d.allowed) assert.fail(`hit ${i} refused`);
      }
      assert.deepEqual(await verdict(rl.check('k', off, T0)), { allowed: true, retryAfterSeconds: 0 });
    });

    test('check() answers for the next hit without counting one', async () => {
      const rule: RateRule = { limit: 2, windowSeconds: 60 };
      for (let i = 0; i < 10; i++) assert.equal((await rl.check('k', rule, T0)).allowed, true);
      assert.equal((await rl.hit('k', rule, T0)).allowed, true);
      assert.equal((await rl.check('k', rule, T0)).allowed, true);
      assert.equal((await rl.hit('k', rule, T0)).allowed, true);
      // The limit is reached: the next hit would be refused, and check says so with the wait.
      assert.deepEqual(await verdict(rl.check('k', rule, T0 + 30_000)), { allowed: false, retryAfterSeconds: 30 });
      assert.equal((await rl.hit('k', rule, T0 + 30_000)).allowed, false);
    });


    test('a hit stamped with an older window counts in the held one instead of restarting it', async () => {
      const rule: RateRule = { limit: 2, windowSeconds: 60 };
      await rl.hit('api:user:1', rule, T0 + 60_000);
      await rl.hit('api:user:1', rule, T0 + 60_000);
      // The clock stepped back into the previous minute.
      assert.equal((await rl.hit('api:user:1', rule, T0 + 59_000)).allowed, false);
      assert.equal((await rl.check('api:user:1', rule, T0 + 59_000)).allowed, false);
      assert.equal((await rl.hit('api:user:1', rule, T0 + 120_000)).allowed, true, 'a newer window does restart');
    });
  });
}
