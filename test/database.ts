import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PG_MIGRATIONS } from '../src/storage/postgres/migrations.js';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.js';

/**
 * Which database tests run on: SQLite always; PostgreSQL when TEST_STORE=postgres (the test runner
 * sets it for a second pass when TEST_DATABASE_URL is set). Each test context gets its own
 * PostgreSQL schema, emptied for the process's next test or dropped at the end (freshSchema).
 */
const TEST_STORE: 'sqlite' | 'postgres' = process.env['TEST_STORE'] === 'postgres' ? 'postgres' : 'sqlite';

export function testDatabaseUrl(): string | undefined {
  const url = process.env['TEST_DATABASE_URL']?.trim();
  return url ? url : undefined;
}

let admin: pg.Pool | undefined;

/** One small pool per test process for creating and dropping schemas; it lets the process exit. */
function adminPool(url: string): pg.Pool {
  admin ??= new pg.Pool({ connectionString: url, max: 1, allowExitOnIdle: true });
  return admin;
}

/**
 * The URL of `base` with `schema` first on the search path of every connection. Tests commit
 * without waiting for the disk (synchronous_commit=off: a test needs no crash durability, and the
 * wait was most of a write test's time); `durable` keeps PostgreSQL's own setting, as a server's
 * connections do (the benchmark, which compares commits with SQLite's synchronous=FULL).
 */
