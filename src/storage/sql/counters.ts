import type { CountersRepo } from '../store.js';
import type { SqlDb } from './db.js';

/**
 * Fixed-window counters shared by every instance (rate limits). One row per key holds its current
 * window; a hit in a new window starts the count again. One statement per hit: the upsert takes the
 * row lock, so concurrent hits from several instances all count. A hit stamped with an older
 * window than the stored one (an instance whose clock is behind) counts in the stored window: it
 * never moves the window back, which would restart the count and let one client double its limit.
 */
export class SqlCounters implements CountersRepo {
  constructor(private readonly db: SqlDb) {}

  async hit(key: string, windowStart: number, windowEnd: number): Promise<number> {
    const row = await this.db.get<{ count: number }>(
      `INSERT INTO rate_counters (key, window_start, window_end, count) VALUES (?, ?, ?, 1)
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN excluded.window_start > rate_counters.window_start THEN 1 ELSE rate_counters.count + 1 END,
         window_start = CASE WHEN excluded.window_start > rate_counters.window_start THEN excluded.window_start ELSE rate_counters.window_start END,
         window_end = CASE WHEN excluded.window_start > rate_counters.window_start THEN excluded.window_end ELSE rate_counters.window_end END
       RETURNING count`,
      key,
      windowStart,
      windowEnd,
    );
    return Number((row as { count: number }).count);
  }

  async peek(key: string, windowStart: number): Promise<number> {
    const row = await this.db.get<{ count: number }>('SELECT count FROM rate_counters WHERE key = ? AND window_start >= ?', key, windowStart);
    return row ? Number(row.count) : 0;
  }

  async prune(nowSeconds: number): Promise<number> {
    return this.db.run('DELETE FROM rate_counters WHERE window_end <= ?', nowSeconds);
  }
}
