import { parseTaskInput } from '../../features/tasks/task-input.js';
import { parseRepeat } from '../../repeat/index.js';
import type { Task } from '../../storage/store.js';
import { storedLines } from '../forms.js';
import { dateOfDay, dayOfDate, dayOfIso, isoDay, isoTime, timeOfIso } from './task-dates.js';

/**
 * The editor's form, both ways: a task as the form's field values, and the posted values as a
 * tasks/edit item. Each field is judged by the API's own reader (parseTaskInput) on its own, so a
 * wrong value is named next to its field; what only the service can judge (a folder that is gone,
 * a parent that cannot be one) comes back from tasks/edit and is placed the same way.
 */

export const FORM_FIELDS = [
  'title', 'tag', 'folder', 'context', 'goal', 'location', 'parent', 'duedate', 'duetime', 'duedatemod', 'startdate', 'starttime',
  'remind', 'length', 'status', 'priority', 'star', 'completed', 'note', 'repeat', 'repeat_was', 'rb_freq', 'rb_interval', 'rb_fromcomp',
  'rb_MO', 'rb_TU', 'rb_WE', 'rb_TH', 'rb_FR', 'rb_SA', 'rb_SU',
] as const;
export type FormValues = Partial<Record<(typeof FORM_FIELDS)[number], string>>;

export const WEEKDAY_CODES = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

/** The builder's view of a rule, when the rule is one it can show (frequency, interval, weekdays, from completion). */
export function builderOf(repeat: string): FormValues {
  const spec = parseRepeat(repeat);
  if (spec.kind === 'none') return { rb_freq: '', rb_interval: '1' };
  if (spec.kind !== 'rule' || spec.byMonth.length > 0 || spec.byMonthDay.length > 0 || spec.count !== null || spec.untilDay !== null || spec.fastForward || spec.byDay.some((b) => b.ordinal !== 0)) {
    return { rb_freq: 'custom', rb_interval: '1' };
  }
  const out: FormValues = { rb_freq: spec.freq, rb_interval: String(spec.interval), ...(spec.fromCompletion && { rb_fromcomp: '1' }) };
  for (const b of spec.byDay) out[`rb_${WEEKDAY_CODES[b.weekday] ?? 'MO'}`] = '1';
  return out;
}

/** The rule the builder's fields make ('' for none), or undefined when it is set to "custom". */
export function ruleOfBuilder(v: FormValues): string | undefined {
  const freq = v.rb_freq ?? '';
  if (freq === 'custom') return undefined;
  if (!['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'].includes(freq)) return '';
  const interval = Number(v.rb_interval ?? '1');
  const days = WEEKDAY_CODES.filter((d) => v[`rb_${d}`] === '1');
  return [
    `FREQ=${freq}`,
    ...(Number.isInteger(interval) && interval > 1 && interval < 1000 ? [`INTERVAL=${interval}`] : []),
    ...(days.length > 0 && (freq === 'WEEKLY' || freq === 'DAILY') ? [`BYDAY=${days.join(',')}`] : []),
    ...(v.rb_fromcomp === '1' ? ['FROMCOMP'] : []),
  ].join(';');
}

export function formOf(t: Task): FormValues {
  const date = (d: number): string => {
    const day = dayOfDate(d);
    return day === undefined ? '' : isoDay(day);
  };
  return {
    title: t.title, tag: t.tag, folder: String(t.folder), context: String(t.context), goal: String(t.goal), location: String(t.location),
    parent: String(t.parent), duedate: date(t.duedate), duetime: t.duetime === null ? '' : isoTime(t.duetime), duedatemod: String(t.duedatemod),
    startdate: date(t.startdate), starttime: t.starttime === null ? '' : isoTime(t.starttime), remind: String(t.remind), length: String(t.length),
    status: String(t.status), priority: String(t.priority), star: t.star === 1 ? '1' : '', completed: date(t.completed), note: t.note,
    repeat: t.repeat, repeat_was: t.repeat, ...builderOf(t.repeat),
  };
}

export interface ReadForm {
  readonly item: Record<string, unknown>;
  /** Field name → what is wrong with it. */
  readonly errors: Record<string, string>;
}

/** A floating time as the API takes it: on 2 January 1970, so that midnight is not 0 ("no time"). */
function apiTime(text: string): number | undefined {
  if (text.trim() === '') return 0;
  const t = timeOfIso(text);
  return t === undefined ? undefined : 86400 + t;
}

function apiDate(text: string): number | undefined {
  if (text.trim() === '') return 0;
  const day = dayOfIso(text);
  return day === undefined ? undefined : dateOfDay(day);
}

/** The posted form as a tasks/edit item of task `id`, each field judged by the API's reader. */
export function readForm(id: number, v: FormValues): ReadForm {
  const errors: Record<string, string> = {};
  const item: Record<string, unknown> = { id };
  const put = (key: string, value: unknown): void => {
    const judged = parseTaskInput({ [key]: value }, 'edit');
    if ('error' in judged) errors[key] = judged.error.desc.replace(/^Malformed request: /, '');
    else item[key] = value;
  };
  put('title', (v.title ?? '').trim());
  put('tag', v.tag ?? '');
  for (const key of ['folder', 'context', 'goal', 'location', 'parent', 'duedatemod', 'status', 'priority', 'remind'] as const) put(key, v[key] ?? '0');
  put('length', (v.length ?? '').trim() === '' ? '0' : (v.length ?? '').trim());
  put('star', v.star === '1' ? 1 : 0);
  // Browsers send a textarea's line breaks as CRLF (HTML form submission); people typed newlines.
  put('note', storedLines(v.note ?? ''));
  for (const key of ['duedate', 'startdate', 'completed'] as const) {
    const d = apiDate(v[key] ?? '');
    if (d === undefined) errors[key] = 'Not a calendar date (from 1970 on)';
    else put(key, d);
  }
  for (const key of ['duetime', 'starttime'] as const) {
    const t = apiTime(v[key] ?? '');
    if (t === undefined) errors[key] = 'Not a time of day (HH:MM)';
    else put(key, t);
  }
  // The rule text wins when it was changed; otherwise the builder says what the rule is.
  const typed = (v.repeat ?? '').trim();
  const built = ruleOfBuilder(v);
  const repeat = typed !== (v.repeat_was ?? '').trim() || built === undefined ? typed : built;
  if (repeat !== '' && parseRepeat(repeat).kind === 'unsupported') errors['repeat'] = 'This server does not understand that rule (RFC 5545 RRULE: FREQ, INTERVAL, BYDAY, BYMONTHDAY, BYMONTH, COUNT, UNTIL, and FROMCOMP)';
  else put('repeat', repeat);
  return { item, errors };
}

/** Which field an error code of tasks/edit is about (src/errors.ts). */
export function fieldOfCode(code: number): string | undefined {
  return ({ 601: 'title', 607: 'folder', 608: 'context', 609: 'goal', 610: 'location', 612: 'parent', 614: 'parent', 617: 'parent' } as Record<number, string>)[code];
}
