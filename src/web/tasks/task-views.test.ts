import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Prefs, Task } from '../../storage/store.js';
import { repeatInWords } from './repeat-words.js';
import { formatDay, formatTime, todayOf } from './task-dates.js';
import { daysFromCivil } from '../../repeat/calendar.js';
import { addMonths, hiddenFarAhead, onHotlist, rowsOf, viewCounts, viewQueryOf } from './task-views.js';

const PREFS: Prefs = { dateformat: 0, timezone: 0, hidemonths: 6, hotlistpriority: 3, hotlistduedate: 2, hotliststar: 1, hotliststatus: 1, showtabnums: 1 };
const TODAY = 20000;
const NOW = TODAY * 86400 + 50000;
const WHEN = { today: TODAY, now: NOW };

function task(id: number, over: Partial<Task> = {}): Task {
  return {
    id, title: `Task ${id}`, tag: '', folder: 0, context: 0, goal: 0, location: 0, parent: 0, ord: 0, duedate: 0, duedatemod: 0, startdate: 0,
    duetime: null, starttime: null, remind: 0, repeat: '', repeatIndex: 1, status: 0, length: 0, priority: 0, star: 0, modified: NOW - 30 * 86400,
    completed: 0, added: 0, timer: 0, timeron: 0, note: '', previous: 0, via: 3, ...over,
  };
}
const noon = (day: number): number => day * 86400 + 43200;

describe('task views', () => {
  it('the hotlist follows each of the account settings', () => {
    assert.equal(onHotlist(task(1, { priority: 3 }), PREFS, WHEN), true);
    assert.equal(onHotlist(task(1, { priority: 2 }), PREFS, WHEN), false);
    assert.equal(onHotlist(task(1, { priority: 2 }), { ...PREFS, hotlistpriority: 2 }, WHEN), true);
    assert.equal(onHotlist(task(1, { duedate: noon(TODAY + 2) }), PREFS, WHEN), true);
    assert.equal(onHotlist(task(1, { duedate: noon(TODAY + 3) }), PREFS, WHEN), false);
    assert.equal(onHotlist(task(1, { duedate: noon(TODAY - 30) }), PREFS, WHEN), true);
    assert.equal(onHotlist(task(1, { star: 1 }), PREFS, WHEN), true);
    assert.equal(onHotlist(task(1, { star: 1 }), { ...PREFS, hotliststar: 0 }, WHEN), false);
    assert.equal(onHotlist(task(1, { status: 1 }), PREFS, WHEN), true);
    assert.equal(onHotlist(task(1, { status: 1 }), { ...PREFS, hotliststatus: 0 }, WHEN), false);
    assert.equal(onHotlist(task(1, { priority: 3, completed: noon(TODAY) }), PREFS, WHEN), false);
  });

  it('a saved search view keeps a search id as its value, shows what its test takes (completed and far ahead too), and nothing without one', () => {
    assert.equal(viewQueryOf({ view: 'search', value: '12' }).value, '12');
    for (const value of ['x', '0', '12a', '1234567890']) assert.equal(viewQueryOf({ view: 'search', value }).value, undefined, value);
    const all = [task(1, { title: 'a', completed: noon(TODAY) }), task(2, { title: 'b', duedate: noon(TODAY + 400) }), task(3, { title: 'c' })];
    const test = (t: Task): boolean => t.title !== 'c';
    assert.deepEqual(rowsOf(all, { ...viewQueryOf({ view: 'search', value: '1' }), test }, { ...PREFS, hidemonths: 6 }, WHEN).map((r) => r.task.id), [2, 1]);
    assert.deepEqual(rowsOf(all, viewQueryOf({ view: 'search', value: '1' }), PREFS, WHEN), []);
  });

  it('filters by view and value, searches title, tag and note, and sorts', () => {
    const all = [
      task(1, { title: 'Bravo', folder: 7, tag: 'red, blue', duedate: noon(TODAY + 5) }),
      task(2, { title: 'alpha', folder: 8, note: 'the Secret word', duedate: noon(TODAY + 1) }),
      task(3, { title: 'Charlie', folder: 7, completed: noon(TODAY), modified: NOW - 10 }),
      task(4, { title: 'Delta', star: 1 }),
    ];
    const ids = (q: Record<string, string>): number[] => rowsOf(all, viewQueryOf(q), PREFS, WHEN).map((r) => r.task.id);
    assert.deepEqual(ids({ view: 'all' }), [2, 1, 4]);
    assert.deepEqual(ids({ view: 'all', sort: 'title' }), [2, 1, 4]);
    assert.deepEqual(ids({ view: 'all', sort: 'title', dir: 'desc' }), [4, 1, 2]);
    assert.deepEqual(ids({ view: 'folder', value: '7' }), [1]);
    assert.deepEqual(ids({ view: 'tag', value: 'Blue' }), [1]);
    assert.deepEqual(ids({ view: 'starred' }), [4]);
    assert.deepEqual(ids({ view: 'completed' }), [3]);
    assert.deepEqual(ids({ view: 'recent' }), [3]);
    assert.deepEqual(ids({ view: 'all', q: 'secret' }), [2]);
    assert.deepEqual(ids({ view: 'all', q: 'RED' }), [1]);
    assert.deepEqual(ids({ view: 'due', value: 'tomorrow' }), [2]);
    assert.deepEqual(ids({ view: 'nonsense' }), [2, 4]);
    assert.deepEqual(viewCounts(all, PREFS, WHEN), { hotlist: 2, all: 3, starred: 1, completed: 1, recent: 1 });
  });

  it('nests subtasks under a parent that is shown, in their order; others stand alone, naming the parent', () => {
    const all = [task(1, { priority: 3 }), task(2, { parent: 1, ord: 2 }), task(3, { parent: 1, ord: 1, priority: 3 })];
    const all2 = rowsOf(all, viewQueryOf({ view: 'all' }), PREFS, WHEN);
    assert.deepEqual(all2.map((r) => [r.task.id, r.children.map((c) => c.id)]), [[1, [3, 2]]]);
    const hot = rowsOf([task(1), all[2] as Task], viewQueryOf({ view: 'hotlist' }), PREFS, WHEN);
    assert.deepEqual(hot.map((r) => [r.task.id, r.parentTitle]), [[3, 'Task 1']]);
  });
});

