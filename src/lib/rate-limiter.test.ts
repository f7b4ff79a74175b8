import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateLimiterContract } from './rate-limiter.contract.js';
import { decide, MemoryRateLimiter, windowOf } from './rate-limiter.js';
import type { RateRule } from './rate-rule.js';

const HOUR: RateRule = { limit: 3, windowSeconds: 3600 };
/** A window boundary: windows are aligned to multiples of their length since the epoch. */
const T0 = Date.UTC(2026, 0, 15, 9, 0, 0);

describe('windowOf', () => {
  const cases: Array<[string, RateRule, number, { start: number; end: number }]> = [
    ['start of an hour', HOUR, T0, { start: T0 / 1000, end: T0 / 1000 + 3600 }],
    ['middle of an hour', HOUR, T0 + 1_234_567, { start: T0 / 1000, end: T0 / 1000 + 3600 }],
    ['last millisecond of an hour', HOUR, T0 + 3_599_999, { start: T0 / 1000, end: T0 / 1000 + 3600 }],
    ['next hour', HOUR, T0 + 3_600_000, { start: T0 / 1000 + 3600, end: T0 / 1000 + 7200 }],
    ['15-minute window', { limit: 1, windowSeconds: 900 }, T0 + 16 * 60_000, { start: T0 / 1000 + 900, end: T0 / 1000 + 1800 }],
    ['1-second window', { limit: 1, windowSeconds: 1 }, 1500, { start: 1, end: 2 }],
  ];
  for (const [name, rule, nowMs, bounds] of cases) {
    test(name, () => assert.deepEqual(windowOf(rule, nowMs), bounds));
  }
});

describe('decide', () => {
  const end = T0 / 1000 + 3600;
  // [name, count, now, allowed, Retry-After, remaining, seconds to the reset]
  const cases: Array<[string, number, number, boolean, number, number, number]> = [
    ['under the limit', 1, T0, true, 0, 2, 3600],
    ['at the limit', 3, T0, true, 0, 0, 3600],
    ['over the limit at the window start', 4, T0, false, 3600, 0, 3600],
    ['over the limit mid-window', 4, T0 + 1_000_500, false, 2600, 0, 2600],
    ['over the limit in the last second', 4, T0 + 3_599_999, false, 1, 0, 1],
  ];
  for (const [name, count, nowMs, allowed, retry, remaining, resetSeconds] of cases) {
    test(name, () => assert.deepEqual(decide(count, HOUR, end, nowMs), { allowed, retryAfterSeconds: retry, quota: { remaining, resetSeconds } }));
  }
});

rateLimiterContract('memory', async () => ({ limiter: new MemoryRateLimiter(), close: async () => undefined }));

describe('MemoryRateLimiter', () => {
  test('counting survives the periodic clean-up of finished windows', async () => {
    const rl = new MemoryRateLimiter();
    const rule: RateRule = { limit: 5000, windowSeconds: 60 };
    const old: RateRule = { limit: 1, windowSeconds: 1 };
    await rl.hit('old', old, T0);
    // Enough hits to run the clean-up at least once inside one window.
    for (let i = 1; i <= 5000; i++) {
      const d = await rl.hit('busy', rule, T0 + 2_000);
      if (!d.allowed) assert.fail(`hit ${i} refused`);
    }
    assert.deepEqual(await rl.hit('busy', rule, T0 + 2_000), { allowed: false, retryAfterSeconds: 58, quota: { remaining: 0, resetSeconds: 58 } });
    // The finished window of "old" is gone or ignored: a hit in a new second is allowed again.
    assert.equal((await rl.hit('old', old, T0 + 3_000)).allowed, true);
  });
});

