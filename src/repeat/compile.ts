import { civilFromDays, maxDaysInMonth, mod, weekday } from './calendar.js';
import { DaySeries } from './day-series.js';
import { PeriodSeries } from './period-series.js';
import { hasMonth, monthMask, type Series } from './series.js';
import type { RuleSpec } from './types.js';

/**
 * Anchors a rule at a day (its DTSTART) and fills in what RFC 5545 takes from DTSTART when the
 * rule leaves it out: WEEKLY repeats on DTSTART's weekday, MONTHLY on its day of the month,
 * YEARLY on its month and day. Answers null for a rule that can never occur again, such as a
 * weekday list no day of the interval can land on (FREQ=DAILY;INTERVAL=7;BYDAY=MO from a Tuesday).
 */
export function anchorRule(rule: RuleSpec, anchor: number): Series | null {
  const noDayParts = rule.byDay.length === 0 && rule.byMonthDay.length === 0;
  const start = civilFromDays(anchor);
  const mask = monthMask(rule.byMonth);
  switch (rule.freq) {
    case 'DAILY':
      return daily(rule, anchor, mask);
    case 'WEEKLY': {
      const weekdays = rule.byDay.length > 0 ? rule.byDay.map((d) => d.weekday) : [weekday(anchor)];
      const origin = anchor - mod(weekday(anchor) - rule.weekStart, 7);
      const residues = [...new Set(weekdays.map((w) => mod(w - rule.weekStart, 7)))].sort((a, b) => a - b);
      return new DaySeries({ origin, period: 7 * rule.interval, residues, monthMask: mask, monthDays: [] }, anchor);
    }
    case 'MONTHLY':
    case 'YEARLY': {
      // Tested on the list, not the mask: BYMONTH naming all 12 months has mask 0 but is given.
      const onAnchorMonth = rule.freq === 'YEARLY' && noDayParts && rule.byMonth.length === 0;
      return new PeriodSeries(
        {
          freq: rule.freq,
          interval: rule.interval,
          byDay: rule.byDay,
          byMonthDay: noDayParts ? [start.d] : rule.byMonthDay,
          monthMask: onAnchorMonth ? monthMask([start.m]) : mask,
          byMonth: rule.byMonth.length > 0,
        },
        anchor,
      );
    }
  }
}

function daily(rule: RuleSpec, anchor: number, mask: number): Series | null {
  const { interval } = rule;
  const days = rule.byDay.map((d) => d.weekday);
  let period = interval;
  let residues = [0];
  if (days.length > 0) {
    // A weekday list repeats every lcm(interval, 7) days; keep the steps that land on a listed weekday.
    period = interval % 7 === 0 ? interval : interval * 7;
    residues = [];
    for (let r = 0; r < period; r += interval) if (days.includes(weekday(anchor + r))) residues.push(r);
    if (residues.length === 0) return null;
  }
  if (!monthDaysPossible(rule.byMonthDay, mask)) return null;
  return new DaySeries({ origin: anchor, period, residues, monthMask: mask, monthDays: rule.byMonthDay }, anchor);
}

/** False when no allowed month is ever long enough for any BYMONTHDAY (BYMONTH=2;BYMONTHDAY=30). */
function monthDaysPossible(monthDays: readonly number[], mask: number): boolean {
  if (monthDays.length === 0) return true;
  for (let m = 1; m <= 12; m++) {
    if (hasMonth(mask, m) && monthDays.some((md) => Math.abs(md) <= maxDaysInMonth(m))) return true;
  }
  return false;
}
