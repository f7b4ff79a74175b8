import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SCENARIOS, runOrder, withPostgres } from './scenarios.js';

describe('the benchmark: the order of a round', () => {
  for (const [name, scenarios] of [['SQLite', SCENARIOS], ['with PostgreSQL', withPostgres(SCENARIOS)]] as const) {
    it(`runs every scenario once, each baseline right after the scenario whose answer it serves (${name})`, () => {
      const order = runOrder(scenarios);
      assert.equal(order.length, scenarios.length);
      assert.deepEqual(new Set(order), new Set(scenarios));
      for (const [i, s] of order.entries()) {
        if (s.bodyOf === undefined) continue;
        // Only baselines of the same Tickler answer (the other baselines of that scenario) between them.
        const served = order.findIndex((t) => t.name === s.bodyOf);
        assert.ok(served >= 0 && served < i, `${s.name} after ${s.bodyOf}`);
        assert.ok(order.slice(served + 1, i).every((b) => b.bodyOf === s.bodyOf), `${s.name} right after ${s.bodyOf}`);
      }
    });
  }
});
