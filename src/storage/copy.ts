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

export class SourceNotMigrated extends Error {
  override name = 'SourceNotMigrated';
}

/**
 * Copies a SQLite database into PostgreSQL: every account, app, token and record with its ids,
 * stamps and tombstones unchanged, in one PostgreSQL transaction (nothing half-written), then
 * compares the row counts. A target that already holds accounts or apps is refused unless
 * `replace` is set, which empties it first. Returns the rows copied per table.
 *
 * The source is only read: a copy must not change the file it copies (which may be a backup, or
 * still in use by an older server). A source with pending migrations is refused, with the
 * command that brings it up to date, because the tables would not match.
 */
export async function copySqliteToPostgres(from: SqliteStore, to: PostgresStore, options: { replace: boolean }): Promise<Record<string, number>> {
  const { pending } = await from.migrationStatus();
  if (pending.length > 0) throw new SourceNotMigrated(`the source database has ${pending.length} pending migration(s) (${pending.join(', ')})`);
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
