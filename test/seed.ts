import { randomInt } from 'node:crypto';

/**
 * The seed of a property test: a new one each run, so that the runs of every day together try
 * far more cases than one run; printed (a test diagnostic, shown by the spec reporter) so that a
 * failure can be replayed with TEST_SEED=<seed>, which pins it. fast-check's own failure message
 * carries the seed and the shrunk counterexample too.
 */
export function propertySeed(diagnostic: (message: string) => void): number {
  const pinned = process.env['TEST_SEED'];
  const seed = pinned !== undefined && pinned !== '' ? Number(pinned) : randomInt(2 ** 31);
  diagnostic(`seed ${seed}${pinned ? ' (pinned by TEST_SEED)' : ': TEST_SEED=' + String(seed) + ' replays this run'}`);
  return seed;
}
