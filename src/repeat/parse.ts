import { daysFromCivil, daysInMonth } from './calendar.js';
import type { ByDay, Frequency, RepeatSpec, RuleSpec } from './types.js';

/**
 * Reads the `repeat` text of a task. The caller stores the text as sent; this only decides what
 * it means. Anything outside the understood subset of RFC 5545 RRULE is `unsupported`: it is kept,
 * but never reschedules. When in doubt, refuse rather than guess.
 */

const NONE: RepeatSpec = Object.freeze({ kind: 'none' });
const PARENT: RepeatSpec = Object.freeze({ kind: 'parent' });
const UNSUPPORTED: RepeatSpec = Object.freeze({ kind: 'unsupported' });

/** Longer texts are refused unread: a real rule with every list spelled out is a few hundred characters. */
export const MAX_REPEAT_LENGTH = 1000;

const FREQUENCIES: readonly string[] = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'];
export const WEEKDAY_CODES = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

/** Up to 12 digits: INTERVAL and COUNT stay far inside exact integer arithmetic (7 × 10¹² < 2⁵³). */
const UNSIGNED = /^[0-9]{1,12}$/;
const SIGNED_SMALL = /^([+-]?)([0-9]{1,2})$/;
const BYDAY_ITEM = /^(?:([+-]?)([0-9]{1,2}))?(MO|TU|WE|TH|FR|SA|SU)$/;
const UNTIL_FORM = /^([0-9]{4})([0-9]{2})([0-9]{2})(?:T([0-9]{2})([0-9]{2})([0-9]{2})Z)?$/;

class Refused extends Error {}

function refuse(): never {
  throw new Refused();
}

export function parseRepeat(text: string): RepeatSpec {
  if (typeof text !== 'string') return UNSUPPORTED;
  const trimmed = text.trim();
  if (trimmed === '') return NONE;
  // Printable ASCII only: besides refusing garbage early, this keeps toUpperCase() from turning
  // look-alikes into keywords (the dotless ı upper-cases to I, the long ſ to S).
  if (trimmed.length > MAX_REPEAT_LENGTH || !/^[\x20-\x7e]+$/.test(trimmed)) return UNSUPPORTED;
  const upper = trimmed.toUpperCase();
  if (upper === 'PARENT') return PARENT;
  try {
    return parseRule(upper.startsWith('RRULE:') ? upper.slice('RRULE:'.length) : upper);
  } catch (e) {
    if (e instanceof Refused) return UNSUPPORTED;
    throw e;
  }
}

function parseRule(body: string): RuleSpec {
  let fromCompletion = false;
  let fastForward = false;
  const values = new Map<string, string>();
  for (const raw of body.split(';')) {
    const part = raw.trim();
    // Empty parts (a trailing ';') carry nothing; tolerated.
    if (part === '') continue;
    if (part === 'FROMCOMP') fromCompletion = true;
    else if (part === 'FASTFORWARD') fastForward = true;
    else {
      const [name, value] = nameAndValue(part);
      // RFC 5545: a rule part must not occur more than once.
      if (values.has(name) || value === '') refuse();
      values.set(name, value);
    }
  }

  const freq = values.get('FREQ');
  if (freq === undefined || !FREQUENCIES.includes(freq)) refuse();
  const rule: { -readonly [K in keyof RuleSpec]: RuleSpec[K] } = {
    kind: 'rule',
    fromCompletion,
    fastForward,
    freq: freq as Frequency,
    interval: 1,
    byDay: [],
    byMonthDay: [],
    byMonth: [],
    count: null,
    untilDay: null,
    weekStart: 0,
  };
  for (const [name, value] of values) {
    switch (name) {
      case 'FREQ':
        break;
      case 'INTERVAL':
        rule.interval = positive(value);
        break;
      case 'COUNT':
        rule.count = positive(value);
        break;
      case 'UNTIL':
        rule.untilDay = untilDay(value);
        break;
      case 'WKST':
        rule.weekStart = weekdayCode(value);
        break;
      case 'BYDAY':
        rule.byDay = byDayList(value);
        break;
      case 'BYMONTHDAY':
        rule.byMonthDay = sortedUnique(list(value).map((v) => signed(v, 31)));
        break;
      case 'BYMONTH':
        rule.byMonth = sortedUnique(list(value).map((v) => inRange(v, 1, 12)));
        break;
      default:
        // BYSETPOS, BYWEEKNO, BYYEARDAY, BYHOUR… and any unknown part: not understood.
        refuse();
    }
  }
  checkCombination(rule);
  Object.freeze(rule.byDay);
  Object.freeze(rule.byMonthDay);
  Object.freeze(rule.byMonth);
  return Object.freeze(rule);
}

function nameAndValue(part: string): [string, string] {
  const eq = part.indexOf('=');
  if (eq >= 0) return [part.slice(0, eq).trim(), part.slice(eq + 1).trim()];
  // Clients send a bare frequency word for FREQ=<word>.
  return FREQUENCIES.includes(part) ? ['FREQ', part] : refuse();
}

/** Combinations RFC 5545 forbids. */
function checkCombination(rule: RuleSpec): void {
  if (rule.count !== null && rule.untilDay !== null) refuse();
  const dayLevel = rule.freq === 'DAILY' || rule.freq === 'WEEKLY';
  // Numbered weekdays (2TU) only make sense within a month or a year.
  if (dayLevel && rule.byDay.some((d) => d.ordinal !== 0)) refuse();
  if (rule.freq === 'WEEKLY' && rule.byMonthDay.length > 0) refuse();
}

function list(value: string): string[] {
  return value.split(',').map((v) => {
    const item = v.trim();
    return item === '' ? refuse() : item;
  });
}

function positive(value: string): number {
  if (!UNSIGNED.test(value)) refuse();
  const n = Number(value);
  return n >= 1 ? n : refuse();
}

function inRange(value: string, min: number, max: number): number {
  if (!UNSIGNED.test(value)) refuse();
  const n = Number(value);
  return n >= min && n <= max ? n : refuse();
}

/** ±1…±max, zero refused. */
function signed(value: string, max: number): number {
  const m = SIGNED_SMALL.exec(value);
  if (!m) refuse();
  const n = Number(m[2]);
  if (n < 1 || n > max) refuse();
  return m[1] === '-' ? -n : n;
}

function weekdayCode(value: string): number {
  const i = (WEEKDAY_CODES as readonly string[]).indexOf(value);
  return i >= 0 ? i : refuse();
}

function byDayList(value: string): ByDay[] {
  const seen = new Map<string, ByDay>();
  for (const item of list(value)) {
    const m = BYDAY_ITEM.exec(item);
    if (!m) refuse();
    const weekday = weekdayCode(m[3] ?? '');
    const ordinal = m[2] === undefined ? 0 : signed(`${m[1] ?? ''}${m[2]}`, 53);
    seen.set(`${weekday}:${ordinal}`, Object.freeze({ weekday, ordinal }));
  }
  return [...seen.values()].sort((a, b) => a.weekday - b.weekday || a.ordinal - b.ordinal);
}

function untilDay(value: string): number {
  const m = UNTIL_FORM.exec(value);
  if (!m) refuse();
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) refuse();
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60)) refuse();
  // Dates are whole days: only UNTIL's UTC date matters, whatever its time.
  return daysFromCivil(y, mo, d);
}

function sortedUnique(xs: number[]): number[] {
  return [...new Set(xs)].sort((a, b) => a - b);
}