function withSchema(base: string, schema: string, durable: boolean): string {
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}${durable ? '' : ' -c synchronous_commit=off'}`);
  return url.toString();
}

/** A database to test on: an SQLite file, or a fresh schema of the PostgreSQL database at `url`. */
export type DatabaseChoice = { readonly kind: 'sqlite' } | { readonly kind: 'postgres'; readonly url: string };

/** The database this test process runs on (TEST_STORE, set by the test runner). */
export function defaultDatabase(): DatabaseChoice {
  if (TEST_STORE === 'sqlite') return { kind: 'sqlite' };
  const url = testDatabaseUrl();
  if (!url) throw new Error('TEST_STORE=postgres needs TEST_DATABASE_URL');
  return { kind: 'postgres', url };
}

export interface TestDatabase {
  readonly url: string;
  /** Extra settings the test context should use with this database. */
  readonly env: Record<string, string>;
  drop(): Promise<void>;
}

/**
 * A fresh database for one test context: a file in `dir`, or a schema of the PostgreSQL database
 * at `url`. With `migrated`, it holds the current schema already (the caller's migrate() then
 * finds nothing to do): on SQLite a copy of a file this process migrated once, on PostgreSQL
 * a schema of an earlier test, emptied (freshSchema). Without it, an SQLite file is created by
 * whoever opens it, as a new server's is.
 */
export async function freshDatabase(dir: string, choice: DatabaseChoice = defaultDatabase(), options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  if (choice.kind === 'postgres') return freshSchema(choice.url);
  const path = join(dir, 'tickler.db');
  if (options.migrated) copyFileSync(await migratedSqliteFile(), path);
  return { url: `sqlite:${path}`, env: {}, drop: async () => undefined };
}

let sqliteTemplate: Promise<string> | undefined;

/**
 * An SQLite file migrated once per test process, closed (so its write-ahead log is folded in):
 * copying it takes a millisecond, migrating a new file 50 to 90 (ten migrations, each fsynced).
 */
function migratedSqliteFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tickler-template-'));
    const path = join(dir, 'tickler.db');
    const store = new SqliteStore({ path, synchronous: 'NORMAL' });
    await store.migrate();
    await store.close();
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return path;
  })();
  return sqliteTemplate;
}

/**
 * Schemas released by earlier tests of this process, emptied and still at the current migration:
 * the next test takes one instead of creating and migrating a new schema, which costs PostgreSQL
 * 0.3 to 2 s of DDL (hundreds of times in a pass). A schema is reused only when it looks exactly
 * like the first one released (same tables, columns, indexes, triggers and functions: a test that
 * changed the schema, for instance to inject a fault, gets it dropped) and holds every migration
 * (a test that forgot one gets it dropped too).
 */
const spareSchemas: string[] = [];
let pristineSchema: string | undefined;
/** Whether the spares are dropped when the process has nothing left to do (registered once). */
let dropsAtExit = false;

/**
 * What a schema looks like: each relation with its kind and number of columns, the number of
 * triggers and functions, and the migrations applied (fails when it has no schema_migrations).
 */
async function shape(pool: pg.Pool, schema: string): Promise<{ rels: string; text: string; migrated: boolean }> {
  const r = await pool.query(
    `SELECT string_agg(c.relname || ':' || c.relkind::text || ':' || c.relnatts, ',' ORDER BY c.relname) AS rels,
       (SELECT count(*) FROM pg_trigger t JOIN pg_class tc ON tc.oid = t.tgrelid WHERE tc.relnamespace = $1::regnamespace AND NOT t.tgisinternal) AS triggers,
       (SELECT count(*) FROM pg_proc WHERE pronamespace = $1::regnamespace) AS functions,
       (SELECT string_agg(version::text, ',' ORDER BY version) FROM ${schema}.schema_migrations) AS versions
     FROM pg_class c WHERE c.relnamespace = $1::regnamespace`,
    [schema],
  );
  const row = r.rows[0] as { rels: string; triggers: string; functions: string; versions: string | null };
  const migrated = row.versions === PG_MIGRATIONS.map((m) => m.version).join(',');
  return { rels: row.rels, text: `${row.rels}|${row.triggers}|${row.functions}`, migrated };
}

/**
 * The statements that empty a schema of this shape and restart its identity counters, to run in
 * one transaction. DELETE, not TRUNCATE: TRUNCATE gives every table and index a new file, 150 to
 * 300 ms for this schema against 7 for deleting a test's few rows. Foreign-key triggers are off
 * meanwhile (session_replication_role, a superuser's setting, as the test database's user is;
 * otherwise the statement fails and the schema is dropped instead).
 */
function emptying(schema: string, rels: string): string[] {
  const of = (kind: string): string[] =>
    rels
      .split(',')
      .map((e) => e.split(':'))
      .filter(([name, k]) => k === kind && name !== 'schema_migrations')
      .map(([name]) => name as string);
  return [
    'SET LOCAL session_replication_role = replica',
    ...of('r').map((t) => `DELETE FROM ${schema}."${t}"`),
    ...of('S').map((q) => `SELECT setval('${schema}."${q}"', 1, false)`),
  ];
}

/** Empties `schema` for the next test, or drops it when it cannot be trusted to be like new. */
async function release(base: string, schema: string): Promise<void> {
  const pool = adminPool(base);
  try {
    const s = await shape(pool, schema);
    pristineSchema ??= s.migrated ? s.text : undefined;
    if (s.migrated && s.text === pristineSchema) {
      await inTransaction(pool, emptying(schema, s.rels));
      // Once per process: a shard of test files empties and refills the spares many times.
      if (!dropsAtExit) {
        dropsAtExit = true;
        process.on('beforeExit', () => void dropSpares(pool));
      }
      spareSchemas.push(schema);
      return;
    }
  } catch {
    // Anything unexpected (no schema_migrations, say): the schema is dropped below, as it always
    // was (a failed emptying was rolled back on its own connection).
  }
  await dropSchemas(pool, [schema]);
}

/**
 * When the process has nothing left to do: the spare schemas go (the loop then empties again, and
 * with nothing left to drop the next beforeExit starts no work, so the process exits).
 */
async function dropSpares(pool: pg.Pool): Promise<void> {
  // Each on its own: one that fails leaves the others to go.
  for (const schema of spareSchemas.splice(0)) await dropSchemas(pool, [schema]).catch(() => undefined);
}

/**
 * The turn to drop a schema, one for every test process on the database: an advisory lock's key,
 * a number nothing else uses. Dropping a schema locks each of its objects until commit (about 750
 * for today's schema: tables, indexes, types, constraints, triggers, functions), in the one lock
 * table PostgreSQL keeps for all its sessions, max_locks_per_transaction (64) entries for each
 * session it allows: about 7,800 with the default settings. A process's twelve spares dropped in
 * one statement, or a few processes dropping theirs at once, filled it, and every other session's
 * statement that needed an entry failed with "out of shared memory" (53200): a test in another
 * process answered 500 for the rate-limit counter of an account/get.
 */
const DROP_TURN = 0x746b6472;

/**
 * Drops `schemas` one per transaction, each waiting for the turn (DROP_TURN): however many schemas
 * and processes, the drops hold one schema's locks at a time on the whole database.
 */
export async function dropSchemas(pool: pg.Pool, schemas: readonly string[]): Promise<void> {
  for (const schema of schemas) await inTransaction(pool, [`SELECT pg_advisory_xact_lock(${DROP_TURN})`, `DROP SCHEMA IF EXISTS ${schema} CASCADE`]);
}

/**
 * Runs `statements` in one transaction on a connection of `pool` kept for it, rolled back on that
 * connection if one fails: a ROLLBACK sent through the pool could reach the connection after the
 * statement of another caller, which would fail inside the aborted transaction. A connection whose
 * ROLLBACK failed is closed instead of going back to the pool.
 */
async function inTransaction(pool: pg.Pool, statements: readonly string[]): Promise<void> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(['BEGIN', ...statements, 'COMMIT'].join(';\n'));
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackFailed: unknown) => {
      broken = rollbackFailed instanceof Error ? rollbackFailed : new Error(String(rollbackFailed));
    });
    throw err;
  } finally {
    client.release(broken);
  }
}

/**
 * A schema of the PostgreSQL database at `base` for one test: a spare one when there is one,
 * otherwise a new, empty one. `empty` insists on a new one (tests of the migrations themselves).
 */
export async function freshSchema(base: string, options: { empty?: boolean; durable?: boolean } = {}): Promise<TestDatabase> {
  const spare = options.empty ? undefined : spareSchemas.pop();
  const schema = spare ?? `tk_${randomBytes(6).toString('hex')}`;
  if (!spare) await adminPool(base).query(`CREATE SCHEMA ${schema}`);
  return {
    url: withSchema(base, schema, options.durable ?? false),
    // Small pools: a test process may hold several contexts at once.
    env: { DATABASE_POOL_SIZE: '3' },
    drop: () => release(base, schema),
  };
}
