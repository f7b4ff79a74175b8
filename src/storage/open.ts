import type { DatabaseConfig } from '../config.js';
import { PostgresStore } from './postgres/pg-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

/** Opens the adapter that DATABASE_URL names. Migrations are the caller's decision. */
export async function openStore(db: DatabaseConfig): Promise<Store> {
  switch (db.kind) {
    case 'sqlite':
      return new SqliteStore({ path: db.path, synchronous: db.synchronous });
    case 'postgres':
      return new PostgresStore({ url: db.url, poolSize: db.poolSize });
  }
}
