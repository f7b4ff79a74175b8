import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase } from '../../test/database.js';
import { parseDatabaseUrl } from '../config.js';
import { rateLimiterContract } from '../lib/rate-limiter.contract.js';
import { openStore } from './open.js';
import { StoreRateLimiter } from './store-rate-limiter.js';

// The database-backed limiter, which instances sharing PostgreSQL use, held to the same cases as
// the in-memory one: on SQLite here, on PostgreSQL in the second pass (TEST_STORE=postgres).
rateLimiterContract(`database-backed (${process.env['TEST_STORE'] === 'postgres' ? 'postgres' : 'sqlite'})`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tickler-limiter-'));
  const database = await freshDatabase(dir);
  const store = await openStore(parseDatabaseUrl(database.url, 'DATABASE_URL', 3));
  await store.migrate();
  return {
    limiter: new StoreRateLimiter(store),
    async close() {
      await store.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
