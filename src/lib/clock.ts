/** Time source. Services never call Date.now() directly, so tests can move time. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests and benchmarks. */
export class ManualClock implements Clock {
  constructor(private ms: number = Date.UTC(2026, 0, 15, 9, 30, 0)) {}
  now(): number {
    return this.ms;
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}

/** Whole Unix seconds, the unit of every timestamp in the API. */
export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}

/**
 * Next value of a change stamp (lastedit_*, lastdelete_*, a record's `modified`).
 * Stamps are whole seconds, so two writes in one second would share a stamp and a client that
 * synced between them would miss the second. Each new stamp is therefore strictly greater than
 * the previous one of its kind, even when that means running a second or two ahead of the clock
 * under a burst of writes (see docs/decisions/0003-change-stamps.md). The account's stamps move
 * by this same rule written in SQL (accounts.touch in src/storage/sql/accounts.ts).
 */
export function nextStamp(previous: number, nowSeconds: number): number {
  return nowSeconds > previous ? nowSeconds : previous + 1;
}
