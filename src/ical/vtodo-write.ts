import ICAL from 'ical.js';
import { BoundedMap } from '../lib/bounded-map.js';
import { civilFromDays } from '../repeat/calendar.js';
import type { Task } from '../storage/store.js';
import { icalText, xValue } from './ical-text.js';
import { dayOf, momentOf, wallText, type ClockDay } from './times.js';
import { ICAL_PRIORITY, icalStatusOf, type KeptIcal, type TicklerField } from './vtodo-model.js';

/**
 * A task as an iCalendar VTODO (docs/caldav.md, the mapping table), written as text here: ical.js
 * took 23 µs an object, so a CalDAV calendar-multiget of 1,000 tasks spent 23 ms of CPU writing
 * them, ten times what tasks/get spends on the same tasks (docs/decisions/0027-caldav.md). This
 * writes RFC 5545 itself (escaping, folding at 75 octets, value types); ical.js still writes what
 * clients keep in their objects (jCal) and reads everything (vtodo-read.ts), and a property test
 * reads every field back. The same task always gives the same text: an object's ETag follows its
 * change in the log, not the moment it is read.
 */

export interface WriteContext {
  readonly uid: string;
  /** The parent's UID, for a subtask. */
  readonly parentUid?: string | undefined;
  readonly kept: KeptIcal;
  /** The account's clock, minutes east of UTC. */
  readonly offsetMinutes: number;
  /** More CATEGORIES after the tags (the export adds the folder's name). */
  readonly moreCategories?: readonly string[];
}

export const PRODID = '-//Tickler//Tickler tasks//EN';

/** RRULE text of a repeat, memoized: an account's tasks share a handful of rules. */
const RULES = new BoundedMap<string, string | null>(1000);

/** The task's RRULE: its repeat without the v3 extensions, when iCalendar can say it. */
export function rruleOf(repeat: string): string | undefined {
  const known = RULES.get(repeat);
  if (known !== undefined) return known ?? undefined;
  const rule = repeat
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '' && !/^(FROMCOMP|FASTFORWARD)$/i.test(part))
    .join(';');
  let out: string | null = null;
  if (rule !== '' && !/^PARENT$/i.test(rule)) {
    // A bare frequency ("WEEKLY") is FREQ=WEEKLY, as the tasks read it.
    const text = /^(DAILY|WEEKLY|MONTHLY|YEARLY)$/i.test(rule) ? `FREQ=${rule.toUpperCase()}` : rule;
    try {
      const recur = ICAL.Recur.fromString(text);
      // ical.js reads a rule without FREQ ("BYDAY=MO") without complaint and would write FREQ=null.
      if (recur.freq) out = recur.toString();
    } catch {
      out = null;
    }
  }
  RULES.set(repeat, out);
  return out ?? undefined;
}

/** RFC 5545 3.1: a content line folded at 75 octets, never inside a character. */
function fold(line: string): string {
  // A UTF-16 unit takes at most 3 octets: a line of 25 units or fewer is short whatever it holds.
  if (line.length <= 25 || (line.length <= 75 && Buffer.byteLength(line) <= 75)) return line;
  const out: string[] = [];
  let current = '';
  let bytes = 0;
  for (const ch of line) {
    const size = Buffer.byteLength(ch);
    if (bytes + size > (out.length === 0 ? 75 : 74)) {
      out.push(current);
      current = '';
      bytes = 0;
    }
    current += ch;
    bytes += size;
  }
  out.push(current);
  return out.join('\r\n ');
}

