import { Budget, BudgetExhausted } from './budget.js';
import { dayOfTimestamp, FIRST_DAY, LAST_DAY, noonOfDay } from './calendar.js';
import { anchorRule } from './compile.js';
import type { NextInput, NextResult, RepeatSpec } from './types.js';

const DONE: NextResult = Object.freeze({ kind: 'done' });
const UNSUPPORTED: NextResult = Object.freeze({ kind: 'unsupported' });

/** The answer and the steps it took from the budget (tests assert on the steps; see budget.ts). */
export interface CountedResult {
  readonly result: NextResult;
  readonly steps: number;
}

export function nextOccurrence(spec: RepeatSpec, input: NextInput): NextResult {
  return nextOccurrenceCounted(spec, input).result;
}

export function nextOccurrenceCounted(spec: RepeatSpec, input: NextInput, budget = new Budget()): CountedResult {
  try {
    return { result: next(spec, input, budget), steps: budget.used };
  } catch (e) {
    // Out of steps: the rule has no further occurrence within the caps.
    if (e instanceof BudgetExhausted) return { result: DONE, steps: budget.used };
    throw e;
  }
}

function next(spec: RepeatSpec, input: NextInput, budget: Budget): NextResult {
  if (spec.kind !== 'rule') return UNSUPPORTED;
  const anchorTime = spec.fromCompletion ? input.completed : input.due;
  if (!Number.isFinite(anchorTime)) return DONE;
  const anchor = dayOfTimestamp(anchorTime);
  if (anchor < FIRST_DAY || anchor >= LAST_DAY) return DONE;

  // A missing or nonsensical count of used occurrences is read as "the first".
  const used = Number.isFinite(input.occurrence) && input.occurrence >= 1 ? Math.floor(input.occurrence) : 1;
  // How many occurrences may be skipped and still leave one for the new due date.
  const spare = spec.count === null ? Infinity : spec.count - used - 1;
  if (spare < 0) return DONE;

  // FASTFORWARD: the result must fall after today (UTC) as well as after the anchor.
  let after = anchor;
  if (spec.fastForward) {
    if (!Number.isFinite(input.now)) return DONE;
    after = Math.max(anchor, dayOfTimestamp(input.now));
  }
  if (after >= LAST_DAY || (spec.untilDay !== null && after >= spec.untilDay)) return DONE;

  const series = anchorRule(spec, anchor);
  if (series === null) return DONE;
  const skipped = after > anchor ? series.countAfterAnchor(after, spare, budget) : 0;
  if (skipped > spare) return DONE;
  const day = series.next(after, budget);
  if (day === null || (spec.untilDay !== null && day > spec.untilDay)) return DONE;
  return { kind: 'next', due: noonOfDay(day), occurrence: used + skipped + 1 };
}
