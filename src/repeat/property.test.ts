import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { propertySeed } from '../../test/seed.js';
import { civilFromDays, daysFromCivil } from './calendar.js';
import { nextOccurrence, parseRepeat } from './index.js';
import { WEEKDAY_CODES } from './parse.js';
import { firstOccurrenceAfter, isOccurrence, occurrencesBetween } from './reference.js';
import type { ByDay, Frequency, RuleSpec } from './types.js';

/**
 * For arbitrary supported rules and dates, the engine must agree with the naive reference in
 * reference.ts (which judges one day at a time) on the next due date and its occurrence number,
 * and the answer must keep the promises of the interface.
 */

const DAY = 86_400;
/** How far past the start the reference looks; rules rarer than this are only checked loosely. */
const HORIZON_DAYS = 3000;

interface Generated {
  readonly freq: Frequency;
  readonly interval: number;
  readonly byDay: ByDay[];
  readonly byMonthDay: number[];
  readonly byMonth: number[];
  readonly weekStart: number;
  readonly fromCompletion: boolean;
  readonly fastForward: boolean;
  readonly count: number | null;
  readonly untilOffset: number | null;
  readonly prefix: boolean;
  readonly lowerCase: boolean;
  readonly extensionsFirst: boolean;
}

const generated: fc.Arbitrary<Generated> = fc.record({
  freq: fc.constantFrom<Frequency>('DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'),
  interval: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 5 })),
  byDay: fc.uniqueArray(
    fc.record({
      weekday: fc.integer({ min: 0, max: 6 }),
      ordinal: fc.oneof(fc.constant(0), fc.integer({ min: -5, max: 5 }), fc.integer({ min: -53, max: 53 })),
    }),
    { maxLength: 3, selector: (d) => `${d.weekday}:${d.ordinal}` },
  ),
  byMonthDay: fc.uniqueArray(fc.integer({ min: -31, max: 31 }).filter((n) => n !== 0), { maxLength: 3 }),
  // All 12 months now and then: BYMONTH is then given, though it restricts nothing.
  byMonth: fc.oneof(
    { weight: 9, arbitrary: fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constant<number[]>([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) },
  ),
  weekStart: fc.integer({ min: 0, max: 6 }),
  fromCompletion: fc.boolean(),
  fastForward: fc.boolean(),
  count: fc.option(fc.integer({ min: 1, max: 40 }), { freq: 3 }),
  untilOffset: fc.option(fc.integer({ min: -30, max: 2000 }), { freq: 3 }),
  prefix: fc.boolean(),
  lowerCase: fc.boolean(),
  extensionsFirst: fc.boolean(),
});

const dates = fc.record({
  due: fc.integer({ min: daysFromCivil(1995, 1, 1), max: daysFromCivil(2035, 12, 31) }),
  completedOffset: fc.integer({ min: -60, max: 60 }),
  nowOffset: fc.integer({ min: -200, max: 1200 }),
  nowSecond: fc.integer({ min: 0, max: DAY - 1 }),
  occurrence: fc.integer({ min: 1, max: 5 }),
});

/** Drops what RFC 5545 forbids for the frequency, so every generated rule is a supported one. */
function supported(g: Generated, anchor: number): Omit<RuleSpec, 'kind'> {
  const dayLevel = g.freq === 'DAILY' || g.freq === 'WEEKLY';
  const byDay = new Map<string, ByDay>();
  for (const d of g.byDay) {
    const ordinal = dayLevel ? 0 : d.ordinal;
    byDay.set(`${d.weekday}:${ordinal}`, { weekday: d.weekday, ordinal });
  }
  const withUntil = g.count === null && g.untilOffset !== null;
  return {
    fromCompletion: g.fromCompletion,
    fastForward: g.fastForward,
    freq: g.freq,
    interval: g.interval,
    byDay: [...byDay.values()].sort((a, b) => a.weekday - b.weekday || a.ordinal - b.ordinal),
    byMonthDay: g.freq === 'WEEKLY' ? [] : [...g.byMonthDay].sort((a, b) => a - b),
    byMonth: [...g.byMonth].sort((a, b) => a - b),
    count: g.count,
    untilDay: withUntil ? anchor + (g.untilOffset ?? 0) : null,
    weekStart: g.weekStart,
  };
}

function ymd(day: number): string {
  const { y, m, d } = civilFromDays(day);
  return `${y}${String(m).padStart(2, '0')}${String(d).padStart(2, '0')}`;
}