const two = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** A UTC DATE-TIME: 20261208T140000Z (the calendar's arithmetic: a Date object per value cost more than the rest of it). */
function utc(moment: number): string {
  const day = Math.floor(moment / 86400);
  const { y, m, d } = civilFromDays(day);
  const s = moment - day * 86400;
  return `${y}${two(m)}${two(d)}T${two(Math.floor(s / 3600))}${two(Math.floor((s % 3600) / 60))}${two(s % 60)}Z`;
}

/** DUE or DTSTART: a DATE without a time, else the UTC moment of the clock time. */
function when(name: string, clock: ClockDay, offsetMinutes: number, zoned: boolean): string {
  if (clock.time === null) return `${name};VALUE=DATE:${wallText(clock)}`;
  return zoned ? `${name};TZID=${zoneId(offsetMinutes)}:${wallText(clock)}` : `${name}:${utc(momentOf(clock.day, clock.time, offsetMinutes))}`;
}

/** `+0530`, `-0500`: an offset as VTIMEZONE writes it. */
function offsetText(minutes: number): string {
  const a = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${two(Math.floor(a / 60))}${two(a % 60)}`;
}

/**
 * How the TZIDs of Tickler's own zones begin (`Tickler UTC-0500`). Such a zone is a function of its
 * name: the writer writes one whenever the object names it, and the reader never keeps a copy (a
 * client sends back the one it got, and kept beside the one written each time, copies piled up a
 * round trip at a time).
 */
const TICKLER_ZONE_PREFIX = 'Tickler UTC';

/** The name of the account's clock as a time zone of its own (its VTIMEZONE goes with the object). */
function zoneId(offsetMinutes: number): string {
  return `${TICKLER_ZONE_PREFIX}${offsetText(offsetMinutes)}`;
}

/** Whether a TZID names one of Tickler's own zones (zoneId). */
export function isOwnZone(tzid: string): boolean {
  return /^Tickler UTC[+-]\d{4}$/.test(tzid);
}

/** Tickler's zones named in what an object keeps: `"tzid":"Tickler UTC+0100"` in its jCal. */
const NAMED_OWN_ZONE = /"tzid":"Tickler UTC([+-])(\d{2})(\d{2})"/g;

/**
 * The offsets of Tickler's zones the kept properties name (an EXDATE a client wrote in the zone of
 * DTSTART, an override's RECURRENCE-ID): still named once the task stops repeating, or its account
 * moves to another clock, so written for as long as they are named.
 */
function ownZonesNamed(kept: KeptIcal): number[] {
  if (kept.props.length + kept.comps.length + kept.calendar.length === 0) return [];
  const json = JSON.stringify(kept);
  if (!json.includes(TICKLER_ZONE_PREFIX)) return [];
  const offsets: number[] = [];
  for (const [, sign, hours, minutes] of json.matchAll(NAMED_OWN_ZONE)) {
    if (Number(hours) < 24 && Number(minutes) < 60) offsets.push((sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes)));
  }
  return offsets;
}

/** The TZID of a kept calendar component when it is a VTIMEZONE (jCal: [name, properties, components]). */
function keptZoneId(comp: unknown): string | undefined {
  if (!Array.isArray(comp) || comp[0] !== 'vtimezone' || !Array.isArray(comp[1])) return undefined;
  const tzid = (comp[1] as unknown[]).find((p): p is unknown[] => Array.isArray(p) && p[0] === 'tzid');
  return tzid === undefined ? undefined : String(tzid[3]);
}

/**
 * The account's clock as a VTIMEZONE of one fixed offset. A repeating task with a time is written
 * in it, not in UTC: an app that draws or moves on occurrences does so in the DTSTART's zone, and
 * in UTC a Monday at 8 pm in UTC-5 repeats on Tuesdays.
 */
function zoneLines(offsetMinutes: number): string[] {
  const o = offsetText(offsetMinutes);
  return ['BEGIN:VTIMEZONE', `TZID:${zoneId(offsetMinutes)}`, 'BEGIN:STANDARD', 'DTSTART:19700101T000000', `TZOFFSETFROM:${o}`, `TZOFFSETTO:${o}`, `TZNAME:UTC${o}`, 'END:STANDARD', 'END:VTIMEZONE'];
}

/** Whether the task's times are written in the account's own zone (zoneLines). */
function zonedTimes(t: Task): boolean {
  return rruleOf(t.repeat) !== undefined && ((t.duedate !== 0 && t.duetime !== null) || (t.startdate !== 0 && t.starttime !== null));
}

/**
 * Whether the start can be DTSTART beside this due (RFC 5545 3.8.2.3): DUE of the same value type
 * (both days, or both times) and strictly later. Any other start travels in X-TICKLER-START, which
 * the reader takes when there is no DTSTART: a start day with a due time, the same day twice, a
 * start not before the due.
 */
function startFitsDue(start: ClockDay, due: ClockDay | undefined): boolean {
  if (!due) return true;
  if (start.time === null || due.time === null) return start.time === null && due.time === null && start.day < due.day;
  // Both clock times of one account: their order is their moments' order.
  return start.day * 86400 + start.time < due.day * 86400 + due.time;
}

/**
 * Whether the task's start is written as DTSTART (else X-TICKLER-START, or none): an app that
 * drops X- properties never saw a start it could have removed (object-writes.ts keeps it).
 */
export function startWrittenAsDtstart(t: Task): boolean {
  if (t.startdate === 0) return false;
  return startFitsDue({ day: dayOf(t.startdate), time: t.starttime }, t.duedate === 0 ? undefined : { day: dayOf(t.duedate), time: t.duetime });
}

/** A duration before its reference (the reminder's trigger): -P1W, -P2D or -PT1H30M. */
function before(minutes: number): string {
  if (minutes % 10080 === 0) return `-P${minutes / 10080}W`;
  if (minutes % 1440 === 0) return `-P${minutes / 1440}D`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `-PT${h > 0 ? `${h}H` : ''}${m > 0 ? `${m}M` : ''}`;
}

const TICKLER_VALUES: ReadonlyArray<readonly [TicklerField, (t: Task) => number]> = [
  ['star', (t) => t.star],
  ['context', (t) => t.context],
  ['goal', (t) => t.goal],
  ['location', (t) => t.location],
  ['status', (t) => t.status],
  ['length', (t) => t.length],
  ['duedatemod', (t) => t.duedatemod],
];

/** The VTODO's content lines, BEGIN and END included, unfolded. */
function vtodoLines(t: Task, ctx: WriteContext): string[] {
  const offset = ctx.offsetMinutes;
  const lines = ['BEGIN:VTODO', `UID:${icalText(ctx.uid)}`, `DTSTAMP:${utc(t.modified)}`];
  // CREATED is never later than LAST-MODIFIED: an added date is a day, kept at noon, which may be
  // later that day than the task's last change (a task imported without its added date).
  lines.push(`CREATED:${utc(t.added === 0 ? t.modified : Math.min(t.added, t.modified))}`, `LAST-MODIFIED:${utc(t.modified)}`, `SUMMARY:${icalText(t.title)}`);
  if (t.note !== '') lines.push(`DESCRIPTION:${icalText(t.note)}`);
  const due = t.duedate === 0 ? undefined : { day: dayOf(t.duedate), time: t.duetime };
  const start = t.startdate === 0 ? undefined : { day: dayOf(t.startdate), time: t.starttime };
  const zoned = zonedTimes(t);
  if (start && startFitsDue(start, due)) lines.push(when('DTSTART', start, offset, zoned));
  else if (start) lines.push(`X-TICKLER-START:${wallText(start)}`);
  if (due) lines.push(when('DUE', due, offset, zoned));
  const rule = rruleOf(t.repeat);
  if (rule) lines.push(`RRULE:${rule}`);
  // The repeat as v3 holds it, whenever RRULE cannot say all of it (FROMCOMP, FASTFORWARD, PARENT, a rule it cannot hold).
  if (t.repeat !== '' && rule !== t.repeat) lines.push(`X-TICKLER-REPEAT:${xValue(t.repeat)}`);
  if (t.completed !== 0) {
    // The completed day, at noon in the account's clock: read back, it is the same day.
    lines.push('STATUS:COMPLETED', `COMPLETED:${utc(momentOf(dayOf(t.completed), 43200, offset))}`);
  } else lines.push(`STATUS:${icalStatusOf(t.status)}`);
  const priority = ICAL_PRIORITY[t.priority] ?? 0;
  if (priority !== 0) lines.push(`PRIORITY:${priority}`);
  const categories = [...(t.tag === '' ? [] : t.tag.split(', ')), ...(ctx.moreCategories ?? [])];
  if (categories.length > 0) lines.push(`CATEGORIES:${categories.map(icalText).join(',')}`);
  if (ctx.parentUid !== undefined) lines.push(`RELATED-TO;RELTYPE=PARENT:${icalText(ctx.parentUid)}`);
  for (const [field, value] of TICKLER_VALUES) {
    const v = value(t);
    if (v !== 0) lines.push(`X-TICKLER-${field.toUpperCase()}:${v}`);
  }
  for (const prop of ctx.kept.props) {
    // DUE and DURATION never go together (RFC 5545 3.6.2): a client's DURATION waits while the task has a due date.
    if (due && Array.isArray(prop) && prop[0] === 'duration') continue;
    lines.push(ICAL.stringify.property(prop as unknown[], ICAL.design.icalendar, true));
  }
  if (t.remind > 0) {
    // Relative to DUE (RELATED=END of a VTODO): moving the due date moves the reminder.
    if (due) lines.push('BEGIN:VALARM', 'ACTION:DISPLAY', `DESCRIPTION:${icalText(t.title)}`, `TRIGGER;RELATED=END:${before(t.remind)}`, 'END:VALARM');
    else lines.push(`X-TICKLER-REMIND:${t.remind}`);
  }
  for (const comp of ctx.kept.comps) lines.push(...new ICAL.Component(comp as unknown[]).toString().split('\r\n'));
  lines.push('END:VTODO');
  return lines;
}

/** A VCALENDAR of to-dos, with the calendar components kept for them, as text. */
export function calendarText(todos: ReadonlyArray<{ readonly task: Task; readonly ctx: WriteContext }>): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', `PRODID:${PRODID}`];
  const own = new Set<number>();
  for (const { task, ctx } of todos) {
    if (zonedTimes(task)) own.add(ctx.offsetMinutes);
    for (const offset of ownZonesNamed(ctx.kept)) own.add(offset);
  }
  for (const offset of own) lines.push(...zoneLines(offset));
  // One VTIMEZONE a TZID (RFC 5545 3.6.5): no kept copy of Tickler's (objects kept before the reader
  // left them out hold some), and a client's zone once however many of the calendar's to-dos keep it.
  const zones = new Set<string>();
  for (const { ctx } of todos) {
    for (const comp of ctx.kept.calendar) {
      const tzid = keptZoneId(comp);
      if (tzid !== undefined && (isOwnZone(tzid) || zones.has(tzid))) continue;
      if (tzid !== undefined) zones.add(tzid);
      lines.push(...new ICAL.Component(comp as unknown[]).toString().split('\r\n'));
    }
  }
  for (const { task, ctx } of todos) lines.push(...vtodoLines(task, ctx));
  lines.push('END:VCALENDAR');
  return `${lines.map(fold).join('\r\n')}\r\n`;
}

/** A calendar object: the VCALENDAR around one task's VTODO. */
export function calendarObject(task: Task, ctx: WriteContext): string {
  return calendarText([{ task, ctx }]);
}
