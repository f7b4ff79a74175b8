import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { daysFromCivil, weekday } from '../../repeat/calendar.js';
import { MAX_QUICK_ADD, parseQuickAdd, timeOf } from './quick-add.js';

/** Saturday 14 March 2026. */
const TODAY = daysFromCivil(2026, 3, 14);

describe('quick add: the one-line syntax', () => {
  it('reads the example of the issue', () => {
    assert.deepEqual(parseQuickAdd('Call the plumber #home @phone !2 * tomorrow 9am every week', TODAY), {
      title: 'Call the plumber', folder: 'home', context: 'phone', tags: [], priority: 2, star: true, dueDay: TODAY + 1, dueTime: 9 * 3600, repeat: 'FREQ=WEEKLY',
    });
  });

  const cases: Array<[string, Record<string, unknown>]> = [
    ['Buy milk', { title: 'Buy milk' }],
    ['Pay rent +money +home today', { title: 'Pay rent', tags: ['money', 'home'], dueDay: TODAY }],
    ['Plan #"Home office" @errands', { title: 'Plan', folder: 'Home office', context: 'errands' }],
    ['Plan #home_office', { title: 'Plan', folder: 'home office' }],
    ['Dentist friday 14:30', { title: 'Dentist', dueDay: daysFromCivil(2026, 3, 20), dueTime: 14 * 3600 + 1800 }],
    ['Dentist saturday', { title: 'Dentist', dueDay: TODAY }],
    ['Dentist next saturday', { title: 'Dentist', dueDay: TODAY + 7 }],
    ['Review in 3 days', { title: 'Review', dueDay: TODAY + 3 }],
    ['Review in 2 weeks', { title: 'Review', dueDay: TODAY + 14 }],
    ['Taxes 2026-04-15 !3', { title: 'Taxes', dueDay: daysFromCivil(2026, 4, 15), priority: 3 }],
    ['Stretch every day', { title: 'Stretch', repeat: 'FREQ=DAILY', dueDay: TODAY }],
    ['Bins every monday', { title: 'Bins', repeat: 'FREQ=WEEKLY;BYDAY=MO', dueDay: TODAY + 2 }],
    ['Report every 2 weeks', { title: 'Report', repeat: 'FREQ=WEEKLY;INTERVAL=2', dueDay: TODAY }],
    ['Standup every weekday 9:15am', { title: 'Standup', repeat: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', dueDay: TODAY, dueTime: 9 * 3600 + 900 }],
    ['Rent monthly', { title: 'Rent', repeat: 'FREQ=MONTHLY', dueDay: TODAY }],
    ['Call at 5pm', { title: 'Call', dueTime: 17 * 3600, dueDay: TODAY }],
    ['Midnight 12am', { title: 'Midnight', dueTime: 0, dueDay: TODAY }],
    ['Noon 12pm', { title: 'Noon', dueTime: 12 * 3600, dueDay: TODAY }],
    ['Low !-1', { title: 'Low', priority: -1 }],
    // What is not syntax stays title text: a second folder, a bad date, !9, a lone word.
    ['Move #a #b', { title: 'Move #b', folder: 'a' }],
    ['Trip 2026-02-30', { title: 'Trip 2026-02-30' }],
    ['Volume !9', { title: 'Volume !9' }],
    ['Read every', { title: 'Read every' }],
    ['Every other thing in the world', { title: 'Every other thing in the world' }],
    ['Meet at noon', { title: 'Meet at noon' }],
    ['Score 25:00', { title: 'Score 25:00' }],
    ['Learn C++ +1', { title: 'Learn C++ +1' }],
    // A backslash keeps a word as title text.
    ['Read \\tomorrow \\#hashtags', { title: 'Read tomorrow #hashtags' }],
    ['  ', { title: '' }],
  ];
  for (const [line, expected] of cases) {
    it(`reads ${JSON.stringify(line)}`, () => {
      const got = parseQuickAdd(line, TODAY) as unknown as Record<string, unknown>;
      const full = { tags: [], star: false, ...expected };
      for (const [k, v] of Object.entries(full)) assert.deepEqual(got[k], v, `${k} of ${line}`);
    });
  }

  it('"world" is a word, "wed" is Wednesday', () => {
    const q = parseQuickAdd('Hello world wed', TODAY);
    assert.equal(q.title, 'Hello world');
    assert.equal(weekday(q.dueDay as number), 2);
  });

  it('times: the 12-hour and 24-hour forms, nothing out of range', () => {
    assert.equal(timeOf('9am'), 9 * 3600);
    assert.equal(timeOf('9:05PM'), 21 * 3600 + 300);
    assert.equal(timeOf('00:00'), 0);
    assert.equal(timeOf('23:59'), 23 * 3600 + 59 * 60);
    for (const bad of ['13pm', '0am', '9:60am', '24:00', '9', 'am']) assert.equal(timeOf(bad), undefined, bad);
  });
});

describe('quick add: properties', () => {
  const plainWord = fc.stringMatching(/^[a-z]{4,9}$/).filter((w) => parseQuickAdd(w, TODAY).title === w);
  const name = fc.stringMatching(/^[a-z][a-z ]{0,12}[a-z]$/);

  it('never throws and never keeps more than the capped line, whatever is typed', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 1200 }), fc.integer({ min: 0, max: 2_900_000 }), (line, today) => {
        const q = parseQuickAdd(line, today);
        assert.ok(q.title.length <= MAX_QUICK_ADD);
        if (q.dueTime !== undefined) assert.ok(q.dueTime >= 0 && q.dueTime < 86400);
        if (q.priority !== undefined) assert.ok(q.priority >= -1 && q.priority <= 3);
        if (q.dueDay !== undefined) assert.ok(q.dueDay >= today - 1 || line.includes('-'));
      }),
      { numRuns: 300 },
    );
  });

  it('what is written in the syntax reads back as written', () => {
    fc.assert(
      fc.property(
        fc.array(plainWord, { minLength: 1, maxLength: 5 }),
        fc.option(name, { nil: undefined }),
        fc.option(name, { nil: undefined }),
        fc.uniqueArray(fc.stringMatching(/^[a-z]{2,8}$/), { maxLength: 3 }),
        fc.option(fc.integer({ min: -1, max: 3 }), { nil: undefined }),
        fc.boolean(),
        fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 1439 }), { nil: undefined }),
        fc.shuffledSubarray([0, 1, 2, 3, 4, 5, 6], { minLength: 7 }),
        (title, folder, context, tags, priority, star, inDays, minute, order) => {
          const parts: string[] = [
            folder === undefined ? '' : `#"${folder}"`,
            context === undefined ? '' : `@"${context}"`,
            tags.map((t) => `+${t}`).join(' '),
            priority === undefined ? '' : `!${priority}`,
            star ? '*' : '',
            inDays === undefined ? '' : inDays === 0 ? 'today' : `in ${inDays + 1} days`,
            minute === undefined ? '' : `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`,
          ];
          const line = [title.join(' '), ...order.map((i) => parts[i] ?? '')].filter((s) => s !== '').join(' ');
          const q = parseQuickAdd(line, TODAY);
          assert.equal(q.title, title.join(' '));
          assert.equal(q.folder, folder);
          assert.equal(q.context, context);
          assert.deepEqual(q.tags, tags);
          assert.equal(q.priority, priority);
          assert.equal(q.star, star);
          assert.equal(q.dueTime, minute === undefined ? undefined : minute * 60);
          const day = inDays === undefined ? undefined : inDays === 0 ? TODAY : TODAY + inDays + 1;
          assert.equal(q.dueDay, day ?? (minute === undefined ? undefined : TODAY));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a line of the longest length is read quickly', () => {
    const line = 'every 2 weeks #a @b +c !1 * tomorrow 9am '.repeat(40).slice(0, MAX_QUICK_ADD);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 100; i++) parseQuickAdd(line, TODAY);
    assert.ok(Number(process.hrtime.bigint() - t0) / 1e6 < 500);
  });
});
