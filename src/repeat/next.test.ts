import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nextOccurrence, parseRepeat, type NextInput } from './index.js';
import { dateOf, noon, show } from './test-dates.js';

interface Case {
  readonly rule: string;
  readonly due: string;
  readonly completed?: string;
  /** 'YYYY-MM-DD' (09:30 GMT that day) or a full ISO time. */
  readonly now?: string;
  readonly occurrence?: number;
  /** 'YYYY-MM-DD #occurrence', or 'done'. */
  readonly expect: string;
  readonly why?: string;
}

function input(c: Case): NextInput {
  const now = c.now === undefined ? noon(c.due) : c.now.length === 10 ? noon(c.now) - 9_000 : Date.parse(c.now) / 1000;
  return { due: noon(c.due), completed: noon(c.completed ?? c.due), now, occurrence: c.occurrence ?? 1 };
}

function run(cases: readonly Case[]): void {
  for (const c of cases) {
    const name = `${c.rule} due ${c.due}${c.completed ? ` done ${c.completed}` : ''}${c.now ? ` now ${c.now}` : ''}${c.occurrence ? ` #${c.occurrence}` : ''} → ${c.expect}${c.why ? ` (${c.why})` : ''}`;
    test(name, () => {
      const result = nextOccurrence(parseRepeat(c.rule), input(c));
      assert.equal(show(result), c.expect);
      if (result.kind === 'next') assert.equal(result.due % 86_400, 43_200, 'at 12:00:00 GMT');
    });
  }
}

/** Applies the rule again and again from `due`, as a task completed on time each time. */
function chain(rule: string, due: string, steps: number): string[] {
  const spec = parseRepeat(rule);
  const out: string[] = [];
  let state = { due: noon(due), occurrence: 1 };
  for (let i = 0; i < steps; i++) {
    const r = nextOccurrence(spec, { ...state, completed: state.due, now: state.due });
    if (r.kind !== 'next') {
      out.push(r.kind);
      break;
    }
    out.push(dateOf(r.due));
    state = { due: r.due, occurrence: r.occurrence };
  }
  return out;
}

describe('nextOccurrence: frequencies and intervals', () => {
  run([
    { rule: 'FREQ=DAILY', due: '2026-01-15', expect: '2026-01-16 #2' },
    { rule: 'DAILY', due: '2026-12-31', expect: '2027-01-01 #2' },
    { rule: 'FREQ=DAILY;INTERVAL=3', due: '2026-01-15', expect: '2026-01-18 #2' },
    { rule: 'FREQ=WEEKLY', due: '2026-01-15', expect: '2026-01-22 #2' },
    { rule: 'FREQ=WEEKLY;INTERVAL=2', due: '2026-01-15', expect: '2026-01-29 #2' },
    { rule: 'FREQ=MONTHLY', due: '2026-01-15', expect: '2026-02-15 #2' },
    { rule: 'FREQ=MONTHLY;INTERVAL=3', due: '2026-11-15', expect: '2027-02-15 #2' },
    { rule: 'FREQ=YEARLY', due: '2026-01-15', expect: '2027-01-15 #2' },
    { rule: 'FREQ=YEARLY;INTERVAL=2', due: '2026-01-15', expect: '2028-01-15 #2' },
    { rule: 'RRULE:FREQ=DAILY;INTERVAL=10', due: '2026-02-25', expect: '2026-03-07 #2' },
  ]);
});

