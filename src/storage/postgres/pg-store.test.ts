import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freshSchema, testDatabaseUrl } from '../../../test/database.js';
import { organizersContract } from '../organizers.contract.js';
import { storeContract } from '../store.contract.js';
import { tasksContract } from '../tasks.contract.js';
import { PostgresStore } from './pg-store.js';

const base = testDatabaseUrl();

async function openPostgres() {
  const db = await freshSchema(base as string);
  const store = new PostgresStore({ url: db.url, poolSize: 3 });
  return {
    store,
    async cleanup() {
      await store.close();
      await db.drop();
    },
  };
}

if (base) {
  storeContract('postgres', openPostgres);
  tasksContract('postgres', openPostgres);
  organizersContract('postgres', openPostgres);

  describe('postgres store', () => {
    it('two stores migrating one schema at once apply each step once', async () => {
      const db = await freshSchema(base);
      const a = new PostgresStore({ url: db.url, poolSize: 2 });
      const b = new PostgresStore({ url: db.url, poolSize: 2 });
      try {
        const [ra, rb] = await Promise.all([a.migrate(), b.migrate()]);
        assert.deepEqual([...ra.applied, ...rb.applied].sort((x, y) => x - y), [1, 2, 3, 4, 5]);
        assert.deepEqual((await a.migrationStatus()).pending, []);
      } finally {
        await a.close();
        await b.close();
        await db.drop();
      }
    });

    it('concurrent writers of one account on two stores (two instances) never share an id or a stamp', async () => {
      const db = await freshSchema(base);
      const a = new PostgresStore({ url: db.url, poolSize: 4 });
      const b = new PostgresStore({ url: db.url, poolSize: 4 });
      try {
        await a.migrate();
        const account = await a.transaction((tx) =>
          tx.accounts.create({ userid: 'tdpg', email: 'p@example.org', emailKey: 'p@example.org', passwordHash: 'x', alias: 'P', pro: 0, prefs: { dateformat: 0, timezone: 0, hidemonths: 6, hotlistpriority: 3, hotlistduedate: 2, hotliststar: 1, hotliststatus: 1, showtabnums: 1 }, createdAt: 1 }),
        );
        // Each writer: ids and a stamp, in one transaction, as a task batch does (no lock() first).
        const write = (store: PostgresStore) =>
          store.transaction(async (tx) => ({
            id: await tx.accounts.allocateIds(account.pk, 'task', 2),
            stamp: (await tx.accounts.touch(account.pk, ['lastedit_task'], 1_000)).lastedit_task as number,
          }));
        const results = await Promise.all(Array.from({ length: 30 }, (_, i) => write(i % 2 ? a : b)));
        const ids = results.flatMap((r) => [r.id, r.id + 1]).sort((x, y) => x - y);
        assert.deepEqual(ids, Array.from({ length: 60 }, (_, i) => i + 1));
        assert.equal(new Set(results.map((r) => r.stamp)).size, 30, 'every write got its own stamp');
      } finally {
        await a.close();
        await b.close();
        await db.drop();
      }
    });
  });
} else {
  describe('postgres store', () => {
    it('is skipped: TEST_DATABASE_URL is not set', { skip: 'set TEST_DATABASE_URL (as .ci/run does) to run the PostgreSQL part' }, () => undefined);
  });
}