describe('MemoryRateLimiter under a flood of made-up keys', () => {
  const HOUR_RULE: RateRule = { limit: 3, windowSeconds: 3600 };

  test('check() creates nothing: checks of any number of keys leave room for new counts', async () => {
    const rl = new MemoryRateLimiter(2);
    for (let i = 0; i < 100; i++) assert.equal((await rl.check(`token:fail:app${i}:192.0.2.1`, HOUR_RULE, T0)).allowed, true);
    assert.equal((await rl.hit('token:fail:a:192.0.2.1', HOUR_RULE, T0)).allowed, true);
    assert.equal((await rl.hit('token:fail:b:192.0.2.1', HOUR_RULE, T0)).allowed, true);
  });

  test("junk keys never evict a live count: the victim's limit holds, and new keys are refused (fail closed)", async () => {
    const rl = new MemoryRateLimiter(3);
    const victim = 'signin:account:victim:new';
    for (let i = 0; i < 3; i++) await rl.hit(victim, HOUR_RULE, T0);
    assert.equal((await rl.check(victim, HOUR_RULE, T0)).allowed, false);
    const junk = [];
    for (let i = 0; i < 1000; i++) junk.push((await rl.hit(`signin:account:junk${i}:new`, HOUR_RULE, T0 + 60_000)).allowed);
    assert.deepEqual(junk.slice(0, 3), [true, true, false], 'two junk keys fit beside the victim, the third does not');
    assert.ok(junk.slice(2).every((allowed) => !allowed), 'no junk key is counted once the table is full');
    assert.equal((await rl.hit(victim, HOUR_RULE, T0 + 120_000)).allowed, false, 'still limited');
    // A key the full table cannot hold: check() counts it 0 (it refuses only what it holds), and
    // the hit that would count it is refused, so a limit counted by hit before the work (sign-in)
    // fails closed.
    assert.deepEqual(await rl.check('signin:account:someone:new', HOUR_RULE, T0 + 600_000), { allowed: true, retryAfterSeconds: 0, quota: { remaining: 2, resetSeconds: 3000 } });
    assert.deepEqual(await rl.hit('signin:account:someone:new', HOUR_RULE, T0 + 600_000), { allowed: false, retryAfterSeconds: 3000 });
    // A limit that checks first and counts failures after (app passwords) asks to fail closed:
    // refused as the hit would be, while a key the table holds is answered by its count.
    assert.deepEqual(await rl.check('signin:account:someone:new', HOUR_RULE, T0 + 600_000, { failClosed: true }), { allowed: false, retryAfterSeconds: 3000 });
    assert.equal((await rl.check('signin:account:junk0:new', HOUR_RULE, T0 + 600_000, { failClosed: true })).allowed, true);
    assert.equal((await rl.check(victim, HOUR_RULE, T0 + 600_000, { failClosed: true })).allowed, false);
    assert.equal((await rl.check('signin:account:someone:new', HOUR_RULE, T0 + 3_600_000, { failClosed: true })).allowed, true, 'the next hour has room');
  });

  test('ended windows free their places', async () => {
    const rl = new MemoryRateLimiter(2);
    await rl.hit('signin:account:a:new', HOUR_RULE, T0);
    await rl.hit('signin:account:b:new', HOUR_RULE, T0);
    assert.equal((await rl.hit('signin:account:c:new', HOUR_RULE, T0)).allowed, false);
    assert.equal((await rl.hit('signin:account:c:new', HOUR_RULE, T0 + 3_600_000)).allowed, true, 'the next hour has room');
    assert.equal((await rl.hit('signin:account:d:new', HOUR_RULE, T0 + 3_600_000)).allowed, true);
  });

  test('one kind of key filling its table leaves the other kinds alone', async () => {
    const rl = new MemoryRateLimiter(2);
    for (let i = 0; i < 10; i++) await rl.hit(`token:fail:junk${i}:192.0.2.1`, HOUR_RULE, T0);
    assert.equal((await rl.hit('token:fail:junk99:192.0.2.1', HOUR_RULE, T0)).allowed, false, 'the full table counts no new key');
    // The token endpoint checks before it knows whether a request fails: a real app whose key the
    // full table does not hold must still get its tokens.
    assert.equal((await rl.check('token:fail:real-app:198.51.100.7', HOUR_RULE, T0)).allowed, true);
    for (const key of ['signin:account:x:new', 'signin:address:192.0.2.1', 'api:user:1', 'token:user:1']) {
      assert.equal((await rl.hit(key, HOUR_RULE, T0)).allowed, true, key);
    }
  });

  test('a full table of live windows is swept at most once per window end, not on every request', async () => {
    const rl = new MemoryRateLimiter(50);
    for (let i = 0; i < 50; i++) await rl.hit(`token:fail:k${i}:192.0.2.1`, HOUR_RULE, T0);
    // Counts the passes over any Map while junk keys knock on the full table.
    const iterate = Map.prototype[Symbol.iterator];
    let passes = 0;
    Map.prototype[Symbol.iterator] = function countingIterator(this: Map<unknown, unknown>) {
      passes += 1;
      return iterate.call(this);
    };
    let passesInTheHour = -1;
    try {
      for (let i = 0; i < 500; i++) await rl.hit(`token:fail:junk${i}:192.0.2.1`, HOUR_RULE, T0 + i * 1000);
      passesInTheHour = passes;
      for (let i = 0; i < 500; i++) await rl.hit(`token:fail:next${i}:192.0.2.1`, HOUR_RULE, T0 + 3_600_000 + i * 1000);
    } finally {
      Map.prototype[Symbol.iterator] = iterate;
    }
    assert.equal(passesInTheHour, 0, 'nothing has ended yet, so nothing is swept');
    assert.equal(passes, 1, 'one pass when the hour ends');
  });

});
