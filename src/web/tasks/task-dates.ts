import { civilFromDays, daysFromCivil } from '../../repeat/calendar.js';
import { utcOffsetMinutes } from '../../lib/account-clock.js';
import type { Prefs } from '../../storage/store.js';

/**
 * Dates as a person reads them: in the account's timezone (the `timezone` setting counts half
 * hours from the hosted service's Eastern Standard Time, UTC-5) and its date format (0 "Mar 14,
 * 2026", 1 "3/14/2026", 2 "14/3/2026", 3 "2026-03-14"). Stored dates are calendar days at noon
 * GMT and times are floating (docs/api-notes.md): only "today" depends on the timezone.
 */

const DAY = 86400;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

export { utcOffsetMinutes } from '../../lib/account-clock.js';

/** The account's calendar day now, as days since 1970-01-01. */
export function todayOf(prefs: Prefs, nowSeconds: number): number {
  return Math.floor((nowSeconds + utcOffsetMinutes(prefs) * 60) / DAY);
}

/** The calendar day of a stored date (noon GMT), or undefined for none. */
export function dayOfDate(date: number): number | undefined {
  return date === 0 ? undefined : Math.floor(date / DAY);
}

export function dateOfDay(day: number): number {
  return day * DAY + DAY / 2;
}

export function formatDay(day: number, prefs: Prefs): string {
  const { y, m, d } = civilFromDays(day);
  switch (prefs.dateformat) {
    case 1:
      return `${m}/${d}/${y}`;
    case 2:
      return `${d}/${m}/${y}`;
    case 3:
      return isoDay(day);
    default:
      return `${MONTHS[m - 1]} ${d}, ${y}`;
  }
}

export function isoDay(day: number): string {
  const { y, m, d } = civilFromDays(day);
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** `YYYY-MM-DD` (a date input's value) as a day, or undefined. */
export function dayOfIso(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const back = new Date(Date.UTC(y, mo - 1, d));
  if (y < 1970 || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return daysFromCivil(y, mo, d);
}

/** A floating time (seconds after midnight): "9:30 am" in the M/D formats, "09:30" in the others. */
export function formatTime(seconds: number, prefs: Prefs): string {
  const hour = Math.floor(seconds / 3600);
  const minute = String(Math.floor((seconds % 3600) / 60)).padStart(2, '0');
  if (prefs.dateformat >= 2) return `${String(hour).padStart(2, '0')}:${minute}`;
  return `${hour % 12 === 0 ? 12 : hour % 12}:${minute} ${hour < 12 ? 'am' : 'pm'}`;
}

/** `HH:MM` (a time input's value). */
export function isoTime(seconds: number): string {
  return `${String(Math.floor(seconds / 3600)).padStart(2, '0')}:${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}`;
}

export function timeOfIso(text: string): number | undefined {
  const m = /^(\d{2}):(\d{2})(?::\d{2})?$/.exec(text.trim());
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59) return undefined;
  return Number(m[1]) * 3600 + Number(m[2]) * 60;
}

/** A due day relative to today: "Today", "Tomorrow", "Yesterday", or the date. */
export function relativeDay(day: number, today: number, prefs: Prefs): string {
  if (day === today) return 'Today';
  if (day === today + 1) return 'Tomorrow';
  if (day === today - 1) return 'Yesterday';
  return formatDay(day, prefs);
}

/** A stamp (Unix seconds) in the account's clock, for "modified" and "completed at". */
export function formatStamp(seconds: number, prefs: Prefs): string {
  const local = seconds + utcOffsetMinutes(prefs) * 60;
  return `${formatDay(Math.floor(local / DAY), prefs)} ${formatTime(((local % DAY) + DAY) % DAY, prefs)}`;
}
