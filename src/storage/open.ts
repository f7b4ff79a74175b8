import { ConfigError, type DatabaseConfig } from '../config.js';
import { PostgresStore } from './postgres/pg-store.js';
import { claimServing, FileInUse } from './sqlite/serve-lock.js';
import { accessProblem, makeFolderFor, openFailure, SqlitePathProblem } from './sqlite/sqlite-path.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import { UnsupportedDatabase, type Store } from './store.js';

/** Opens the adapter that DATABASE_URL names. Migrations are the caller's decision. */
export async function openStore(db: DatabaseConfig): Promise<Store> {
  switch (db.kind) {
    case 'sqlite':
      return new SqliteStore({ path: db.path, synchronous: db.synchronous });
    case 'postgres':
      return new PostgresStore({ url: db.url, poolSize: db.poolSize });
  }
}

/** Where DATABASE_URL points, without a password: for messages. */
function describe(db: DatabaseConfig): string {
  if (db.kind === 'sqlite') return `the SQLite file ${db.path}`;
  return `PostgreSQL at ${postgresAddress(db.url)}`;
}

function postgresAddress(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
}

/** Network errors of the PostgreSQL driver, in words. */
const UNREACHABLE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused: nothing listens there',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up now',
  ETIMEDOUT: 'no answer in time',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  ECONNRESET: 'the connection was cut',
};

/**
 * Why PostgreSQL could not be used, in one line. A server that answered with an error (a SQLSTATE
 * code) was reached: it is not "cannot reach", and a missing database says how to make one.
 */
function postgresFailure(db: Extract<DatabaseConfig, { kind: 'postgres' }>, err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const message = typeof e.message === 'string' ? (e.message.split('\n')[0] ?? '') : String(err);
  const where = postgresAddress(db.url);
  if (code === '3D000') {
    const u = new URL(db.url);
    const name = decodeURIComponent(u.pathname.slice(1)) || (u.username ? decodeURIComponent(u.username) : 'postgres');
    const host = `${u.hostname}:${u.port || '5432'}`;
    return (
      `the database "${name}" does not exist on the PostgreSQL server at ${host}: create it, in UTF8, ` +
      `with \`createdb -E UTF8 -T template0 ${name}\` or in psql \`CREATE DATABASE "${name}" ENCODING 'UTF8' TEMPLATE template0\` (docs/deploy.md)`
    );
  }
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) return `PostgreSQL at ${where} refused: ${message} (SQLSTATE ${code})`;
  const words = code === undefined ? undefined : UNREACHABLE[code];
  return `cannot reach ${describe(db)}: ${words ? `${words} (${code})` : code === undefined || message.includes(code) ? message : `${message} (${code})`}`;
}

/**
 * openStore, and a first read, for a process that is about to serve: a database that cannot be
 * opened or reached is a problem of the DATABASE_URL setting, said in one line naming it
 * (README: a bad setting stops the server with a message naming the variable), never a stack
 * trace. With SQLite the file is also claimed for this process (claimServing), after what keeps
 * this process from using it (a folder in its place, rights) has been looked for and said in words.
 */
export async function openForServing(db: DatabaseConfig): Promise<{ store: Store; release(): void }> {
  let claim: { release(): void } = { release: () => undefined };
  let store: Store | undefined;
  try {
    if (db.kind === 'sqlite') {
      makeFolderFor(db.path);
      const problem = accessProblem(db.path);
      if (problem) throw new SqlitePathProblem(problem);
      claim = claimServing(db.path);
    }
    store = await openStore(db);
    await store.migrationStatus();
    return { store, release: () => claim.release() };
  } catch (err) {
    await store?.close().catch(() => undefined);
    claim.release();
    if (err instanceof FileInUse || err instanceof UnsupportedDatabase) throw new ConfigError(`DATABASE_URL: ${err.message}`);
    if (db.kind === 'postgres') throw new ConfigError(`DATABASE_URL: ${postgresFailure(db, err)}`);
    throw new ConfigError(`DATABASE_URL: cannot open ${describe(db)}: ${openFailure(db.path, err)}`);
  }
}
