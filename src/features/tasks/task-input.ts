import type { ErrorCode } from '../../errors.js';
import { classifyId, lenientInt, MAX_ID } from '../../http/params.js';
import { characters, storableText, textLength, utf8Bytes } from '../../lib/text.js';
import { MAX_REPEAT_LENGTH } from '../../repeat/parse.js';
import { LIMITS, noonOf, normalizeTags, timeOfDay } from './task-rules.js';

/**
 * The changes one add or edit item asks for, in stored form. Absent keys are left alone.
 * `remind` is still the raw value: the service rounds it with the account's subscription level.
 */
export interface TaskPatch {
  title?: string;
  tag?: string;
  folder?: number;
  context?: number;
  goal?: number;
  location?: number;
  parent?: number;
  duedate?: number;
  duedatemod?: number;
  startdate?: number;
  duetime?: number | null;
  starttime?: number | null;
  remind?: number;
  repeat?: string;
  status?: number;
  length?: number;
  priority?: number;
  star?: number;
  completed?: number;
  note?: string;
  meta?: string | null;
  /** A collaborator the client tries to assign; there is no collaboration yet (615/616). */
  addedby?: string;
}

export interface ParsedItem {
  readonly patch: TaskPatch;
  /** `reschedule: 1` inside the item (clients also send it as a top-level parameter). */
  readonly reschedule: boolean;
}

export interface InputError {
  readonly code: ErrorCode;
  readonly desc: string;
}

type ParseResult = { readonly ok: ParsedItem } | { readonly error: InputError };

type Reader = (value: unknown) => { value: unknown } | { problem: string };

const MAX_INT = 2_147_483_647;

function integer(min: number, max: number, what: string, then: (n: number) => unknown = (n) => n): Reader {
  return (v) => {
    // null and "" mean "none" for the numeric fields: 0, like an omitted id or date.
    const n = v === null || v === '' ? 0 : lenientInt(v);
    if (n === undefined || n < min || n > max) return { problem: `${what} must be ${describeRange(min, max)}` };
    return { value: then(n) };
  };
}

function describeRange(min: number, max: number): string {
  if (max === MAX_INT || max === MAX_TIMESTAMP) return `an integer of at least ${min}`;
  return `an integer from ${min} to ${max}`;
}

/** A limit on the stored form of a text field, and how a refusal words it. */
interface Limit {
  readonly max: number;
  readonly measure: (s: string) => number;
  readonly over: string;
}
const maxCharacters = (max: number, measure = textLength): Limit => ({ max, measure, over: `is longer than ${max} characters` });
const maxBytes = (max: number): Limit => ({ max, measure: utf8Bytes, over: `is larger than ${max} bytes` });
const asSent = (s: string): string => s;

/**
 * A text field: normalised once into its stored form, and that form is what the limit measures
 * ("a,b" is stored "a, b": one character more). null means "" and a number or boolean its text,
 * except for `opaque` app data (meta), kept as sent: there null stays null (it removes the value)
 * and anything but text is refused.
 */
function text(what: string, normalise: (s: string) => string, limit: Limit, opaque = false): Reader {
  return (v) => {
    if (v === null) return { value: opaque ? null : '' };
    if (!opaque && (typeof v === 'number' || typeof v === 'boolean')) v = String(v);
    if (typeof v !== 'string') return { problem: `${what} must be text` };
    const stored = normalise(storableText(v));
    return limit.measure(stored) > limit.max ? { problem: `${what} ${limit.over}` } : { value: stored };
  };
}

/** A reference to a record: 0 (none), or a whole number up to the largest id (5, "5", 5.0). */
const id = (what: string): Reader => (v) => {
  const n = classifyId(v);
  if (n === 'invalid') return { problem: `${what} must be 0 or an id (a whole number up to ${MAX_ID})` };
  return { value: n === 'none' ? 0 : n };
};
/** The last second of year 9999: later "dates" are mistakes, and moving them to noon would lose precision. */
const MAX_TIMESTAMP = 253_402_300_799;
const timestamp = (what: string, then: (n: number) => unknown): Reader => integer(0, MAX_TIMESTAMP, `${what} (a Unix timestamp up to year 9999)`, then);

const ISO_DATE = /^\s*(\d{4})-(\d{2})-(\d{2})\s*$/;

/**
 * A date field: a Unix timestamp (the documented form), or a calendar date `YYYY-MM-DD`, which a
 * real client of the hosted service sends for due, start and completion dates: that day at noon
 * GMT, like a timestamp of any time of that day. An impossible date (2026-02-30) is refused.
 */
const date = (what: string): Reader => {
  const asTimestamp = timestamp(what, noonOf);
  return (v) => {
    const m = typeof v === 'string' ? ISO_DATE.exec(v) : null;
    if (!m) return asTimestamp(v);
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const ms = Date.UTC(y, mo - 1, d, 12);
    const back = new Date(ms);
    if (y < 1970 || back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) {
      return { problem: `${what} ${JSON.stringify(m[0].trim())} is not a calendar date from 1970 on` };
    }
    return { value: ms / 1000 };
  };
};

