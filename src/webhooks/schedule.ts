/**
 * When a failed delivery is tried again (docs/decisions/0026-push.md): back-off that grows about
 * fivefold at first and then doubles, from 5 seconds to 12 hours, with up to a tenth more at
 * random so that the deliveries of one outage do not all come back in the same second. Ten attempts
 * over about 27.6 hours; a receiver down for a day still gets the last ones.
 */

/** Seconds after attempt n (1-based) before attempt n + 1. */
const DELAYS = [5, 60, 300, 1800, 3600, 7200, 14400, 28800, 43200] as const;

/** Attempts of one delivery before it is given up (its changes stay in the feed). */
export const MAX_ATTEMPTS = DELAYS.length + 1;

/** An endpoint whose attempts have all failed for this long is disabled. */
export const DISABLE_AFTER_SECONDS = 3 * 86400;

/** The delay after attempt `n`, with its random tenth (`random` in [0, 1)). */
export function retryDelay(n: number, random: number = Math.random()): number {
  const base = DELAYS[Math.min(Math.max(n, 1), DELAYS.length) - 1] as number;
  return base + Math.floor(base * 0.1 * random);
}

/** The delay after attempt `n` at its longest: what a test moves the clock by. */
export function longestDelay(n: number): number {
  return retryDelay(n, 0.999999);
}
