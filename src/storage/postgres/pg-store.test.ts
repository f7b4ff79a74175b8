import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { freshSchema, testDatabaseUrl } from '../../../test/database.js';
import { newAccount, newTask } from '../../../test/factories.js';
import { COPIED_TABLES, tableColumns } from '../copy.js';
import { keptCountsBackfilled, listColumnsReordered } from '../documents.contract.js';
import { storeContract } from '../store.contract.js';
import { MIGRATIONS } from '../sqlite/migrations.js';
import { SqliteStore } from '../sqlite/sqlite-store.js';
import { PG_MIGRATIONS } from './migrations.js';
import { ConfigError } from '../../config.js';
import { openForServing } from '../open.js';
import { UnsupportedDatabase, type Repos } from '../store.js';
import { PgDb, pgDialect, VariedNames, withIntegers } from './pg-db.js';
import { PostgresStore } from './pg-store.js';
import { openPostgres } from './open-postgres.test-kit.js';

const base = testDatabaseUrl();

describe('postgres store: a transaction that fails', () => {
  // A stand-in for a pooled connection, to see what the store gives back to the pool. No server is
  // needed: the pool connects only when asked, and connect() is replaced.
  /** A store on a stand-in connection that records what it is sent; a text of two statements gets two results. */
  function standIn(rollbackFails = false, refuses?: RegExp): { store: PostgresStore; sent: string[]; released: unknown[] } {
    const store = new PostgresStore({ url: 'postgres://nobody@127.0.0.1:1/none', poolSize: 2 });
    const sent: string[] = [];
    const released: unknown[] = [];
    const client = {
      query: async (q: string | { text: string }) => {
        const sql = typeof q === 'string' ? q : q.text;
        sent.push(sql);
        if (sql === 'ROLLBACK' && rollbackFails) throw new Error('Connection terminated unexpectedly');
        if (refuses?.test(sql)) throw new Error('refused');
        return sql.startsWith('BEGIN;') ? [{ rows: [] }, { rows: [] }] : { rows: [] };
      },
      release: (err?: unknown) => void released.push(err),
    };
    (store as unknown as { pool: { connect: () => Promise<unknown> } }).pool.connect = async () => client;
    return { store, sent, released };
  }

  async function failingTransaction(rollbackFails: boolean): Promise<unknown[]> {
    const { store, released } = standIn(rollbackFails);
    try {
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.accounts.get(1);
          throw new Error('boom');
        }),
        /boom/,
        'the callback error propagates, not the rollback error',
      );
    } finally {
      await store.close();
    }
    return released;
  }

  it('gives its connection back to the pool after a rollback', async () => {
    assert.deepEqual(await failingTransaction(false), [undefined]);
  });

  it('closes its connection when the rollback failed, instead of giving it back', async () => {
    const released = await failingTransaction(true);
    assert.equal(released.length, 1);
    assert.match(String(released[0]), /Connection terminated/, 'release(err) closes the connection');
  });

  it('sends BEGIN with an opening statement (the lock), written with its integers, in one message', async () => {
    const { store, sent } = standIn();
    try {
      await store.transaction(async (tx) => {
        await tx.accounts.lock(7, { kind: 'task', count: 3 });
        await tx.accounts.get(8);
      });
    } finally {
      await store.close();
    }
    assert.equal(sent.length, 3);
    assert.match(sent[0] as string, /^BEGIN; WITH a AS \(SELECT .* FROM accounts WHERE pk = 7 FOR NO KEY UPDATE\) a\), ids AS \(INSERT INTO id_counters .* SELECT pk, 'task', 4 FROM a /);
    assert.doesNotMatch(sent[0] as string, /\$\d/);
    assert.match(sent[1] as string, /FROM accounts WHERE pk = \$1$/, 'the statements after it are sent with their values apart');
    assert.equal(sent[2], 'COMMIT');
  });

  it('sends BEGIN with the partners read that opens a call reaching other accounts', async () => {
    const { store, sent } = standIn();
    try {
      assert.deepEqual(await store.transaction((tx) => tx.sharing.partners(7)), []);
    } finally {
      await store.close();
    }
    assert.match(sent[0] as string, /^BEGIN; SELECT other_pk AS pk FROM collaborators WHERE user_pk = 7\s/);
    assert.doesNotMatch(sent[0] as string, /\$\d/);
    assert.equal(sent[1], 'COMMIT');
  });

  it('sends BEGIN on its own, answered first, before any other first statement', async () => {
    const firsts: Array<(tx: Repos) => Promise<unknown>> = [(tx) => tx.accounts.pkByUserid('someone; DROP TABLE accounts'), (tx) => tx.accounts.get(5)];
    for (const first of firsts) {
      const { store, sent } = standIn();
      try {
        await store.transaction(first);
      } finally {
        await store.close();
      }
      assert.equal(sent[0], 'BEGIN');
      assert.match(sent[1] as string, /WHERE (userid|pk) = \$1$/, 'its values apart, even integers');
      assert.equal(sent[2], 'COMMIT');
    }
  });

  it('rolls back when the message that carried BEGIN failed, and reports the statement\'s error', async () => {
    const { store, sent, released } = standIn(false, /^BEGIN; /);
    try {
      await assert.rejects(store.transaction((tx) => tx.accounts.lock(7)), /refused/);
    } finally {
      await store.close();
    }
    assert.equal(sent.length, 2);
    assert.equal(sent[1], 'ROLLBACK');
    assert.deepEqual(released, [undefined]);
  });

  it('a transaction that sends no statement neither begins nor ends, and gives its connection back', async () => {
    const { store, sent, released } = standIn();
    try {
      assert.equal(await store.transaction(async () => 'nothing'), 'nothing');
      await assert.rejects(store.transaction(async () => Promise.reject(new Error('early'))), /early/);
    } finally {
      await store.close();
    }
    assert.deepEqual(sent, []);
    assert.deepEqual(released, [undefined, undefined]);
  });
});

