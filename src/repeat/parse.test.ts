import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { daysFromCivil } from './calendar.js';
import { parseRepeat } from './index.js';
import type { RuleSpec } from './types.js';

function rule(fields: Partial<Omit<RuleSpec, 'kind'>> & Pick<RuleSpec, 'freq'>): RuleSpec {
  return {
    kind: 'rule',
    fromCompletion: false,
    fastForward: false,
    interval: 1,
    byDay: [],
    byMonthDay: [],
    byMonth: [],
    count: null,
    untilDay: null,
    weekStart: 0,
    ...fields,
  };
}

const MO = 0;
const TU = 1;
const WE = 2;
const FR = 4;
const SU = 6;

describe('parseRepeat: understood rules', () => {
  const cases: Array<[string, RuleSpec]> = [
    // Bare frequency words, any case, as real clients send them.
    ['DAILY', rule({ freq: 'DAILY' })],
    ['daily', rule({ freq: 'DAILY' })],
    ['Weekly', rule({ freq: 'WEEKLY' })],
    ['monthly', rule({ freq: 'MONTHLY' })],
    ['  YEARLY  ', rule({ freq: 'YEARLY' })],
    ['DAILY;INTERVAL=2', rule({ freq: 'DAILY', interval: 2 })],
    // RRULE text, with or without its prefix, any case.
    ['FREQ=DAILY', rule({ freq: 'DAILY' })],
    ['RRULE:FREQ=DAILY', rule({ freq: 'DAILY' })],
    ['rrule:freq=weekly;interval=2', rule({ freq: 'WEEKLY', interval: 2 })],
    ['FREQ=WEEKLY;BYDAY=FR,MO,WE', rule({ freq: 'WEEKLY', byDay: [{ weekday: MO, ordinal: 0 }, { weekday: WE, ordinal: 0 }, { weekday: FR, ordinal: 0 }] })],
    ['FREQ=WEEKLY;BYDAY=MO,MO', rule({ freq: 'WEEKLY', byDay: [{ weekday: MO, ordinal: 0 }] })],
    ['FREQ=MONTHLY;BYDAY=2TU', rule({ freq: 'MONTHLY', byDay: [{ weekday: TU, ordinal: 2 }] })],
    ['FREQ=MONTHLY;BYDAY=-1FR', rule({ freq: 'MONTHLY', byDay: [{ weekday: FR, ordinal: -1 }] })],
    ['FREQ=MONTHLY;BYDAY=+1MO,MO', rule({ freq: 'MONTHLY', byDay: [{ weekday: MO, ordinal: 0 }, { weekday: MO, ordinal: 1 }] })],
    ['FREQ=YEARLY;BYDAY=20MO', rule({ freq: 'YEARLY', byDay: [{ weekday: MO, ordinal: 20 }] })],
    ['FREQ=YEARLY;BYDAY=-53SU', rule({ freq: 'YEARLY', byDay: [{ weekday: SU, ordinal: -53 }] })],
    ['FREQ=MONTHLY;BYMONTHDAY=31', rule({ freq: 'MONTHLY', byMonthDay: [31] })],
    ['FREQ=MONTHLY;BYMONTHDAY=15,1,-1,+1', rule({ freq: 'MONTHLY', byMonthDay: [-1, 1, 15] })],
    ['FREQ=DAILY;BYMONTHDAY=1', rule({ freq: 'DAILY', byMonthDay: [1] })],
    ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29', rule({ freq: 'YEARLY', byMonth: [2], byMonthDay: [29] })],
    ['FREQ=YEARLY;BYMONTH=12,3,3', rule({ freq: 'YEARLY', byMonth: [3, 12] })],
    ['FREQ=DAILY;COUNT=5', rule({ freq: 'DAILY', count: 5 })],
    ['FREQ=DAILY;COUNT=1000000000', rule({ freq: 'DAILY', count: 1_000_000_000 })],
    ['FREQ=DAILY;UNTIL=20260131', rule({ freq: 'DAILY', untilDay: daysFromCivil(2026, 1, 31) })],
    ['FREQ=DAILY;UNTIL=20260131T235959Z', rule({ freq: 'DAILY', untilDay: daysFromCivil(2026, 1, 31) })],
    ['FREQ=DAILY;UNTIL=20240229T000000Z', rule({ freq: 'DAILY', untilDay: daysFromCivil(2024, 2, 29) })],
    ['FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;WKST=SU', rule({ freq: 'WEEKLY', interval: 2, weekStart: SU, byDay: [{ weekday: TU, ordinal: 0 }, { weekday: SU, ordinal: 0 }] })],
    // Huge but well-formed numbers are read; the engine's caps deal with them.
    ['FREQ=DAILY;INTERVAL=1000000', rule({ freq: 'DAILY', interval: 1_000_000 })],
    ['FREQ=DAILY;INTERVAL=999999999999', rule({ freq: 'DAILY', interval: 999_999_999_999 })],
    ['FREQ=DAILY;INTERVAL=007', rule({ freq: 'DAILY', interval: 7 })],
    // Extensions, anywhere among the parts, any case, repeated or not.
    ['FREQ=DAILY;FROMCOMP', rule({ freq: 'DAILY', fromCompletion: true })],
    ['FROMCOMP;FREQ=DAILY', rule({ freq: 'DAILY', fromCompletion: true })],
    ['FREQ=DAILY;fromcomp;INTERVAL=3', rule({ freq: 'DAILY', interval: 3, fromCompletion: true })],
    ['DAILY;FROMCOMP', rule({ freq: 'DAILY', fromCompletion: true })],
    ['FREQ=DAILY;FASTFORWARD', rule({ freq: 'DAILY', fastForward: true })],
    ['FastForward;FREQ=WEEKLY;BYDAY=MO', rule({ freq: 'WEEKLY', fastForward: true, byDay: [{ weekday: MO, ordinal: 0 }] })],
    ['RRULE:FREQ=MONTHLY;FASTFORWARD;FROMCOMP', rule({ freq: 'MONTHLY', fastForward: true, fromCompletion: true })],
    ['FREQ=DAILY;FROMCOMP;FROMCOMP', rule({ freq: 'DAILY', fromCompletion: true })],
    // Forgiven: a trailing semicolon, spaces around parts and values.
    ['FREQ=DAILY;', rule({ freq: 'DAILY' })],
    ['FREQ=WEEKLY; BYDAY = MO , FR ', rule({ freq: 'WEEKLY', byDay: [{ weekday: MO, ordinal: 0 }, { weekday: FR, ordinal: 0 }] })],
  ];
  for (const [text, expected] of cases) {
    test(JSON.stringify(text), () => assert.deepEqual(parseRepeat(text), expected));
  }
});

