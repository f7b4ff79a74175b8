/** The data shapes of the repeat engine; `index.ts` re-exports the public ones. */

export type Frequency = 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';

/** One BYDAY entry: `weekday` 0 = Monday … 6 = Sunday; `ordinal` 0 = every such weekday, else ±1…±53. */
export interface ByDay {
  readonly weekday: number;
  readonly ordinal: number;
}

/** A repeat rule the engine understands. Lists are sorted, without duplicates; empty = part absent. */
export interface RuleSpec {
  readonly kind: 'rule';
  readonly fromCompletion: boolean;
  readonly fastForward: boolean;
  readonly freq: Frequency;
  readonly interval: number;
  readonly byDay: readonly ByDay[];
  readonly byMonthDay: readonly number[];
  readonly byMonth: readonly number[];
  /** COUNT, or null. */
  readonly count: number | null;
  /** UNTIL's UTC date as a day number (days since 1970-01-01), or null. */
  readonly untilDay: number | null;
  /** WKST, 0 = Monday … 6 = Sunday. */
  readonly weekStart: number;
}

export type RepeatSpec =
  | { readonly kind: 'none' }
  | { readonly kind: 'parent' }
  | RuleSpec
  | { readonly kind: 'unsupported' };

export interface NextInput {
  /** Current due date: Unix seconds at 12:00:00 GMT of the due day. */
  readonly due: number;
  /** Completion date: Unix seconds at 12:00:00 GMT of the completion day. */
  readonly completed: number;
  /** The current time, Unix seconds. FASTFORWARD moves to the first occurrence on a day after today's UTC date. */
  readonly now: number;
  /** Occurrences of the series used up so far, counting the current one (1 for a task that never repeated yet). */
  readonly occurrence: number;
}

export type NextResult =
  | { readonly kind: 'next'; readonly due: number; readonly occurrence: number }
  | { readonly kind: 'done' }
  | { readonly kind: 'unsupported' };