describe('postgres store: deadlocks and serialization failures are retried', () => {
  /** A store on a stand-in connection; `fails` says which attempts of the callback throw which code. */
  async function attempts(fails: ReadonlyArray<string | undefined>): Promise<{ runs: number; result: Promise<string> }> {
    const store = new PostgresStore({ url: 'postgres://nobody@127.0.0.1:1/none', poolSize: 2 });
    const client = { query: async () => ({ rows: [] }), release: () => undefined };
    (store as unknown as { pool: { connect: () => Promise<unknown> } }).pool.connect = async () => client;
    let runs = 0;
    const result = store
      .transaction(async () => {
        const code = fails[runs++];
        if (code !== undefined) throw Object.assign(new Error(`failure ${code}`), { code });
        return 'done';
      })
      .finally(() => store.close());
    await result.catch(() => undefined);
    return { runs, result };
  }

  for (const code of ['40P01', '40001']) {
    it(`${code} once: the work runs again and its value comes back`, async () => {
      const { runs, result } = await attempts([code]);
      assert.equal(await result, 'done');
      assert.equal(runs, 2);
    });
  }

  it('the same failure every time: given up after 3 runs, and the error propagates', async () => {
    const { runs, result } = await attempts(['40P01', '40001', '40P01', undefined]);
    await assert.rejects(result, (err: { code?: string }) => err.code === '40P01');
    assert.equal(runs, 3);
  });

  it('any other failure is not retried', async () => {
    const { runs, result } = await attempts(['23505', undefined]);
    await assert.rejects(result, /failure 23505/);
    assert.equal(runs, 1);
  });
});