describe('hidemonths', () => {
  it('leaves tasks due that many months ahead out of the lists to do, not out of due, search or completed', () => {
    const far = task(1, { duedate: noon(TODAY + 200), star: 1 });
    const near = task(2, { duedate: noon(TODAY + 100) });
    const all = [far, near];
    const ids = (q: Record<string, string>, prefs = PREFS): number[] => rowsOf(all, viewQueryOf(q), prefs, WHEN).map((r) => r.task.id);
    assert.deepEqual(ids({ view: 'all' }), [2]);
    assert.deepEqual(ids({ view: 'starred' }), []);
    assert.deepEqual(ids({ view: 'due' }), [2, 1]);
    assert.deepEqual(ids({ view: 'all', q: 'Task' }), [2, 1]);
    assert.deepEqual(ids({ view: 'all' }, { ...PREFS, hidemonths: 0 }), [2, 1]);
    assert.deepEqual(ids({ view: 'all' }, { ...PREFS, hidemonths: 12 }), [2, 1]);
    assert.equal(hiddenFarAhead(all, viewQueryOf({ view: 'all' }), PREFS, WHEN), 1);
    assert.equal(hiddenFarAhead(all, viewQueryOf({ view: 'due' }), PREFS, WHEN), 0);
    assert.equal(viewCounts(all, PREFS, WHEN).all, 1);
  });

  it('counts calendar months: 31 January plus one month is the last day of February', () => {
    assert.equal(addMonths(daysFromCivil(2026, 1, 31), 1), daysFromCivil(2026, 2, 28));
    assert.equal(addMonths(daysFromCivil(2026, 11, 15), 3), daysFromCivil(2027, 2, 15));
  });
});

describe('dates and repeats in words', () => {
  it('uses the date format and the timezone of the account', () => {
    assert.equal(formatDay(20526, PREFS), 'Mar 14, 2026');
    assert.equal(formatDay(20526, { ...PREFS, dateformat: 1 }), '3/14/2026');
    assert.equal(formatDay(20526, { ...PREFS, dateformat: 2 }), '14/3/2026');
    assert.equal(formatDay(20526, { ...PREFS, dateformat: 3 }), '2026-03-14');
    assert.equal(formatTime(13 * 3600 + 300, PREFS), '1:05 pm');
    assert.equal(formatTime(13 * 3600 + 300, { ...PREFS, dateformat: 3 }), '13:05');
    // 03:00 UTC: still yesterday in New York (timezone 0 = UTC-5), already today at UTC+1 (12).
    const t = 20526 * 86400 + 3 * 3600;
    assert.equal(todayOf(PREFS, t), 20525);
    assert.equal(todayOf({ ...PREFS, timezone: 12 }, t), 20526);
  });

  it('says a rule in words', () => {
    assert.equal(repeatInWords(''), '');
    assert.equal(repeatInWords('FREQ=WEEKLY'), 'Every week');
    assert.equal(repeatInWords('FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR'), 'Every 2 weeks on Monday and Friday');
    assert.equal(repeatInWords('FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR'), 'Every weekday');
    assert.equal(repeatInWords('FREQ=MONTHLY;BYMONTHDAY=1,15,-1'), 'Every month on the 1st, 15th and last');
    assert.equal(repeatInWords('FREQ=MONTHLY;BYDAY=2TU'), 'Every month on the 2nd Tuesday');
    assert.equal(repeatInWords('FREQ=YEARLY;COUNT=3;FROMCOMP'), 'Every year 3 times after each completion');
    assert.equal(repeatInWords('FREQ=DAILY;UNTIL=20261231'), 'Every day until December 31, 2026');
    assert.equal(repeatInWords('PARENT'), 'With its parent task');
    assert.match(repeatInWords('FREQ=HOURLY'), /does not understand/);
  });
});
