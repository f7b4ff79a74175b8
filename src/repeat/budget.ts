/**
 * The hard cap on work per call. Every loop of the engine takes from one budget; when it runs out
 * the call answers `done` instead of searching on. A step is one month, one year or one candidate
 * day examined, each a handful of arithmetic operations, so the cap bounds the time of any call.
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

  take(steps = 1): void {
    this.used += steps;
    if (this.used > this.max) throw new BudgetExhausted();
  }
}
