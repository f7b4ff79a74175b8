import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import ICAL from 'ical.js';
import { newTask } from '../../test/factories.js';
import type { Task } from '../storage/store.js';
import { clockOf, dayOf, momentOf, storedDate } from './times.js';
import { readCalendarObject } from './vtodo-read.js';
import { calendarObject } from './vtodo-write.js';
import { NOTHING_KEPT, statusAsked, v3Priority, type KeptIcal, type TodoFields } from './vtodo-model.js';

/** The VTODO mapping (docs/caldav.md): written and read back, what v3 holds comes back whole. */

const DAY = 86400;
const write = (t: Task, offsetMinutes = -300, kept: KeptIcal = NOTHING_KEPT, parentUid?: string): string =>
  calendarObject(t, { uid: `u-${t.id}`, parentUid, kept, offsetMinutes });
function read(body: string, offsetMinutes = -300): TodoFields {
  const r = readCalendarObject(body, offsetMinutes);
  if ('problem' in r) assert.fail(`${r.problem.kind}: ${r.problem.desc}`);
  return r.ok;
}
const calendar = (...lines: string[]): string => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');
const todo = (...lines: string[]): string => calendar('BEGIN:VTODO', 'UID:abc-1', 'SUMMARY:Buy milk', ...lines, 'END:VTODO');

