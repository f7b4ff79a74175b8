import Database from 'better-sqlite3';
import pg from 'pg';

/**
 * Whether the server has a write transaction open, asked just before a kill: the figure that
 * shows kills landing inside a batch's transaction, not only around it.
 */
export interface WriteProbe {
  inTransaction(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * SQLite: a write transaction holds the file's write lock, so taking it without waiting fails.
 * When it succeeds it is let go at once (the server would wait for it, up to its busy timeout).
 * The connection lives only for the question: one held open across the kill would keep the
 * database's shared memory alive, and the restart would skip the recovery a real crash needs.
 */
export function sqliteProbe(path: string): WriteProbe {
  return {
    async inTransaction() {
      const db = new Database(path);
      try {
        db.pragma('busy_timeout = 0');
        db.exec('BEGIN IMMEDIATE');
        db.exec('ROLLBACK');
        return false;
      } catch (err) {
        if ((err as { code?: string }).code === 'SQLITE_BUSY') return true;
        throw err;
      } finally {
        db.close();
      }
    },
    async close() {},
  };
}

/** PostgreSQL: the server's connections carry `applicationName`; one inside a transaction shows its start. */
export async function postgresProbe(url: string, applicationName: string): Promise<WriteProbe> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    async inTransaction() {
      const r = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND xact_start IS NOT NULL', [applicationName]);
      return (r.rows[0]?.n ?? 0) > 0;
    },
    async close() {
      await client.end();
    },
  };
}

/** The URL with an application name, so that the probe finds this server's connections. */
export function withApplicationName(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
}
