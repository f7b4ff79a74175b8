import { pushDays } from './bits.js';
import type { Budget } from './budget.js';
import { byDayBits } from './by-day.js';
import { civilFromDays, daysFromCivil, daysInMonth, floorDiv, gcd, isLeapYear, LAST_YEAR, mod, weekday, yearKind } from './calendar.js';
import { hasMonth, MonthDayTable, type Series } from './series.js';
import { countByYears } from './span.js';
import type { ByDay } from './types.js';

/**
 * MONTHLY and YEARLY rules, whose DTSTART defaults are already filled in. The series visits one
 * period (month or year) in every `interval`, starting with the anchor's, and expands each into
 * its days (RFC 5545 3.3.10: BYMONTH limits, BYMONTHDAY expands, BYDAY expands or limits).
 *
 * Which days a period holds depends only on its kind: for a month, which month it is, its first
 * weekday and (February) whether the year is a leap year; for a year, leap or not and the weekday
 * of 1 January. There are 91 kinds of month (12 × 7, and 7 leap Februaries) and 14 of year, and
 * the 28 years 2001–2028 show every one. So the engine learns how many occurrences each kind
 * holds, skips periods of empty kinds without expanding them, proves a rule impossible by looking
 * at every kind once (FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30), and counts long spans by
 * multiplication when every kind holds the same number (the common case).
 *
 * Expanding a month is charged one step plus one per BYDAY entry (each entry is a constant amount
 * of work, see by-day.ts), so a long BYDAY list cannot stretch the time a step stands for.
 */
export interface PeriodPattern {
  readonly freq: 'MONTHLY' | 'YEARLY';
  readonly interval: number;
  readonly byDay: readonly ByDay[];
  readonly byMonthDay: readonly number[];
  /** See monthMask(); 0 = every month. */
  readonly monthMask: number;
  /**
   * Whether a YEARLY rule has BYMONTH (even one listing all 12 months, whose mask is 0): numbered
   * BYDAY entries then count within the month instead of the year (RFC 5545 3.3.10).
   */
  readonly byMonth: boolean;
}

/** Periods searched with nothing found before the kinds are checked for an impossible rule. */
const EMPTY_BEFORE_KIND_CHECK = 8;
/** Periods counted one by one before counting by kinds pays off. */
const SHORT_SPAN = 64;

/** For each kind of month (kindOf) and of year: a period of that kind in 2001–2028, which shows every kind. */
const MONTH_OF_KIND: number[] = [];
const YEAR_OF_KIND: number[] = [];
for (let y = 2001; y <= 2028; y++) {
  YEAR_OF_KIND[yearKind(y)] ??= y;
  for (let m = 1; m <= 12; m++) MONTH_OF_KIND[monthKind(y, m)] ??= y * 12 + m - 1;
}

interface KindSummary {
  readonly min: number;
  readonly max: number;
}

export class PeriodSeries implements Series {
  private readonly monthly: boolean;
  private readonly first: number;
  /** Occurrences per kind; -1 = not yet known. */
  private readonly kindCounts: Int16Array;
  private summary: KindSummary | null = null;
  private readonly monthDays: MonthDayTable;

  constructor(
    private readonly p: PeriodPattern,
    private readonly anchor: number,
  ) {
    this.monthly = p.freq === 'MONTHLY';
    const { y, m } = civilFromDays(anchor);
    this.first = this.monthly ? y * 12 + m - 1 : y;
    this.kindCounts = new Int16Array(this.monthly ? 168 : 14).fill(-1);
    this.monthDays = new MonthDayTable(p.byMonthDay);
  }

  next(after: number, budget: Budget): number | null {
    const target = this.periodOf(after);
    let k = target > this.first ? floorDiv(target - this.first, this.p.interval) : 0;
    let empty = 0;
    for (;; k++) {
      const period = this.first + k * this.p.interval;
      if (this.yearOf(period) > LAST_YEAR) return null;
      budget.take();
      if (this.knownCount(period) !== 0) {
        const days = this.expand(period, budget);
        for (const d of days) if (d > after) return d;
      }
      if (++empty === EMPTY_BEFORE_KIND_CHECK && this.kinds(budget).max === 0) return null;
    }
  }

  countAfterAnchor(to: number, limit: number, budget: Budget): number {
    budget.take();
    const count = (lo: number, hi: number, max: number): number => this.countRange(lo, hi, max, budget);
    const last = floorDiv(this.periodOf(to) - this.first, this.p.interval);
    const between = last - 1;
    const summary = between > SHORT_SPAN ? this.kinds(budget) : null;
    if (summary !== null && summary.min === summary.max) {
      // Every period holds the same number: count the two ends, multiply for the rest.
      const inFirst = this.expand(this.first, budget).filter((d) => d > this.anchor).length;
      const inLast = this.expand(this.first + last * this.p.interval, budget).filter((d) => d <= to).length;
      return inFirst + summary.min * between + inLast;
    }
    // Every year, or (when the interval divides 12) the same months of every year, are visited:
    // a year's count then depends only on the year's kind.
    const everyYear = this.monthly ? 12 % this.p.interval === 0 : this.p.interval === 1;
    if (everyYear) return countByYears(this.anchor + 1, to, limit, budget, count);
    return count(this.anchor + 1, to, limit);
  }

