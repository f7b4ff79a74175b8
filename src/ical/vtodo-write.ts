import ICAL from 'ical.js';
import type { Task } from '../storage/store.js';
import { dayOf, icalOf, icalUtc, momentOf, wallText } from './times.js';
import { ICAL_PRIORITY, type KeptIcal, type TicklerField } from './vtodo-model.js';

/**
 * A task as an iCalendar VTODO (docs/caldav.md, the mapping table), written with ical.js
 * (escaping, folding, value types). The same task always gives the same text: an object's ETag
 * follows its change in the log, not the moment it is read.
 */

export interface WriteContext {
  readonly uid: string;
  /** The parent's UID, for a subtask. */
  readonly parentUid?: string | undefined;
  readonly kept: KeptIcal;
  /** The account's clock, minutes east of UTC. */
  readonly offsetMinutes: number;
}

export const PRODID = '-//Tickler//Tickler tasks//EN';

/** The task's RRULE: its repeat without the v3 extensions, when iCalendar can say it. */
export function rruleOf(repeat: string): ICAL.Recur | undefined {
  const rule = repeat
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '' && !/^(FROMCOMP|FASTFORWARD)$/i.test(part))
    .join(';');
  if (rule === '' || /^PARENT$/i.test(rule)) return undefined;
  // A bare frequency ("WEEKLY") is FREQ=WEEKLY, as the tasks read it.
  const text = /^(DAILY|WEEKLY|MONTHLY|YEARLY)$/i.test(rule) ? `FREQ=${rule.toUpperCase()}` : rule;
  try {
    const recur = ICAL.Recur.fromString(text);
    // ical.js reads a rule without FREQ ("BYDAY=MO") without complaint and would write FREQ=null.
    return recur.freq ? recur : undefined;
  } catch {
    return undefined;
  }
}

function add(c: ICAL.Component, name: string, value: unknown, params: Record<string, string> = {}): void {
  const p = new ICAL.Property(name);
  p.setValue(value as string);
  for (const [k, v] of Object.entries(params)) p.setParameter(k, v);
  c.addProperty(p);
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

export function vtodoOf(t: Task, ctx: WriteContext): ICAL.Component {
  const c = new ICAL.Component('vtodo');
  const offset = ctx.offsetMinutes;
  add(c, 'uid', ctx.uid);
  add(c, 'dtstamp', icalUtc(t.modified));
  // CREATED is never later than LAST-MODIFIED: an added date is a day, kept at noon, which may be
  // later that day than the task's last change (a task imported without its added date).
  add(c, 'created', icalUtc(t.added === 0 ? t.modified : Math.min(t.added, t.modified)));
  add(c, 'last-modified', icalUtc(t.modified));
  add(c, 'summary', t.title);
  if (t.note !== '') add(c, 'description', t.note);
  const due = t.duedate === 0 ? undefined : { day: dayOf(t.duedate), time: t.duetime };
  const start = t.startdate === 0 ? undefined : { day: dayOf(t.startdate), time: t.starttime };
  const dueAt = due && (due.time === null ? due.day * 86400 + 86399 - offset * 60 : momentOf(due.day, due.time, offset));
  const startAt = start && momentOf(start.day, start.time ?? 0, offset);
  // DTSTART must come before DUE (RFC 5545 3.8.2.3): a start that does not travels in X-TICKLER-START.
  if (start && (dueAt === undefined || (startAt as number) < dueAt)) add(c, 'dtstart', icalOf(start, offset));
  else if (start) add(c, 'x-tickler-start', wallText(start));
  if (due) add(c, 'due', icalOf(due, offset));
  const recur = rruleOf(t.repeat);
  if (recur) add(c, 'rrule', recur);
  // The repeat as v3 holds it, whenever iCalendar's RRULE cannot say all of it (FROMCOMP, FASTFORWARD, PARENT, or a rule it cannot hold).
  if (t.repeat !== '' && (!recur || recur.toString() !== t.repeat)) add(c, 'x-tickler-repeat', t.repeat);
  if (t.completed !== 0) {
    add(c, 'status', 'COMPLETED');
    // The completed day, at noon in the account's clock: read back, it is the same day.
    add(c, 'completed', icalUtc(momentOf(dayOf(t.completed), 43200, offset)));
  } else add(c, 'status', t.status === 9 ? 'CANCELLED' : t.status === 2 ? 'IN-PROCESS' : 'NEEDS-ACTION');
  const priority = ICAL_PRIORITY[t.priority] ?? 0;
  if (priority !== 0) add(c, 'priority', priority);
  const tags = t.tag === '' ? [] : t.tag.split(', ');
  if (tags.length > 0) {
    const p = new ICAL.Property('categories');
    p.setValues(tags);
    c.addProperty(p);
  }
  if (ctx.parentUid !== undefined) add(c, 'related-to', ctx.parentUid, { reltype: 'PARENT' });
  for (const [field, value] of TICKLER_VALUES) {
    const v = value(t);
    if (v !== 0) add(c, `x-tickler-${field}`, String(v));
  }
  for (const prop of ctx.kept.props) c.addProperty(new ICAL.Property(prop as unknown[]));
  if (t.remind > 0) {
    if (due) {
      // Relative to DUE (RELATED=END of a VTODO): moving the due date moves the reminder.
      const alarm = new ICAL.Component('valarm');
      add(alarm, 'action', 'DISPLAY');
      add(alarm, 'description', t.title);
      add(alarm, 'trigger', ICAL.Duration.fromSeconds(-t.remind * 60), { related: 'END' });
      c.addSubcomponent(alarm);
    } else add(c, 'x-tickler-remind', String(t.remind));
  }
  for (const comp of ctx.kept.comps) c.addSubcomponent(new ICAL.Component(comp as unknown[]));
  return c;
}

/** A calendar object: the VCALENDAR around one VTODO, with the calendar components kept for it. */
export function calendarObject(todo: ICAL.Component, kept: KeptIcal): string {
  const cal = new ICAL.Component('vcalendar');
  cal.addPropertyWithValue('version', '2.0');
  cal.addPropertyWithValue('prodid', PRODID);
  for (const comp of kept.calendar) cal.addSubcomponent(new ICAL.Component(comp as unknown[]));
  cal.addSubcomponent(todo);
  return `${cal.toString()}\r\n`;
}
