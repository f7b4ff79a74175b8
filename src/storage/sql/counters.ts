import type { CounterHits, CountersRepo } from '../store.js';
import type { SqlDb } from './db.js';

const UPSERT = 'INSERT INTO rate_counters (key, window_start, window_end, count) VALUES';
// A hit in a later window starts the count again at its own count; any other adds to the held one.
const ON_CONFLICT = `ON CONFLICT (key) DO UPDATE SET
  count = CASE WHEN excluded.window_start > rate_counters.window_start THEN excluded.count ELSE rate_counters.count + excluded.count END,
  window_start = CASE WHEN excluded.window_start > rate_counters.window_start THEN excluded.window_start ELSE rate_counters.window_start END,
  window_end = CASE WHEN excluded.window_start > rate_counters.window_start THEN excluded.window_end ELSE rate_counters.window_end END`;
/** Keys per statement of hitMany: 4 parameters each, far below either database's limit. */
const HITS_PER_STATEMENT = 250;

/**
 * Fixed-window counters shared by every instance (rate limits). One row per key holds its current
 * window; a hit in a new window starts the count again. One statement per hit: the upsert takes the
 * row lock, so concurrent hits from several instances all count. A hit stamped with an older
 * window than the stored one (an instance whose clock is behind) counts in the stored window: it
 * never moves the window back, which would restart the count and let one client double its limit.
 */
export class SqlCounters implements CountersRepo {
  constructor(private readonly db: SqlDb) {}

  async hit(key: string, windowStart: number, windowEnd: number, by = 1): Promise<number> {
    const row = await this.db.getRaw(`${UPSERT} (?, ?, ?, ?) ${ON_CONFLICT} RETURNING count`, key, windowStart, windowEnd, by);
    return Number((row as unknown[])[0]);
  }

  async hitMany(hits: readonly CounterHits[]): Promise<number[]> {
    const counts = new Map<string, number>();
    // Rows are locked in key order, in every statement of every instance, so that two flushes
    // holding some of the same keys cannot each wait for the other (a deadlock on PostgreSQL).
    const sorted = [...hits].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (let i = 0; i < sorted.length; i += HITS_PER_STATEMENT) {
      const part = sorted.slice(i, i + HITS_PER_STATEMENT);
      const values = part.map(() => '(?, ?, ?, ?)').join(', ');
      // Its text varies with the number of keys: it is never kept prepared (SqlDb.allRawUnnamed).
      const rows = await this.db.allRawUnnamed(
        `${UPSERT} ${values} ${ON_CONFLICT} RETURNING key, count`,
        ...part.flatMap((h) => [h.key, h.windowStart, h.windowEnd, h.by]),
      );
      for (const [key, count] of rows) counts.set(String(key), Number(count));
    }
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