describe('parseRepeat: no repeat, and PARENT', () => {
  const cases: Array<[string, 'none' | 'parent']> = [
    ['', 'none'],
    ['   ', 'none'],
    ['\t\r\n', 'none'],
    ['PARENT', 'parent'],
    ['parent', 'parent'],
    ['  Parent ', 'parent'],
  ];
  for (const [text, kind] of cases) test(JSON.stringify(text), () => assert.deepEqual(parseRepeat(text), { kind }));
});

describe('parseRepeat: kept as sent but never rescheduled', () => {
  const cases: string[] = [
    // Frequencies and parts the engine does not do.
    'FREQ=HOURLY',
    'FREQ=MINUTELY;INTERVAL=5',
    'FREQ=SECONDLY',
    'HOURLY',
    'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1',
    'FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO',
    'FREQ=YEARLY;BYYEARDAY=100',
    'FREQ=DAILY;BYHOUR=9',
    'FREQ=DAILY;X-NAME=1',
    'FREQ=DAILY;UNTIL=20260101T120000', // a floating date-time: no UTC date to compare
    'FREQ=DAILY;UNTIL=20260101T120000+0100',
    // Garbage and near misses.
    'garbage',
    'Every 1 week',
    'every day',
    'FREQ',
    'FREQ=',
    '=DAILY',
    ';;;',
    'FROMCOMP',
    'FASTFORWARD;FROMCOMP',
    'RRULE:',
    'RRULE:RRULE:FREQ=DAILY',
    'PARENT;FROMCOMP',
    'PARENTS',
    'FREQ=DAILY,WEEKLY',
    'FREQ=DAILY;INTERVAL',
    // Numbers out of range.
    'FREQ=DAILY;INTERVAL=0',
    'FREQ=DAILY;INTERVAL=-1',
    'FREQ=DAILY;INTERVAL=+2',
    'FREQ=DAILY;INTERVAL=1.5',
    'FREQ=DAILY;INTERVAL=1e3',
    'FREQ=DAILY;INTERVAL=0x10',
    'FREQ=DAILY;INTERVAL=9999999999999',
    'FREQ=DAILY;INTERVAL=',
    'FREQ=DAILY;COUNT=0',
    'FREQ=DAILY;COUNT=-5',
    'FREQ=MONTHLY;BYMONTHDAY=0',
    'FREQ=MONTHLY;BYMONTHDAY=32',
    'FREQ=MONTHLY;BYMONTHDAY=-32',
    'FREQ=MONTHLY;BYMONTHDAY=1,,2',
    'FREQ=YEARLY;BYMONTH=0',
    'FREQ=YEARLY;BYMONTH=13',
    'FREQ=YEARLY;BYMONTH=-1',
    'FREQ=MONTHLY;BYDAY=0MO',
    'FREQ=YEARLY;BYDAY=54MO',
    'FREQ=MONTHLY;BYDAY=XX',
    'FREQ=MONTHLY;BYDAY=MON',
    'FREQ=MONTHLY;BYDAY=MO,',
    'FREQ=WEEKLY;WKST=XX',
    'FREQ=DAILY;UNTIL=20260230',
    'FREQ=DAILY;UNTIL=20250229',
    'FREQ=DAILY;UNTIL=2026-01-01',
    'FREQ=DAILY;UNTIL=00000101',
    'FREQ=DAILY;UNTIL=20260101T250000Z',
    // Combinations RFC 5545 forbids.
    'FREQ=DAILY;COUNT=5;UNTIL=20260101',
    'FREQ=WEEKLY;BYDAY=2TU',
    'FREQ=DAILY;BYDAY=-1FR',
    'FREQ=WEEKLY;BYMONTHDAY=1',
    // Duplicated parts.
    'FREQ=DAILY;FREQ=DAILY',
    'FREQ=DAILY;INTERVAL=2;INTERVAL=3',
    'DAILY;FREQ=DAILY',
    'DAILY;WEEKLY',
    'FREQ=WEEKLY;BYDAY=MO;BYDAY=TU',
    // Unicode: look-alikes that upper-case to ASCII keywords, other scripts, controls.
    'FREQ=DAıLY', // dotless i upper-cases to I
    'FREQ=DAİLY',
    'ſ',
    'ＦREQ=DAILY',
    'FREQ=WEEKLY;BYDAY=MO，TU',
    'FREQ=DAILY;INTERVAL=２',
    'FREQ=DAILY;\u0000',
    'FREQ=DAILY\u200b',
    'FREQ=DAILY;\tINTERVAL=2',
    '📅 FREQ=DAILY',
    'PARENT\u0301',
    // Very long texts.
    `FREQ=DAILY;${'FROMCOMP;'.repeat(200)}`,
    'x'.repeat(1_000_000),
    `FREQ=DAILY;INTERVAL=${'9'.repeat(10_000)}`,
  ];
  for (const text of cases) {
    test(JSON.stringify(text.length > 60 ? `${text.slice(0, 40)}… (${text.length} characters)` : text), () => {
      assert.deepEqual(parseRepeat(text), { kind: 'unsupported' });
    });
  }

  test('a value that is not a string (a JavaScript caller passing null)', () => {
    assert.deepEqual(parseRepeat(null as unknown as string), { kind: 'unsupported' });
  });
});

describe('parseRepeat: what it returns', () => {
  test('is frozen, lists included, so one parse can be shared', () => {
    const spec = parseRepeat('FREQ=WEEKLY;BYDAY=MO,FR');
    assert.ok(Object.isFrozen(spec));
    assert.equal(spec.kind, 'rule');
    if (spec.kind === 'rule') assert.ok(Object.isFrozen(spec.byDay));
  });
});
