import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import ICAL from 'ical.js';
import ical, { type VEvent } from 'node-ical';
import { newTask } from '../../test/factories.js';
import { nextOccurrence, parseRepeat } from '../repeat/index.js';
import type { Task } from '../storage/store.js';
import { storedDate } from './times.js';
import { DEFAULT_EVENT_MINUTES, eventUid, feedText, type FeedContext } from './vevent-write.js';
import { NOTHING_KEPT } from './vtodo-model.js';
import { calendarObject } from './vtodo-write.js';

/** A calendar feed's events (docs/feeds.md, the mapping): what a calendar app reads of each task. */

const DAY = 86400;
/** 2026-12-08, a Tuesday. */
const D = Date.UTC(2026, 11, 8) / 1000 / DAY;
const ctx = (offsetMinutes = -300, name = 'Tickler tasks'): FeedContext => ({ name, userid: 'td0001', offsetMinutes, taskUrl: (id) => `https://todo.example.org/tasks/${id}` });
const text = (tasks: Task[], offsetMinutes = -300, name?: string): string => feedText(tasks, ctx(offsetMinutes, name));
/** The one event of a feed of one task, as ical.js reads it. */
function event(t: Task, offsetMinutes = -300): ICAL.Component {
  const found = new ICAL.Component(ICAL.parse(text([t], offsetMinutes))).getFirstSubcomponent('vevent');
  assert.ok(found, 'an event');
  return found;
}
const prop = (e: ICAL.Component, name: string): string => String(e.getFirstPropertyValue(name));
const lines = (body: string, start: string): string[] => body.split('\r\n').filter((l) => l.startsWith(start));

