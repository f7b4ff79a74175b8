import pg from 'pg';
import { storableText } from '../../lib/text.js';
import type { Clock } from '../../lib/clock.js';
import { KeyBatcher } from '../../lib/key-batcher.js';
import { ACCOUNT_COLUMNS, toAccount } from '../sql/accounts.js';
import { SqlCounters } from '../sql/counters.js';
import { makeRepos } from '../sql/repos.js';
import { TargetNotEmpty, type TableDump } from '../copy.js';
import { UnsupportedDatabase, type Account, type CountersRepo, type MigrationStatus, type Repos, type SettledAccount, type Store } from '../store.js';
import { PG_MIGRATIONS } from './migrations.js';
import { PgNotices } from './pg-notices.js';
import { PendingBegin, PgDb, pgDialect, pgTypes } from './pg-db.js';

export interface PostgresOptions {
  readonly url: string;
  /**
   * Connections per instance; at least 2, since a read may run while a transaction holds one.
   * The setting (DATABASE_POOL_SIZE) is checked and given its default in src/config.ts.
   */
  readonly poolSize: number;
}

/** Any number: it only has to be the same for every instance of Tickler on one database. */
const MIGRATION_LOCK = 0x7469636b;

/**
 * Statements are planned as PostgreSQL chooses by default (`auto`): for each run's values at
 * first, then once for any values where that plan is estimated to cost no more. Connections used
 * to force a plan for each run's values, because a plan for any values made range reads walk all
 * of an account's tasks by id (28-38 ms on 80,000 tasks against 0.05 ms), and planning the `after=`
 * fetch then cost PostgreSQL more than running it (552 against 220 µs a call). Range reads now
 * filter in a subquery that reads along the modified index whatever the values (Dialect.rangeRead),
 * and a partial index's condition is written out (`parent <> 0`, `folder <> 0`). Forcing one plan
 * for any values everywhere was measured and not kept (docs/decisions/0009): statements sent
 * unnamed (saved searches) would lose their values' estimates, and with a few accounts of very
 * different sizes an estimate made without values can choose to read the whole table.
 */

/** Deadlock and serialization failure: safe to run the whole transaction again. */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 3;
/** Accounts read by one settled_accounts statement at most. */
const SETTLED_PER_STATEMENT = 100;

/**
 * PostgreSQL adapter. Transactions run at READ COMMITTED (the default): every read that precedes
 * a write it depends on locks its row (`FOR NO KEY UPDATE`: the account when a batch of tasks is
 * written, a code or token when it is spent; moving stamps is one UPDATE, which locks the account
 * itself), so concurrent writers of one account queue on its row instead of failing, and
 * instances never give out the same id or stamp twice (docs/decisions/0009-postgresql.md).
 */
export class PostgresStore implements Store {
  readonly dialect = 'postgres' as const;
  readonly read: Repos;
  readonly counters: CountersRepo;
  readonly notices: PgNotices;
  private readonly pool: pg.Pool;
  private readonly settled: KeyBatcher<number, Account>;

  constructor(options: PostgresOptions) {
    this.pool = new pg.Pool({ connectionString: options.url, max: options.poolSize, types: pgTypes });
    // An idle connection's error (the server restarted) must not crash the process; the pool
    // replaces the connection and the next query reports any lasting failure.
    this.pool.on('error', () => undefined);
    const db = new PgDb(this.pool);
    this.read = makeRepos(db, pgDialect, false);
    this.counters = new SqlCounters(db);
    this.notices = new PgNotices(options.url);
    this.settled = new KeyBatcher((pks) => this.settledAccounts(pks), SETTLED_PER_STATEMENT);
  }

  /**
   * The clock, then the account once every write of it in flight has committed (migration 13's
   * settled_accounts). Reads that arrive together share one statement (KeyBatcher): one round trip
   * cost the server more CPU than all the rest of an uncached account/get. Each read's clock is
   * taken before its statement starts, as the stamps' rule needs (docs/decisions/0003); a read
   * also waits for the writers in flight of the accounts it shares its statement with.
   */
  async settledAccount(pk: number, clock: Clock): Promise<SettledAccount | null> {
    const asOfMs = clock.now();
    const account = await this.settled.get(pk);
    return account ? { account, asOfMs } : null;
  }

  private async settledAccounts(pks: number[]): Promise<Map<number, Account>> {
    const result = await this.pool.query<unknown[]>({ text: `SELECT ${ACCOUNT_COLUMNS} FROM settled_accounts($1)`, values: [pks], rowMode: 'array', name: 'settled_accounts' });
    return new Map(
      result.rows.map((row) => {
        const account = toAccount(row);
        return [account.pk, account];
      }),
    );
  }