/** How each accepted input key becomes a patch field. Keys not listed are ignored (read-only or unknown). */
const READERS: ReadonlyArray<readonly [key: string, field: keyof TaskPatch, read: Reader]> = [
  ['title', 'title', text('title', (s) => s.trim(), maxCharacters(LIMITS.title))],
  ['tag', 'tag', text('tag', normalizeTags, maxCharacters(LIMITS.tag))],
  ['folder', 'folder', id('folder')],
  ['context', 'context', id('context')],
  ['goal', 'goal', id('goal')],
  ['location', 'location', id('location')],
  ['parent', 'parent', id('parent')],
  ['duedate', 'duedate', date('duedate')],
  ['duedatemod', 'duedatemod', integer(0, 3, 'duedatemod')],
  ['startdate', 'startdate', date('startdate')],
  ['duetime', 'duetime', timestamp('duetime', timeOfDay)],
  ['starttime', 'starttime', timestamp('starttime', timeOfDay)],
  ['remind', 'remind', integer(-MAX_INT, MAX_INT, 'remind')],
  // The repeat engine's own bound: a longer rule would be stored but never understood.
  ['repeat', 'repeat', text('repeat', asSent, maxCharacters(MAX_REPEAT_LENGTH, characters))],
  ['status', 'status', integer(0, 10, 'status')],
  ['length', 'length', integer(0, MAX_INT, 'length')],
  // `duration` is the name the add/edit lists use; it is `length` (spec 2.1 notes).
  ['duration', 'length', integer(0, MAX_INT, 'duration')],
  ['priority', 'priority', integer(-1, 3, 'priority')],
  ['star', 'star', integer(0, 1, 'star')],
  ['completed', 'completed', date('completed')],
  ['note', 'note', text('note', asSent, maxBytes(LIMITS.note))],
  ['meta', 'meta', text('meta', asSent, maxBytes(LIMITS.meta), true)],
];

function isNone(v: unknown): boolean {
  return v === undefined || v === null || v === '' || v === 0 || v === '0';
}

/**
 * Reads one item of tasks/add or tasks/edit. Unknown and read-only keys are ignored (clients send
 * via, timer, children… on every edit). Out-of-range enumerations are refused (611) rather than
 * clamped: a wrong value is more likely a bug than an intent (docs/api-notes.md).
 */
export function parseTaskInput(item: Readonly<Record<string, unknown>>, mode: 'add' | 'edit'): ParseResult {
  const patch: TaskPatch = {};
  const fields = patch as Record<string, unknown>;
  for (const [key, field, read] of READERS) {
    if (!Object.hasOwn(item, key)) continue;
    // `length` wins over its alias when both are sent.
    if (key === 'duration' && Object.hasOwn(item, 'length')) continue;
    const r = read(item[key]);
    if ('problem' in r) return { error: { code: 611, desc: `Malformed request: ${r.problem}` } };
    fields[field] = r.value;
  }
  const addedby = item['addedby'];
  if (!isNone(addedby)) {
    if (typeof addedby !== 'string' && typeof addedby !== 'number') return { error: { code: 611, desc: 'Malformed request: addedby must be a user id' } };
    patch.addedby = String(addedby);
  }
  if ((mode === 'add' && (patch.title === undefined || patch.title === '')) || (mode === 'edit' && patch.title === '')) {
    return { error: { code: 601, desc: 'Your task must have a title' } };
  }
  const reschedule = asksReschedule(item['reschedule']);
  return { ok: { patch, reschedule } };
}

/**
 * An edit item's `if_modified` (docs/sync.md, conditional edits): the task's `modified` as the app
 * last saw it, to be refused (1106) if the task has another. Absent, null or "" ask nothing, as
 * an app that never sends it expects; anything else must be a Unix timestamp (611 otherwise).
 */
export function readIfModified(item: Readonly<Record<string, unknown>>): { readonly since: number | undefined } | { readonly error: InputError } {
  const v = item['if_modified'];
  if (v === undefined || v === null || v === '') return { since: undefined };
  const n = lenientInt(v);
  if (n === undefined || n < 0 || n > MAX_TIMESTAMP || typeof v === 'boolean') {
    return { error: { code: 611, desc: 'Malformed request: if_modified must be a Unix timestamp (the task\'s modified as last read)' } };
  }
  return { since: n };
}

/**
 * Whether a `reschedule` value asks for it, inside an item or as a top-level parameter: 1 in any
 * spelling (1, "1", 1.0), or true ("true" as form text). Anything else does not.
 */
export function asksReschedule(v: unknown): boolean {
  return lenientInt(v) === 1 || (typeof v === 'string' && v.trim().toLowerCase() === 'true');
}
