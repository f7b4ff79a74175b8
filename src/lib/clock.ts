/** Time source. Services never call Date.now() directly, so tests can move time. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests and benchmarks. */
export class ManualClock implements Clock {
  /**
   * Milliseconds to move on at each reading, after it is taken (none by default): time that
   * passes while requests run, so that a second can end in the middle of one.
   */
  tick: (() => number) | undefined;

  constructor(private ms: number = Date.UTC(2026, 0, 15, 9, 30, 0)) {}
  now(): number {
    const ms = this.ms;
    if (this.tick) this.ms += this.tick();
    return ms;
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
 * Next value of a change stamp (lastedit_*, lastdelete_*, a record's `modified`): the clock's
 * second, read after the write locked its account; never below the stamp already stored, so a
 * stamp never moves back (an account whose stamps an older version ran ahead of the clock keeps
 * them until the clock catches up). Two writes in one second share it: account/get reports no
 * second that writes may still be stamped with (reportedStamp), so a client that synced between
 * them misses neither (docs/decisions/0003-change-stamps.md). The account's stamps move by this
 * same rule written in SQL (accounts.touch in src/storage/sql/accounts.ts).
 */
export function nextStamp(previous: number, nowSeconds: number): number {
  return nowSeconds > previous ? nowSeconds : previous;
}

/**
 * How far instances' clocks may disagree: every instance on one PostgreSQL database stamps with
 * its own clock (kept right by NTP, which holds them within milliseconds of each other).
 */
export const CLOCK_SKEW_SECONDS = 1;

/**
 * A stamp as account/get reports it. `asOfMs` is the clock just before account/get read the
 * settled account (Store.settledAccount): every write that read did not show takes a stamp of that
 * second or later, on any instance whose clock is within CLOCK_SKEW_SECONDS. Reporting nothing
 * later than the second before that (minus the skew) means a client that saves the reported value
 * and later fetches `after=` it gets each of those writes.
 */
export function reportedStamp(stamp: number, asOfMs: number): number {
  return Math.min(stamp, Math.floor(asOfMs / 1000) - 1 - CLOCK_SKEW_SECONDS);
}

/** The first moment (ms) from which a read reports `stamp` in full: reportedStamp(stamp, t) = stamp for t ≥ this. */
export function settlesAtMs(stamp: number): number {
  return (stamp + 1 + CLOCK_SKEW_SECONDS) * 1000;
}
