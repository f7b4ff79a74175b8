import { ConfigError, type DatabaseConfig } from '../config.js';
import { PostgresStore } from './postgres/pg-store.js';
import { claimServing, FileInUse } from './sqlite/serve-lock.js';
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
  const u = new URL(db.url);
  return `PostgreSQL at ${u.hostname}:${u.port || '5432'}${u.pathname}`;
}

/**
 * openStore, and a first read, for a process that is about to serve: a database that cannot be
 * opened or reached is a problem of the DATABASE_URL setting, said in one line naming it
 * (README: a bad setting stops the server with a message naming the variable), never a stack
 * trace. With SQLite the file is also claimed for this process (claimServing).
 */
export async function openForServing(db: DatabaseConfig): Promise<{ store: Store; release(): void }> {
  let claim: { release(): void } = { release: () => undefined };
  let store: Store | undefined;
  try {
    if (db.kind === 'sqlite') claim = claimServing(db.path);
    store = await openStore(db);
    await store.migrationStatus();
    return { store, release: () => claim.release() };
  } catch (err) {
    await store?.close().catch(() => undefined);
    claim.release();
    if (err instanceof FileInUse || err instanceof UnsupportedDatabase) throw new ConfigError(`DATABASE_URL: ${err.message}`);
    const e = err as { code?: string; message?: string };
    const reason = [e.code, e.message?.split('\n')[0]].filter(Boolean).join(' ');
    throw new ConfigError(`DATABASE_URL: cannot ${db.kind === 'sqlite' ? 'open' : 'reach'} ${describe(db)}: ${reason}`);
  }
}
