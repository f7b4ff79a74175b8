import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DAY,
  dayStartOf,
  floatingTime,
  LIMITS,
  noonOf,
  normalizeRemind,
  normalizeTags,
  REMIND_VALUES,
  timeOfDay,
} from './task-rules.js';

/** Midnight GMT of 21 Feb 2023: a day far from 0, so that "the day before" is still positive. */
const D = Date.UTC(2023, 1, 21) / 1000;
const NOON = D + 12 * 3600;

describe('noonOf: any time of a UTC day becomes 12:00:00 GMT of that day', () => {
  const cases: Array<[string, number, number]> = [
    ['midnight', D, NOON],
    ['one second after midnight', D + 1, NOON],
    ['already noon', NOON, NOON],
    ['one second before noon', NOON - 1, NOON],
    ['one second after noon', NOON + 1, NOON],
    ['23:59:59', D + DAY - 1, NOON],
    ['midnight of the next day moves to the next day', D + DAY, NOON + DAY],
    ['1 Jan 1970 00:00:01', 1, 43200],
    ['1 Jan 1970 23:59:59', DAY - 1, 43200],
    // Before the epoch the floor must go down, not toward zero: 31 Dec 1969, not 1 Jan 1970.
    ['one second before the epoch', -1, -43200],
    ['a whole day before the epoch', -DAY, -43200],
  ];
  for (const [name, input, expected] of cases) {
    it(`${name}: ${input} → ${expected}`, () => {
      assert.equal(noonOf(input), expected);
    });
  }

  it('0 stays 0 (no date), rather than becoming noon of 1 Jan 1970', () => {
    assert.equal(noonOf(0), 0);
  });

  it('is idempotent', () => {
    for (const ts of [1, D, D + 5000, D + DAY - 1]) assert.equal(noonOf(noonOf(ts)), noonOf(ts));
  });
});

describe('dayStartOf: midnight GMT of a stored date', () => {
  const cases: Array<[number, number]> = [
    [0, 0],
    [NOON, D],
    [D, D],
    [D + DAY - 1, D],
    [43200, 0],
    [-43200, -DAY],
  ];
  for (const [input, expected] of cases) {
    it(`${input} → ${expected}`, () => assert.equal(dayStartOf(input), expected));
  }
});

describe('timeOfDay: floating clock time read from the GMT representation', () => {
  const cases: Array<[string, number, number | null]> = [
    ['0 means no time', 0, null],
    ['midnight of a non-zero date is a real time, 0 (not "no time")', D, 0],
    ['midnight of 2 Jan 1970', DAY, 0],
    ['09:30 on a date', D + 9 * 3600 + 30 * 60, 34200],
    ['23:59:59', D + DAY - 1, DAY - 1],
    ['09:30 on 1 Jan 1970 (a time without a date)', 34200, 34200],
    ['one second', 1, 1],
    // Negative stamps still give a clock time within the day, never a negative one.
    ['23:59:59 on 31 Dec 1969', -1, DAY - 1],
    ['midnight of 31 Dec 1969', -DAY, 0],
  ];
  for (const [name, input, expected] of cases) {
    it(`${name}: ${input} → ${String(expected)}`, () => assert.equal(timeOfDay(input), expected));
  }
});

describe('floatingTime: stored time back to a timestamp', () => {
  const cases: Array<[string, number, number | null, number]> = [
    ['no time: 0 whatever the date', NOON, null, 0],
    ['no time and no date', 0, null, 0],
    ['time on the day of the date', NOON, 34200, D + 34200],
    ['midnight on the day of the date', NOON, 0, D],
    ['last second of the day of the date', NOON, DAY - 1, D + DAY - 1],
    ['without a date the date part is 1 Jan 1970', 0, 34200, 34200],
  ];
  for (const [name, date, time, expected] of cases) {
    it(`${name}: (${date}, ${String(time)}) → ${expected}`, () => assert.equal(floatingTime(date, time), expected));
  }

  it('timeOfDay and floatingTime round-trip a due time on its due date', () => {
    for (const ts of [D + 1, D + 34200, D + DAY - 1]) {
      assert.equal(floatingTime(noonOf(ts), timeOfDay(ts)), ts);
    }
  });
});

