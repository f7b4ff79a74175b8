import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase } from '../../test/database.js';
import { parseDatabaseUrl } from '../config.js';
import { rateLimiterContract } from '../lib/rate-limiter.contract.js';
import type { RateLimiter } from '../lib/rate-limiter.js';
import { openStore } from './open.js';
import type { Store } from './store.js';
import { BatchedRateLimiter } from './batched-rate-limiter.js';
import { StoreRateLimiter } from './store-rate-limiter.js';

const where = process.env['TEST_STORE'] === 'postgres' ? 'postgres' : 'sqlite';

async function openLimiter(make: (store: Store) => RateLimiter): Promise<{ limiter: RateLimiter; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'tickler-limiter-'));
  const database = await freshDatabase(dir);
  const store = await openStore(parseDatabaseUrl(database.url, 'DATABASE_URL', 3));
  await store.migrate();
  const limiter = make(store);
  return {
    limiter,
    async close() {
      await limiter.close?.();
      await store.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// The database-backed limiters, which instances sharing PostgreSQL use, held to the same cases as
// the in-memory one: on SQLite here, on PostgreSQL in the second pass (TEST_STORE=postgres). The
// batched one writes the contract's small limits hit by hit and its limit of 640 in batches.
rateLimiterContract(`database-backed (${where})`, () => openLimiter((store) => new StoreRateLimiter(store)));
rateLimiterContract(`database-backed in batches (${where})`, () => openLimiter((store) => new BatchedRateLimiter(store.counters)));