describe('nextOccurrence: weekday lists', () => {
  run([
    { rule: 'FREQ=WEEKLY;BYDAY=MO,WE,FR', due: '2026-01-15', expect: '2026-01-16 #2', why: 'Thu → Fri' },
    { rule: 'FREQ=WEEKLY;BYDAY=MO,WE,FR', due: '2026-01-16', expect: '2026-01-19 #2', why: 'Fri → Mon' },
    { rule: 'FREQ=WEEKLY;BYDAY=MO', due: '2026-01-14', expect: '2026-01-19 #2', why: 'due off the rule' },
    { rule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO', due: '2026-01-14', expect: '2026-01-26 #2', why: "the week's Monday is before the anchor" },
    { rule: 'FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR', due: '2026-01-16', expect: '2026-01-19 #2', why: 'weekdays' },
    { rule: 'FREQ=DAILY;INTERVAL=2;BYDAY=SA', due: '2026-01-15', expect: '2026-01-17 #2' },
    { rule: 'FREQ=DAILY;INTERVAL=7;BYDAY=MO', due: '2026-01-13', expect: 'done', why: 'every 7th day from a Tuesday is never a Monday' },
    { rule: 'FREQ=MONTHLY;BYDAY=FR', due: '2026-01-30', expect: '2026-02-06 #2', why: 'every Friday of the month' },
  ]);
});

describe('nextOccurrence: numbered weekdays', () => {
  run([
    { rule: 'FREQ=MONTHLY;BYDAY=2TU', due: '2026-01-13', expect: '2026-02-10 #2' },
    { rule: 'FREQ=MONTHLY;BYDAY=2TU', due: '2026-01-05', expect: '2026-01-13 #2' },
    { rule: 'FREQ=MONTHLY;BYDAY=-1FR', due: '2026-01-15', expect: '2026-01-30 #2' },
    { rule: 'FREQ=MONTHLY;BYDAY=-1FR', due: '2026-01-30', expect: '2026-02-27 #2' },
    { rule: 'FREQ=MONTHLY;BYDAY=5FR', due: '2026-01-30', expect: '2026-05-29 #2', why: 'months with five Fridays only' },
    { rule: 'FREQ=MONTHLY;BYDAY=MO,2TU', due: '2026-02-09', expect: '2026-02-10 #2', why: 'a BYDAY list is a union' },
    { rule: 'FREQ=YEARLY;BYDAY=20MO', due: '1997-05-19', expect: '1998-05-18 #2', why: 'RFC 5545: 20th Monday of the year' },
    { rule: 'FREQ=YEARLY;BYDAY=-1SU', due: '2026-01-15', expect: '2026-12-27 #2', why: 'last Sunday of the year' },
    { rule: 'FREQ=YEARLY;BYMONTH=3;BYDAY=TH', due: '1997-03-27', expect: '1998-03-05 #2', why: 'RFC 5545: every Thursday in March' },
    { rule: 'FREQ=YEARLY;BYMONTH=5;BYDAY=-1MO', due: '2026-05-25', expect: '2027-05-31 #2', why: 'with BYMONTH, ordinals count within the month' },
    { rule: 'FREQ=YEARLY;BYMONTH=11;BYDAY=4TH', due: '2026-01-01', expect: '2026-11-26 #2' },
    { rule: 'FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13', due: '1997-09-02', expect: '1998-02-13 #2', why: 'RFC 5545: Friday the 13th' },
    { rule: 'FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8', due: '1996-11-05', expect: '2000-11-07 #2', why: 'RFC 5545: US election day' },
  ]);
});

describe('nextOccurrence: month ends and leap days', () => {
  test('BYMONTHDAY=31 skips the months without a 31st (Feb, Apr, Jun, Sep, Nov)', () => {
    assert.deepEqual(chain('FREQ=MONTHLY;BYMONTHDAY=31', '2026-01-31', 7), ['2026-03-31', '2026-05-31', '2026-07-31', '2026-08-31', '2026-10-31', '2026-12-31', '2027-01-31']);
  });
  test('a plain MONTHLY from the 31st does the same (the day comes from the due date)', () => {
    assert.deepEqual(chain('FREQ=MONTHLY', '2026-01-31', 3), ['2026-03-31', '2026-05-31', '2026-07-31']);
  });
  test('BYMONTHDAY=-1 is the last day of every month, Feb 29 in leap years', () => {
    assert.deepEqual(chain('FREQ=MONTHLY;BYMONTHDAY=-1', '2027-12-31', 5), ['2028-01-31', '2028-02-29', '2028-03-31', '2028-04-30', '2028-05-31']);
  });
  test('BYMONTHDAY=30 skips February', () => {
    assert.deepEqual(chain('FREQ=MONTHLY;BYMONTHDAY=30', '2026-01-30', 2), ['2026-03-30', '2026-04-30']);
  });
  test('Feb 29 yearly: four years on, and 2096 → 2104 skips 2100', () => {
    assert.deepEqual(chain('FREQ=YEARLY', '2024-02-29', 3), ['2028-02-29', '2032-02-29', '2036-02-29']);
    assert.deepEqual(chain('FREQ=YEARLY', '2096-02-29', 2), ['2104-02-29', '2108-02-29']);
  });
  run([
    { rule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29', due: '2025-03-01', expect: '2028-02-29 #2' },
    { rule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1', due: '2027-02-28', expect: '2028-02-29 #2' },
    { rule: 'FREQ=MONTHLY;BYMONTHDAY=-1', due: '2026-04-15', expect: '2026-04-30 #2' },
    { rule: 'FREQ=MONTHLY;BYMONTHDAY=1,-1', due: '2026-02-01', expect: '2026-02-28 #2' },
    { rule: 'FREQ=YEARLY;BYMONTHDAY=31', due: '2026-01-31', expect: '2026-03-31 #2', why: 'YEARLY;BYMONTHDAY alone: every month' },
  ]);
});

describe('nextOccurrence: BYMONTH', () => {
  run([
    { rule: 'FREQ=YEARLY;BYMONTH=3,9', due: '2026-01-15', expect: '2026-03-15 #2', why: 'the day of the month comes from the due date' },
    { rule: 'FREQ=YEARLY;BYMONTH=3,9', due: '2026-03-15', expect: '2026-09-15 #2' },
    { rule: 'FREQ=DAILY;BYMONTH=12', due: '2026-01-15', expect: '2026-12-01 #2' },
    { rule: 'FREQ=DAILY;BYMONTHDAY=16', due: '2026-01-15', expect: '2026-01-16 #2' },
    { rule: 'FREQ=DAILY;BYMONTHDAY=1,15', due: '2026-01-15', expect: '2026-02-01 #2' },
    { rule: 'FREQ=DAILY;INTERVAL=2;BYMONTH=2;BYMONTHDAY=29', due: '2026-01-15', expect: '2032-02-29 #2', why: '2028-02-29 is an odd number of days on' },
    { rule: 'FREQ=WEEKLY;BYDAY=SA;BYMONTH=6,7,8', due: '2026-01-15', expect: '2026-06-06 #2' },
    { rule: 'FREQ=WEEKLY;BYDAY=SA;BYMONTH=6,7,8', due: '2026-08-29', expect: '2027-06-05 #2' },
    { rule: 'FREQ=MONTHLY;BYMONTH=1,4,7,10;BYMONTHDAY=1', due: '2026-01-01', expect: '2026-04-01 #2', why: 'quarterly' },
    { rule: 'FREQ=YEARLY;BYMONTH=1,2,3,4,5,6,7,8,9,10,11,12;BYDAY=2MO', due: '2026-01-15', expect: '2026-02-09 #2', why: 'all 12 months still make ordinals count within the month' },
    { rule: 'FREQ=YEARLY;BYMONTH=1,2,3,4,5,6,7,8,9,10,11,12', due: '2026-01-15', expect: '2026-02-15 #2', why: 'all 12 months: every month, on the due date\'s day' },
  ]);
});

describe('nextOccurrence: COUNT and UNTIL', () => {
  run([
    { rule: 'FREQ=DAILY;COUNT=3', due: '2026-01-15', occurrence: 1, expect: '2026-01-16 #2' },
    { rule: 'FREQ=DAILY;COUNT=3', due: '2026-01-16', occurrence: 2, expect: '2026-01-17 #3' },
    { rule: 'FREQ=DAILY;COUNT=3', due: '2026-01-17', occurrence: 3, expect: 'done', why: 'the third was the last' },
    { rule: 'FREQ=DAILY;COUNT=3', due: '2026-01-17', occurrence: 7, expect: 'done' },
    { rule: 'FREQ=DAILY;COUNT=1', due: '2026-01-15', expect: 'done' },
    { rule: 'FREQ=DAILY;COUNT=10;FASTFORWARD', due: '2026-01-01', now: '2026-01-05', expect: '2026-01-06 #6', why: 'four skipped count as used' },
    { rule: 'FREQ=DAILY;COUNT=6;FASTFORWARD', due: '2026-01-01', now: '2026-01-05', expect: '2026-01-06 #6' },
    { rule: 'FREQ=DAILY;COUNT=5;FASTFORWARD', due: '2026-01-01', now: '2026-01-05', expect: 'done', why: 'used up while skipping' },
    { rule: 'FREQ=DAILY;UNTIL=20260117', due: '2026-01-15', expect: '2026-01-16 #2' },
    { rule: 'FREQ=DAILY;UNTIL=20260117', due: '2026-01-16', expect: '2026-01-17 #2', why: 'UNTIL is inclusive' },
    { rule: 'FREQ=DAILY;UNTIL=20260117', due: '2026-01-17', expect: 'done' },
    { rule: 'FREQ=DAILY;UNTIL=20260117T000000Z', due: '2026-01-16', expect: '2026-01-17 #2', why: "only UNTIL's UTC date counts" },
    { rule: 'FREQ=DAILY;UNTIL=20250101', due: '2026-01-15', expect: 'done' },
    { rule: 'FREQ=WEEKLY;UNTIL=20260128', due: '2026-01-15', expect: '2026-01-22 #2' },
    { rule: 'FREQ=WEEKLY;UNTIL=20260128', due: '2026-01-22', expect: 'done', why: 'the 29th is after UNTIL' },
    { rule: 'FREQ=DAILY;UNTIL=20260120;FASTFORWARD', due: '2026-01-01', now: '2026-01-25', expect: 'done' },
  ]);
});

describe('nextOccurrence: FROMCOMP', () => {
  run([
    { rule: 'FREQ=DAILY;INTERVAL=3;FROMCOMP', due: '2026-01-05', completed: '2026-01-10', expect: '2026-01-13 #2' },
    { rule: 'FREQ=DAILY;INTERVAL=3;FROMCOMP', due: '2026-01-20', completed: '2026-01-10', expect: '2026-01-13 #2', why: 'whatever the old due date' },
    { rule: 'FREQ=DAILY;INTERVAL=3', due: '2026-01-05', completed: '2026-01-10', expect: '2026-01-08 #2', why: 'without FROMCOMP: from the due date' },
    { rule: 'FREQ=WEEKLY;FROMCOMP', due: '2026-01-12', completed: '2026-01-14', expect: '2026-01-21 #2', why: "the completion day's weekday" },
    { rule: 'FREQ=MONTHLY;FROMCOMP', due: '2026-01-31', completed: '2026-02-03', expect: '2026-03-03 #2' },
    { rule: 'FROMCOMP;FREQ=WEEKLY;BYDAY=MO', due: '2026-01-05', completed: '2026-01-14', expect: '2026-01-19 #2' },
  ]);
});

describe('nextOccurrence: FASTFORWARD', () => {
  run([
    { rule: 'FREQ=DAILY;FASTFORWARD', due: '2026-01-01', now: '2026-01-15', expect: '2026-01-16 #16' },
    { rule: 'FREQ=DAILY;FASTFORWARD', due: '2026-01-01', now: '2026-01-15T23:59:59Z', expect: '2026-01-16 #16', why: "today is now's UTC date" },
    { rule: 'FREQ=DAILY;FASTFORWARD', due: '2026-01-20', now: '2026-01-15', expect: '2026-01-21 #2', why: 'due in the future: one step' },
    { rule: 'FREQ=WEEKLY;BYDAY=MO;FASTFORWARD', due: '2025-12-01', now: '2026-01-15', expect: '2026-01-19 #8', why: 'six Mondays skipped' },
    { rule: 'FREQ=WEEKLY;BYDAY=MO;FASTFORWARD', due: '2025-12-01', now: '2026-01-19T15:00:00Z', expect: '2026-01-26 #9', why: 'strictly after today' },
    { rule: 'FREQ=MONTHLY;BYMONTHDAY=31;FASTFORWARD', due: '2025-01-31', now: '2026-01-15', expect: '2026-01-31 #8' },
    { rule: 'FREQ=YEARLY;FASTFORWARD', due: '2000-02-29', now: '2026-01-15', expect: '2028-02-29 #8' },
    { rule: 'FREQ=DAILY;INTERVAL=3;FROMCOMP;FASTFORWARD', due: '2025-06-01', completed: '2026-01-01', now: '2026-01-15', expect: '2026-01-16 #6' },
  ]);
});

describe('nextOccurrence: WKST with INTERVAL=2 (RFC 5545 example)', () => {
  test('WKST=MO: Aug 5, 10, 19, 24 1997', () => {
    assert.deepEqual(chain('FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;WKST=MO', '1997-08-05', 3), ['1997-08-10', '1997-08-19', '1997-08-24']);
  });
  test('WKST=SU: Aug 5, 17, 19, 31 1997', () => {
    assert.deepEqual(chain('FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;WKST=SU', '1997-08-05', 3), ['1997-08-17', '1997-08-19', '1997-08-31']);
  });
  test('the default WKST is Monday', () => {
    assert.deepEqual(chain('FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU', '1997-08-05', 3), ['1997-08-10', '1997-08-19', '1997-08-24']);
  });
});

describe('nextOccurrence: what does not reschedule, and odd inputs', () => {
  const base: NextInput = { due: noon('2026-01-15'), completed: noon('2026-01-15'), now: noon('2026-01-15'), occurrence: 1 };
  for (const text of ['', 'PARENT', 'FREQ=HOURLY', 'garbage']) {
    test(`${JSON.stringify(text)} → unsupported`, () => assert.deepEqual(nextOccurrence(parseRepeat(text), base), { kind: 'unsupported' }));
  }
  const daily = parseRepeat('FREQ=DAILY');
  const odd: Array<[string, Partial<NextInput>, string]> = [
    ['a due time other than noon is read as its UTC day', { due: Date.parse('2026-01-15T23:59:59Z') / 1000 }, '2026-01-16 #2'],
    ['occurrence 0 is read as 1', { occurrence: 0 }, '2026-01-16 #2'],
    ['occurrence NaN is read as 1', { occurrence: Number.NaN }, '2026-01-16 #2'],
    ['a fractional occurrence is rounded down', { occurrence: 2.7 }, '2026-01-16 #3'],
    ['a due date that is not a number', { due: Number.NaN }, 'done'],
    ['an infinite due date', { due: Number.POSITIVE_INFINITY }, 'done'],
    ['a due date before year 1', { due: -1e15 }, 'done'],
    ['a due date after 9999', { due: 1e15 }, 'done'],
  ];
  for (const [why, change, expected] of odd) {
    test(`${why} → ${expected}`, () => assert.equal(show(nextOccurrence(daily, { ...base, ...change })), expected));
  }
  test('FASTFORWARD with a `now` that is not a number → done', () => {
    assert.equal(show(nextOccurrence(parseRepeat('DAILY;FASTFORWARD'), { ...base, now: Number.NaN })), 'done');
  });
  test('without FASTFORWARD, `now` is not read', () => {
    assert.equal(show(nextOccurrence(daily, { ...base, now: Number.NaN })), '2026-01-16 #2');
  });
});
