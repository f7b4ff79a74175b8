import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testDatabaseUrl, type DatabaseChoice } from '../database.js';
import { fuzzOverSockets } from './socket.js';

const pgUrl = testDatabaseUrl();

/** A fixed-seed slice of the socket fuzzer against a real `bin/tickler serve`, on each database. */
describe('fuzzer over sockets: requests cut off, bodies that lie, HTTP that is not HTTP', () => {
  const cases: Array<[string, DatabaseChoice | undefined]> = [
    ['SQLite', { kind: 'sqlite' }],
    ['PostgreSQL', pgUrl ? { kind: 'postgres', url: pgUrl } : undefined],
  ];
  for (const [name, database] of cases) {
    it(`${name}: every whole request answered without a 5xx or a leak, and the server still runs`, { skip: database ? false : 'TEST_DATABASE_URL is not set', timeout: 120_000 }, async () => {
      const figures = await fuzzOverSockets({ database: database as DatabaseChoice, seed: 20_260_516, requests: 120 });
      assert.equal(figures.failure, undefined, figures.failure);
      assert.equal(figures.exits, 0);
      assert.equal(figures.serverErrors, 0);
      assert.equal(figures.requests, 120);
    });
  }
});