describe('the events of a calendar feed', () => {
  it('a task due on a day without a time is an all-day event of that day; its length does not stretch it', () => {
    const body = text([newTask(3, { title: 'Pay rent', duedate: storedDate(D), length: 90 })]);
    assert.deepEqual(lines(body, 'DTSTART'), ['DTSTART;VALUE=DATE:20261208']);
    assert.deepEqual(lines(body, 'DTEND'), ['DTEND;VALUE=DATE:20261209'], 'the next day: DTEND is exclusive');
    const [parsed] = Object.values(ical.sync.parseICS(body)).filter((c): c is VEvent => c?.type === 'VEVENT');
    assert.equal(parsed?.datetype, 'date');
    assert.equal(parsed?.start.dateOnly, true);
  });

  it('a due time is the moment CalDAV gives the task’s DUE, in every account clock; it lasts the task’s length, or the default', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60000 }), fc.integer({ min: 0, max: DAY - 1 }), fc.integer({ min: -24, max: 28 }), fc.nat(600), (day, time, halfHours, length) => {
        const offset = halfHours * 30;
        const t = newTask(9, { duedate: storedDate(day), duetime: time, length });
        const e = event(t, offset);
        const todo = new ICAL.Component(ICAL.parse(calendarObject(t, { uid: 'u', kept: NOTHING_KEPT, offsetMinutes: offset }))).getFirstSubcomponent('vtodo') as ICAL.Component;
        const due = todo.getFirstPropertyValue('due') as ICAL.Time;
        const start = e.getFirstPropertyValue('dtstart') as ICAL.Time;
        assert.equal(start.toString(), due.toString(), 'one copy of the rule');
        assert.equal(start.zone?.tzid, 'UTC');
        const end = e.getFirstPropertyValue('dtend') as ICAL.Time;
        assert.equal(end.toUnixTime() - start.toUnixTime(), (length > 0 ? length : DEFAULT_EVENT_MINUTES) * 60);
      }),
    );
    // 09:30 at UTC-5 is 14:30 UTC.
    const body = text([newTask(4, { duedate: storedDate(D), duetime: 9.5 * 3600 })], -300);
    assert.deepEqual([...lines(body, 'DTSTART'), ...lines(body, 'DTEND')], ['DTSTART:20261208T143000Z', 'DTEND:20261208T150000Z']);
  });

  it('title, note with a link to the task’s page, its address, a stable UID and DTSTAMP, tags; the same task gives the same bytes', () => {
    const t = newTask(12, { title: 'Call Ann, re: "plan"; soon', note: 'Line one\nLine two', duedate: storedDate(D), modified: 1_790_000_000, tag: 'phone, work' });
    const e = event(t);
    assert.equal(prop(e, 'summary'), 'Call Ann, re: "plan"; soon');
    assert.equal(prop(e, 'description'), 'Line one\nLine two\n\nOpen in Tickler: https://todo.example.org/tasks/12');
    assert.equal(prop(e, 'url'), 'https://todo.example.org/tasks/12');
    assert.equal(prop(e, 'uid'), 'due-12-td0001@tickler');
    assert.equal(eventUid(12, 'td0001'), 'due-12-td0001@tickler');
    assert.notEqual(prop(e, 'uid'), 'task-12-td0001@tickler', 'not the VTODO’s UID');
    assert.equal((e.getFirstPropertyValue('dtstamp') as ICAL.Time).toUnixTime(), 1_790_000_000, 'the task’s modified, not the time of the fetch');
    assert.equal(prop(e, 'transp'), 'TRANSPARENT');
    assert.deepEqual(e.getFirstProperty('categories')?.getValues(), ['phone', 'work']);
    assert.equal(e.getFirstProperty('status'), null);
    assert.equal(prop(event(newTask(13, { duedate: storedDate(D) })), 'description'), 'Open in Tickler: https://todo.example.org/tasks/13');
    assert.equal(prop(event(newTask(14, { duedate: storedDate(D), status: 9 })), 'status'), 'CANCELLED');
    assert.equal(text([t, newTask(13, { duedate: storedDate(D) })]), text([t, newTask(13, { duedate: storedDate(D) })]));
  });

  it('remind is a display alarm that many minutes before the start; none without it', () => {
    for (const t of [newTask(1, { duedate: storedDate(D), duetime: 9 * 3600, remind: 15 }), newTask(2, { duedate: storedDate(D), remind: 1440 })]) {
      const alarm = event(t).getFirstSubcomponent('valarm');
      assert.equal(alarm?.getFirstPropertyValue('action'), 'DISPLAY');
      assert.equal((alarm?.getFirstPropertyValue('trigger') as ICAL.Duration).toSeconds(), -t.remind * 60);
      assert.equal(alarm?.getFirstProperty('trigger')?.getParameter('related'), undefined, 'relative to the start');
    }
    assert.equal(event(newTask(3, { duedate: storedDate(D) })).getFirstSubcomponent('valarm'), null);
  });

  it('the calendar: its name escaped, refresh every 15 minutes, published', () => {
    const body = text([], -300, 'Home, garden; a\\b');
    const cal = new ICAL.Component(ICAL.parse(body));
    assert.equal(cal.getFirstPropertyValue('x-wr-calname'), 'Home\\, garden\\; a\\\\b', 'written escaped, as TEXT is');
    assert.match(body, /\r\nX-WR-CALNAME:Home\\, garden\\; a\\\\b\r\n/);
    assert.match(body, /\r\nNAME:Home\\, garden\\; a\\\\b\r\n/);
    assert.match(body, /\r\nREFRESH-INTERVAL;VALUE=DURATION:PT15M\r\n/);
    assert.match(body, /\r\nX-PUBLISHED-TTL:PT15M\r\n/);
    assert.match(body, /\r\nMETHOD:PUBLISH\r\n/);
    assert.match(body, /^BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:[^\r]+\r\n[\s\S]*END:VCALENDAR\r\n$/);
    const parsed = ical.sync.parseICS(body) as { vcalendar?: Record<string, unknown> };
    assert.equal(parsed.vcalendar?.['WR-CALNAME'], 'Home, garden; a\\b', 'a calendar app reads the name back');
  });

  it('control characters of a task or a name are left out (RFC 5545 allows none in a value but HTAB); the VTODO writer does the same', () => {
    const task = newTask(8, { title: 'bell\u0007 vt\u000b', note: 'one\u0001\ttwo', tag: 'a\u001fb', duedate: storedDate(D), remind: 15 });
    const feed = text([task], -300, 'Name\u0000\u007f');
    const vtodo = calendarObject(task, { uid: 'u-8', kept: NOTHING_KEPT, offsetMinutes: -300 });
    for (const body of [feed, vtodo]) {
      assert.doesNotMatch(body, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/, body);
      assert.match(body, /\r\nSUMMARY:bell vt\r\n/);
      assert.match(body, /\r\nDESCRIPTION:one\ttwo/);
      assert.match(body, /\r\nCATEGORIES:ab\r\n/);
    }
    assert.match(feed, /\r\nX-WR-CALNAME:Name\r\n/);
  });
});

