/**
 * Test and benchmark support: dates written as 'YYYY-MM-DD', the noon timestamps the API uses for
 * them, answers written as text, and the long lists hostile rules are made of.
 */
import type { NextResult } from './types.js';

/** Unix seconds at 12:00:00 GMT of a date 'YYYY-MM-DD' (any year from 1 to 9999). */
export function noon(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d);
  t.setUTCHours(12);
  return t.getTime() / 1000;
}

/** 'YYYY-MM-DD' of a Unix time. */
export function dateOf(seconds: number): string {
  const t = new Date(seconds * 1000);
  return `${String(t.getUTCFullYear()).padStart(4, '0')}-${String(t.getUTCMonth() + 1).padStart(2, '0')}-${String(t.getUTCDate()).padStart(2, '0')}`;
}

/** An answer as the tables write it: 'YYYY-MM-DD #occurrence', or its kind ('done', 'unsupported'). */
export function show(r: NextResult): string {
  return r.kind === 'next' ? `${dateOf(r.due)} #${r.occurrence}` : r.kind;
}

/** BYMONTHDAY=1,…,31 as text. */
export const EVERY_MONTH_DAY = Array.from({ length: 31 }, (_, i) => i + 1).join(',');

/**
 * A BYDAY list of 161 entries as text: every weekday, plain and numbered ±1…±11 (741 characters,
 * within the 1,000 a rule may have). Expanding a month costs a step per entry.
 */
export const LONG_BYDAY = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU']
  .flatMap((w) => [w, ...Array.from({ length: 11 }, (_, i) => [`${i + 1}${w}`, `-${i + 1}${w}`]).flat()])
  .join(',');
