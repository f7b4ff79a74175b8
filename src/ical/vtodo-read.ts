import ICAL from 'ical.js';
import { holdsControls } from './ical-text.js';
import { clockOfIcal, wallOf, type ClockDay } from './times.js';
import { isOwnZone, rruleOf } from './vtodo-write.js';
import { TICKLER_FIELDS, v3Priority, type KeptIcal, type TicklerField, type TodoFields } from './vtodo-model.js';

/**
 * A calendar object sent by a CalDAV client, read as a v3 task (docs/caldav.md, the mapping
 * table). What Tickler does not model is kept as it came (KeptIcal) and written back with the task.
 * Pure: the CalDAV service decides what to do with the result.
 */

export type ReadProblem =
  /** Not iCalendar at all (CALDAV:valid-calendar-data, 400). */
  | { readonly kind: 'calendar-data'; readonly desc: string }
  /** iCalendar, but not a to-do (CALDAV:supported-calendar-component, 403). */
  | { readonly kind: 'component'; readonly desc: string }
  /** A to-do that breaks a rule of calendar object resources (CALDAV:valid-calendar-object-resource, 403). */
  | { readonly kind: 'object'; readonly desc: string };

/** Properties the mapping reads or that the server writes itself: never kept. */
const MODELLED = new Set([
  'uid', 'dtstamp', 'created', 'last-modified', 'summary', 'description', 'due', 'dtstart', 'rrule', 'status', 'completed',
  'priority', 'categories', 'x-tickler-repeat', 'x-tickler-start', 'x-tickler-remind',
  ...TICKLER_FIELDS.map((f) => `x-tickler-${f}`),
]);

function text(c: ICAL.Component, name: string): string | undefined {
  const v = c.getFirstPropertyValue(name);
  return v === null || v === undefined ? undefined : String(v);
}

function timeOf(c: ICAL.Component, name: string, offsetMinutes: number): ClockDay | null {
  const p = c.getFirstProperty(name);
  const v = p?.getFirstValue();
  if (!p || !(v instanceof ICAL.Time)) return null;
  const tzid = p.getParameter('tzid');
  return clockOfIcal(v, typeof tzid === 'string' ? tzid : undefined, offsetMinutes);
}

/** The reminder: the first alarm whose trigger is a duration before the end (DUE); its minutes, and the alarm. */
function reminderOf(todo: ICAL.Component): { minutes: number; alarm: ICAL.Component } | undefined {
  for (const alarm of todo.getAllSubcomponents('valarm')) {
    const trigger = alarm.getFirstProperty('trigger');
    const value = trigger?.getFirstValue();
    if (!trigger || !(value instanceof ICAL.Duration)) continue;
    if (String(trigger.getParameter('related') ?? 'START').toUpperCase() !== 'END') continue;
    const seconds = value.toSeconds();
    if (seconds <= 0) return { minutes: Math.ceil(-seconds / 60), alarm };
  }
  return undefined;
}

/**
 * The task's repeat from its RRULE and its X-TICKLER-REPEAT (the v3 text as Tickler wrote it): the
 * v3 text while the rule is what Tickler wrote, else the client's rule with the v3 extensions the
 * text had (a client that changed the rule did not mean to drop "from completion").
 */
function repeatOf(todo: ICAL.Component): string {
  const rrule = todo.getFirstPropertyValue('rrule');
  const v3 = text(todo, 'x-tickler-repeat');
  const written = v3 === undefined ? undefined : rruleOf(v3)?.toString();
  if (!(rrule instanceof ICAL.Recur)) return v3 !== undefined && written === undefined ? v3 : '';
  const rule = rrule.toString();
  if (v3 === undefined) return rule;
  if (written === rule) return v3;
  const extensions = v3.split(';').filter((part) => /^(FROMCOMP|FASTFORWARD)$/i.test(part.trim()));
  return [rule, ...extensions].join(';');
}

function ticklerFields(todo: ICAL.Component): Partial<Record<TicklerField, number>> {
  const out: Partial<Record<TicklerField, number>> = {};
  for (const field of TICKLER_FIELDS) {
    const v = text(todo, `x-tickler-${field}`);
    if (v !== undefined && /^\s*-?\d+\s*$/.test(v)) out[field] = Number(v);
  }
  return out;
}

/**
 * The VTIMEZONEs an object keeps: one a TZID (RFC 5545 3.6.5), the first sent; none of Tickler's
 * own, which the writer writes whenever the object names one (vtodo-write.ts, isOwnZone).
 */
function keptZones(components: readonly ICAL.Component[]): unknown[] {
  const seen = new Set<string>();
  const kept: unknown[] = [];
  for (const zone of components) {
    if (zone.name !== 'vtimezone') continue;
    const tzid = String(zone.getFirstPropertyValue('tzid') ?? '');
    if (isOwnZone(tzid) || seen.has(tzid)) continue;
    seen.add(tzid);
    kept.push(zone.toJSON() as unknown);
  }
  return kept;
}