describe('repeating tasks in a calendar feed', () => {
  const rule = (over: Partial<Task>): string | undefined => {
    const r = event(newTask(5, { duedate: storedDate(D), ...over })).getFirstPropertyValue('rrule') as ICAL.Recur | null;
    return r?.toString();
  };

  it('an RRULE when iCalendar can say the rule and the engine reschedules by it; the current occurrence alone otherwise', () => {
    const cases: Array<[Partial<Task>, string | undefined, string]> = [
      [{ repeat: 'FREQ=WEEKLY;BYDAY=TU' }, 'FREQ=WEEKLY;BYDAY=TU', 'all day'],
      [{ repeat: 'WEEKLY' }, 'FREQ=WEEKLY', 'a bare frequency'],
      [{ repeat: 'FREQ=DAILY;FASTFORWARD' }, 'FREQ=DAILY', 'FASTFORWARD changes only what an overdue completion does'],
      [{ repeat: 'FREQ=WEEKLY;FROMCOMP' }, undefined, 'from the completion: the next date is not known'],
      [{ repeat: 'PARENT' }, undefined, 'with its parent'],
      [{ repeat: 'FREQ=MONTHLY;BYDAY=TU;BYSETPOS=2' }, undefined, 'a rule the engine does not reschedule by'],
      [{ repeat: 'BYDAY=MO' }, undefined, 'no FREQ'],
      [{ repeat: 'FREQ=WEEKLY;BYDAY=MO,WE' }, undefined, 'due on a Tuesday, which is not a date of the rule'],
      [{ repeat: 'FREQ=MONTHLY;BYMONTHDAY=8' }, 'FREQ=MONTHLY;BYMONTHDAY=8', 'the 8th'],
      [{ repeat: 'FREQ=DAILY;COUNT=5', repeatIndex: 2 }, 'FREQ=DAILY;COUNT=4', 'COUNT: the occurrences left, the current one included'],
      [{ repeat: 'FREQ=DAILY;COUNT=5', repeatIndex: 0 }, 'FREQ=DAILY;COUNT=5', 'a task never rescheduled'],
      [{ repeat: 'FREQ=DAILY;COUNT=5', repeatIndex: 5 }, undefined, 'the last occurrence'],
      [{ repeat: 'FREQ=DAILY;UNTIL=20261231' }, 'FREQ=DAILY;UNTIL=20261231', 'UNTIL a date, for a date'],
      [{ repeat: 'FREQ=DAILY;UNTIL=20261231T000000Z' }, 'FREQ=DAILY;UNTIL=20261231', 'UNTIL takes DTSTART’s type'],
      [{ repeat: 'FREQ=DAILY;UNTIL=20261208' }, undefined, 'UNTIL the current occurrence'],
      [{ repeat: 'FREQ=WEEKLY;BYDAY=TU', duetime: 9 * 3600 }, 'FREQ=WEEKLY;BYDAY=TU', '09:00 at UTC-5 is the same day in UTC'],
      [{ repeat: 'FREQ=DAILY;UNTIL=20261231', duetime: 9 * 3600 }, 'FREQ=DAILY;UNTIL=20261231T140000Z', 'UNTIL the last occurrence’s moment'],
      [{ repeat: 'FREQ=WEEKLY;BYDAY=TU', duetime: 21 * 3600 }, undefined, '21:00 at UTC-5 is Wednesday in UTC: a calendar would repeat it on Wednesdays'],
    ];
    for (const [over, expected, why] of cases) assert.equal(rule(over), expected, `${over.repeat} ${why}`);
  });

  it('the occurrences a calendar expands are the due dates the engine gives one after another', () => {
    // Each holds the due date, Tuesday 2026-12-08.
    const rules = ['FREQ=WEEKLY;BYDAY=TU,WE,FR', 'FREQ=MONTHLY;BYMONTHDAY=8,31', 'FREQ=MONTHLY;BYDAY=2TU,-1FR', 'FREQ=WEEKLY;INTERVAL=2;WKST=SU;BYDAY=TU,SU', 'FREQ=DAILY;COUNT=6', 'FREQ=YEARLY;BYMONTH=6,12;BYMONTHDAY=8,30', 'FREQ=MONTHLY;INTERVAL=2;UNTIL=20280101', 'FREQ=YEARLY'];
    for (const repeat of rules) {
      for (const duetime of [null, 8 * 3600]) {
        // Tickler: the due dates of completion after completion.
        const t = newTask(6, { duedate: storedDate(D), duetime, repeat, repeatIndex: 2 });
        const engine: number[] = [t.duedate];
        for (let occurrence = 2; engine.length < 8; occurrence++) {
          const next = nextOccurrence(parseRepeat(repeat), { due: engine.at(-1) as number, completed: 0, now: 0, occurrence });
          if (next.kind !== 'next') break;
          engine.push(next.due);
        }
        const want = engine.map((d) => new Date(d * 1000).toISOString().slice(0, 10));
        // A calendar: the event's occurrences, read with ical.js and with node-ical, as days of the
        // account's clock (UTC-5) for a due time, and as the dates they are for a whole day.
        const days = (moments: number[]) => moments.map((m) => new Date((duetime === null ? m : m - 5 * 3600) * 1000).toISOString().slice(0, 10));
        const body = text([t], -300);
        const it = new ICAL.Event(new ICAL.Component(ICAL.parse(body)).getFirstSubcomponent('vevent') as ICAL.Component).iterator();
        const expanded: number[] = [];
        for (let next = it.next(); next && expanded.length < 8; next = it.next()) expanded.push(next.toUnixTime());
        assert.deepEqual(days(expanded), want, `${repeat} at ${duetime}`);
        const [parsed] = Object.values(ical.sync.parseICS(body)).filter((c): c is VEvent => c?.type === 'VEVENT');
        const instances = ical.expandRecurringEvent(parsed as VEvent, { from: new Date((D - 1) * DAY * 1000), to: new Date((D + 3700) * DAY * 1000) });
        // node-ical gives a whole day as the local midnight of this process's zone.
        const seconds = (d: Date): number => d.getTime() / 1000 - (duetime === null ? d.getTimezoneOffset() * 60 : 0);
        assert.deepEqual(days(instances.slice(0, 8).map((i) => seconds(i.start))), want, `node-ical: ${repeat} at ${duetime}`);
      }
    }
  });
});
