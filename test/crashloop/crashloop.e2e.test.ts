import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testDatabaseUrl, type DatabaseChoice } from '../database.js';
import { crashLoop } from './engine.js';

const pgUrl = testDatabaseUrl();

/** A fixed-seed slice of the crash loop: a real `bin/tickler serve` killed with SIGKILL mid-batch. */
describe('crash loop: kill -9 during batches of writes', () => {
  const cases: Array<[string, DatabaseChoice | undefined, number]> = [
    ['SQLite', { kind: 'sqlite' }, 5],
    ['PostgreSQL', pgUrl ? { kind: 'postgres', url: pgUrl } : undefined, 3],
  ];
  for (const [name, database, kills] of cases) {
    // Bounded by the number of kills; the time bound only keeps a hung run from lasting forever
    // (on a loaded machine five kills have taken more than 60 s).
    it(`${name}: after every restart each acknowledged write is there, whole and current`, { skip: database ? false : 'TEST_DATABASE_URL is not set', timeout: 400_000 }, async () => {
      const f = await crashLoop({ database: database as DatabaseChoice, seed: 20_260_517, kills, seconds: 300, killsPerAccount: 2 });
      assert.equal(f.failure, undefined, f.failure);
      assert.equal(f.kills, kills);
      assert.equal(f.lost, 0);
      assert.ok(f.acknowledged > 0, 'writes were acknowledged');
      assert.ok(f.accounts >= 2, 'the account changed, and the first ones were checked again at the end');
    });
  }
});
