import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';

/**
 * Which database tests run on: SQLite always; PostgreSQL when TEST_STORE=postgres (the test runner
 * sets it for a second pass when TEST_DATABASE_URL is set). Each test context gets its own
 * PostgreSQL schema, dropped at the end.
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

/** The URL of `base` with `schema` first on the search path of every connection. */
function withSchema(base: string, schema: string): string {
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema} -c synchronous_commit=off`);
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

/** A fresh, empty database for one test context: a file in `dir`, or a new schema. */
export async function freshDatabase(dir: string, choice: DatabaseChoice = defaultDatabase()): Promise<TestDatabase> {
  if (choice.kind === 'sqlite') return { url: `sqlite:${join(dir, 'tickler.db')}`, env: {}, drop: async () => undefined };
  return freshSchema(choice.url);
}

export async function freshSchema(base: string): Promise<TestDatabase> {
  const schema = `tk_${randomBytes(6).toString('hex')}`;
  await adminPool(base).query(`CREATE SCHEMA ${schema}`);
  return {
    url: withSchema(base, schema),
    // Small pools: a test process may hold several contexts at once.
    env: { DATABASE_POOL_SIZE: '3' },
    drop: async () => void (await adminPool(base).query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)),
  };
}
