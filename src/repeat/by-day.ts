import { mod, weekday } from './calendar.js';
import type { ByDay } from './types.js';

/**
 * BYDAY over a scope of days [start, end] (one month or one year): ordinals count within the
 * scope, from its start when positive and from its end when negative (RFC 5545 3.3.10).
 */

/** Appends the days of the scope that match any entry (unsorted; may repeat a day). */
export function byDayDays(entries: readonly ByDay[], start: number, end: number, out: number[]): void {
  const firstWeekday = weekday(start);
  const lastWeekday = weekday(end);
  for (const { weekday: w, ordinal } of entries) {
    const first = start + mod(w - firstWeekday, 7);
    if (ordinal === 0) {
      for (let d = first; d <= end; d += 7) out.push(d);
    } else if (ordinal > 0) {
      const d = first + 7 * (ordinal - 1);
      if (d <= end) out.push(d);
    } else {
      const d = end - mod(lastWeekday - w, 7) + 7 * (ordinal + 1);
      if (d >= start) out.push(d);
    }
  }
}

/** Whether `day` (inside the scope) matches any entry. */
export function byDayMatches(entries: readonly ByDay[], day: number, start: number, end: number): boolean {
  const w = weekday(day);
  for (const e of entries) {
    if (e.weekday !== w) continue;
    if (e.ordinal === 0) return true;
    if (e.ordinal > 0 ? Math.floor((day - start) / 7) + 1 === e.ordinal : -(Math.floor((end - day) / 7) + 1) === e.ordinal) {
      return true;
    }
  }
  return false;
}
