/**
 * Sets of days of one month as integers: bit i stands for day i + 1, so a month fits in bits
 * 0–30. Combining the conditions of a rule (its periodic pattern, BYMONTHDAY, BYDAY) is then one
 * `&` per condition, however long its list: the work per month stays constant.
 */

/** Bits lo…hi (0 ≤ lo, hi ≤ 30); 0 when hi < lo. */
export function bitRange(lo: number, hi: number): number {
  return hi < lo ? 0 : (-1 >>> (31 - hi)) & (-1 << lo);
}

/** The lowest set bit's index; x ≠ 0. */
export function lowestBit(x: number): number {
  return 31 - Math.clz32(x & -x);
}

export function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Bits first, first + 7, … up to 30: one weekday's days in a month whose first such day is day first + 1. */
const WEEKLY = Array.from({ length: 7 }, (_, first) => {
  let bits = 0;
  for (let i = first; i <= 30; i += 7) bits |= 1 << i;
  return bits;
});

/** `first` in 0–6. */
export function weeklyBits(first: number): number {
  return WEEKLY[first] ?? 0;
}

/** Appends the day of each set bit, in order, for a month whose first day is `start`. */
export function pushDays(bits: number, start: number, out: number[]): void {
  for (let b = bits; b !== 0; b &= b - 1) out.push(start + lowestBit(b));
}
