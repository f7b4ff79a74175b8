import { freshSchema, testDatabaseUrl } from '../../../test/database.js';
import { PostgresStore } from './pg-store.js';

/** A store on a fresh schema of TEST_DATABASE_URL, for the storage contracts. */
export async function openPostgres(options: { readonly empty?: boolean } = {}) {
  const db = await freshSchema(testDatabaseUrl() as string, options);
  const store = new PostgresStore({ url: db.url, poolSize: 3 });
  return {
    store,
    async cleanup() {
      await store.close();
      await db.drop();
    },
  };
}
