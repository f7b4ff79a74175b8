import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_STEPS } from './budget.js';
import { nextOccurrenceCounted } from './engine.js';
import { parseRepeat, type NextInput } from './index.js';
import { firstOccurrenceAfter, occurrencesBetween } from './reference.js';
import { dateOf, EVERY_MONTH_DAY, LONG_BYDAY, noon, show } from './test-dates.js';

/**
 * Inputs that would spin a naive engine. Each must give the right answer within a small number
 * of steps (the engine's own work counter; timing lives in bench/repeat.ts, not in tests).
 */

const DAY = 86_400;
const NOW = Date.UTC(2026, 0, 15, 9, 30) / 1000;
const TODAY = Math.floor(NOW / DAY);

interface Case {
  readonly why: string;
  readonly rule: string;
  readonly due: string;
  readonly now?: number;
  /** 'YYYY-MM-DD #occurrence' (occurrence numbers checked by counting day by day), or 'done'. */
  readonly expect: string;
  /** The most steps the answer may take. */
  readonly steps: number;
}

/** Every day of 11 months, every other day: each month walked sees 31 month days. */
const MANY_MONTH_DAYS = `FREQ=DAILY;INTERVAL=2;BYMONTH=1,2,3,4,5,6,7,8,9,10,11;BYMONTHDAY=${EVERY_MONTH_DAY};FASTFORWARD`;
/** Every fifth month, expanded with 161 BYDAY entries. */
const MANY_WEEKDAYS = `FREQ=MONTHLY;INTERVAL=5;BYDAY=${LONG_BYDAY};FASTFORWARD`;

/** Occurrence number after skipping every day from `due` to today, for a daily rule. */
function dailyFrom(due: string): number {
  return 1 + (TODAY - Math.floor(noon(due) / DAY)) + 1;
}

