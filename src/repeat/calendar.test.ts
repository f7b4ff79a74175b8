import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { civilFromDays, daysFromCivil, daysInMonth, floorDiv, LAST_DAY, weekday, yearKind } from './calendar.js';

const DAY_MS = 86_400_000;

function dateDay(y: number, m: number, d: number): number {
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d);
  return t.getTime() / DAY_MS;
}

describe('calendar arithmetic', () => {
  test('day numbers agree with Date from year 1 to 9999, every 97th day', () => {
    for (let day = dateDay(1, 1, 1); day <= LAST_DAY; day += 97) {
      const t = new Date(day * DAY_MS);
      const c = civilFromDays(day);
      assert.deepEqual([c.y, c.m, c.d], [t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate()]);
      assert.equal(daysFromCivil(c.y, c.m, c.d), day);
      assert.equal(weekday(day), (t.getUTCDay() + 6) % 7);
    }
  });

  test('fixed points', () => {
    assert.equal(daysFromCivil(1970, 1, 1), 0);
    assert.equal(weekday(0), 3); // a Thursday
    assert.equal(LAST_DAY, dateDay(9999, 12, 31));
    assert.equal(daysInMonth(2100, 2), 28);
    assert.equal(daysInMonth(2000, 2), 29);
    assert.equal(daysInMonth(2028, 2), 29);
    assert.equal(daysInMonth(2026, 4), 30);
  });

  test('floor division is exact for large operands of either sign', () => {
    const cases: Array<[number, number, number]> = [
      [7, 2, 3],
      [-7, 2, -4],
      [-1, 7_000_000_000_000, -1],
      [6_999_999_999_999, 7_000_000_000_000, 0],
      [2 ** 52 - 1, 2 ** 26, 2 ** 26 - 1],
    ];
    for (const [a, b, q] of cases) assert.equal(floorDiv(a, b), q, `${a} / ${b}`);
  });

  test('years of one kind share a calendar; the 28 years 2001–2028 show all 14 kinds', () => {
    assert.equal(new Set(Array.from({ length: 28 }, (_, i) => yearKind(2001 + i))).size, 14);
    assert.equal(yearKind(2026), yearKind(2015));
    assert.notEqual(yearKind(2100), yearKind(2072)); // the 28-year cycle breaks at a non-leap century
  });
});