function parseCalendar(body: string): ICAL.Component | ReadProblem {
  let jcal: unknown;
  try {
    jcal = ICAL.parse(body);
  } catch (err) {
    return { kind: 'calendar-data', desc: `not iCalendar: ${(err as Error).message}` };
  }
  if (!Array.isArray(jcal) || jcal[0] !== 'vcalendar') return { kind: 'calendar-data', desc: 'the body is not one VCALENDAR' };
  return new ICAL.Component(jcal);
}

/**
 * Every value of a component and its subcomponents decoded once. ical.js parses a value's text only
 * when it is first read, and throws on one it cannot read (`DUE:abc`, `DURATION:PXYZ`, a TRIGGER of
 * garbage): read here, such a value is refused with the object, rather than failing this read
 * later, or kept and failing every later reader of the object (calendar-query's filters).
 */
function decodeAll(c: ICAL.Component): void {
  for (const p of c.getAllProperties()) p.getValues();
  for (const sub of c.getAllSubcomponents()) decodeAll(sub);
}

type ReadResult = { readonly ok: TodoFields } | { readonly problem: ReadProblem };

export function readCalendarObject(body: string, offsetMinutes: number): ReadResult {
  const cal = parseCalendar(body);
  if (!(cal instanceof ICAL.Component)) return { problem: cal };
  try {
    return readTodo(cal, offsetMinutes);
  } catch (err) {
    // ical.js throws plain errors from its value parsers: any of them is a value that is not iCalendar.
    return { problem: { kind: 'calendar-data', desc: `a value cannot be read: ${(err as Error).message}` } };
  }
}

function readTodo(cal: ICAL.Component, offsetMinutes: number): ReadResult {
  const components = cal.getAllSubcomponents();
  const other = components.find((c) => c.name !== 'vtodo' && c.name !== 'vtimezone');
  if (other) return { problem: { kind: 'component', desc: `this calendar holds tasks (VTODO) only, not ${other.name.toUpperCase()}` } };
  const todos = components.filter((c) => c.name === 'vtodo');
  const master = todos.find((c) => !c.hasProperty('recurrence-id')) ?? todos[0];
  if (!master) return { problem: { kind: 'component', desc: 'the calendar object holds no VTODO' } };
  const uid = text(master, 'uid')?.trim();
  if (!uid) return { problem: { kind: 'object', desc: 'a VTODO needs a UID' } };
  if (holdsControls(uid)) return { problem: { kind: 'object', desc: 'a UID may not hold control characters' } };
  if (todos.some((t) => text(t, 'uid')?.trim() !== uid)) return { problem: { kind: 'object', desc: 'every VTODO of one object must have the same UID' } };
  const title = text(master, 'summary')?.trim() ?? '';
  if (title === '') return { problem: { kind: 'object', desc: 'a task needs a SUMMARY (its title)' } };
  decodeAll(cal);

  const status = text(master, 'status')?.toUpperCase();
  const completedAt = timeOf(master, 'completed', offsetMinutes);
  const reminder = reminderOf(master);
  const parentLink = master
    .getAllProperties('related-to')
    .find((p) => String(p.getParameter('reltype') ?? 'PARENT').toUpperCase() === 'PARENT');
  // The parent's UID is looked up as a UID is: one with control characters names no task.
  if (parentLink && holdsControls(String(parentLink.getFirstValue()))) return { problem: { kind: 'object', desc: 'a UID may not hold control characters (RELATED-TO)' } };
  const props = master
    .getAllProperties()
    .filter((p) => !MODELLED.has(p.name) && p !== parentLink)
    .map((p) => p.toJSON() as unknown);
  const comps = master
    .getAllSubcomponents()
    .filter((c) => c !== reminder?.alarm)
    .map((c) => c.toJSON() as unknown);
  const overrides = todos.filter((t) => t !== master).map((t) => t.toJSON() as unknown);
  // Time zones travel with the object only when something kept names one.
  const needsZones = JSON.stringify([props, comps, overrides]).includes('"tzid"');
  const zones = needsZones ? keptZones(components) : [];
  const kept: KeptIcal = { props, comps, calendar: [...zones, ...overrides] };
  const xStart = text(master, 'x-tickler-start');
  const xRemind = text(master, 'x-tickler-remind');

  return {
    ok: {
      uid,
      title,
      note: text(master, 'description') ?? '',
      due: timeOf(master, 'due', offsetMinutes),
      start: timeOf(master, 'dtstart', offsetMinutes) ?? (xStart === undefined ? null : (wallOf(xStart) ?? null)),
      startTold: xStart !== undefined || master.hasProperty('dtstart'),
      completed: completedAt ? completedAt.day : status === 'COMPLETED' ? 'undated' : null,
      priority: v3Priority(Number(master.getFirstPropertyValue('priority') ?? 0)),
      tags: master
        .getAllProperties('categories')
        .flatMap((p) => p.getValues().map(String))
        .map((t) => t.replace(/,/g, ' ').trim())
        .filter((t) => t !== '')
        .join(', '),
      repeat: repeatOf(master),
      remind: reminder?.minutes ?? (xRemind !== undefined && /^\d+$/.test(xRemind.trim()) ? Number(xRemind) : 0),
      parentUid: parentLink ? String(parentLink.getFirstValue()).trim() || null : null,
      tickler: ticklerFields(master),
      icalStatus: status,
      kept,
    },
  };
}
