import ICAL from 'ical.js';
import { CALDAV, child, children, type DavElement } from './dav-xml.js';

/**
 * calendar-query's filter (RFC 4791 9.7), judged on the VTODO a task is written as: comp-filter,
 * prop-filter, param-filter, is-not-defined, text-match (substring, i;ascii-casemap or i;octet,
 * negate-condition) and time-range, with RFC 4791 9.9's rules for a VTODO's time range. A
 * repeating task is judged by the occurrence it holds (Tickler keeps one occurrence at a time).
 * Pure: the report reads the tasks, writes them, then asks this.
 */

export class FilterError extends Error {
  override name = 'FilterError';
}

interface Range {
  readonly start: number;
  readonly end: number;
}

const FAR = 253_402_300_799;

function utcAttr(v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(v.trim());
  if (!m) throw new FilterError(`time-range values are UTC date-times such as 20260101T000000Z, not ${JSON.stringify(v)}`);
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) / 1000;
}

function rangeOf(e: DavElement): Range {
  const start = utcAttr(e.attrs['start'], -FAR);
  const end = utcAttr(e.attrs['end'], FAR);
  if (e.attrs['start'] === undefined && e.attrs['end'] === undefined) throw new FilterError('a time-range needs start or end');
  return { start, end };
}

/**
 * A property's first value, undefined when it has none or the value cannot be read. ical.js decodes
 * values when first read and throws on one it cannot read; a PUT refuses those now, but an object
 * kept before may hold one, and it must not fail the whole query (one object's value is no value).
 */
function firstValue(c: ICAL.Component, name: string): unknown {
  try {
    return c.getFirstPropertyValue(name) ?? undefined;
  } catch {
    return undefined;
  }
}

/** A property's values as text, for text-match; none when they cannot be read (firstValue). */
function textValues(p: ICAL.Property): string[] {
  try {
    return p.getValues().map((v) => String(v));
  } catch {
    return [];
  }
}

/** The moment of a date or date-time property; a DATE or floating value in `offsetMinutes` (the account's clock). */
function momentOf(c: ICAL.Component, name: string, offsetMinutes: number): number | undefined {
  const v = firstValue(c, name);
  if (!(v instanceof ICAL.Time)) return undefined;
  const zone = v.zone?.tzid;
  if (zone === 'UTC' || zone === 'Z') return v.toUnixTime();
  const wall = Date.UTC(v.year, v.month - 1, v.day, v.isDate ? 0 : v.hour, v.isDate ? 0 : v.minute, v.isDate ? 0 : v.second) / 1000;
  return wall - offsetMinutes * 60;
}

/** RFC 4791 9.9: whether a VTODO overlaps the range. */
function todoInRange(c: ICAL.Component, r: Range, offsetMinutes: number): boolean {
  const dtstart = momentOf(c, 'dtstart', offsetMinutes);
  const due = momentOf(c, 'due', offsetMinutes);
  const durationValue = firstValue(c, 'duration');
  const duration = durationValue instanceof ICAL.Duration ? durationValue.toSeconds() : undefined;
  const completed = momentOf(c, 'completed', offsetMinutes);
  const created = momentOf(c, 'created', offsetMinutes);
  if (dtstart !== undefined && duration !== undefined) {
    return r.start <= dtstart + duration && (r.end > dtstart || r.end >= dtstart + duration);
  }
  if (dtstart !== undefined && due !== undefined) return (r.start < due || r.start <= dtstart) && (r.end > dtstart || r.end >= due);
  if (dtstart !== undefined) return r.start <= dtstart && r.end > dtstart;
  if (due !== undefined) return r.start < due && r.end >= due;
  if (completed !== undefined && created !== undefined) return (r.start <= created || r.start <= completed) && (r.end >= created || r.end >= completed);
  if (completed !== undefined) return r.start <= completed && r.end >= completed;
  if (created !== undefined) return r.end > created;
  return true;
}

function textMatches(values: readonly string[], e: DavElement): boolean {
  const collation = e.attrs['collation'] ?? 'i;ascii-casemap';
  if (collation !== 'i;ascii-casemap' && collation !== 'i;octet') throw new FilterError(`collation ${collation} is not supported`);
  const fold = (s: string): string => (collation === 'i;octet' ? s : s.replace(/[A-Z]/g, (ch) => ch.toLowerCase()));
  const needle = fold(e.text);
  const found = values.some((v) => fold(v).includes(needle));
  return (e.attrs['negate-condition'] ?? 'no') === 'yes' ? !found : found;
}

function propMatches(c: ICAL.Component, f: DavElement, offsetMinutes: number): boolean {
  const name = (f.attrs['name'] ?? '').toLowerCase();
  const props = c.getAllProperties(name);
  if (child(f, CALDAV, 'is-not-defined')) return props.length === 0;
  if (props.length === 0) return false;
  const range = child(f, CALDAV, 'time-range');
  if (range) {
    const r = rangeOf(range);
    const at = momentOf(c, name, offsetMinutes);
    if (at === undefined || !(r.start <= at && at < r.end)) return false;
  }
  const text = child(f, CALDAV, 'text-match');
  if (text && !textMatches(props.flatMap(textValues), text)) return false;
  for (const pf of children(f, CALDAV, 'param-filter')) {
    const param = (pf.attrs['name'] ?? '').toLowerCase();
    const values = props.map((p) => p.getParameter(param)).filter((v) => v !== undefined && v !== null).map(String);
    if (child(pf, CALDAV, 'is-not-defined')) {
      if (values.length > 0) return false;
      continue;
    }
    const tm = child(pf, CALDAV, 'text-match');
    if (values.length === 0 || (tm && !textMatches(values, tm))) return false;
  }
  return true;
}

function compMatches(c: ICAL.Component, f: DavElement, offsetMinutes: number): boolean {
  const range = child(f, CALDAV, 'time-range');
  if (range) {
    const r = rangeOf(range);
    if (c.name === 'vtodo' && !todoInRange(c, r, offsetMinutes)) return false;
    if (c.name === 'valarm') throw new FilterError('time-range on VALARM is not supported');
  }
  for (const pf of children(f, CALDAV, 'prop-filter')) if (!propMatches(c, pf, offsetMinutes)) return false;
  for (const cf of children(f, CALDAV, 'comp-filter')) {
    const name = (cf.attrs['name'] ?? '').toLowerCase();
    const subs = c.getAllSubcomponents(name);
    if (child(cf, CALDAV, 'is-not-defined')) {
      if (subs.length > 0) return false;
      continue;
    }
    if (!subs.some((s) => compMatches(s, cf, offsetMinutes))) return false;
  }
  return true;
}

/**
 * Whether a calendar object (its VCALENDAR) passes the `<C:filter>`. The filter must start with
 * comp-filter VCALENDAR (RFC 4791 9.7.1); FilterError names what cannot be judged.
 */
export function passes(calendar: ICAL.Component, filter: DavElement, offsetMinutes: number): boolean {
  const top = children(filter, CALDAV, 'comp-filter');
  if (top.length !== 1 || (top[0]?.attrs['name'] ?? '').toUpperCase() !== 'VCALENDAR') throw new FilterError('a filter holds one comp-filter named VCALENDAR');
  const f = top[0] as DavElement;
  if (child(f, CALDAV, 'is-not-defined')) return false;
  return compMatches(calendar, f, offsetMinutes);
}
