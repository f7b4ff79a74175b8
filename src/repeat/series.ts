import { bitRange } from './bits.js';
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
 * BYMONTHDAY values as month bits (bits.ts), for each possible month length; invalid ones dropped
 * (RFC 5545: BYMONTHDAY=31 skips 30-day months; -1 is the last day). No BYMONTHDAY is every day.
 */
export class MonthDayTable {
  private readonly byLength: (number | undefined)[] = [];

  constructor(private readonly monthDays: readonly number[]) {}

  bits(length: number): number {
    let bits = this.byLength[length];
    if (bits === undefined) {
      bits = this.monthDays.length === 0 ? bitRange(0, length - 1) : 0;
      for (const md of this.monthDays) {
        const d = md > 0 ? md : length + md + 1;
        if (d >= 1 && d <= length) bits |= 1 << (d - 1);
      }
      this.byLength[length] = bits;
    }
    return bits;
  }
}
