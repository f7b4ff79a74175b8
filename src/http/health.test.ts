import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { api, testContext, type TestContext } from '../../test/harness.js';

/** Forgets the newest applied migration, as a database an older version left would look. */
async function forgetNewestMigration(ctx: TestContext): Promise<void> {
  const sql = 'DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)';
  const db = ctx.config.database;
  if (db.kind === 'sqlite') {
    const raw = new Database(db.path);
    raw.exec(sql);
    raw.close();
  } else {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query(sql);
    await client.end();
  }
}

describe('/healthz and /readyz', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await testContext();
  });
  after(() => ctx.close());

  it('a serving instance: both 200, never cached', async () => {
    const health = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    assert.deepEqual([health.statusCode, health.json()], [200, { status: 'ok' }]);
    const ready = await ctx.app.inject({ method: 'GET', url: '/readyz' });
    assert.deepEqual([ready.statusCode, ready.json()], [200, { status: 'ready' }]);
    assert.equal(ready.headers['cache-control'], 'no-store');
  });

  it('a migration not applied: /readyz is 503 and says which; /healthz stays 200', async () => {
    const other = await testContext();
    try {
      await forgetNewestMigration(other);
      const ready = await other.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 503);
      const body = ready.json() as { status: string; problems: string[] };
      assert.equal(body.status, 'unavailable');
      assert.match(body.problems.join(), /migrations not applied: \d+/);
      assert.equal((await other.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    } finally {
      await other.close();
    }
  });

  it('a database that does not answer: /readyz 503, /healthz 500', async () => {
    const broken = await testContext();
    await broken.deps.store.close();
    try {
      const ready = await broken.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 503);
      assert.deepEqual((ready.json() as { problems: string[] }).problems, ['the database does not answer']);
      assert.equal((await broken.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 500);
    } finally {
      await broken.close();
    }
  });
});

describe('/healthz and /readyz in maintenance mode', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await testContext({ MAINTENANCE_MODE: 'true' });
  });
  after(() => ctx.close());

  it('the API answers 503 (error 4), /healthz 200 (alive), /readyz 503 naming the reason', async () => {
    const res = await api(ctx, 'f'.repeat(40), '/3/account/get.php');
    assert.deepEqual([res.statusCode, (res.json() as { errorCode: number }).errorCode], [503, 4]);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    const ready = await ctx.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 503);
    assert.deepEqual(ready.json(), { status: 'unavailable', problems: ['maintenance mode is on (MAINTENANCE_MODE)'] });
  });
});
