import { parseRepeat } from '../../repeat/index.js';
import type { RuleSpec } from '../../repeat/types.js';
import { civilFromDays } from '../../repeat/calendar.js';

/** A task's repeat rule in words ("Every 2 weeks on Monday and Friday"), for lists and the editor. */

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'] as const;
const UNIT = { DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month', YEARLY: 'year' } as const;

function ordinal(n: number): string {
  if (n === -1) return 'last';
  if (n < 0) return `${ordinal(-n)} from last`;
  const tens = n % 100;
  const last = n % 10;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${last === 1 ? 'st' : last === 2 ? 'nd' : last === 3 ? 'rd' : 'th'}`;
}

function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function ruleWords(r: RuleSpec): string {
  const weekdaysOnly = r.freq === 'WEEKLY' && r.interval === 1 && r.byDay.length === 5 && r.byDay.every((b, i) => b.weekday === i && b.ordinal === 0);
  const parts: string[] = [];
  if (weekdaysOnly) parts.push('Every weekday');
  else {
    parts.push(r.interval === 1 ? `Every ${UNIT[r.freq]}` : `Every ${r.interval} ${UNIT[r.freq]}s`);
    if (r.byDay.length > 0) parts.push(`on ${list(r.byDay.map((b) => (b.ordinal === 0 ? DAYS[b.weekday] ?? '' : `the ${ordinal(b.ordinal)} ${DAYS[b.weekday] ?? ''}`)))}`);
    if (r.byMonthDay.length > 0) parts.push(`on the ${list([...r.byMonthDay].sort((a, b) => (a < 0 ? 1000 - a : a) - (b < 0 ? 1000 - b : b)).map(ordinal))}`);
    if (r.byMonth.length > 0) parts.push(`in ${list(r.byMonth.map((m) => MONTHS[m - 1] ?? ''))}`);
  }
  if (r.count !== null) parts.push(r.count === 1 ? 'once' : `${r.count} times`);
  if (r.untilDay !== null) {
    const { y, m, d } = civilFromDays(r.untilDay);
    parts.push(`until ${MONTHS[m - 1]} ${d}, ${y}`);
  }
  if (r.fromCompletion) parts.push('after each completion');
  if (r.fastForward) parts.push('(skipping missed ones)');
  return parts.join(' ');
}

/** '' when the task does not repeat. */
export function repeatInWords(repeat: string): string {
  const spec = parseRepeat(repeat);
  switch (spec.kind) {
    case 'none':
      return '';
    case 'parent':
      return 'With its parent task';
    case 'unsupported':
      return `A rule this server does not understand (kept as it is): ${repeat.slice(0, 80)}`;
    default:
      return ruleWords(spec);
  }
}
