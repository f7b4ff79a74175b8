/**
 * Cost of the repeat engine, in process: the average time of one nextOccurrence() call (reading
 * the rule once, outside the loop), after a warm-up. Typical rules first, then hostile ones that
 * would loop for a long time in a naive engine. Figures are wall-clock on a shared machine: read
 * them as orders of magnitude.
 */
import { nextOccurrence, parseRepeat, type NextInput } from '../src/repeat/index.js';

interface Case {
  readonly label: string;
  readonly rule: string;
  /** Due date, 'YYYY-MM-DD'. */
  readonly due: string;
}

const NOW = Date.UTC(2026, 0, 15, 9, 30) / 1000;
const WARM_UP_CALLS = 2_000;
const MEASURE_NS = 100_000_000n;

const CASES: readonly Case[] = [
  { label: 'DAILY', rule: 'FREQ=DAILY', due: '2026-01-15' },
  { label: 'WEEKLY;BYDAY=MO,WE,FR', rule: 'FREQ=WEEKLY;BYDAY=MO,WE,FR', due: '2026-01-15' },
  { label: 'MONTHLY;BYDAY=-1FR', rule: 'FREQ=MONTHLY;BYDAY=-1FR', due: '2026-01-30' },
  { label: 'MONTHLY;BYMONTHDAY=31', rule: 'FREQ=MONTHLY;BYMONTHDAY=31', due: '2026-01-31' },
  { label: 'YEARLY from Feb 29 (→ 2104)', rule: 'FREQ=YEARLY', due: '2096-02-29' },
  { label: 'hostile: DAILY;FASTFORWARD from 1900', rule: 'FREQ=DAILY;FASTFORWARD', due: '1900-01-01' },
  { label: 'hostile: DAILY;COUNT=1000000000', rule: 'FREQ=DAILY;COUNT=1000000000', due: '2026-01-15' },
  { label: 'hostile: COUNT=1000000000;FASTFORWARD from 1900', rule: 'FREQ=DAILY;COUNT=1000000000;FASTFORWARD', due: '1900-01-01' },
  { label: 'hostile: impossible YEARLY;BYMONTH=2;BYMONTHDAY=30', rule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', due: '2026-01-15' },
  { label: 'hostile: impossible MONTHLY;BYMONTH=2;BYMONTHDAY=30', rule: 'FREQ=MONTHLY;BYMONTH=2;BYMONTHDAY=30', due: '2026-01-15' },
  { label: 'hostile: DAILY;INTERVAL=1000000', rule: 'FREQ=DAILY;INTERVAL=1000000', due: '2026-01-15' },
  { label: 'hostile: YEARLY from 9999-06-01 (done)', rule: 'FREQ=YEARLY', due: '9999-06-01' },
  { label: 'long span: MONTHLY;BYMONTHDAY=31;FASTFORWARD from 1900', rule: 'FREQ=MONTHLY;BYMONTHDAY=31;FASTFORWARD', due: '1900-01-31' },
  { label: 'step cap: WEEKLY;INTERVAL=2;BYMONTH=6;FASTFORWARD from 0001 (done)', rule: 'FREQ=WEEKLY;INTERVAL=2;BYMONTH=6;FASTFORWARD', due: '0001-01-01' },
];

function noonOf(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d);
  return t.getTime() / 1000 + 43_200;
}

function microsPerCall(c: Case): number {
  const spec = parseRepeat(c.rule);
  const due = noonOf(c.due);
  const input: NextInput = { due, completed: due, now: NOW, occurrence: 1 };
  let sink = 0;
  for (let i = 0; i < WARM_UP_CALLS; i++) sink += nextOccurrence(spec, input).kind.length;
  let calls = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0n;
  while (elapsed < MEASURE_NS) {
    for (let i = 0; i < 100; i++) sink += nextOccurrence(spec, input).kind.length;
    calls += 100;
    elapsed = process.hrtime.bigint() - start;
  }
  if (sink === 0) throw new Error('unreachable: keeps the calls from being optimised away');
  return Number(elapsed) / 1000 / calls;
}

export function repeatBench(): string[] {
  const lines = ['| rule | µs per call |', '|---|---:|'];
  for (const c of CASES) lines.push(`| ${c.label} (due ${c.due}) | ${microsPerCall(c).toFixed(2)} |`);
  return lines;
}
