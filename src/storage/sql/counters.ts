import type { CountersRepo } from '../store.js';
import type { SqlDb } from './db.js';

/**
 * Fixed-window counters shared by every instance (rate limits). One row per key holds its current
 * window; a hit in a new window starts the count again. One statement per hit: the upsert takes the
 * row lock, so concurrent hits from several instances all count.
 */
export class SqlCounters implements CountersRepo {
  constructor(private readonly db: SqlDb) {}

  async hit(key: string, windowStart: number, windowEnd: number): Promise<number> {
    const row = await this.db.get<{ count: number }>(
      `INSERT INTO rate_counters (key, window_start, window_end, count) VALUES (?, ?, ?, 1)
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN rate_counters.window_start = excluded.window_start THEN rate_counters.count + 1 ELSE 1 END,
         window_start = excluded.window_start,
         window_end = excluded.window_end
       RETURNING count`,
      key,
      windowStart,
      windowEnd,
    );
    return Number((row as { count: number }).count);
  }

  async peek(key: string, windowStart: number): Promise<number> {
    const row = await this.db.get<{ count: number }>('SELECT count FROM rate_counters WHERE key = ? AND window_start = ?', key, windowStart);
    return row ? Number(row.count) : 0;
  }

  async prune(nowSeconds: number): Promise<number> {
    return this.db.run('DELETE FROM rate_counters WHERE window_end <= ?', nowSeconds);
  }
}
