import { COUNTER_HITS_PER_STATEMENT, type CounterHits, type CountersRepo } from '../store.js';
import type { SqlDb } from './db.js';

const UPSERT = 'INSERT INTO rate_counters (key, window_start, window_end, count) VALUES';
// A hit in a later window starts the count again at its own count; any other adds to the held one.
const ON_CONFLICT = `ON CONFLICT (key) DO UPDATE SET
  count = CASE WHEN excluded.window_start > rate_counters.window_start THEN excluded.count ELSE rate_counters.count + excluded.count END,
  window_start = CASE WHEN excluded.window_start > rate_counters.window_start THEN excluded.window_start ELSE rate_counters.window_start END,
  window_end = CASE WHEN excluded.window_start > rate_counters.window_start THEN excluded.window_end ELSE rate_counters.window_end END`;

/**
 * Fixed-window counters shared by every instance (rate limits). One row per key holds its current
 * window; a hit in a new window starts the count again. One upsert per hit (or per batch of keys,
 * hitMany): it takes the row lock, so concurrent hits from several instances all count. A hit
 * stamped with an older window than the stored one (an instance whose clock is behind) counts in
 * the stored window: it never moves the window back, which would restart the count and let one
 * client double its limit.
 */
export class SqlCounters implements CountersRepo {
  constructor(private readonly db: SqlDb) {}

  async hit(key: string, windowStart: number, windowEnd: number, by = 1): Promise<number> {
    const row = await this.db.getRaw(`${UPSERT} (?, ?, ?, ?) ${ON_CONFLICT} RETURNING count`, key, windowStart, windowEnd, by);
    return Number((row as unknown[])[0]);
  }

  async hitMany(hits: readonly CounterHits[]): Promise<number[]> {
    if (hits.length === 0) return [];
    if (hits.length > COUNTER_HITS_PER_STATEMENT) throw new RangeError(`hitMany: ${hits.length} keys, at most ${COUNTER_HITS_PER_STATEMENT} in one statement`);
    // The rows are locked in key order, so that two instances' statements holding some of the
    // same keys cannot each wait for the other (a deadlock on PostgreSQL).
    const sorted = [...hits].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    // Its text varies with the number of keys: it is never kept prepared (SqlDb.allRawUnnamed).
    const rows = await this.db.allRawUnnamed(
      `${UPSERT} ${sorted.map(() => '(?, ?, ?, ?)').join(', ')} ${ON_CONFLICT} RETURNING key, count`,
      ...sorted.flatMap((h) => [h.key, h.windowStart, h.windowEnd, h.by]),
    );
    const counts = new Map(rows.map(([key, count]) => [String(key), Number(count)]));
    return hits.map((h) => counts.get(h.key) ?? 0);
  }

  async peek(key: string, windowStart: number): Promise<number> {
    const row = await this.db.get<{ count: number }>('SELECT count FROM rate_counters WHERE key = ? AND window_start >= ?', key, windowStart);
    return row ? Number(row.count) : 0;
  }

  async prune(nowSeconds: number): Promise<number> {
    return this.db.run('DELETE FROM rate_counters WHERE window_end <= ?', nowSeconds);
  }
}