  /** Occurrences on days in [lo, hi], a period at a time; stops once past `limit`. */
  private countRange(lo: number, hi: number, limit: number, budget: Budget): number {
    const { interval } = this.p;
    const from = this.periodOf(lo) - this.first;
    let k = from > 0 ? Math.ceil(from / interval) : 0;
    const kLast = floorDiv(this.periodOf(hi) - this.first, interval);
    let n = 0;
    for (; k <= kLast && n <= limit; k++) {
      budget.take();
      const period = this.first + k * interval;
      const [start, end] = this.bounds(period);
      n += start >= lo && end <= hi ? this.countOf(period, budget) : this.expand(period, budget).filter((d) => d >= lo && d <= hi).length;
    }
    return n;
  }

  /** First and last day of a period. */
  private bounds(period: number): [number, number] {
    if (!this.monthly) return [daysFromCivil(period, 1, 1), daysFromCivil(period, 12, 31)];
    const y = floorDiv(period, 12);
    const m = mod(period, 12) + 1;
    const start = daysFromCivil(y, m, 1);
    return [start, start + daysInMonth(y, m) - 1];
  }

  private periodOf(day: number): number {
    const { y, m } = civilFromDays(day);
    return this.monthly ? y * 12 + m - 1 : y;
  }

  private yearOf(period: number): number {
    return this.monthly ? floorDiv(period, 12) : period;
  }

  private kindOf(period: number): number {
    return this.monthly ? monthKind(floorDiv(period, 12), mod(period, 12) + 1) : yearKind(period);
  }

  /** -1 when the period's kind has not been expanded yet. */
  private knownCount(period: number): number {
    return this.kindCounts[this.kindOf(period)] ?? -1;
  }

  private countOf(period: number, budget: Budget): number {
    const known = this.knownCount(period);
    return known >= 0 ? known : this.expand(period, budget).length;
  }

  /** The occurrence days of one period, sorted, without duplicates. */
  private expand(period: number, budget: Budget): number[] {
    const out: number[] = [];
    if (this.monthly) {
      const m = mod(period, 12) + 1;
      if (hasMonth(this.p.monthMask, m)) this.expandMonth(floorDiv(period, 12), m, false, out, budget);
    } else {
      // Ordinals count within the month when BYMONTH is given, within the year otherwise.
      for (let m = 1; m <= 12; m++) if (hasMonth(this.p.monthMask, m)) this.expandMonth(period, m, !this.p.byMonth, out, budget);
    }
    this.kindCounts[this.kindOf(period)] = out.length;
    return out;
  }

  /** Appends the month's occurrence days in order. */
  private expandMonth(y: number, m: number, yearScope: boolean, out: number[], budget: Budget): void {
    budget.take(1 + this.p.byDay.length);
    const start = daysFromCivil(y, m, 1);
    const length = daysInMonth(y, m);
    let days = this.monthDays.bits(length);
    if (this.p.byDay.length > 0) {
      const scopeStart = yearScope ? daysFromCivil(y, 1, 1) : start;
      const scopeEnd = yearScope ? daysFromCivil(y, 12, 31) : start + length - 1;
      days &= byDayBits(this.p.byDay, start, length, scopeStart, scopeEnd);
    }
    pushDays(days, start, out);
  }

  /**
   * The fewest and most occurrences any period this series can visit holds, from one period of
   * each kind. Months the interval never reaches (MONTHLY;INTERVAL=12 stays in the anchor's month)
   * are left out; a reachable month outside BYMONTH holds none.
   */
  private kinds(budget: Budget): KindSummary {
    if (this.summary !== null) return this.summary;
    let min = Infinity;
    let max = 0;
    const add = (n: number): void => {
      [min, max] = [Math.min(min, n), Math.max(max, n)];
    };
    if (!this.monthly) {
      for (const y of YEAR_OF_KIND) {
        budget.take();
        add(this.countOf(y, budget));
      }
    } else {
      const step = gcd(this.p.interval, 12);
      for (let m = mod(this.first, step); m < 12; m += step) {
        budget.take();
        if (!hasMonth(this.p.monthMask, m + 1)) {
          add(0);
          continue;
        }
        // The kinds of month m + 1 are numbered 14m to 14m + 13 (see monthKind).
        for (let kind = 14 * m; kind < 14 * (m + 1); kind++) {
          const period = MONTH_OF_KIND[kind];
          if (period === undefined) continue;
          budget.take();
          add(this.countOf(period, budget));
        }
      }
    }
    this.summary = { min, max };
    return this.summary;
  }
}

/** 0–167: month m's kinds are 14(m - 1) + 7·(leap February) + the weekday of its first day. */
function monthKind(y: number, m: number): number {
  const leapFebruary = m === 2 && isLeapYear(y) ? 1 : 0;
  return ((m - 1) * 2 + leapFebruary) * 7 + weekday(daysFromCivil(y, m, 1));
}
