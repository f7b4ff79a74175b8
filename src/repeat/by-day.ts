import { bitRange, weeklyBits } from './bits.js';
import { mod, weekday } from './calendar.js';
import type { ByDay } from './types.js';

/**
 * The days of one month that match a BYDAY list, as month bits (bits.ts). Ordinals count within
 * a scope holding the month, [scopeStart, scopeEnd]: the month itself, or its year for a YEARLY
 * rule without BYMONTH (RFC 5545 3.3.10); from the scope's start when positive, from its end when
 * negative. Each entry is a constant amount of work (a shifted mask, or one day), which is what
 * the engine charges its budget for (budget.ts).
 */
export function byDayBits(entries: readonly ByDay[], start: number, length: number, scopeStart: number, scopeEnd: number): number {
  const end = start + length - 1;
  const monthFirst = weekday(start);
  const scopeFirst = weekday(scopeStart);
  const scopeLast = weekday(scopeEnd);
  let bits = 0;
  for (const { weekday: w, ordinal } of entries) {
    if (ordinal === 0) {
      bits |= weeklyBits(mod(w - monthFirst, 7));
      continue;
    }
    const d =
      ordinal > 0 ? scopeStart + mod(w - scopeFirst, 7) + 7 * (ordinal - 1) : scopeEnd - mod(scopeLast - w, 7) + 7 * (ordinal + 1);
    // The scope holds the month, so a day inside the month is inside the scope too.
    if (d >= start && d <= end) bits |= 1 << (d - start);
  }
  return bits & bitRange(0, length - 1);
}