/** The rule as a client might write it. */
function text(r: Omit<RuleSpec, 'kind'>, g: Generated): string {
  const day = (d: ByDay): string => `${d.ordinal === 0 ? '' : d.ordinal}${WEEKDAY_CODES[d.weekday]}`;
  const parts = [`FREQ=${r.freq}`];
  if (r.interval !== 1) parts.push(`INTERVAL=${r.interval}`);
  if (r.byDay.length > 0) parts.push(`BYDAY=${r.byDay.map(day).join(',')}`);
  if (r.byMonthDay.length > 0) parts.push(`BYMONTHDAY=${r.byMonthDay.join(',')}`);
  if (r.byMonth.length > 0) parts.push(`BYMONTH=${r.byMonth.join(',')}`);
  if (r.weekStart !== 0) parts.push(`WKST=${WEEKDAY_CODES[r.weekStart]}`);
  if (r.count !== null) parts.push(`COUNT=${r.count}`);
  if (r.untilDay !== null) parts.push(`UNTIL=${ymd(r.untilDay)}`);
  const extensions = [...(r.fromCompletion ? ['FROMCOMP'] : []), ...(r.fastForward ? ['FASTFORWARD'] : [])];
  const all = g.extensionsFirst ? [...extensions, ...parts] : [...parts, ...extensions];
  const body = `${g.prefix ? 'RRULE:' : ''}${all.join(';')}`;
  return g.lowerCase ? body.toLowerCase() : body;
}

describe('property: the engine agrees with a day-by-day reading of the rule', () => {
  test('next due date, occurrence number, COUNT and UNTIL', (t) => {
    const seed = propertySeed((m) => t.diagnostic(m));
    fc.assert(
      fc.property(generated, dates, (g, d) => {
        const completed = d.due + d.completedOffset;
        const anchor = g.fromCompletion ? completed : d.due;
        const expectedSpec = supported(g, anchor);
        const spec = parseRepeat(text(expectedSpec, g));
        assert.deepEqual(spec, { kind: 'rule', ...expectedSpec });
        if (spec.kind !== 'rule') return;

        const today = anchor + d.nowOffset;
        const input = { due: d.due * DAY + 43_200, completed: completed * DAY + 43_200, now: today * DAY + d.nowSecond, occurrence: d.occurrence };
        const result = nextOccurrence(spec, input);

        // The promises of the interface, whatever the reference says.
        if (result.kind === 'next') {
          const day = (result.due - 43_200) / DAY;
          assert.equal(result.due % DAY, 43_200, 'at 12:00:00 GMT');
          assert.ok(Number.isInteger(day));
          assert.ok(day > anchor, 'strictly after the anchor (due, or completion with FROMCOMP)');
          if (spec.fastForward) assert.ok(day > today, 'with FASTFORWARD, on a day after today');
          assert.ok(isOccurrence(spec, anchor, day), 'on the rule');
          if (spec.untilDay !== null) assert.ok(day <= spec.untilDay, 'not after UNTIL');
          if (spec.count !== null) assert.ok(result.occurrence <= spec.count, 'within COUNT');
        } else {
          assert.equal(result.kind, 'done');
        }

        // The same answer, worked out one day at a time.
        const start = spec.fastForward ? Math.max(anchor, today) : anchor;
        const first = firstOccurrenceAfter(spec, anchor, start, HORIZON_DAYS);
        if (first === null) {
          // Rarer than the horizon: nothing in it, so anything the engine found lies beyond.
          if (result.kind === 'next') assert.ok((result.due - 43_200) / DAY > start + HORIZON_DAYS);
          return;
        }
        const occurrence = d.occurrence + occurrencesBetween(spec, anchor, anchor, start).length + 1;
        const done = (spec.count !== null && occurrence > spec.count) || (spec.untilDay !== null && first > spec.untilDay);
        assert.deepEqual(result, done ? { kind: 'done' } : { kind: 'next', due: first * DAY + 43_200, occurrence });
      }),
      { seed, numRuns: 400 },
    );
  });

  test('a chain of completions visits exactly the reference occurrences, in order', (t) => {
    const seed = propertySeed((m) => t.diagnostic(m));
    fc.assert(
      fc.property(generated, fc.integer({ min: daysFromCivil(2000, 1, 1), max: daysFromCivil(2030, 12, 31) }), (g, due) => {
        const plain = { ...g, fromCompletion: false, fastForward: false, count: null, untilOffset: null };
        const spec = parseRepeat(text(supported(plain, due), plain));
        assert.equal(spec.kind, 'rule');
        if (spec.kind !== 'rule') return;
        // Re-anchoring at each new due date must not drift from the series anchored at the first:
        // the same dates up to the horizon, none left out and none added (also when there are none).
        const horizon = due + 400;
        const expected = occurrencesBetween(spec, due, due, horizon);
        const seen: number[] = [];
        let current = due;
        // Each answer lies after the last, so this ends; one date more than expected already fails.
        while (seen.length <= expected.length) {
          const r = nextOccurrence(spec, { due: current * DAY + 43_200, completed: current * DAY + 43_200, now: 0, occurrence: 1 });
          if (r.kind !== 'next') break;
          current = (r.due - 43_200) / DAY;
          if (current > horizon) break;
          seen.push(current);
        }
        assert.deepEqual(seen, expected);
      }),
      { seed, numRuns: 150 },
    );
  });
});
