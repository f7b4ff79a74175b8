import type { PostgresStore } from './postgres/pg-store.js';
import type { SqliteStore } from './sqlite/sqlite-store.js';

/**
 * Every table that holds data, parents before children (foreign keys). Rate-limit counters are
 * left out: they describe the last hour of one server, not the users' data.
 */
export const COPIED_TABLES = [
  'accounts',
  'clients',
  'known_devices',
  'grants',
  'auth_codes',
  'tokens',
  'sessions',
  'id_counters',
  'folders',
  'contexts',
  'goals',
  'locations',
  'tasks',
  'task_meta',
  'deleted_tasks',
] as const;

export interface TableDump {
  readonly table: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly unknown[])[];
}

export class TargetNotEmpty extends Error {
  override name = 'TargetNotEmpty';
}

/**
 * Copies a SQLite database into PostgreSQL: every account, app, token and record with its ids,
 * stamps and tombstones unchanged, in one PostgreSQL transaction (nothing half-written), then
 * compares the row counts. A target that already holds accounts or apps is refused unless
 * `replace` is set, which empties it first. Returns the rows copied per table.
 */
export async function copySqliteToPostgres(from: SqliteStore, to: PostgresStore, options: { replace: boolean }): Promise<Record<string, number>> {
  await from.migrate();
  await to.migrate();
  const dumps = COPIED_TABLES.map((table) => from.dumpTable(table));
  await to.load(dumps, options);
  const counts: Record<string, number> = {};
  for (const d of dumps) {
    const copied = await to.countRows(d.table);
    if (copied !== d.rows.length) throw new Error(`${d.table}: ${d.rows.length} rows read but ${copied} in the target`);
    counts[d.table] = copied;
  }
  return counts;
}
