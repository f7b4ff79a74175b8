import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DISABLE_AFTER_SECONDS, longestDelay, MAX_ATTEMPTS, retryDelay } from './schedule.js';

describe('the retry schedule of webhook deliveries', () => {
  it('makes at least 8 attempts over at least 24 hours, each wait longer than the one before', () => {
    assert.ok(MAX_ATTEMPTS >= 8, `${MAX_ATTEMPTS} attempts`);
    const waits = Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => retryDelay(i + 1, 0));
    assert.ok(waits.reduce((a, b) => a + b, 0) >= 24 * 3600, `${waits.join(', ')} seconds`);
    for (let i = 1; i < waits.length; i++) assert.ok((waits[i] as number) > (waits[i - 1] as number), 'exponential, not flat');
    assert.equal(waits[0], 5, 'a receiver that hiccuped is tried again within seconds');
  });

  it('adds up to a tenth at random, never less than the base', () => {
    assert.equal(retryDelay(2, 0), 60);
    assert.equal(retryDelay(2, 0.5), 63);
    assert.equal(longestDelay(2), 65);
    assert.equal(retryDelay(99, 0), 43200, 'past the table: its last wait');
  });

  it('disables an endpoint after three days of failures', () => {
    assert.equal(DISABLE_AFTER_SECONDS, 3 * 86400);
  });
});
