import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CLOCK_SKEW_SECONDS, ManualClock, nextStamp, reportedStamp, settlesAtMs, systemClock, unixSeconds, type Clock } from './clock.js';

describe('nextStamp', () => {
  // [previous, now, next]
  const cases: Array<[number, number, number]> = [
    [100, 150, 150],
    [100, 101, 101],
    // Two writes in one second share it: stamps are real seconds, never ahead of the clock.
    [100, 100, 100],
    // The clock went back (or an older version ran ahead of it): the stamp does not move back.
    [100, 90, 100],
    [0, 0, 0],
    [0, 1676980800, 1676980800],
  ];
  for (const [previous, now, next] of cases) {
    test(`previous ${previous}, now ${now} → ${next}`, () => assert.equal(nextStamp(previous, now), next));
  }

  test('a burst of writes in one second stays on the clock (it used to run ahead one second per write)', () => {
    let stamp = 0;
    const stamps: number[] = [];
    for (const now of [1000, 1000, 1000, 1001, 1001, 1005]) {
      stamp = nextStamp(stamp, now);
      stamps.push(stamp);
    }
    assert.deepEqual(stamps, [1000, 1000, 1000, 1001, 1001, 1005]);
  });
});

describe('reportedStamp', () => {
  // [stamp, asOfMs, reported]: nothing later than the second before asOf's, less the clock skew.
  const cases: Array<[number, number, number]> = [
    [0, 1_000_000, 0],
    [500, 1_000_000, 500],
    [998, 1_000_000, 998],
    [999, 1_000_000, 998],
    [1000, 1_000_999, 998],
    [1000, 1_001_000, 999],
    [5000, 1_000_000, 998],
  ];
  for (const [stamp, asOf, reported] of cases) {
    test(`stamp ${stamp}, as of ${asOf} ms → ${reported}`, () => {
      assert.equal(CLOCK_SKEW_SECONDS, 1);
      assert.equal(reportedStamp(stamp, asOf), reported);
    });
  }

  test('settlesAtMs is the first moment a stamp is reported in full', () => {
    for (const stamp of [0, 1, 999, 1_780_000_000]) {
      const at = settlesAtMs(stamp);
      assert.equal(reportedStamp(stamp, at), stamp);
      assert.ok(reportedStamp(stamp, at - 1) < stamp || stamp <= 0);
    }
  });
});

describe('ManualClock', () => {
  test('starts at a fixed instant by default', () => {
    assert.equal(new ManualClock().now(), Date.UTC(2026, 0, 15, 9, 30, 0));
    assert.equal(new ManualClock(1234).now(), 1234);
  });

  test('only moves when told to', () => {
    const c = new ManualClock(0);
    const steps: Array<[(c: ManualClock) => void, number]> = [
      [(c) => c.advance(10), 10_000],
      [(c) => c.advance(0.5), 10_500],
      [(c) => c.advance(-0.25), 10_250],
      [(c) => c.set(42), 42],
      [(c) => c.advance(1), 1_042],
    ];
    for (const [step, ms] of steps) {
      step(c);
      assert.equal(c.now(), ms);
      assert.equal(c.now(), ms, 'reading the clock does not move it');
    }
  });
});

describe('ManualClock with a tick', () => {
  test('moves on by the tick after each reading', () => {
    const c = new ManualClock(1000);
    const ticks = [5, 0, 995];
    c.tick = () => ticks.shift() ?? 0;
    assert.deepEqual([c.now(), c.now(), c.now(), c.now()], [1000, 1005, 1005, 2000]);
  });
});

describe('unixSeconds', () => {
  const cases: Array<[number, number]> = [
    [0, 0],
    [999, 0],
    [1000, 1],
    [1999, 1],
    [1676980800_999, 1676980800],
    // Before the epoch, flooring (not truncating) keeps whole seconds ordered.
    [-1, -1],
    [-1000, -1],
    [-1001, -2],
  ];
  for (const [ms, s] of cases) {
    test(`${ms} ms → ${s} s`, () => assert.equal(unixSeconds(new ManualClock(ms)), s));
  }

  test('the system clock tells the real time', () => {
    const before = Date.now();
    const now = systemClock.now();
    const after = Date.now();
    assert.ok(now >= before && now <= after);
    const clock: Clock = systemClock;
    const s = unixSeconds(clock);
    assert.ok(s >= Math.floor(before / 1000) && s <= Math.floor(Date.now() / 1000));
  });
});