if (base) {
  // The other contracts run on PostgreSQL in pg-contracts.test.ts, a test process of its own.
  storeContract('postgres', openPostgres);

  /** Runs `fn` on a migrated store on a fresh schema of its own, then closes it and drops the schema. */
  const onFreshStore = async (poolSize: number, fn: (store: PostgresStore, db: { readonly url: string }) => Promise<void>): Promise<void> => {
    const db = await freshSchema(base);
    const store = new PostgresStore({ url: db.url, poolSize });
    try {
      await store.migrate();
      await fn(store, db);
    } finally {
      await store.close();
      await db.drop();
    }
  };

  describe('postgres store', () => {
    // Columns the database computes (notes.text_json, PostgreSQL's step 15) are no data of their
    // own: a copy does not carry them, and SQLite need not have them.
    it('has the same tables, columns and migrations as the SQLite schema, computed columns apart', async () => {
      const db = await freshSchema(base);
      const store = new PostgresStore({ url: db.url, poolSize: 2 });
      const dir = mkdtempSync(join(tmpdir(), 'tickler-parity-'));
      const sqlite = new SqliteStore({ path: join(dir, 't.db'), synchronous: 'NORMAL' });
      try {
        await Promise.all([store.migrate(), sqlite.migrate()]);
        assert.deepEqual(PG_MIGRATIONS.map((m) => [m.version, m.name]), MIGRATIONS.map((m) => [m.version, m.name]));
        const pgColumns = (
          await (store as unknown as { pool: import('pg').Pool }).pool.query(
            `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND is_generated = 'NEVER' ORDER BY table_name, ordinal_position`,
          )
        ).rows as Array<{ table_name: string; column_name: string }>;
        const tables = [...new Set(pgColumns.map((r) => r.table_name))].sort();
        const file = new Database(join(dir, 't.db'), { readonly: true });
        try {
          for (const table of tables) {
            const fromPg = pgColumns.filter((r) => r.table_name === table).map((r) => r.column_name);
            assert.deepEqual(tableColumns(file, table), fromPg, table);
          }
        } finally {
          file.close();
        }
        assert.ok(tables.includes('tasks') && tables.includes('rate_counters'));
        // A new table is either copied or named here as left out on purpose: copy must not skip one silently.
        const notCopied = ['auth_requests', 'rate_counters', 'schema_migrations', 'sse_leases'];
        assert.deepEqual(
          tables.filter((t) => !notCopied.includes(t)),
          [...COPIED_TABLES].sort(),
        );
      } finally {
        await store.close();
        await sqlite.close();
        await db.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    /**
     * `steps` on a store migrated in a schema of its own, never reused (the steps change its shape),
     * with `query` running SQL on it.
     */
    async function onMigratedSchema(steps: (store: PostgresStore, query: (sql: string) => Promise<Array<Record<string, unknown>>>) => Promise<void>): Promise<void> {
      // Set: this block runs only with a database (`if (base)` above).
      const db = await freshSchema(base as string, { empty: true });
      const store = new PostgresStore({ url: db.url, poolSize: 2 });
      const query = async (sql: string) => (await (store as unknown as { pool: pg.Pool }).pool.query(sql)).rows as Array<Record<string, unknown>>;
      try {
        await store.migrate();
        await steps(store, query);
      } finally {
        await store.close();
        await db.drop();
      }
    }

    it('migration 14 counts the notes, outlines, lists and rows an account already holds', () =>
      onMigratedSchema((store, query) => keptCountsBackfilled(store, async (sql) => void (await query(sql)))));

    it('migration 15 keeps the JSON of the notes already stored, only where it differs from the text, and notes/get writes them as before', () =>
      onMigratedSchema(async (store, query) => {
        const pk = (await store.transaction((tx) => tx.accounts.create(newAccount('kept-json', 1)))).pk;
        const texts = ['plain words', 'two\nlines', 'a "quote" and \\ a backslash', '\u0001 control, é, 😀', ''];
        const notes = texts.map((text, i) => ({ id: i + 1, title: `Note "${i}"`, text, folder: 0, private: 0, added: 100, modified: 200 + i }));
        await store.transaction((tx) => tx.documents.insertMany(pk, 'note', notes));
        for (const sql of ['ALTER TABLE notes DROP COLUMN text_json', 'DROP FUNCTION note_text_json(TEXT)', 'DELETE FROM schema_migrations WHERE version = 15']) await query(sql);
        assert.deepEqual((await store.migrate()).applied, [15]);
        const kept = await query('SELECT id, text_json FROM notes ORDER BY id');
        assert.deepEqual(
          kept.map((r) => r['text_json']),
          texts.map((t) => (JSON.stringify(t) === `"${t}"` ? null : JSON.stringify(t))),
        );
        const page = await store.read.documents.pageWritten(pk, 'note', { start: 0, num: 1000 });
        assert.deepEqual(
          page.rows.map((r) => (JSON.parse(r) as { text: string }).text),
          texts,
        );
      }));

    it('migration 16 stores the columns of lists already stored in the order lists/get answers them', () =>
      onMigratedSchema((store, query) => listColumnsReordered(store, async (sql) => void (await query(sql)))));

    it('two stores migrating one schema at once apply each step once', async () => {
      const db = await freshSchema(base, { empty: true });
      const a = new PostgresStore({ url: db.url, poolSize: 2 });
      const b = new PostgresStore({ url: db.url, poolSize: 2 });
      try {
        const [ra, rb] = await Promise.all([a.migrate(), b.migrate()]);
        assert.deepEqual([...ra.applied, ...rb.applied].sort((x, y) => x - y), PG_MIGRATIONS.map((m) => m.version));
        assert.deepEqual((await a.migrationStatus()).pending, []);
      } finally {
        await a.close();
        await b.close();
        await db.drop();
      }
    });

    it('plans as PostgreSQL chooses, and a plan for any values of an after= read still reads along tasks_by_modified', async () => {
      await onFreshStore(2, async (store) => {
        const account = await store.transaction((tx) => tx.accounts.create(newAccount('tdplan', 1)));
        await store.transaction(async (tx) => {
          const first = await tx.accounts.allocateIds(account.pk, 'task', 5000);
          await tx.tasks.insertMany(account.pk, Array.from({ length: 5000 }, (_, i) => newTask(first + i, { modified: i < 4990 ? 1_000 : 2_000 })));
        });
        // A connection of the store's own pool, prepared and run the way the adapter runs statements.
        const client = await (store as unknown as { pool: import('pg').Pool }).pool.connect();
        try {
          assert.equal((await client.query('SHOW plan_cache_mode')).rows[0]?.plan_cache_mode, 'auto');
          await client.query('ANALYZE tasks');
          // The range read as the tasks' statements write it (Dialect.rangeRead), planned once for
          // any values: without the subquery, that plan walked the account by id.
          const range = pgDialect.rangeRead('tasks', 'tasks_by_modified', 't.user_pk = $1 AND t.modified > $2');
          await client.query(`PREPARE q(bigint, bigint, bigint) AS SELECT t.id FROM ${range.from} ORDER BY t.id LIMIT $3`);
          await client.query('SET plan_cache_mode = force_generic_plan');
          const plan = (await client.query(`EXPLAIN EXECUTE q(${account.pk}, 1500, 1000)`)).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
          assert.match(plan, /tasks_by_modified/, plan);
          assert.doesNotMatch(plan, /tasks_pkey/, plan);
        } finally {
          await client.query('DEALLOCATE ALL').catch(() => undefined);
          await client.query('RESET plan_cache_mode').catch(() => undefined);
          client.release();
        }
      });
    });

    for (const [setting, sizes, analyzed] of [
      ['accounts of very different sizes, with statistics', [5000, 300, 20], true],
      ['one small account, before statistics are gathered (a new server)', [100], false],
    ] as const) {
      it(`settles on one plan for the after= fetch (${setting}), and that plan reads along tasks_by_modified`, async () => {
        // One connection: every call of the fetch runs the one statement prepared on it.
        await onFreshStore(1, async (store) => {
          const pool = (store as unknown as { pool: import('pg').Pool }).pool;
          // Statistics only where the test gathers them (autovacuum could run in the middle).
          await pool.query('ALTER TABLE tasks SET (autovacuum_enabled = false)');
          const accounts = [];
          for (const [i, n] of sizes.entries()) {
            const account = await store.transaction((tx) => tx.accounts.create(newAccount(`tdsettle${i}`, i + 1)));
            await store.transaction(async (tx) => {
              const first = await tx.accounts.allocateIds(account.pk, 'task', n);
              await tx.tasks.insertMany(account.pk, Array.from({ length: n }, (_, j) => newTask(first + j, { modified: j < n - 5 ? 1_000 : 2_000 })));
            });
            accounts.push(account);
          }
          if (analyzed) await pool.query('ANALYZE tasks');
          for (const account of accounts) {
            for (let i = 0; i < 8; i++) {
              const page = await store.read.tasks.page(account.pk, { after: 1_500, start: 0, num: 1000, withChildren: true, metaFor: 1 });
              assert.equal(page.tasks.length, 5);
            }
          }
          const fetch = "SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%t.modified > $%'";
          const statements = (await pool.query(fetch)).rows as Array<{ name: string; generic_plans: string; custom_plans: string }>;
          assert.equal(statements.length, 1, 'the fetch is one prepared statement');
          // PostgreSQL plans the first five calls for their values, then weighs one plan for any
          // values; with one end of the range stated, or an OFFSET of unknown value, it found that
          // one dearer and planned every call.
          assert.ok(Number(statements[0]?.generic_plans) >= 8 * sizes.length - 5, `plans for any values: ${JSON.stringify(statements[0])}`);
          for (const account of accounts) {
            // The children's guard, the range read's account, its range, the meta's guard and app, the LIMIT.
            const values = `${account.pk}, ${account.pk}, 1500, ${Number.MAX_SAFE_INTEGER}, ${account.pk}, 1, 1000`;
            const plan = (await pool.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) EXECUTE "${statements[0]?.name}"(${values})`)).rows
              .map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN'])
              .join('\n');
            assert.match(plan, /tasks_by_modified/, plan);
            // The accounts have no subtask and no app's meta: those lookups are decided once for the
            // statement, and never run for a row (Dialect.accountHasRows).
            assert.match(plan, /One-Time Filter/, plan);
            assert.match(plan, /Index Scan using task_meta_pkey on task_meta m \(never executed\)/, plan);
            assert.match(plan, /SubPlan \d+\n\s+->  Aggregate \(never executed\)/, plan);
          }
          // A later page states its OFFSET, and answers the rest.
          const later = await store.read.tasks.page(accounts[0]?.pk as number, { after: 1_500, start: 3, num: 3, withChildren: false });
          assert.deepEqual([later.total, later.tasks.length], [5, 2]);
        });
      });
    }

    it('names a varied text (tasks/get field lists) once it is in use, up to a bound, and answers every one', async () => {
      const db = await freshSchema(base);
      const store = new PostgresStore({ url: db.url, poolSize: 2 });
      const client = await (store as unknown as { pool: import('pg').Pool }).pool.connect();
      try {
        const prepared = async (): Promise<number> => Number((await client.query('SELECT count(*) AS n FROM pg_prepared_statements')).rows[0]?.n);
        // Named from the second time a text is sent, at most two texts.
        const conn = new PgDb(client, new VariedNames(2, 2));
        const text = (i: number): string => `SELECT ?::int + ${i} AS v /* varied ${process.pid} ${i} */`;
        const before = await prepared();
        assert.deepEqual(await conn.allRawVaried(text(0), 1), [[1]]);
        assert.equal((await prepared()) - before, 0, 'sent once: parsed for that call only');
        assert.deepEqual(await conn.allRawVaried(text(0), 2), [[2]], 'the same text again, other values');
        assert.equal((await prepared()) - before, 1, 'sent twice: named');
        assert.deepEqual(await conn.allRawVaried(text(0), 3), [[3]]);
        for (const i of [1, 1, 2, 2, 3, 3]) assert.deepEqual(await conn.allRawVaried(text(i), 1), [[1 + i]]);
        assert.equal((await prepared()) - before, 2, 'no more than the bound, however often the others come');
        // A saved search's statements never take a slot, however often they come.
        const once = new PgDb(client, new VariedNames(2, 1));
        for (const v of [1, 2, 3]) assert.deepEqual(await once.allRawUnnamed(text(9), v), [[v + 9]]);
        assert.equal((await prepared()) - before, 2, 'allRawUnnamed: parsed for each call');
      } finally {
        client.release();
        await store.close();
        await db.drop();
      }
    });

    it('refuses a database that is not UTF8, in one line naming DATABASE_URL when serving', async () => {
      const admin = new pg.Client({ connectionString: base });
      await admin.connect();
      const name = `tk_latin1_${process.pid}`;
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.query(`CREATE DATABASE ${name} ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`);
      const url = new URL(base);
      url.pathname = `/${name}`;
      const store = new PostgresStore({ url: url.toString(), poolSize: 2 });
      try {
        await assert.rejects(store.migrationStatus(), (err: unknown) => err instanceof UnsupportedDatabase && /encoding LATIN1; Tickler needs UTF8/.test(err.message));
        await assert.rejects(store.migrate(), UnsupportedDatabase);
        assert.ok((await store.countRows('pg_class')) > 0, 'the database itself answers: only its encoding is refused');
        await assert.rejects(openForServing({ kind: 'postgres', url: url.toString(), poolSize: 2 }), (err: unknown) => err instanceof ConfigError && /^DATABASE_URL: the PostgreSQL database uses the encoding LATIN1/.test(err.message));
      } finally {
        await store.close();
        await admin.query(`DROP DATABASE IF EXISTS ${name}`);
        await admin.end();
      }
    });

    it('a held account lock does not hold back inserts of rows that refer to the account', async () => {
      // Inserting a session or a known device checks its account with a KEY SHARE lock; the
      // account lock of a task batch must not conflict with it (it never changes the key).
      const db = await freshSchema(base);
      const store = new PostgresStore({ url: db.url, poolSize: 3 });
      let release = (): void => undefined;
      try {
        await store.migrate();
        const account = await store.transaction((tx) =>
          tx.accounts.create(newAccount('tdlock', 1)),
        );
        const held = new Promise<void>((resolve) => (release = resolve));
        let locked = (): void => undefined;
        const isLocked = new Promise<void>((resolve) => (locked = resolve));
        const holder = store.transaction(async (tx) => {
          await tx.accounts.lock(account.pk);
          locked();
          await held;
        });
        await isLocked;
        let timer: NodeJS.Timeout | undefined;
        const waited = await Promise.race([
          store
            .transaction(async (tx) => {
              await tx.sessions.create({ idHash: 'beside-the-lock', userPk: account.pk, createdAt: 1, expiresAt: 2 });
              await tx.accounts.rememberDevice(account.pk, 'device', 1);
            })
            .then(() => 'inserted'),
          new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still waiting after 5 s'), 5000))),
        ]);
        clearTimeout(timer);
        assert.equal(waited, 'inserted');
        release();
        await holder;
      } finally {
        release();
        await store.close();
        await db.drop();
      }
    });

    it("account/get's settled read locks no row, and a writer that held the account's row before lock() cannot deadlock", async () => {
      await onFreshStore(4, async (store, db) => {
        const account = await store.transaction((tx) => tx.accounts.create(newAccount('tdsettled', 1)));
        const xmax = async () => {
          const client = new pg.Client({ connectionString: db.url });
          await client.connect();
          try {
            return String((await client.query('SELECT xmax::text AS x FROM accounts WHERE pk = $1', [account.pk])).rows[0]?.x);
          } finally {
            await client.end();
          }
        };
        for (let i = 0; i < 3; i++) assert.equal((await store.settledAccount(account.pk, { now: () => 0 }))?.account.pk, account.pk);
        // A row lock writes its locker's transaction id into the row (FOR SHARE did, on every read).
        assert.equal(await xmax(), '0', 'no lock was written into the row');
        // Above READ COMMITTED the read's snapshot would be the one taken before its wait.
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        try {
          await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
          await assert.rejects(client.query('SELECT pk FROM settled_accounts($1)', [[account.pk]]), /needs READ COMMITTED, not repeatable read/);
          await client.query('ROLLBACK');
        } finally {
          await client.end();
        }

        // The first writer holds the row (an UPDATE) before its lock(); the second asks lock() in
        // between. Marking the account before its row lock would make each wait for the other.
        const attempts = { first: 0, second: 0 };
        let release = (): void => undefined;
        const held = new Promise<void>((resolve) => (release = resolve));
        let rowHeld = (): void => undefined;
        const isRowHeld = new Promise<void>((resolve) => (rowHeld = resolve));
        const first = store.transaction(async (tx) => {
          attempts.first++;
          await tx.accounts.touch(account.pk, ['lastedit_task'], 1000);
          rowHeld();
          await held;
          return (await tx.accounts.lock(account.pk))?.stamps.lastedit_task;
        });
        await isRowHeld;
        const second = store.transaction(async (tx) => {
          attempts.second++;
          return (await tx.accounts.lock(account.pk))?.stamps.lastedit_task;
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
        release();
        assert.deepEqual(await Promise.all([first, second]), [1000, 1000]);
        assert.deepEqual(attempts, { first: 1, second: 1 }, 'neither was rolled back as a deadlock and run again');
      });
    });

    it('settled reads that arrive together share one statement, and each gets its own account', async () => {
      await onFreshStore(4, async (store) => {
        const [a, b] = [await store.transaction((tx) => tx.accounts.create(newAccount('tdtogether1', 1))), await store.transaction((tx) => tx.accounts.create(newAccount('tdtogether2', 2)))];
        const pool = (store as unknown as { pool: { query: (...args: unknown[]) => Promise<unknown> } }).pool;
        const query = pool.query.bind(pool);
        let statements = 0;
        pool.query = (...args: unknown[]) => (statements++, query(...args));
        const clock = { now: () => 7_000 };
        const reads = await Promise.all([b.pk, a.pk, b.pk, a.pk + b.pk + 100].map((pk) => store.settledAccount(pk, clock)));
        assert.deepEqual(reads.map((r) => r?.account.userid ?? null), [b.userid, a.userid, b.userid, null]);
        assert.deepEqual(reads.map((r) => r?.asOfMs ?? null), [7_000, 7_000, 7_000, null]);
        assert.equal(statements, 1);
      });
    });

    it('a settled read of two accounts waits for a writer that locks them in the other order, and neither holds the other up', async () => {
      await onFreshStore(4, async (store, db) => {
        const [a, b] = [await store.transaction((tx) => tx.accounts.create(newAccount('tdorder1', 1))), await store.transaction((tx) => tx.accounts.create(newAccount('tdorder2', 2)))];
        let release = (): void => undefined;
        const gate = new Promise<void>((resolve) => (release = resolve));
        let bLocked = (): void => undefined;
        const isBLocked = new Promise<void>((resolve) => (bLocked = resolve));
        let runs = 0;
        // As OtherAccounts may: the higher key first, then the lower.
        const writer = store.transaction(async (tx) => {
          runs++;
          await tx.accounts.lock(b.pk);
          await tx.accounts.touch(b.pk, ['lastedit_task'], 500);
          bLocked();
          await gate;
          await tx.accounts.lock(a.pk);
          await tx.accounts.touch(a.pk, ['lastedit_task'], 500);
        });
        await isBLocked;
        const clock = { now: () => 0 };
        // One statement: it waits for a's lock (free), then for b's (the writer's).
        const reading = Promise.all([store.settledAccount(a.pk, clock), store.settledAccount(b.pk, clock)]);
        const monitor = new pg.Client({ connectionString: db.url });
        await monitor.connect();
        try {
          const waiting = async () =>
            Number(
              (
                await monitor.query(
                  // This schema's key of b (migration 13), in this database: other test files run beside this one.
                  `SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 2 AND objid = $1::oid
                     AND classid = (hashtext(current_schema()::text)::bigint & 4294967295)::oid
                     AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
                  [b.pk],
                )
              ).rows[0]?.n,
            );
          for (let i = 0; i < 500 && (await waiting()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
          assert.equal(await waiting(), 1, "the read waits for b's writer");
        } finally {
          await monitor.end();
        }
        // Holding a's lock while it waited, the read would now deadlock with the writer.
        release();
        const [reads] = await Promise.all([reading, writer]);
        assert.deepEqual(reads.map((r) => r?.account.stamps.lastedit_task), [500, 500], 'read after the writer committed both');
        assert.equal(runs, 1, 'the writer was never rolled back as a deadlock and run again');
      });
    });

    it('concurrent writers of one account on two stores (two instances) never share an id, and the stamp keeps the latest second', async () => {
      const db = await freshSchema(base);
      const a = new PostgresStore({ url: db.url, poolSize: 4 });
      const b = new PostgresStore({ url: db.url, poolSize: 4 });
      try {
        await a.migrate();
        const account = await a.transaction((tx) =>
          tx.accounts.create(newAccount('tdpg', 1)),
        );
        // Each writer: ids and a stamp, in one transaction, as a task batch does (no lock() first),
        // each with its own clock reading, as instances whose clocks differ a little.
        const write = (store: PostgresStore, now: number) =>
          store.transaction(async (tx) => ({
            id: await tx.accounts.allocateIds(account.pk, 'task', 2),
            stamp: (await tx.accounts.touch(account.pk, ['lastedit_task'], now)).lastedit_task as number,
          }));
        const nows = Array.from({ length: 30 }, (_, i) => 1_000 + ((i * 7) % 11));
        const results = await Promise.all(nows.map((now, i) => write(i % 2 ? a : b, now)));
        const ids = results.flatMap((r) => [r.id, r.id + 1]).sort((x, y) => x - y);
        assert.deepEqual(ids, Array.from({ length: 60 }, (_, i) => i + 1));
        for (const [i, r] of results.entries()) assert.ok(r.stamp >= (nows[i] as number), 'a stamp is at least its own clock reading');
        assert.equal((await a.read.accounts.get(account.pk))?.stamps.lastedit_task, Math.max(...nows), 'and the account keeps the latest');
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

describe('withIntegers: the values a first statement carries in its text', () => {
  it('writes integers, a negative one bracketed', () => {
    assert.equal(withIntegers('SELECT a FROM t WHERE pk = ? AND n > 0 - ?', [12, -3]), 'SELECT a FROM t WHERE pk = 12 AND n > 0 - (-3)');
  });

  it('refuses any other value, and a count of values that does not match the placeholders', () => {
    for (const values of [['12'], [1.5], [null], [Number.MAX_SAFE_INTEGER + 1], [Number.NaN]]) {
      assert.equal(withIntegers('SELECT 1 WHERE x = ?', values as never[]), null, JSON.stringify(values));
    }
    assert.equal(withIntegers('SELECT 1 WHERE x = ? AND y = ?', [1]), null);
    assert.equal(withIntegers('SELECT 1 WHERE x = ?', [1, 2]), null);
  });
});
