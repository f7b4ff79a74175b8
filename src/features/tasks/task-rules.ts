import { MAX_BATCH } from '../../http/batch-params.js';

/**
 * Pure rules of task fields (spec 2.1). No I/O: the service applies them inside its transaction.
 */

export const DAY = 86400;
const NOON = 43200;

export const LIMITS = {
  title: 255, // characters
  tag: 250, // characters
  note: 32000, // bytes, UTF-8
  meta: 1024, // bytes, UTF-8
  // Items per add, edit or delete call (spec 8), the same for every batch resource.
  batch: MAX_BATCH,
  tasksPerAccount: 80000,
} as const;

/** 12:00:00 GMT of the UTC day of `ts` (dates are stored and returned at noon). 0 stays 0. */
export function noonOf(ts: number): number {
  if (ts === 0) return 0;
  return Math.floor(ts / DAY) * DAY + NOON;
}

/** Midnight GMT of the day of a stored date (0 when there is no date). */
export function dayStartOf(date: number): number {
  return date === 0 ? 0 : Math.floor(date / DAY) * DAY;
}

/**
 * A floating clock time from a timestamp: seconds after midnight, read from its GMT representation
 * (spec 2.1). 0 means "no time".
 */
export function timeOfDay(ts: number): number | null {
  if (ts === 0) return null;
  return ((ts % DAY) + DAY) % DAY;
}

/** A stored floating time as clients expect it: on the day of `date`, or on 1 Jan 1970 without one. */
export function floatingTime(date: number, time: number | null): number {
  return time === null ? 0 : dayStartOf(date) + time;
}

/** Reminder values of spec 2.1, in minutes before due. */
export const REMIND_VALUES = [0, 1, 15, 30, 45, 60, 90, 120, 180, 240, 1440, 2880, 4320, 5760, 7200, 8640, 10080, 20160, 43200] as const;

/**
 * An allowed reminder: listed values stay; any other value is rounded to the nearest allowed
 * non-zero value (ties go up); accounts without a subscription get only 0 or 60.
 */
export function normalizeRemind(minutes: number, pro: number): number {
  if (minutes === 0) return 0;
  if (pro === 0) return 60;
  if ((REMIND_VALUES as readonly number[]).includes(minutes)) return minutes;
  let best = 1;
  for (const v of REMIND_VALUES) {
    if (v === 0) continue;
    if (Math.abs(v - minutes) <= Math.abs(best - minutes)) best = v;
  }
  return best;
}

/** Tags arrive as "a,b" or "a, b": stored as "a, b", empty entries dropped. */
export function normalizeTags(tag: string): string {
  return tag
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .join(', ');
}
