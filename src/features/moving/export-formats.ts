import { stringify } from 'csv-stringify/sync';
import ICAL from 'ical.js';
import type { Deps } from '../../deps.js';
import { unixSeconds } from '../../lib/clock.js';
import type { Account, ListedTask, OrganizerKind } from '../../storage/store.js';
import { allTasks } from './export.service.js';
import { STATUS_WORDS } from './hosted-words.js';

/**
 * A person's tasks as CSV and as iCalendar (docs/moving.md). Services: the command line and the
 * account page call them and send the text where they need it.
 */


/** The hosted service's CSV export columns (docs/moving.md, "The hosted service's files"), then Tickler's own. */
export const CSV_COLUMNS = ['TASK', 'FOLDER', 'CONTEXT', 'GOAL', 'LOCATION', 'STARTDATE', 'STARTTIME', 'DUEDATE', 'DUETIME', 'REPEAT', 'LENGTH', 'TIMER', 'PRIORITY', 'TAG', 'STATUS', 'STAR', 'NOTE', 'COMPLETED', 'ID', 'PARENT', 'ADDED'] as const;

async function names(deps: Deps, userPk: number, kind: OrganizerKind): Promise<Map<number, string>> {
  return new Map((await deps.store.read.organizers.list(userPk, kind)).map((r) => [r.id, r.name]));
}

const day = (ts: number): string => (ts === 0 ? '' : new Date(ts * 1000).toISOString().slice(0, 10));

/** A floating clock time as the hosted service's CSV writes it ("8:00 pm"). */
function clock(seconds: number | null): string {
  if (seconds === null) return '';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return `${h % 12 === 0 ? 12 : h % 12}:${String(m).padStart(2, '0')} ${h < 12 ? 'am' : 'pm'}`;
}

/**
 * Tasks as CSV, one row each, with the hosted service's columns (names of folders, contexts,
 * goals and locations; dates YYYY-MM-DD; floating times as clock times; STAR Yes or No), then
 * ID, PARENT and ADDED so that subtasks stay recognisable. REPEAT holds the rule as stored
 * (RRULE text): the hosted service's own wording of rules is not documented. Quoting of commas,
 * quotes and line breaks in notes is csv-stringify's (RFC 4180).
 */
export async function exportTasksCsv(deps: Deps, userPk: number): Promise<string> {
  const folders = await names(deps, userPk, 'folder');
  const contexts = await names(deps, userPk, 'context');
  const goals = await names(deps, userPk, 'goal');
  const locations = await names(deps, userPk, 'location');
  const rows = (await allTasks(deps, userPk)).map((t) => [
    t.title,
    folders.get(t.folder) ?? '',
    contexts.get(t.context) ?? '',
    goals.get(t.goal) ?? '',
    locations.get(t.location) ?? '',
    day(t.startdate),
    clock(t.starttime),
    day(t.duedate),
    clock(t.duetime),
    t.repeat,
    t.length === 0 ? '' : t.length,
    t.timer === 0 ? '' : t.timer,
    t.priority,
    t.tag,
    STATUS_WORDS[t.status] ?? '',
    t.star === 1 ? 'Yes' : 'No',
    t.note,
    day(t.completed),
    t.id,
    t.parent === 0 ? '' : t.parent,
    day(t.added),
  ]);
  return stringify([[...CSV_COLUMNS], ...rows], { record_delimiter: 'windows' });
}

/** The rule as iCalendar's RECUR value, or undefined when it is not one (no frequency, or an unknown part). */
function recurOf(rule: string): ICAL.Recur | undefined {
  try {
    const recur = ICAL.Recur.fromString(rule);
    return recur.freq ? recur : undefined;
  } catch {
    return undefined;
  }
}

/** iCalendar's PRIORITY (1 highest … 9 lowest) for the v3 priorities 3 (Top) … -1 (Negative). */
const ICAL_PRIORITY: Readonly<Record<number, number>> = { 3: 1, 2: 3, 1: 5, 0: 7, [-1]: 9 };

/** The task's extensions of RRULE that are not RFC 5545's (spec 2.1), removed. */
function rruleOf(repeat: string): string | undefined {
  const rule = repeat
    .split(';')
    .filter((part) => part !== '' && !/^(FROMCOMP|FASTFORWARD)$/i.test(part.trim()))
    .join(';');
  if (rule === '' || /^PARENT$/i.test(rule)) return undefined;
  // A bare frequency ("WEEKLY") is FREQ=WEEKLY, as the tasks read it.
  return /^(DAILY|WEEKLY|MONTHLY|YEARLY)$/i.test(rule) ? `FREQ=${rule.toUpperCase()}` : rule;
}

