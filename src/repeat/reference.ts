/**
 * Test support only: a deliberately naive second reading of a rule, to check the engine against.
 * It shares no code with the engine: calendar facts come from Date, and each day is judged on
 * its own by the RFC 5545 conditions, one day at a time.
 */
import type { RuleSpec } from './types.js';

const DAY_MS = 86_400_000;

interface Facts {
  readonly y: number;
  readonly m: number;
  readonly d: number;
  /** 0 = Monday … 6 = Sunday. */
  readonly weekday: number;
}

function facts(day: number): Facts {
  const t = new Date(day * DAY_MS);
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate(), weekday: (t.getUTCDay() + 6) % 7 };
}

function dayOf(y: number, m: number, d: number): number {
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d);
  return Math.round(t.getTime() / DAY_MS);
}

/** Whether `day`, after `anchor`, is an occurrence of the rule anchored (DTSTART) at `anchor`. */
export function isOccurrence(rule: RuleSpec, anchor: number, day: number): boolean {
  if (day <= anchor) return false;
  const a = facts(anchor);
  const f = facts(day);
  const I = rule.interval;

  // The day must lie in a period the interval visits.
  switch (rule.freq) {
    case 'DAILY':
      if ((day - anchor) % I !== 0) return false;
      break;
    case 'WEEKLY': {
      // Weeks begin on WKST: count them from a fixed day that is a WKST.
      const someWeekStart = dayOf(1970, 1, 5) + rule.weekStart; // 1970-01-05 was a Monday
      const week = (x: number): number => Math.floor((x - someWeekStart) / 7);
      if ((week(day) - week(anchor)) % I !== 0) return false;
      break;
    }
    case 'MONTHLY':
      if (((f.y - a.y) * 12 + f.m - a.m) % I !== 0) return false;
      break;
    case 'YEARLY':
      if ((f.y - a.y) % I !== 0) return false;
  }

  // What DTSTART supplies when the rule names no day.
  let byDay = rule.byDay;
  let byMonthDay = rule.byMonthDay;
  let byMonth = rule.byMonth;
  if (byDay.length === 0 && byMonthDay.length === 0) {
    if (rule.freq === 'WEEKLY') byDay = [{ weekday: a.weekday, ordinal: 0 }];
    if (rule.freq === 'MONTHLY' || rule.freq === 'YEARLY') byMonthDay = [a.d];
    if (rule.freq === 'YEARLY' && byMonth.length === 0) byMonth = [a.m];
  }

  if (byMonth.length > 0 && !byMonth.includes(f.m)) return false;
  const monthLength = dayOf(f.y, f.m + 1, 1) - dayOf(f.y, f.m, 1);
  if (byMonthDay.length > 0 && !byMonthDay.some((md) => (md > 0 ? f.d === md : f.d === monthLength + md + 1))) {
    return false;
  }
  if (byDay.length > 0) {
    const entries = byDay.filter((e) => e.weekday === f.weekday);
    if (entries.length === 0) return false;
    if (entries.some((e) => e.ordinal === 0)) return true;
    const inMonth = rule.freq === 'MONTHLY' || byMonth.length > 0;
    const scopeStart = inMonth ? dayOf(f.y, f.m, 1) : dayOf(f.y, 1, 1);
    const scopeEnd = inMonth ? dayOf(f.y, f.m + 1, 1) - 1 : dayOf(f.y + 1, 1, 1) - 1;
    // Count this weekday's days in the scope, a week at a time, up to this day and from it.
    let fromStart = 0;
    for (let x = day; x >= scopeStart; x -= 7) fromStart++;
    let fromEnd = 0;
    for (let x = day; x <= scopeEnd; x += 7) fromEnd++;
    if (!entries.some((e) => e.ordinal === fromStart || e.ordinal === -fromEnd)) return false;
  }
  return true;
}

/** The occurrences in (from, to], by trying every day. */
export function occurrencesBetween(rule: RuleSpec, anchor: number, from: number, to: number): number[] {
  const out: number[] = [];
  for (let day = from + 1; day <= to; day++) if (isOccurrence(rule, anchor, day)) out.push(day);
  return out;
}

/** The first occurrence in (after, after + horizon], or null. */
export function firstOccurrenceAfter(rule: RuleSpec, anchor: number, after: number, horizon: number): number | null {
  for (let day = after + 1; day <= after + horizon; day++) if (isOccurrence(rule, anchor, day)) return day;
  return null;
}