describe('normalizeRemind', () => {
  const PRO = 1;

  it('keeps every listed value for a subscriber', () => {
    for (const v of REMIND_VALUES) assert.equal(normalizeRemind(v, PRO), v, String(v));
    assert.equal(normalizeRemind(15, 2), 15, 'pro level 2 is a subscriber too');
  });

  it('lists exactly the values of spec 2.1', () => {
    assert.deepEqual([...REMIND_VALUES], [0, 1, 15, 30, 45, 60, 90, 120, 180, 240, 1440, 2880, 4320, 5760, 7200, 8640, 10080, 20160, 43200]);
  });

  const rounded: Array<[string, number, number]> = [
    ['2 is nearer 1', 2, 1],
    ['8 is half-way between 1 and 15: ties go up', 8, 15],
    ['7 is nearer 1', 7, 1],
    ['9 is nearer 15', 9, 15],
    ['75 is half-way between 60 and 90: up', 75, 90],
    ['74 is nearer 60', 74, 60],
    ['840 is half-way between 240 and 1440: up', 840, 1440],
    ['839 is nearer 240', 839, 240],
    ['31680 is half-way between 20160 and 43200: up', 31680, 43200],
    ['a negative value goes to the smallest non-zero, 1', -5, 1],
    ['-1 goes to 1 as well', -1, 1],
    ['a huge value goes to the largest, 43200', 2_147_483_647, 43200],
    ['just above the largest', 43201, 43200],
  ];
  for (const [name, input, expected] of rounded) {
    it(`${name}: ${input} → ${expected}`, () => assert.equal(normalizeRemind(input, PRO), expected));
  }

  it('0 stays 0 (no reminder) for every level', () => {
    for (const pro of [0, 1, 2]) assert.equal(normalizeRemind(0, pro), 0);
  });

  it('rounding never yields 0: an unlisted value is a wish for some reminder', () => {
    for (const v of [-1_000_000, -1, 2, 3, 1_000_000]) assert.notEqual(normalizeRemind(v, PRO), 0, String(v));
  });

  it('without a subscription only 0 or 60 ever comes out', () => {
    for (const v of [...REMIND_VALUES, 2, 8, 59, 61, -5, 1_000_000]) {
      const out = normalizeRemind(v, 0);
      assert.equal(out, v === 0 ? 0 : 60, `${v} → ${out}`);
    }
  });
});

describe('normalizeTags: stored as "a, b", empty entries dropped', () => {
  const cases: Array<[string, string]> = [
    ['a,b', 'a, b'],
    ['a, b', 'a, b'],
    [' a , ,b ', 'a, b'],
    ['a,,,b', 'a, b'],
    ['', ''],
    ['   ', ''],
    [',,,', ''],
    [' , , ', ''],
    ['single', 'single'],
    ['two words, x', 'two words, x'],
    ['\ta\t,\nb\n', 'a, b'],
    ['über,日本語, 😀 ', 'über, 日本語, 😀'],
    ['日本,😀', '日本, 😀'],
    // Same case and duplicates are kept as sent: normalisation is about separators only.
    ['A,a,A', 'A, a, A'],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => assert.equal(normalizeTags(input), expected));
  }

  it('is idempotent', () => {
    for (const [input] of cases) assert.equal(normalizeTags(normalizeTags(input)), normalizeTags(input));
  });
});

describe('LIMITS', () => {
  it('are the values of spec 8', () => {
    assert.equal(LIMITS.title, 255);
    assert.equal(LIMITS.tag, 250);
    assert.equal(LIMITS.note, 32000);
    assert.equal(LIMITS.meta, 1024);
    assert.equal(LIMITS.batch, 50);
    assert.equal(LIMITS.tasksPerAccount, 80000);
  });
});