/**
 * A stored date and floating time as iCalendar: a DATE without a time, else a floating
 * DATE-TIME (no Z, no TZID: the same clock time in every zone, RFC 5545 §3.3.5 form #1), which is
 * exactly what the v3 API's floating times mean (spec 2.1). `endOfDay` places a date that must be
 * compared with a DATE-TIME at the end of its day (a due date), else at its start.
 */
function when(date: number, time: number | null, asDateTime: boolean, endOfDay: boolean): ICAL.Time {
  const d = new Date(date * 1000);
  const seconds = time ?? (endOfDay ? 86399 : 0);
  const isDate = !asDateTime && time === null;
  return ICAL.Time.fromData({
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: isDate ? 0 : Math.floor(seconds / 3600),
    minute: isDate ? 0 : Math.floor((seconds % 3600) / 60),
    second: isDate ? 0 : seconds % 60,
    isDate,
  });
}

const utc = (ts: number): ICAL.Time => ICAL.Time.fromJSDate(new Date(ts * 1000), true);

function vtodo(t: ListedTask, uid: (id: number) => string, now: number, folders: Map<number, string>): ICAL.Component {
  const c = new ICAL.Component('vtodo');
  c.addPropertyWithValue('uid', uid(t.id));
  c.addPropertyWithValue('dtstamp', utc(now));
  c.addPropertyWithValue('summary', t.title);
  if (t.note !== '') c.addPropertyWithValue('description', t.note);
  if (t.added > 0) c.addPropertyWithValue('created', utc(t.added));
  c.addPropertyWithValue('last-modified', utc(t.modified));
  const hasDue = t.duedate !== 0;
  const hasStart = t.startdate !== 0;
  // DUE and DTSTART must have one value type (RFC 5545 §3.8.2.3): one with a time makes both date-times.
  const asDateTime = (hasDue && t.duetime !== null) || (hasStart && t.starttime !== null);
  const due = hasDue ? when(t.duedate, t.duetime, asDateTime && hasStart, true) : undefined;
  const start = hasStart ? when(t.startdate, t.starttime, asDateTime && hasDue, false) : undefined;
  // …and DUE must be later than DTSTART: a start on or after the due moment is left out.
  if (start && (!due || start.compare(due) < 0)) c.addPropertyWithValue('dtstart', start);
  if (due) c.addPropertyWithValue('due', due);
  const rule = rruleOf(t.repeat);
  if (rule) {
    // A rule iCalendar cannot hold is kept readable in the description's stead: nothing is lost
    // silently. ical.js reads a rule without FREQ ("BYDAY=MO") without complaint and would write
    // it back as FREQ=null, which no reader accepts.
    const recur = recurOf(rule);
    if (recur) c.addPropertyWithValue('rrule', recur);
    else c.addPropertyWithValue('x-tickler-repeat', t.repeat);
  }
  if (t.completed !== 0) {
    c.addPropertyWithValue('status', 'COMPLETED');
    c.addPropertyWithValue('completed', utc(t.completed));
  } else c.addPropertyWithValue('status', t.status === 9 ? 'CANCELLED' : 'NEEDS-ACTION');
  c.addPropertyWithValue('priority', ICAL_PRIORITY[t.priority] ?? 0);
  const categories = [...(t.tag === '' ? [] : t.tag.split(', ')), ...(folders.has(t.folder) ? [folders.get(t.folder) as string] : [])];
  if (categories.length > 0) {
    const p = new ICAL.Property('categories');
    p.setValues(categories);
    c.addProperty(p);
  }
  if (t.parent !== 0) {
    const p = new ICAL.Property('related-to');
    p.setValue(uid(t.parent));
    p.setParameter('reltype', 'PARENT');
    c.addProperty(p);
  }
  return c;
}

/**
 * Tasks as iCalendar to-dos (RFC 5545), written with ical.js (escaping, folding, value types):
 * SUMMARY, DESCRIPTION, DUE and DTSTART (floating, see `when`), RRULE (the v3 extensions
 * FROMCOMP, FASTFORWARD and PARENT have no iCalendar form and are dropped), STATUS, COMPLETED,
 * PRIORITY, CATEGORIES (tags and folder), RELATED-TO;RELTYPE=PARENT for subtasks.
 */
export async function exportTasksIcal(deps: Deps, userPk: number): Promise<string> {
  const account = (await deps.store.read.accounts.get(userPk)) as Account;
  const folders = await names(deps, userPk, 'folder');
  const now = unixSeconds(deps.clock);
  const cal = new ICAL.Component('vcalendar');
  cal.addPropertyWithValue('version', '2.0');
  cal.addPropertyWithValue('prodid', '-//Tickler//Tickler tasks//EN');
  const uid = (id: number): string => `task-${id}-${account.userid}@tickler`;
  for (const t of await allTasks(deps, userPk)) cal.addSubcomponent(vtodo(t, uid, now, folders));
  return cal.toString() + '\r\n';
}
