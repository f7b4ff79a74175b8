import { bitRange, lowestBit, popcount } from './bits.js';
import type { Budget } from './budget.js';
import { civilFromDays, daysInMonth, floorDiv, LAST_DAY, mod } from './calendar.js';
import { hasMonth, MonthDayTable, type Series } from './series.js';
import { countByYears } from './span.js';

/**
 * DAILY and WEEKLY rules. Their candidate days form a periodic pattern: day d is a candidate when
 * (d - origin) mod period is one of a few residues. DAILY;INTERVAL=3 is period 3, residue 0 from
 * the anchor; a weekday list folds in by widening the period to lcm(interval, 7);
 * WEEKLY;INTERVAL=2;BYDAY=TU,SU is period 14 from the start of the anchor's week (per WKST), one
 * residue per weekday. Finding and counting candidates is then arithmetic, whatever the span.
 * Only BYMONTH and BYMONTHDAY, which follow the calendar, are walked month by month; a month's
 * days are found with month bits (bits.ts), so a month costs the same whatever BYMONTHDAY lists.
 */
export interface DayPattern {
  readonly origin: number;
  readonly period: number;
  /** Sorted, each in [0, period). */
  readonly residues: readonly number[];
  /** See monthMask(); 0 = every month. */
  readonly monthMask: number;
  /** BYMONTHDAY (DAILY only); empty = every day of the month. */
  readonly monthDays: readonly number[];
}

/** Patterns up to this many days keep candidateBits() per case: up to 400 small numbers. */
const CACHED_PERIOD = 400;

/** A month being walked: its first day and length. */
interface Month {
  y: number;
  m: number;
  start: number;
  length: number;
}

export class DaySeries implements Series {
  private readonly calendarFree: boolean;
  private readonly monthDays: MonthDayTable;
  /** candidateBits() by (month start - origin) mod period, when the period is at most CACHED_PERIOD. */
  private readonly candidates: (number | undefined)[] = [];

  constructor(
    private readonly p: DayPattern,
    private readonly anchor: number,
  ) {
    this.calendarFree = p.monthMask === 0 && p.monthDays.length === 0;
    this.monthDays = new MonthDayTable(p.monthDays);
  }

  next(after: number, budget: Budget): number | null {
    budget.take();
    let c = this.nextCandidate(after + 1);
    if (this.calendarFree) return c <= LAST_DAY ? c : null;
    const month = monthOf(c);
    for (;;) {
      if (c > LAST_DAY) return null;
      budget.take();
      if (hasMonth(this.p.monthMask, month.m)) {
        const days = this.daysIn(month) & bitRange(c - month.start, 30);
        if (days !== 0) return month.start + lowestBit(days);
      }
      c = this.nextCandidate(month.start + month.length);
      advanceTo(month, c);
    }
  }

  countAfterAnchor(to: number, limit: number, budget: Budget): number {
    budget.take();
    if (this.calendarFree) return this.countCandidates(this.anchor + 1, to);
    const walk = (lo: number, hi: number, max: number): number => this.walk(lo, hi, max, budget);
    // With a period of 1 or 7 days, whether a day is a candidate depends on its weekday alone,
    // so a year's count depends only on the year's kind.
    if (this.p.period === 1 || this.p.period === 7) return countByYears(this.anchor + 1, to, limit, budget, walk);
    return walk(this.anchor + 1, to, limit);
  }

  /** Occurrences on days in [lo, hi], a month at a time; stops once past `limit`. */
  private walk(lo: number, hi: number, limit: number, budget: Budget): number {
    let n = 0;
    let c = this.nextCandidate(lo);
    const month = monthOf(c);
    while (c <= hi && n <= limit) {
      budget.take();
      if (hasMonth(this.p.monthMask, month.m)) {
        const last = Math.min(month.start + month.length - 1, hi);
        n += popcount(this.daysIn(month) & bitRange(c - month.start, last - month.start));
      }
      c = this.nextCandidate(month.start + month.length);
      advanceTo(month, c);
    }
    return n;
  }

  /** The first day ≥ x of the periodic pattern. */
  private nextCandidate(x: number): number {
    const { origin, period, residues } = this.p;
    const base = x - mod(x - origin, period);
    for (const r of residues) if (base + r >= x) return base + r;
    return base + period + (residues[0] ?? 0);
  }

  /** The month's days that are on the pattern and on BYMONTHDAY, as month bits. */
  private daysIn(month: Month): number {
    return this.monthDays.bits(month.length) & this.candidateBits(month.start);
  }

  /**
   * The days of the pattern in the month starting on `start`, as month bits. They depend only on
   * (start - origin) mod period, so for a period of up to CACHED_PERIOD days each case is worked
   * out once per call; longer periods rarely repeat a case within a walk.
   */
  private candidateBits(start: number): number {
    const { origin, period, residues } = this.p;
    const shift = mod(start - origin, period);
    const cached = period <= CACHED_PERIOD;
    const known = cached ? this.candidates[shift] : undefined;
    if (known !== undefined) return known;
    let bits = 0;
    for (const r of residues) {
      // r and shift both lie in [0, period): one correction instead of a division.
      const first = r >= shift ? r - shift : r - shift + period;
      for (let i = first; i <= 30; i += period) bits |= 1 << i;
    }
    if (cached) this.candidates[shift] = bits;
    return bits;
  }

  /** Days of the pattern in [lo, hi]. */
  private countCandidates(lo: number, hi: number): number {
    if (hi < lo) return 0;
    const { origin, period, residues } = this.p;
    let n = 0;
    for (const r of residues) n += floorDiv(hi - origin - r, period) - floorDiv(lo - 1 - origin - r, period);
    return n;
  }
}

function monthOf(day: number): Month {
  const month = { y: 0, m: 0, start: 0, length: 0 };
  moveTo(month, day);
  return month;
}

function moveTo(month: Month, day: number): void {
  const { y, m, d } = civilFromDays(Math.min(day, LAST_DAY));
  month.y = y;
  month.m = m;
  month.start = Math.min(day, LAST_DAY) - d + 1;
  month.length = daysInMonth(y, m);
}

/**
 * Moves the walk on to the month holding `day` (not before the current month): a month at a time
 * by addition when `day` is less than a year on (at most 12 short steps, cheaper than the
 * calendar formula of moveTo), or straight there when a long interval jumps further.
 */
function advanceTo(month: Month, day: number): void {
  if (day >= month.start + 366 || day > LAST_DAY) {
    moveTo(month, day);
    return;
  }
  while (day >= month.start + month.length) {
    month.start += month.length;
    month.m = month.m === 12 ? 1 : month.m + 1;
    if (month.m === 1) month.y++;
    month.length = daysInMonth(month.y, month.m);
  }
}