  async transaction<T>(fn: (tx: Repos) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.inTransaction((client, begin) => fn(makeRepos(new PgDb(client, undefined, begin), pgDialect, true)), { lazy: true });
      } catch (err) {
        if (attempt < ATTEMPTS && RETRYABLE.has((err as { code?: string }).code ?? '')) continue;
        throw err;
      }
    }
  }

  /**
   * Runs `fn` between BEGIN and COMMIT on one connection of the pool, rolling back if it throws.
   * `lazy`: `fn` sends the BEGIN with its first statement (PendingBegin, through a PgDb), and a
   * transaction that sent none ends without a word. A connection whose ROLLBACK failed is closed
   * rather than given back to the pool: it may be dead, or still inside the failed transaction,
   * and the next caller would inherit either.
   */
  private async inTransaction<T>(fn: (client: pg.PoolClient, begin: PendingBegin) => Promise<T>, { lazy = false } = {}): Promise<T> {
    const client = await this.pool.connect();
    const begin = new PendingBegin();
    let broken: Error | undefined;
    try {
      if (!lazy) {
        begin.sent = true;
        await client.query('BEGIN');
      }
      const result = await fn(client, begin);
      if (begin.sent) await client.query('COMMIT');
      return result;
    } catch (err) {
      if (!begin.sent) throw err;
      await client.query('ROLLBACK').catch((rollbackFailed: unknown) => {
        broken = rollbackFailed instanceof Error ? rollbackFailed : new Error(String(rollbackFailed));
      });
      throw err;
    } finally {
      // release(err) closes the connection instead of returning it.
      client.release(broken);
    }
  }

  /**
   * Text is stored as UTF-8: a database in another encoding refuses most of the world's characters
   * (an emoji in a title) and the escapes of tasks/get's XML (U+FFFE), each as an error at the
   * moment it is met. Said once, at start-up, instead.
   */
  private async checkEncoding(q: pg.Pool | pg.PoolClient): Promise<void> {
    const encoding = String((await q.query('SHOW server_encoding')).rows[0]?.server_encoding ?? '');
    if (encoding !== 'UTF8') {
      throw new UnsupportedDatabase(`the PostgreSQL database uses the encoding ${encoding}; Tickler needs UTF8 (CREATE DATABASE … ENCODING 'UTF8', docs/deploy.md)`);
    }
  }

  async migrationStatus(): Promise<MigrationStatus> {
    await this.checkEncoding(this.pool);
    const applied = await this.appliedVersions(this.pool);
    return { applied, pending: PG_MIGRATIONS.map((m) => m.version).filter((v) => !applied.includes(v)) };
  }

  private async appliedVersions(q: pg.Pool | pg.PoolClient): Promise<number[]> {
    const exists = await q.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS ok");
    if (!(exists.rows[0] as { ok: boolean }).ok) return [];
    const rows = await q.query('SELECT version FROM schema_migrations ORDER BY version');
    return rows.rows.map((r: { version: number }) => Number(r.version));
  }

  async migrate(): Promise<MigrationStatus> {
    // Every pending step in one transaction, under one advisory lock: instances starting together
    // wait here one after the other, and each applies what is left. A step that fails takes the
    // steps before it back with it, so the schema is always at a released version. Two round
    // trips per step instead of seven: the tests migrate a fresh schema for every test context.
    const ran: number[] = [];
    await this.inTransaction(async (client) => {
      await this.checkEncoding(client);
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
      );
      const applied = new Set(await this.appliedVersions(client));
      const now = Math.floor(Date.now() / 1000);
      for (const m of PG_MIGRATIONS) {
        if (applied.has(m.version)) continue;
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, now]);
        ran.push(m.version);
      }
    });
    return { applied: ran, pending: [] };
  }

  async countRows(table: string): Promise<number> {
    const r = await this.pool.query(`SELECT count(*) AS n FROM "${table}"`);
    return Number((r.rows[0] as { n: number }).n);
  }

  /**
   * Loads whole tables in one transaction (parents first). Refuses a target that holds accounts
   * or apps unless `replace`, which empties every table first. Identity counters are moved past
   * the copied keys so that new accounts, apps and grants do not collide with them.
   */
  async load(dumps: readonly TableDump[], options: { replace: boolean }): Promise<void> {
    await this.inTransaction(async (client) => {
      // The change log comes with the copy (changes, task_folder_exits, accounts.change_seq), so
      // that apps' cursors and CalDAV clients' sync tokens go on working: its triggers stand aside.
      await client.query("SET LOCAL tickler.loading = 'on'");
      const used = await client.query('SELECT (SELECT count(*) FROM accounts) + (SELECT count(*) FROM clients) AS n');
      if (Number((used.rows[0] as { n: number }).n) > 0) {
        if (!options.replace) throw new TargetNotEmpty('the target database already holds accounts or apps');
        await client.query(`TRUNCATE ${dumps.map((d) => `"${d.table}"`).join(', ')}, rate_counters CASCADE`);
      }
      for (const d of dumps) {
        // Up to 60,000 parameters per statement (PostgreSQL allows 65,535).
        const perStatement = Math.max(1, Math.floor(60_000 / d.columns.length));
        for (let i = 0; i < d.rows.length; i += perStatement) {
          const chunk = d.rows.slice(i, i + perStatement);
          const values: unknown[] = [];
          // Text written before U+0000 was stripped on input: PostgreSQL cannot store that character.
          const tuples = chunk.map((row) => `(${row.map((v) => `$${values.push(typeof v === 'string' ? storableText(v) : v)}`).join(', ')})`);
          await client.query(`INSERT INTO "${d.table}" (${d.columns.map((c) => `"${c}"`).join(', ')}) VALUES ${tuples.join(', ')}`, values);
        }
      }
      for (const [table, column] of [['accounts', 'pk'], ['clients', 'pk'], ['grants', 'id'], ['shares', 'pk'], ['saved_searches', 'id'], ['app_passwords', 'id'], ['calendar_feeds', 'id'], ['webhook_deliveries', 'id'], ['webhook_attempts', 'id']] as const) {
        await client.query(`SELECT setval(pg_get_serial_sequence('${table}', '${column}'), COALESCE((SELECT max(${column}) FROM ${table}), 0) + 1, false)`);
      }
    });
  }

  async close(): Promise<void> {
    await this.notices.close();
    await this.pool.end();
  }
}
