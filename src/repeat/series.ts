import type { Budget } from './budget.js';

/**
 * A rule anchored at a day (its DTSTART), ready to answer questions about its occurrences. Both
 * methods take every step from the budget, so no question can run away.
 */
export interface Series {
  /** The first occurrence on a day strictly after `after` (≥ the anchor), or null when none up to 9999-12-31. */
  next(after: number, budget: Budget): number | null;
  /**
   * How many occurrences fall on days in (anchor, to]. Stops counting, and answers a number
   * above `limit`, as soon as the count passes `limit`.
   */
  countAfterAnchor(to: number, limit: number, budget: Budget): number;
}

/** Bit m-1 set for each month m of a BYMONTH list; 0 when there is no BYMONTH. */
export function monthMask(months: readonly number[]): number {
  let mask = 0;
  for (const m of months) mask |= 1 << (m - 1);
  return mask === 0xfff ? 0 : mask;
}

export function hasMonth(mask: number, m: number): boolean {
  return mask === 0 || (mask & (1 << (m - 1))) !== 0;
}

/**
 * BYMONTHDAY values as days of a month, for each possible month length: sorted, without
 * duplicates, invalid ones dropped (RFC 5545: BYMONTHDAY=31 skips 30-day months; -1 is the last day).
 */
export class MonthDayTable {
  private readonly byLength: (readonly number[] | undefined)[] = [];

  constructor(private readonly monthDays: readonly number[]) {}

  days(length: number): readonly number[] {
    let days = this.byLength[length];
    if (days === undefined) {
      const resolved = this.monthDays.map((md) => (md > 0 ? md : length + md + 1)).filter((d) => d >= 1 && d <= length);
      days = [...new Set(resolved)].sort((a, b) => a - b);
      this.byLength[length] = days;
    }
    return days;
  }
}
