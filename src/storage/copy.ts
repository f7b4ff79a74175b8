import Database from 'better-sqlite3';
import type { PostgresStore } from './postgres/pg-store.js';
import { migrationStatusOf } from './sqlite/sqlite-store.js';

/**
 * Every table that holds data, parents before children (foreign keys). Rate-limit counters are
 * left out: they describe the last hour of one server, not the users' data. So are pending
 * authorization requests: they live minutes, and a consent page left open across the copy is
 * simply shown again. So are the leases of event streams (sse_leases): they count the streams a
 * running server holds open, which end when it stops for the copy.
 */
export const COPIED_TABLES = [
  'accounts',
  'clients',
  'client_redirects',
  'client_icons',
  'known_devices',
  'grants',
  'auth_codes',
  'tokens',
  'sessions',
  'account_links',
  'id_counters',
  'folders',
  'contexts',
  'goals',
  'locations',
  'tasks',
  'task_xml',
  'task_meta',
  'deleted_tasks',
  'notes',
  'outlines',
  'lists',
  'list_rows',
  'deleted_records',
  'task_attachments',
  'import_map',
  'import_runs',
  'collaborators',
  'shares',
  'task_shares',
  'task_added_by',
  'saved_searches',
  'changes',
  'task_folder_exits',
  'caldav_objects',
  'caldav_calendars',
  // Answers promised to apps for 24 hours (Idempotency-Key): a retry after the move still gets its own.
  'idempotency_keys',
  'app_passwords',
  // After folders: a folder's feeds refer to it.
  'calendar_feeds',
  // Webhooks: the endpoints, the positions told and the deliveries still owed (the outbox: a copy
  // loses none), and the attempts their developers read.
  'webhook_endpoints',
  'webhook_marks',
  'webhook_deliveries',
  'webhook_attempts',
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

/** A table's column names, in table order. */
export function tableColumns(db: Database.Database, table: string): string[] {
  const columns = db.pragma(`table_info(${JSON.stringify(table)})`) as Array<{ name: string }>;
  if (columns.length === 0) throw new Error(`no table ${table}`);
  return columns.map((c) => c.name);
}

/**
 * Every row of every copied table, all read in one transaction: one snapshot of the file, so that
 * a row written during the copy cannot arrive without its parent (or a parent without its rows).
 */
export function dumpTables(db: Database.Database): TableDump[] {
  db.exec('BEGIN');
  try {
    return COPIED_TABLES.map((table) => {
      const columns = tableColumns(db, table);
      const rows = db.prepare(`SELECT ${columns.map((n) => `"${n}"`).join(', ')} FROM "${table}"`).raw(true).all() as unknown[][];
      return { table, columns, rows };
    });
  } finally {
    db.exec('COMMIT');
  }
}

/**
 * Reads a SQLite file for copying. It is opened read-only (and must exist): the copy must not
 * change the file it copies, which may be a backup in rollback-journal mode or still in use by an
 * older server; the store would switch it to WAL and open a writer. A file with pending
 * migrations is refused, because its tables would not match.
 */
export function readSqlite(path: string): TableDump[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    // A writer (a server still running) may hold a lock for a moment.
    db.pragma('busy_timeout = 5000');
    const { pending } = migrationStatusOf(db);
    if (pending.length > 0) throw new SourceNotMigrated(`the source database has ${pending.length} pending migration(s) (${pending.join(', ')})`);
    return dumpTables(db);
  } finally {
    db.close();
  }
}

/**
 * Copies the SQLite database at `from` into PostgreSQL: every account, app, token and record with
 * its ids, stamps and tombstones unchanged, in one PostgreSQL transaction (nothing half-written),
 * then compares the row counts. A target that already holds accounts or apps is refused unless
 * `replace` is set, which empties it first. Returns the rows copied per table.
 *
 * The source is only read (readSqlite); one with pending migrations is refused, with the command
 * that brings it up to date, before the target is touched.
 */
export async function copySqliteToPostgres(from: string, to: PostgresStore, options: { replace: boolean }): Promise<Record<string, number>> {
  const dumps = readSqlite(from);
  await to.migrate();
  await to.load(dumps, options);
  const counts: Record<string, number> = {};
  for (const d of dumps) {
    const copied = await to.countRows(d.table);
    if (copied !== d.rows.length) throw new Error(`${d.table}: ${d.rows.length} rows read but ${copied} in the target`);
    counts[d.table] = copied;
  }
  return counts;
}
