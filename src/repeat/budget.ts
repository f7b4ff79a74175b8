/**
 * The hard cap on work per call. Every loop of the engine pays from one budget before it works;
 * when the budget cannot pay, the call answers `done` instead of searching on. A step is a piece
 * of work of bounded cost: visiting one month or one year (the loops over periods), or applying one
 * BYDAY entry to a month. Everything else a month needs is a few integer operations on month bits
 * (bits.ts), whatever the rule's lists hold. So the cap bounds the time of any call; the cost at
 * the cap is measured by `npm run bench` (docs/repeat.md, Limits).
 */
export const MAX_STEPS = 5_000;

export class BudgetExhausted extends Error {
  constructor() {
    super('repeat engine step budget exhausted');
  }
}

export class Budget {
  used = 0;
  constructor(private readonly max: number = MAX_STEPS) {}

  /** Pays for the next `steps` of work; refuses, paying nothing, what would pass the cap. */
  take(steps = 1): void {
    if (this.used + steps > this.max) throw new BudgetExhausted();
    this.used += steps;
  }
}
