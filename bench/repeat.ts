/**
 * Cost of the repeat engine, in process: the average CPU time of one nextOccurrence() call (reading
 * the rule once, outside the loop), after a warm-up. CPU time rather than wall-clock time, so that
 * other processes on a shared machine inflate it less; still, read the figures as orders of
 * magnitude. Typical rules first, then hostile ones that would loop for a long time in a naive
 * engine, then calls that run out of steps (docs/repeat.md, Limits): the last is the most
 * expensive call found, and so the bound on any call.
 */
import { nextOccurrence, parseRepeat, type NextInput } from '../src/repeat/index.js';
import { EVERY_MONTH_DAY, LONG_BYDAY, noon } from '../src/repeat/test-dates.js';

interface Case {
  readonly label: string;
  readonly rule: string;
  /** Due date, 'YYYY-MM-DD'. */
  readonly due: string;
}

const NOW = Date.UTC(2026, 0, 15, 9, 30) / 1000;
/** CPU time spent calling before measuring, and measuring: V8 optimises the engine during the first. */
const WARM_UP_MICROS = 100_000;
const MEASURE_MICROS = 100_000;

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
  { label: 'hostile: impossible DAILY;BYMONTH=2;BYMONTHDAY=30', rule: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30', due: '2026-01-15' },
  { label: 'hostile: DAILY;INTERVAL=1000000', rule: 'FREQ=DAILY;INTERVAL=1000000', due: '2026-01-15' },
  { label: 'hostile: YEARLY from 9999-06-01 (done)', rule: 'FREQ=YEARLY', due: '9999-06-01' },
  { label: 'long span: MONTHLY;BYMONTHDAY=31;FASTFORWARD from 1900', rule: 'FREQ=MONTHLY;BYMONTHDAY=31;FASTFORWARD', due: '1900-01-31' },
  { label: 'long list: MONTHLY;BYDAY=(161 entries);FASTFORWARD from 2025-01-01', rule: `FREQ=MONTHLY;BYDAY=${LONG_BYDAY};FASTFORWARD`, due: '2025-01-01' },
  { label: 'step cap: WEEKLY;INTERVAL=2;BYMONTH=6;FASTFORWARD from 0001 (done)', rule: 'FREQ=WEEKLY;INTERVAL=2;BYMONTH=6;FASTFORWARD', due: '0001-01-01' },
  { label: 'step cap: MONTHLY;INTERVAL=5;BYDAY=(161 entries);FASTFORWARD from 0001 (done)', rule: `FREQ=MONTHLY;INTERVAL=5;BYDAY=${LONG_BYDAY};FASTFORWARD`, due: '0001-01-01' },
  {
    label: 'step cap: DAILY;INTERVAL=2;BYMONTH=1…11;BYMONTHDAY=1…31;FASTFORWARD from 0001 (done)',
    rule: `FREQ=DAILY;INTERVAL=2;BYMONTH=1,2,3,4,5,6,7,8,9,10,11;BYMONTHDAY=${EVERY_MONTH_DAY};FASTFORWARD`,
    due: '0001-01-01',
  },
  { label: 'step cap: MONTHLY;INTERVAL=5;BYMONTHDAY=31;FASTFORWARD from 0001 (done)', rule: 'FREQ=MONTHLY;INTERVAL=5;BYMONTHDAY=31;FASTFORWARD', due: '0001-01-31' },
  // Every 100th day on any weekday: a 700-day pattern of 7 residues, so each month walked is one
  // jump and the most work per step found (the cost of this call bounds any call).
  {
    label: 'step cap, most expensive: DAILY;INTERVAL=100;BYDAY=MO…SU;BYMONTH=1…11;BYMONTHDAY=1…31;FASTFORWARD from 0001 (done)',
    rule: `FREQ=DAILY;INTERVAL=100;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYMONTH=1,2,3,4,5,6,7,8,9,10,11;BYMONTHDAY=${EVERY_MONTH_DAY};FASTFORWARD`,
    due: '0001-01-01',
  },
];

function cpuMicros(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return used.user + used.system;
}

/** Calls in batches of 100 (reading the CPU clock costs more than a typical call) for `micros`. */
function run(call: () => number, micros: number): { calls: number; elapsed: number; sink: number } {
  let calls = 0;
  let sink = 0;
  const start = process.cpuUsage();
  let elapsed = 0;
  while (elapsed < micros) {
    for (let i = 0; i < 100; i++) sink += call();
    calls += 100;
    elapsed = cpuMicros(start);
  }
  return { calls, elapsed, sink };
}

function microsPerCall(c: Case): number {
  const spec = parseRepeat(c.rule);
  const due = noon(c.due);
  const input: NextInput = { due, completed: due, now: NOW, occurrence: 1 };
  const call = (): number => nextOccurrence(spec, input).kind.length;
  const warm = run(call, WARM_UP_MICROS);
  const measured = run(call, MEASURE_MICROS);
  if (warm.sink + measured.sink === 0) throw new Error('unreachable: keeps the calls from being optimised away');
  return measured.elapsed / measured.calls;
}

export function repeatBench(): string[] {
  const lines = ['| rule | CPU µs per call |', '|---|---:|'];
  for (const c of CASES) lines.push(`| ${c.label} (due ${c.due}) | ${microsPerCall(c).toFixed(2)} |`);
  return lines;
}
