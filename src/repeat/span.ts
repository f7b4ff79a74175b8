import type { Budget } from './budget.js';
import { civilFromDays, daysFromCivil, yearKind } from './calendar.js';

/** Counts occurrences on days in [lo, hi], stopping once past `limit`. */
export type RangeCounter = (lo: number, hi: number, limit: number) => number;

/** The Gregorian calendar repeats every 400 years (146,097 days, a whole number of weeks). */
const CYCLE_YEARS = 400;

/**
 * Counts occurrences on days in [lo, hi] a whole year at a time, for series whose count in a year
 * depends only on the year's kind (see yearKind). Each kind is counted once, by `count`; every
 * later year of that kind is a table look-up, so a span from 1900 to today is about 130 steps
 * instead of 1,500 months. Past one full 400-year cycle the sum repeats, so any span costs at most
 * about 800 steps. The partial years at both ends are counted directly.
 */
export function countByYears(lo: number, hi: number, limit: number, budget: Budget, count: RangeCounter): number {
  const first = civilFromDays(lo).y;
  const last = civilFromDays(hi).y;
  if (last - first < 2) return count(lo, hi, limit);
  let n = count(lo, daysFromCivil(first, 12, 31), limit);
  const totals: number[] = [];
  let cycleSum = 0;
  let y = first + 1;
  while (y < last && n <= limit) {
    if (y === first + 1 + CYCLE_YEARS) {
      const cycles = Math.floor((last - y) / CYCLE_YEARS);
      n += cycles * cycleSum;
      y += cycles * CYCLE_YEARS;
      if (y >= last) break;
    }
    budget.take();
    const kind = yearKind(y);
    let total = totals[kind];
    if (total === undefined) {
      // Counted in full (no early stop): the total is reused for other years.
      total = count(daysFromCivil(y, 1, 1), daysFromCivil(y, 12, 31), Infinity);
      totals[kind] = total;
    }
    n += total;
    if (y < first + 1 + CYCLE_YEARS) cycleSum += total;
    y++;
  }
  return n > limit ? n : n + count(daysFromCivil(last, 1, 1), hi, limit - n);
}
