import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { accountDay } from './dates.js';

describe('accountDay', () => {
  // 2026-03-01 03:00 UTC: still February 28 in New York (UTC-5), March 1 in London.
  const t = Date.UTC(2026, 2, 1, 3, 0) / 1000;
  const at = (timezone: number, dateformat: number) => accountDay({ prefs: { timezone, dateformat } as never }, t);

  it('writes the day in each date format', () => {
    assert.deepEqual([0, 1, 2, 3].map((f) => at(10, f)), ['Mar 1, 2026', '03/01/2026', '01/03/2026', '2026-03-01']);
  });

  it("counts the account's timezone (half hours from UTC-5)", () => {
    assert.equal(at(0, 3), '2026-02-28', 'Eastern Standard Time');
    assert.equal(at(10, 3), '2026-03-01', 'UTC');
    assert.equal(at(-4, 3), '2026-02-28', 'UTC-7');
  });
});