const CASES: readonly Case[] = [
  { why: 'ancient due date, daily, fast-forward', rule: 'FREQ=DAILY;FASTFORWARD', due: '1900-01-01', expect: `2026-01-16 #${dailyFrom('1900-01-01')}`, steps: 5 },
  { why: 'year-1 due date, daily, fast-forward', rule: 'FREQ=DAILY;FASTFORWARD', due: '0001-01-01', expect: `2026-01-16 #${dailyFrom('0001-01-01')}`, steps: 5 },
  { why: 'ancient, weekdays, fast-forward', rule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;FASTFORWARD', due: '1900-01-01', expect: '2026-01-16 #32885', steps: 5 },
  { why: 'ancient, last Friday, fast-forward', rule: 'FREQ=MONTHLY;BYDAY=-1FR;FASTFORWARD', due: '1900-01-26', expect: '2026-01-30 #1513', steps: 400 },
  { why: 'ancient, the 31st, fast-forward', rule: 'FREQ=MONTHLY;BYMONTHDAY=31;FASTFORWARD', due: '1900-01-31', expect: '2026-01-31 #883', steps: 1000 },
  { why: 'ancient, Feb 29, fast-forward', rule: 'FREQ=YEARLY;FASTFORWARD', due: '1904-02-29', expect: '2028-02-29 #32', steps: 300 },
  { why: 'ancient, daily in June, fast-forward', rule: 'FREQ=DAILY;BYMONTH=6;FASTFORWARD', due: '1900-06-01', expect: '2026-06-01 #3781', steps: 500 },
  { why: 'a billion occurrences', rule: 'FREQ=DAILY;COUNT=1000000000', due: '2026-01-15', expect: '2026-01-16 #2', steps: 5 },
  { why: 'a billion occurrences, fast-forward from 1900', rule: 'FREQ=DAILY;COUNT=1000000000;FASTFORWARD', due: '1900-01-01', expect: `2026-01-16 #${dailyFrom('1900-01-01')}`, steps: 5 },
  { why: 'COUNT used up while fast-forwarding from 1900', rule: 'FREQ=MONTHLY;BYMONTHDAY=31;COUNT=100;FASTFORWARD', due: '1900-01-31', expect: 'done', steps: 1000 },
  { why: 'impossible: Feb 30 yearly', rule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', due: '2026-01-15', expect: 'done', steps: 100 },
  { why: 'impossible: Feb 30 monthly', rule: 'FREQ=MONTHLY;BYMONTH=2;BYMONTHDAY=30', due: '2026-01-15', expect: 'done', steps: 400 },
  { why: 'impossible: Feb 30 daily', rule: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30', due: '2026-01-15', expect: 'done', steps: 1 },
  { why: 'impossible: April 31', rule: 'FREQ=YEARLY;BYMONTH=4;BYMONTHDAY=31', due: '2026-01-15', expect: 'done', steps: 100 },
  { why: 'impossible: sixth Friday', rule: 'FREQ=MONTHLY;BYDAY=6FR', due: '2026-01-15', expect: 'done', steps: 400 },
  { why: 'impossible: the interval only visits Februaries', rule: 'FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=30', due: '2026-02-15', expect: 'done', steps: 100 },
  { why: 'impossible: every 7th day from a Tuesday, on Mondays', rule: 'FREQ=DAILY;INTERVAL=7;BYDAY=MO', due: '2026-01-13', expect: 'done', steps: 1 },
  { why: 'impossible, with fast-forward from 1900', rule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30;FASTFORWARD', due: '1900-01-15', expect: 'done', steps: 400 },
  { why: 'interval of a million days', rule: 'FREQ=DAILY;INTERVAL=1000000', due: '2026-01-15', expect: '4763-12-13 #2', steps: 5 },
  { why: 'interval of a million weeks', rule: 'FREQ=WEEKLY;INTERVAL=1000000', due: '2026-01-15', expect: 'done', steps: 5 },
  { why: 'interval of a million months', rule: 'FREQ=MONTHLY;INTERVAL=1000000', due: '2026-01-15', expect: 'done', steps: 5 },
  { why: 'interval of a million years', rule: 'FREQ=YEARLY;INTERVAL=1000000', due: '2026-01-15', expect: 'done', steps: 5 },
  { why: 'the largest interval read', rule: 'FREQ=WEEKLY;INTERVAL=999999999999;BYDAY=MO,FR', due: '2026-01-15', expect: '2026-01-16 #2', steps: 5 },
  { why: 'the largest interval read, past the week', rule: 'FREQ=WEEKLY;INTERVAL=999999999999;BYDAY=MO,FR', due: '2026-01-16', expect: 'done', steps: 5 },
  { why: 'interval of a million days, fast-forward from 1900', rule: 'FREQ=DAILY;INTERVAL=1000000;FASTFORWARD', due: '1900-01-01', expect: '4637-11-28 #2', steps: 5 },
  { why: 'the last day iCal can write', rule: 'FREQ=DAILY', due: '9999-12-30', expect: '9999-12-31 #2', steps: 5 },
  { why: 'nothing after 9999-12-31', rule: 'FREQ=DAILY', due: '9999-12-31', expect: 'done', steps: 5 },
  { why: 'yearly near the end', rule: 'FREQ=YEARLY', due: '9999-06-01', expect: 'done', steps: 5 },
  { why: 'the 31st near the end', rule: 'FREQ=MONTHLY;BYMONTHDAY=31', due: '9999-10-31', expect: '9999-12-31 #2', steps: 10 },
  { why: 'fast-forward to a `now` in 9999', rule: 'FREQ=MONTHLY;BYMONTHDAY=31;FASTFORWARD', due: '2026-01-31', now: noon('9999-06-15'), expect: '9999-07-31 #55815', steps: 1500 },
  { why: 'fast-forward to a `now` past 9999', rule: 'FREQ=DAILY;FASTFORWARD', due: '2026-01-15', now: 1e15, expect: 'done', steps: 5 },
  { why: 'a walk too long for the step budget answers done', rule: 'FREQ=WEEKLY;INTERVAL=2;BYMONTH=6;FASTFORWARD', due: '0001-01-01', expect: 'done', steps: MAX_STEPS },
  { why: '31 month days a month, walked from 1900', rule: MANY_MONTH_DAYS, due: '1900-01-01', expect: '2026-01-16 #21066', steps: 1600 },
  { why: '31 month days a month, walked from year 1: out of steps', rule: MANY_MONTH_DAYS, due: '0001-01-01', expect: 'done', steps: MAX_STEPS },
  { why: '161 BYDAY entries, a few months on', rule: MANY_WEEKDAYS, due: '2025-06-01', expect: '2026-04-01 #61', steps: 700 },
  { why: '161 BYDAY entries from 1900: out of steps', rule: MANY_WEEKDAYS, due: '1900-01-01', expect: 'done', steps: MAX_STEPS },
  { why: 'every fifth month on the 31st, from 1900', rule: 'FREQ=MONTHLY;INTERVAL=5;BYMONTHDAY=31;FASTFORWARD', due: '1900-01-31', expect: '2027-07-31 #177', steps: 600 },
  { why: 'every fifth month on the 31st, from year 1: out of steps', rule: 'FREQ=MONTHLY;INTERVAL=5;BYMONTHDAY=31;FASTFORWARD', due: '0001-01-31', expect: 'done', steps: MAX_STEPS },
];

describe('hostile inputs answer right, in few steps', () => {
  for (const c of CASES) {
    // Long generated rules are cut short in the name; the case's `why` says what they hold.
    const rule = c.rule.length > 90 ? `${c.rule.slice(0, 87)}…` : c.rule;
    test(`${c.why}: ${rule} due ${c.due} → ${c.expect}`, () => {
      const due = noon(c.due);
      const input: NextInput = { due, completed: due, now: c.now ?? NOW, occurrence: 1 };
      const { result, steps } = nextOccurrenceCounted(parseRepeat(c.rule), input);
      assert.equal(show(result), c.expect);
      assert.ok(steps <= c.steps, `${steps} steps, expected at most ${c.steps}`);
    });
  }

  test('the fast-forward counts from 1900 on agree with a day-by-day count', () => {
    const horizon = 800;
    const checked = CASES.filter(
      (x) => x.rule.includes('FASTFORWARD') && x.due >= '1900' && x.now === undefined && x.expect !== 'done' && noon(x.expect.slice(0, 10)) / DAY <= TODAY + horizon,
    );
    assert.ok(checked.length >= 10);
    for (const c of checked) {
      const spec = parseRepeat(c.rule);
      assert.equal(spec.kind, 'rule');
      if (spec.kind !== 'rule') continue;
      const anchor = Math.floor(noon(c.due) / DAY);
      const skipped = occurrencesBetween(spec, anchor, anchor, TODAY).length;
      const next = firstOccurrenceAfter(spec, anchor, TODAY, horizon);
      assert.equal(`${dateOf((next ?? 0) * DAY)} #${1 + skipped + 1}`, c.expect, c.rule);
    }
  });

  test('no call pays for work past the step budget, even where one charge is many steps', () => {
    for (const c of CASES) {
      const due = noon(c.due);
      const { steps } = nextOccurrenceCounted(parseRepeat(c.rule), { due, completed: due, now: c.now ?? NOW, occurrence: 1 });
      assert.ok(steps <= MAX_STEPS, c.rule);
    }
  });

  test('a long BYDAY list costs a step per entry in every month worked out', () => {
    // The same answer with 60 more entries that never match (a month has no 6th to 20th Monday
    // or Tuesday): the steps must grow by at least 60 for the month expanded.
    const never = ['MO', 'TU'].flatMap((w) => Array.from({ length: 15 }, (_, i) => [`${i + 6}${w}`, `-${i + 6}${w}`]).flat());
    const due = noon('2026-01-15');
    const input: NextInput = { due, completed: due, now: NOW, occurrence: 1 };
    const short = nextOccurrenceCounted(parseRepeat('FREQ=MONTHLY;BYDAY=-1FR'), input);
    const long = nextOccurrenceCounted(parseRepeat(`FREQ=MONTHLY;BYDAY=-1FR,${never.join(',')}`), input);
    assert.equal(never.length, 60);
    assert.equal(show(long.result), show(short.result));
    assert.equal(show(long.result), '2026-01-30 #2');
    assert.ok(long.steps >= short.steps + 60, `${long.steps} steps against ${short.steps}`);
  });
});