describe('the VTODO mapping', () => {
  it('round trip, property: every v3 field comes back as it was, in any account clock', () => {
    const day = fc.integer({ min: 0, max: 60000 });
    const time = fc.option(fc.integer({ min: 0, max: DAY - 1 }), { nil: null });
    const task = fc.record({
      title: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() === s && s !== ''),
      note: fc.string({ maxLength: 60 }),
      due: fc.option(fc.record({ day, time })),
      start: fc.option(fc.record({ day, time })),
      completed: fc.option(day),
      priority: fc.integer({ min: -1, max: 3 }),
      tags: fc.array(fc.stringMatching(/^[a-z][a-z ]{0,6}[a-z]$/), { maxLength: 3 }),
      repeat: fc.constantFrom('', 'FREQ=DAILY', 'FREQ=WEEKLY;BYDAY=MO,WE', 'FREQ=MONTHLY;BYMONTHDAY=1;FROMCOMP', 'FREQ=YEARLY;FASTFORWARD', 'PARENT', 'BYDAY=MO', 'WEEKLY'),
      remind: fc.constantFrom(0, 15, 60, 1440),
      star: fc.integer({ min: 0, max: 1 }),
      context: fc.nat(50),
      status: fc.integer({ min: 0, max: 10 }),
      length: fc.nat(500),
      duedatemod: fc.integer({ min: 0, max: 3 }),
      offset: fc.integer({ min: -24, max: 28 }).map((h) => h * 30),
    });
    fc.assert(
      fc.property(task, (x) => {
        const t = newTask(7, {
          title: x.title,
          note: x.note,
          duedate: x.due ? storedDate(x.due.day) : 0,
          duetime: x.due ? x.due.time : null,
          startdate: x.start ? storedDate(x.start.day) : 0,
          starttime: x.start ? x.start.time : null,
          completed: x.completed === null ? 0 : storedDate(x.completed),
          priority: x.priority,
          tag: [...new Set(x.tags)].join(', '),
          repeat: x.repeat,
          remind: x.remind,
          star: x.star,
          context: x.context,
          status: x.completed === null ? x.status : x.status,
          length: x.length,
          duedatemod: x.duedatemod,
          modified: 1_800_000_000,
          added: 1_799_900_000,
        });
        const body = write(t, x.offset);
        const vtodo = new ICAL.Component(ICAL.parse(body)).getFirstSubcomponent('vtodo') as ICAL.Component;
        const dtstart = vtodo.getFirstPropertyValue('dtstart') as ICAL.Time | null;
        const dueValue = vtodo.getFirstPropertyValue('due') as ICAL.Time | null;
        if (dtstart && dueValue) {
          // RFC 5545 3.8.2.3: DUE of the same value type as DTSTART, and later.
          assert.equal(dtstart.isDate, dueValue.isDate, body);
          assert.ok(dueValue.compare(dtstart) > 0, body);
        }
        const back = read(body, x.offset);
        assert.equal(back.uid, 'u-7');
        assert.equal(back.title, t.title);
        assert.equal(back.note, t.note);
        assert.deepEqual(back.due, x.due && { ...x.due });
        assert.deepEqual(back.start, x.start && { ...x.start });
        assert.equal(back.completed, x.completed);
        assert.equal(back.priority, t.priority);
        assert.equal(back.tags, t.tag);
        assert.equal(back.repeat, t.repeat, 'the v3 text exactly, bare words and rules iCalendar cannot hold included');
        assert.equal(back.remind, t.remind);
        for (const f of ['star', 'context', 'status', 'length', 'duedatemod'] as const) assert.equal(back.tickler[f] ?? 0, t[f], f);
      }),
      { numRuns: 300 },
    );
  });

  it('writes what clients read: DUE as a DATE without a time and a UTC DATE-TIME with one, COMPLETED, PRIORITY, CATEGORIES, the reminder before DUE', () => {
    const t = newTask(3, {
      duedate: storedDate(20_000),
      duetime: 14 * 3600,
      completed: storedDate(20_001),
      priority: 3,
      tag: 'home, calls',
      remind: 15,
      repeat: 'FREQ=WEEKLY;FROMCOMP',
      modified: 1_800_000_000,
      added: 1_800_000_000 + 3600,
    });
    const todoComp = new ICAL.Component(ICAL.parse(write(t, 60))).getFirstSubcomponent('vtodo') as ICAL.Component;
    const due = todoComp.getFirstProperty('due') as ICAL.Property;
    // A repeating task's time is in the account's own zone, sent with the object: 14:00 there is 13:00Z.
    assert.equal(due.getParameter('tzid'), 'Tickler UTC+0100');
    assert.equal((due.getFirstValue() as ICAL.Time).toUnixTime(), Date.UTC(2024, 9, 4, 13) / 1000);
    const once = new ICAL.Component(ICAL.parse(write({ ...t, repeat: '' }, 60))).getFirstSubcomponent('vtodo') as ICAL.Component;
    // Any other task's: a UTC moment.
    assert.equal(once.getFirstPropertyValue('due')?.toString(), '2024-10-04T13:00:00Z');
    assert.equal(todoComp.getFirstPropertyValue('status'), 'COMPLETED');
    assert.equal(todoComp.getFirstPropertyValue('priority'), 1);
    assert.deepEqual(todoComp.getFirstProperty('categories')?.getValues(), ['home', 'calls']);
    assert.equal(todoComp.getFirstPropertyValue('rrule')?.toString(), 'FREQ=WEEKLY');
    assert.equal(todoComp.getFirstPropertyValue('x-tickler-repeat'), 'FREQ=WEEKLY;FROMCOMP');
    const trigger = todoComp.getFirstSubcomponent('valarm')?.getFirstProperty('trigger') as ICAL.Property;
    assert.equal(trigger.getParameter('related'), 'END');
    assert.equal(trigger.getFirstValue()?.toString(), '-PT15M');
    const created = (todoComp.getFirstPropertyValue('created') as ICAL.Time).toUnixTime();
    const modified = (todoComp.getFirstPropertyValue('last-modified') as ICAL.Time).toUnixTime();
    assert.ok(created <= modified, 'CREATED is never later than LAST-MODIFIED');
    const allDay = new ICAL.Component(ICAL.parse(write(newTask(4, { duedate: storedDate(20_000) })))).getFirstSubcomponent('vtodo');
    assert.equal((allDay?.getFirstPropertyValue('due') as ICAL.Time).isDate, true);
  });

  it('a repeating task with a time repeats on the days of the account\'s clock, not of UTC', () => {
    // Monday 2027-01-04 at 20:00 in UTC-5 is Tuesday 01:00 in UTC; every Monday.
    const t = newTask(11, { duedate: storedDate(Date.UTC(2027, 0, 4) / 1000 / DAY), duetime: 20 * 3600, repeat: 'FREQ=WEEKLY;BYDAY=MO' });
    const cal = new ICAL.Component(ICAL.parse(write(t, -300)));
    const todo = cal.getFirstSubcomponent('vtodo') as ICAL.Component;
    const iterator = (todo.getFirstPropertyValue('rrule') as ICAL.Recur).iterator(todo.getFirstPropertyValue('due') as ICAL.Time);
    for (let i = 0; i < 3; i++) {
      const next = iterator.next() as ICAL.Time;
      const local = new Date((next.toUnixTime() - 5 * 3600) * 1000);
      assert.deepEqual([local.getUTCDay(), local.getUTCHours()], [1, 20], `occurrence ${i}: a Monday at 8 pm in the account's clock`);
    }
  });

  it('reads times from every form: UTC, a VTIMEZONE, an IANA name without one, floating, a DATE', () => {
    const berlin = [
      'BEGIN:VTIMEZONE', 'TZID:Europe/Berlin',
      'BEGIN:DAYLIGHT', 'DTSTART:19700329T020000', 'TZOFFSETFROM:+0100', 'TZOFFSETTO:+0200', 'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU', 'END:DAYLIGHT',
      'BEGIN:STANDARD', 'DTSTART:19701025T030000', 'TZOFFSETFROM:+0200', 'TZOFFSETTO:+0100', 'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU', 'END:STANDARD',
      'END:VTIMEZONE',
    ];
    // An account at UTC-5: 14:00 in Berlin in July (UTC+2) is 07:00 there.
    const zoned = calendar(...berlin, 'BEGIN:VTODO', 'UID:z', 'SUMMARY:x', 'DUE;TZID=Europe/Berlin:20260708T140000', 'END:VTODO');
    assert.deepEqual(read(zoned).due, { day: Date.UTC(2026, 6, 8) / 1000 / DAY, time: 7 * 3600 });
    const iana = todo('DUE;TZID=Europe/Berlin:20260108T140000');
    assert.deepEqual(read(iana).due, { day: Date.UTC(2026, 0, 8) / 1000 / DAY, time: 8 * 3600 }, 'winter: UTC+1');
    assert.deepEqual(read(todo('DUE:20260108T140000Z')).due, { day: Date.UTC(2026, 0, 8) / 1000 / DAY, time: 9 * 3600 });
    assert.deepEqual(read(todo('DUE:20260108T140000')).due, { day: Date.UTC(2026, 0, 8) / 1000 / DAY, time: 14 * 3600 }, 'floating: the clock time as it is');
    assert.deepEqual(read(todo('DUE;VALUE=DATE:20260108')).due, { day: Date.UTC(2026, 0, 8) / 1000 / DAY, time: null });
    // A moment past midnight in the account's clock is the next day there.
    assert.deepEqual(clockOf(momentOf(100, 23 * 3600, -300), 60), { day: 101, time: 5 * 3600 });
    assert.equal(dayOf(storedDate(123)), 123);
  });

  it('keeps what it does not model, and writes it back: X-APPLE and X-MOZ properties, ATTACH, other alarms, time zones they name', () => {
    const sent = calendar(
      'BEGIN:VTIMEZONE', 'TZID:Europe/Paris', 'BEGIN:STANDARD', 'DTSTART:19701025T030000', 'TZOFFSETFROM:+0200', 'TZOFFSETTO:+0100', 'END:STANDARD', 'END:VTIMEZONE',
      'BEGIN:VTODO', 'UID:k', 'SUMMARY:Keep', 'X-APPLE-SORT-ORDER:712', 'X-MOZ-GENERATION:3', 'ATTACH:https://example.org/a.pdf', 'PERCENT-COMPLETE:40',
      'X-OTHER;TZID=Europe/Paris:20260101T100000',
      'BEGIN:VALARM', 'ACTION:DISPLAY', 'TRIGGER;VALUE=DATE-TIME:20260101T090000Z', 'END:VALARM',
      'END:VTODO',
    );
    const fields = read(sent);
    const again = write(newTask(1, { title: 'Keep', modified: 1_800_000_000 }), -300, fields.kept);
    for (const line of ['X-APPLE-SORT-ORDER:712', 'X-MOZ-GENERATION:3', 'ATTACH:https://example.org/a.pdf', 'PERCENT-COMPLETE:40', 'TRIGGER;VALUE=DATE-TIME:20260101T090000Z', 'TZID:Europe/Paris']) {
      assert.ok(again.includes(line), `${line} comes back:\n${again}`);
    }
    assert.deepEqual(read(again).kept, fields.kept, 'and is kept again, unchanged');
  });

  it('Tickler\'s own time zones are never kept but written whenever something names one; a client\'s are kept once each', () => {
    const weekly = newTask(12, { duedate: storedDate(20_000), duetime: 9 * 3600, repeat: 'FREQ=WEEKLY', modified: 1_800_000_000 });
    const zonesOf = (body: string): string[] => [...body.matchAll(/\r\nBEGIN:VTIMEZONE\r\nTZID:([^\r]+)\r\n/g)].map((m) => m[1] as string).sort();
    const paris = ['BEGIN:VTIMEZONE', 'TZID:Europe/Paris', 'BEGIN:STANDARD', 'DTSTART:19701025T030000', 'TZOFFSETFROM:+0200', 'TZOFFSETTO:+0100', 'END:STANDARD', 'END:VTIMEZONE', ''].join('\r\n');
    const written = write(weekly, 60);
    const own = /BEGIN:VTIMEZONE\r\n[\s\S]*?END:VTIMEZONE\r\n/.exec(written)?.[0] ?? '';
    // A client sends Tickler's zone twice and its own twice, with an exception in Tickler's zone.
    const sent = written
      .replace('BEGIN:VTODO\r\n', `${own}${paris}${paris}BEGIN:VTODO\r\n`)
      .replace('RRULE:FREQ=WEEKLY\r\n', 'RRULE:FREQ=WEEKLY\r\nEXDATE;TZID=Tickler UTC+0100:20241011T090000\r\nX-OTHER;TZID=Europe/Paris:20270101T100000\r\n');
    assert.deepEqual(zonesOf(sent), ['Europe/Paris', 'Europe/Paris', 'Tickler UTC+0100', 'Tickler UTC+0100']);
    const kept = read(sent, 60).kept;
    assert.equal(kept.calendar.length, 1, 'Europe/Paris once; Tickler\'s zone is the writer\'s');
    assert.deepEqual(zonesOf(write(weekly, 60, kept)), ['Europe/Paris', 'Tickler UTC+0100']);
    // No longer repeating, or in another clock: the exception still names Tickler's zone of +0100, so it is written.
    assert.deepEqual(zonesOf(write({ ...weekly, repeat: '' }, -300, kept)), ['Europe/Paris', 'Tickler UTC+0100']);
    assert.deepEqual(zonesOf(write(weekly, -300, kept)), ['Europe/Paris', 'Tickler UTC+0100', 'Tickler UTC-0500']);
    // Kept before Tickler's zones were left out on reading, copies and all: each TZID is written once.
    const stored = new ICAL.Component(ICAL.parse(sent)).getAllSubcomponents('vtimezone').map((z) => z.toJSON() as unknown);
    assert.deepEqual(zonesOf(write(weekly, 60, { ...kept, calendar: stored })), ['Europe/Paris', 'Tickler UTC+0100']);
  });

  it('DTSTART only beside a DUE of its value type and later (RFC 5545 3.8.2.3); any other start travels in X-TICKLER-START and reads back the same', () => {
    const day = 20_000;
    const lineOf = (body: string, name: string): string | undefined => body.split('\r\n').find((l) => l.startsWith(name));
    const cases: ReadonlyArray<readonly [string, Partial<Task>, 'DTSTART' | 'X-TICKLER-START']> = [
      ['a start day, a due time', { startdate: storedDate(day - 3), duedate: storedDate(day), duetime: 9 * 3600 }, 'X-TICKLER-START'],
      ['a start time, a due day', { startdate: storedDate(day - 3), starttime: 9 * 3600, duedate: storedDate(day) }, 'X-TICKLER-START'],
      ['the same day, no times', { startdate: storedDate(day), duedate: storedDate(day) }, 'X-TICKLER-START'],
      ['a start day after the due day', { startdate: storedDate(day + 1), duedate: storedDate(day) }, 'X-TICKLER-START'],
      ['an earlier day, no times', { startdate: storedDate(day - 1), duedate: storedDate(day) }, 'DTSTART'],
      ['an earlier time', { startdate: storedDate(day), starttime: 8 * 3600, duedate: storedDate(day), duetime: 9 * 3600 }, 'DTSTART'],
      ['the same time', { startdate: storedDate(day), starttime: 9 * 3600, duedate: storedDate(day), duetime: 9 * 3600 }, 'X-TICKLER-START'],
      ['a start day, no due', { startdate: storedDate(day) }, 'DTSTART'],
    ];
    for (const [what, fields, carrier] of cases) {
      const t = newTask(5, { starttime: null, duetime: null, ...fields });
      const body = write(t, -300);
      assert.equal(lineOf(body, 'DTSTART') !== undefined, carrier === 'DTSTART', `${what}:\n${body}`);
      assert.equal(lineOf(body, 'X-TICKLER-START') !== undefined, carrier === 'X-TICKLER-START', `${what}:\n${body}`);
      const back = read(body, -300);
      assert.deepEqual(back.start, { day: dayOf(t.startdate), time: t.starttime }, what);
      assert.deepEqual(back.due, t.duedate === 0 ? null : { day: dayOf(t.duedate), time: t.duetime }, what);
    }
  });

  it('a kept DURATION is left out while DUE is written (RFC 5545: never both), and written again without a due date', () => {
    const kept = read(todo('DTSTART:20270101T100000Z', 'DURATION:PT1H', 'X-KEEP:1'), 0).kept;
    const dated = write(newTask(6, { duedate: storedDate(20_000), duetime: 9 * 3600 }), 0, kept);
    assert.doesNotMatch(dated, /\r\nDURATION/);
    assert.match(dated, /\r\nX-KEEP:1\r\n/);
    assert.match(write(newTask(6, { startdate: storedDate(20_000) }), 0, kept), /\r\nDURATION:PT1H\r\n/);
  });

  it('a client that changes the rule keeps "from completion"; one that removes it stops the repeat; PARENT survives clients that know no such rule', () => {
    const tickler = write(newTask(1, { repeat: 'FREQ=WEEKLY;FROMCOMP' }));
    assert.equal(read(tickler.replace('RRULE:FREQ=WEEKLY', 'RRULE:FREQ=DAILY')).repeat, 'FREQ=DAILY;FROMCOMP');
    assert.equal(read(tickler.replace('RRULE:FREQ=WEEKLY\r\n', '')).repeat, '');
    assert.equal(read(write(newTask(1, { repeat: 'PARENT' }))).repeat, 'PARENT');
    assert.equal(read(todo('RRULE:FREQ=MONTHLY;BYMONTHDAY=15')).repeat, 'FREQ=MONTHLY;BYMONTHDAY=15');
  });

  it('writes long and wide text folded at 75 octets, never inside a character, escaped, and reads it back whole', () => {
    const title = `Plan ${'日本語の長い題名と😀絵文字, セミコロン; バックスラッシュ\\ '.repeat(3)}`.trim();
    const note = 'line one, with commas; and semicolons\nline two \\ backslash\r\nline three';
    const body = write(newTask(9, { title, note, tag: 'a,b'.replace(',', ' ') }));
    for (const line of body.split('\r\n')) assert.ok(Buffer.byteLength(line) <= 75, `a line of ${Buffer.byteLength(line)} octets: ${line}`);
    assert.doesNotMatch(body, /\uFFFD/);
    const back = read(body);
    assert.equal(back.title, title);
    assert.equal(back.note, note.replace(/\r\n/g, '\n'));
  });

  it('reads PRIORITY to the nearest v3 priority, ties to the lower', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -1].map(v3Priority), [0, 3, 2, 2, 1, 1, 0, 0, 0, -1, 0, 0]);
  });

  it('the v3 status: X-TICKLER-STATUS while STATUS is what Tickler writes for it, else what STATUS says', () => {
    // [STATUS, X-TICKLER-STATUS, the task's status now] → the status asked for (undefined: left as it is).
    const cases: ReadonlyArray<readonly [string | undefined, number | undefined, number | undefined, number | undefined]> = [
      ['CANCELLED', 9, 9, 9],
      ['NEEDS-ACTION', 9, 9, 0],
      [undefined, 9, 9, 0],
      ['IN-PROCESS', 9, 9, 2],
      ['IN-PROCESS', 2, 2, 2],
      ['NEEDS-ACTION', 2, 2, 0],
      ['NEEDS-ACTION', 5, 5, 5],
      ['COMPLETED', 9, 9, 9],
      ['COMPLETED', 5, 5, 5],
      ['CANCELLED', 5, 5, 9],
      ['IN-PROCESS', 5, 5, 2],
      ['CANCELLED', undefined, 0, 9],
      ['IN-PROCESS', undefined, 0, 2],
      ['NEEDS-ACTION', undefined, 9, 0],
      ['NEEDS-ACTION', undefined, 2, 0],
      ['NEEDS-ACTION', undefined, 5, undefined],
      ['COMPLETED', undefined, 9, undefined],
      ['NEEDS-ACTION', undefined, undefined, undefined],
    ];
    for (const [word, tickler, current, want] of cases) assert.equal(statusAsked(word, tickler, current), want, `${word} ${tickler} ${current}`);
    for (let status = 0; status <= 10; status++) {
      const back = read(write(newTask(1, { status })));
      assert.equal(statusAsked(back.icalStatus, back.tickler.status, status), status === 0 ? undefined : status, `status ${status} reads back as itself`);
      const done = read(write(newTask(1, { status, completed: storedDate(20_000) })));
      assert.equal(statusAsked(done.icalStatus, done.tickler.status, status), status === 0 ? undefined : status, `completed, status ${status}`);
    }
  });

  it('reads status, completion, parent and the reminder of clients that write them their own way', () => {
    const done = read(todo('STATUS:COMPLETED'));
    assert.equal(done.completed, 'undated', 'completed, with no COMPLETED time');
    assert.equal(read(todo('STATUS:cancelled')).icalStatus, 'CANCELLED');
    assert.equal(read(todo()).icalStatus, undefined);
    assert.equal(read(todo('RELATED-TO:parent-uid')).parentUid, 'parent-uid', 'RELTYPE defaults to PARENT');
    assert.equal(read(todo('RELATED-TO;RELTYPE=SIBLING:s')).parentUid, null);
    const alarm = read(todo('DUE:20260108T140000Z', 'BEGIN:VALARM', 'ACTION:DISPLAY', 'TRIGGER;RELATED=END:-PT1H', 'END:VALARM'));
    assert.equal(alarm.remind, 60);
    assert.deepEqual(alarm.kept.comps, [], 'the reminder is the task\'s, not kept beside it');
    assert.equal(read(todo('CATEGORIES:a,b', 'CATEGORIES:c')).tags, 'a, b, c');
  });

  it('refuses what is not a to-do: not iCalendar, an event, no UID, no title, two UIDs', () => {
    const problem = (body: string): string => {
      const r = readCalendarObject(body, 0);
      return 'problem' in r ? r.problem.kind : 'ok';
    };
    assert.equal(problem('hello'), 'calendar-data');
    assert.equal(problem('BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nEND:VCALENDAR\r\n'), 'calendar-data');
    assert.equal(problem('BEGIN:VCARD\r\nVERSION:4.0\r\nEND:VCARD\r\n'), 'calendar-data');
    assert.equal(problem(calendar('BEGIN:VEVENT', 'UID:e', 'DTSTART:20260101T100000Z', 'END:VEVENT')), 'component');
    assert.equal(problem(calendar()), 'component');
    assert.equal(problem(calendar('BEGIN:VTODO', 'SUMMARY:x', 'END:VTODO')), 'object');
    assert.equal(problem(calendar('BEGIN:VTODO', 'UID:a', 'END:VTODO')), 'object');
    assert.equal(problem(calendar('BEGIN:VTODO', 'UID:a', 'SUMMARY:x', 'END:VTODO', 'BEGIN:VTODO', 'UID:b', 'SUMMARY:y', 'END:VTODO')), 'object');
  });

  it('refuses values it cannot read as not iCalendar, modelled and kept ones alike, in the VTODO, its alarms, its overrides and its zones', () => {
    const problem = (body: string): string => {
      const r = readCalendarObject(body, 0);
      return 'problem' in r ? r.problem.kind : 'ok';
    };
    const alarm = (trigger: string): string[] => ['BEGIN:VALARM', 'ACTION:DISPLAY', trigger, 'END:VALARM'];
    for (const lines of [
      ['DUE:abc'], ['DTSTART;VALUE=DATE:2027'], ['COMPLETED:zzz'], ['RRULE:FREQ=DAILY;UNTIL=xyz'],
      ['DTSTART:20270101T100000Z', 'DURATION:PXYZ'], ['EXDATE:garbage'], ['X-OTHER;VALUE=DATE-TIME:never'],
      ['DUE:20270101T100000Z', ...alarm('TRIGGER:garbage')], ['DUE:20270101T100000Z', ...alarm('TRIGGER;VALUE=DATE-TIME:garbage')],
    ]) {
      assert.equal(problem(todo(...lines)), 'calendar-data', lines.join(' '));
    }
    assert.equal(problem(calendar('BEGIN:VTODO', 'UID:a', 'SUMMARY:x', 'END:VTODO', 'BEGIN:VTODO', 'UID:a', 'SUMMARY:x', 'RECURRENCE-ID:soon', 'END:VTODO')), 'calendar-data');
    assert.equal(problem(calendar('BEGIN:VTIMEZONE', 'TZID:Z', 'BEGIN:STANDARD', 'DTSTART:x', 'TZOFFSETFROM:+0100', 'TZOFFSETTO:+0100', 'END:STANDARD', 'END:VTIMEZONE', 'BEGIN:VTODO', 'UID:a', 'SUMMARY:x', 'DUE;TZID=Z:20270101T100000', 'END:VTODO')), 'calendar-data');
    assert.equal(problem(todo('DUE:20270101T100000Z', 'RRULE:FREQ=WEEKLY;UNTIL=20271231T000000Z', 'X-OTHER;VALUE=DATE-TIME:20270101T100000Z', ...alarm('TRIGGER;RELATED=END:-PT1H'))), 'ok');
  });
});
