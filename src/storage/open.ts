import type { DatabaseConfig } from '../config.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

/** Opens the adapter that DATABASE_URL names. Migrations are the caller's decision. */
export async function openStore(db: DatabaseConfig): Promise<Store> {
  switch (db.kind) {
    case 'sqlite':
      return new SqliteStore({ path: db.path, synchronous: db.synchronous });
    case 'postgres':
      throw new Error('PostgreSQL is not supported yet: use DATABASE_URL=sqlite:PATH');
  }
}
