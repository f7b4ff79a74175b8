/**
 * Whole-day calendar arithmetic on UTC day numbers (days since 1970-01-01), proleptic Gregorian.
 * Integers only, no Date objects: the engine never depends on the process's time zone.
 */

const SECONDS_PER_DAY = 86_400;
const NOON = 43_200;

/**
 * Floor division of integers. Exact while |a| < 2⁵³: a quotient k - c/b (c ≥ 1) would need
 * c ≤ |a|·2⁻⁵³ < 1 to round up to k.
 */
export function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

export function mod(a: number, b: number): number {
  const r = a % b;
  // `+ 0` turns the -0 of (-7 % 7) into 0.
  return r < 0 ? r + b : r + 0;
}

export function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const MONTH_LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

export function daysInMonth(y: number, m: number): number {
  return m === 2 && isLeapYear(y) ? 29 : (MONTH_LENGTHS[m - 1] ?? 0);
}

/** The longest a month can be in any year (Feb: 29). */
export function maxDaysInMonth(m: number): number {
  return m === 2 ? 29 : (MONTH_LENGTHS[m - 1] ?? 0);
}

/** Day number of a calendar date (month 1–12). Valid for any year, negative ones included. */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const mp = m > 2 ? m - 3 : m + 9;
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

export interface Civil {
  readonly y: number;
  readonly m: number;
  readonly d: number;
}

export function civilFromDays(day: number): Civil {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d };
}

/** 0 = Monday … 6 = Sunday. Day 0 (1970-01-01) was a Thursday. */
export function weekday(day: number): number {
  return mod(day + 3, 7);
}

/** The calendar day a Unix timestamp falls on, in UTC. */
export function dayOfTimestamp(seconds: number): number {
  return Math.floor(seconds / SECONDS_PER_DAY);
}

/** 12:00:00 GMT of a day, the form every date of the API takes. */
export function noonOfDay(day: number): number {
  return day * SECONDS_PER_DAY + NOON;
}

/** The calendar the engine works in: 0001-01-01 to 9999-12-31, the dates iCal can write. */
export const FIRST_DAY = daysFromCivil(1, 1, 1);
export const LAST_DAY = daysFromCivil(9999, 12, 31);
export const LAST_YEAR = 9999;

/**
 * Which of the 14 possible calendars a year has: leap or not, and the weekday of 1 January. Two
 * years of one kind have the same month lengths on the same weekdays.
 */
export function yearKind(y: number): number {
  return (isLeapYear(y) ? 7 : 0) + weekday(daysFromCivil(y, 1, 1));
}
