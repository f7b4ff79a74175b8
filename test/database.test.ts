import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { PostgresStore } from '../src/storage/postgres/pg-store.js';
import { dropSchemas, freshSchema, testDatabaseUrl } from './database.js';

const base = testDatabaseUrl();

/**
 * Dropping a schema locks each of its objects until commit (about 750 of them), in the one lock
 * table PostgreSQL keeps for all its sessions. Every test process drops its schemas as it ends:
 * twelve in one statement, or a few processes at once, filled that table, and the statements of
 * the tests still running in other processes failed with "out of shared memory" (an account/get
 * answering 500). Here each drop is stopped halfway on purpose, by a table of the schema that
 * another session holds, and the test looks at what the dropping session holds meanwhile.
 */
describe('the test harness drops PostgreSQL schemas one at a time, in turn with every test process', { skip: base ? false : 'TEST_DATABASE_URL is not set' }, () => {
  const url = base as string;
  /** Every schema made here, for the clean-up of a test that failed halfway. */
  const made: string[] = [];
  /** Holds the tables that stop a drop halfway. */
  const holder = new pg.Client({ connectionString: url });
  /**
   * Watches the droppers, outside any transaction: inside one, pg_stat_activity would show the
   * sessions as they were at its first look (PostgreSQL keeps that view for the transaction).
   */
  const watcher = new pg.Client({ connectionString: url });
  /** Two droppers, as two test processes would be, named so that the watcher can tell them apart. */
  const droppers = ['a', 'b'].map((name) => new pg.Pool({ connectionString: url, max: 1, application_name: `tickler-drop-${process.pid}-${name}` })) as [pg.Pool, pg.Pool];
  const nameOf = (dropper: pg.Pool): string => dropper.options.application_name as string;

  before(async () => {
    await holder.connect();
    await watcher.connect();
  });

  after(async () => {
    await holder.end();
    await watcher.end();
    await dropSchemas(droppers[0], made);
    await Promise.all(droppers.map((d) => d.end()));
  });

  /** A new schema migrated as a test's (`empty`: not one of this process's spares). */
  async function migratedSchema(): Promise<string> {
    const db = await freshSchema(url, { empty: true });
    const store = new PostgresStore({ url: db.url, poolSize: 2 });
    await store.migrate();
    await store.close();
    const schema = /search_path=(\w+)/.exec(new URL(db.url).searchParams.get('options') ?? '')?.[1];
    assert.ok(schema);
    made.push(schema);
    return schema;
  }

  const exists = async (schema: string): Promise<boolean> => (await watcher.query('SELECT to_regnamespace($1) IS NOT NULL AS e', [schema])).rows[0].e as boolean;

  /** Those of `schemas` of which the dropper holds (or waits for) a lock of a table or an index. */
  async function lockedBy(dropper: pg.Pool, schemas: readonly string[]): Promise<string[]> {
    const r = await watcher.query<{ nspname: string }>(
      `SELECT DISTINCT n.nspname FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid JOIN pg_class c ON c.oid = l.relation
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE a.application_name = $1 AND n.nspname = ANY($2) ORDER BY 1`,
      [nameOf(dropper), schemas],
    );
    return r.rows.map((row) => row.nspname);
  }

  /**
   * Whether the dropper comes to wait for a lock that `where` picks out of pg_locks (as l), looked
   * at until it does or `dropping` ends: a drop that does not wait ends without it.
   */
  async function waits(dropper: pg.Pool, where: string, dropping: Promise<unknown>): Promise<boolean> {
    let ended = false;
    void dropping.then(
      () => (ended = true),
      () => (ended = true),
    );
    for (;;) {
      const r = await watcher.query(`SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE a.application_name = $1 AND NOT l.granted AND ${where}`, [nameOf(dropper)]);
      if (r.rows.length > 0) return true;
      if (ended) return false;
      // Waiting for a state, not a time: the next look after a short pause.
      await sleep(10);
    }
  }

  it('each schema is dropped by a transaction of its own: while the second waits, the first is gone and the others are not locked', async () => {
    const [first, second, third] = [await migratedSchema(), await migratedSchema(), await migratedSchema()];
    const dropper = droppers[0];
    await holder.query(`BEGIN; LOCK TABLE ${second}.accounts IN ACCESS SHARE MODE`);
    const dropping = dropSchemas(dropper, [first, second, third]);
    try {
      assert.ok(await waits(dropper, `l.relation = '${second}.accounts'::regclass`, dropping), 'the drop waits for the table held');
      assert.equal(await exists(first), false, 'the first schema is dropped, its locks given back, before the second is begun');
      assert.deepEqual(await lockedBy(dropper, [first, second, third]), [second]);
    } finally {
      await holder.query('ROLLBACK');
      await dropping;
    }
    for (const s of [first, second, third]) assert.equal(await exists(s), false, s);
  });

  it('a drop waits for its turn while another session drops a schema, and locks nothing of its own meanwhile', async () => {
    const [one, two] = [await migratedSchema(), await migratedSchema()];
    const [a, b] = droppers;
    await holder.query(`BEGIN; LOCK TABLE ${one}.accounts IN ACCESS SHARE MODE`);
    const droppingOne = dropSchemas(a, [one]);
    let droppingTwo: Promise<void> | undefined;
    try {
      assert.ok(await waits(a, `l.relation = '${one}.accounts'::regclass`, droppingOne), 'the first drop waits for the table held');
      droppingTwo = dropSchemas(b, [two]);
      assert.ok(await waits(b, `l.locktype = 'advisory'`, droppingTwo), 'the second drop waits for its turn');
      assert.equal(await exists(two), true);
      assert.deepEqual(await lockedBy(b, [one, two]), []);
    } finally {
      await holder.query('ROLLBACK');
      await droppingOne;
      await droppingTwo;
    }
    assert.equal(await exists(one), false);
    assert.equal(await exists(two), false);
  });
});
