import ICAL from 'ical.js';
import type { Task } from '../storage/store.js';
import { icalText, withoutControls } from './ical-text.js';
import { dayOf, icalDate, icalOf, icalUtc, momentOf } from './times.js';
import { eventRrule } from './vevent-repeat.js';
import { PRODID } from './vtodo-write.js';

/**
 * A calendar feed (docs/feeds.md): the open tasks with a due date as iCalendar VEVENTs, which
 * Google Calendar, Apple Calendar and Outlook show (they ignore VTODOs in a subscription). Written
 * with ical.js. The same tasks, name and clock always give the same bytes: DTSTAMP is the task's
 * modified, never the time of the fetch, so that a feed's ETag can stand for its text.
 */

/** A due time without a length is shown as an event of this many minutes: seen in every day view, and short. */
export const DEFAULT_EVENT_MINUTES = 30;
/** How often a calendar is asked to fetch the feed again (RFC 7986 REFRESH-INTERVAL, and Outlook's X-PUBLISHED-TTL). */
export const REFRESH_SECONDS = 15 * 60;
/** The name of the whole account's feed; a folder's feed takes the folder's name. */
export const ACCOUNT_FEED_NAME = 'Tickler tasks';

export interface FeedContext {
  /** The calendar's name (X-WR-CALNAME, NAME). */
  readonly name: string;
  /** The account's user id: part of every UID. */
  readonly userid: string;
  /** The account's clock, minutes east of UTC. */
  readonly offsetMinutes: number;
  /** The address of a task's page (the web editor). */
  readonly taskUrl: (taskId: number) => string;
}

/** An event's UID: stable per task, and distinct from the UID of the task's VTODO (`task-…`). */
export const eventUid = (taskId: number, userid: string): string => `due-${taskId}-${userid}@tickler`;

function add(c: ICAL.Component, name: string, value: unknown): void {
  const p = new ICAL.Property(name);
  p.setValue(value as string);
  c.addProperty(p);
}

/** The event of an open task with a due date. */
export function veventOf(t: Task, ctx: FeedContext): ICAL.Component {
  const offset = ctx.offsetMinutes;
  const day = dayOf(t.duedate);
  const url = ctx.taskUrl(t.id);
  const e = new ICAL.Component('vevent');
  add(e, 'uid', eventUid(t.id, ctx.userid));
  add(e, 'dtstamp', icalUtc(t.modified));
  add(e, 'last-modified', icalUtc(t.modified));
  // ical.js escapes TEXT itself; the control characters no value may hold are left out first.
  add(e, 'summary', withoutControls(t.title));
  if (t.duetime === null) {
    // All day: a DATE, shown on that day wherever the calendar is; DTEND is exclusive (RFC 5545 3.6.1).
    add(e, 'dtstart', icalDate(day));
    add(e, 'dtend', icalDate(day + 1));
  } else {
    // The moment CalDAV gives the task's DUE: the floating due time placed in the account's clock.
    const start = momentOf(day, t.duetime, offset);
    add(e, 'dtstart', icalOf({ day, time: t.duetime }, offset));
    add(e, 'dtend', icalUtc(start + (t.length > 0 ? t.length : DEFAULT_EVENT_MINUTES) * 60));
  }
  const recur = eventRrule(t, offset);
  if (recur) add(e, 'rrule', recur);
  add(e, 'description', t.note === '' ? `Open in Tickler: ${url}` : `${withoutControls(t.note)}\n\nOpen in Tickler: ${url}`);
  add(e, 'url', url);
  // A task is not an appointment: it does not make the person busy in free/busy lookups.
  add(e, 'transp', 'TRANSPARENT');
  // Canceled (v3 status 9) but not completed: calendars hide such an event or strike it through.
  if (t.status === 9) add(e, 'status', 'CANCELLED');
  const tags = t.tag === '' ? [] : withoutControls(t.tag).split(', ');
  if (tags.length > 0) {
    const p = new ICAL.Property('categories');
    p.setValues(tags);
    e.addProperty(p);
  }
  if (t.remind > 0) {
    // Relative to the start (a VEVENT's default): the due time, or the start of an all-day event's
    // day, the moment CalDAV's alarm (before DUE) fires too.
    const alarm = new ICAL.Component('valarm');
    add(alarm, 'action', 'DISPLAY');
    add(alarm, 'description', withoutControls(t.title));
    add(alarm, 'trigger', ICAL.Duration.fromSeconds(-t.remind * 60));
    e.addSubcomponent(alarm);
  }
  return e;
}

/** The feed's text: a VCALENDAR of one event per task, in the order given. */
export function feedText(tasks: readonly Task[], ctx: FeedContext): string {
  const cal = new ICAL.Component('vcalendar');
  add(cal, 'version', '2.0');
  add(cal, 'prodid', PRODID);
  add(cal, 'calscale', 'GREGORIAN');
  // A published calendar, not an invitation (Outlook reads subscriptions as PUBLISH).
  add(cal, 'method', 'PUBLISH');
  add(cal, 'name', icalText(ctx.name));
  add(cal, 'x-wr-calname', icalText(ctx.name));
  add(cal, 'refresh-interval', ICAL.Duration.fromSeconds(REFRESH_SECONDS));
  add(cal, 'x-published-ttl', ICAL.Duration.fromSeconds(REFRESH_SECONDS).toString());
  for (const t of tasks) cal.addSubcomponent(veventOf(t, ctx));
  return `${cal.toString()}\r\n`;
}
