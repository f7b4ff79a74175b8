import Database from 'better-sqlite3';
import { Mutex } from '../../lib/mutex.js';
import { SqlCounters } from '../sql/counters.js';
import type { SqlDb, SqlParam } from '../sql/db.js';
import type { Clock } from '../../lib/clock.js';
import type { CountersRepo, MigrationStatus, Repos, SettledAccount, Store } from '../store.js';
import { makeRepos } from '../sql/repos.js';
import { Conn, SqliteDb, sqliteDialect } from './connection.js';
import { GroupCommit } from './group-commit.js';
import { SqliteNotices } from './notices.js';
import { MIGRATIONS } from './migrations.js';
import { makeFolderFor } from './sqlite-path.js';

export interface SqliteOptions {
  readonly path: string;
  readonly synchronous: 'FULL' | 'NORMAL';
}

function open(path: string, synchronous: 'FULL' | 'NORMAL', queryOnly: boolean): Database.Database {
  const db = new Database(path);
  // Another process (the CLI next to a running server) may hold the write lock for a moment.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  // FULL: every commit is fsynced before the call answers, so an acknowledged write survives
  // a crash of the process or of the machine.
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('foreign_keys = ON');
  if (queryOnly) db.pragma('query_only = ON');
  return db;
}

/** Versions already applied; reads only, so a status query never changes the file. */
function appliedVersions(db: Database.Database): number[] {
  const exists = db.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!exists) return [];
  return (db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as Array<{ version: number }>).map((r) => r.version);
}

/** What migrate() has applied to the file and what it would apply; reads only. */
export function migrationStatusOf(db: Database.Database): MigrationStatus {
  const applied = appliedVersions(db);
  return { applied, pending: MIGRATIONS.map((m) => m.version).filter((v) => !applied.includes(v)) };
}

/**
 * SQLite adapter. Two connections to one file:
 * - the writer, used only inside transaction(), guarded by a FIFO mutex, so that a transaction
 *   whose callback awaits never has another request's statements slip into it; transactions that
 *   arrive together share one commit, each in a savepoint of its own (group-commit.ts);
 * - the reader (query_only), for autocommit reads: in WAL mode it sees the last committed state
 *   and never the writer's uncommitted work.
 */
export class SqliteStore implements Store {
  readonly dialect = 'sqlite' as const;
  readonly read: Repos;
  readonly counters: CountersRepo;
  readonly notices: SqliteNotices;
  private readonly writer: Conn;
  private readonly reader: Conn;
  // A writer waiting for another process's write lock (the CLI beside a running server) blocks
  // this process for up to busy_timeout; the CLI's transactions last milliseconds.
  private readonly writeRepos: Repos;
  private readonly mutex = new Mutex();
  /** Transactions that arrive together commit together (group-commit.ts), behind the mutex. */
  private readonly groups: GroupCommit;
  private closed = false;

  constructor(options: SqliteOptions) {
    if (options.path === ':memory:') throw new Error('SQLite needs a file: the store opens it twice (writer and reader)');
    makeFolderFor(options.path);
    this.writer = new Conn(open(options.path, options.synchronous, false));
    try {
      this.reader = new Conn(open(options.path, options.synchronous, true));
    } catch (err) {
      this.writer.db.close();
      throw err;
    }
    const reader = this.reader;
    this.notices = new SqliteNotices((pks) =>
      reader.allRaw(`SELECT pk, change_seq FROM accounts WHERE pk IN (SELECT value FROM json_each(?))`, JSON.stringify(pks)) as Array<[number, number]>,
    );
    this.groups = new GroupCommit(
      this.writer,
      this.mutex,
      () => {
        if (this.closed) throw new Error('store is closed');
      },
      () => this.notices.poke(),
    );
    this.writeRepos = makeRepos(new SqliteDb(this.writer), sqliteDialect, true);
    this.read = makeRepos(new SqliteDb(this.reader), sqliteDialect, false);
    // Counter writes go through the writer like every write (one at a time, behind the mutex).
    this.counters = new SqlCounters(this.autocommitWriter());
  }

  async transaction<T>(fn: (tx: Repos) => Promise<T>): Promise<T> {
    // BEGIN IMMEDIATE (in the group) takes the write lock first, so reads inside the transaction
    // see what it will change.
    return this.groups.run(() => fn(this.writeRepos));
  }

  async settledAccount(pk: number, clock: Clock): Promise<SettledAccount | null> {
    const asOfMs = clock.now();
    // Behind the writer's FIFO mutex: every transaction begun before this call has ended, and the
    // reader connection sees what it committed.
    const account = await this.mutex.run(() => this.read.accounts.get(pk));
    return account && { account, asOfMs };
  }

  /** The writer as a SqlDb whose every statement is its own transaction. */
  private autocommitWriter(): SqlDb {
    const db = new SqliteDb(this.writer);
    const one = <T>(fn: () => Promise<T>): Promise<T> => this.transaction(fn);
    return {
      get: <T>(sql: string, ...p: SqlParam[]) => one(() => db.get<T>(sql, ...p)),
      all: <T>(sql: string, ...p: SqlParam[]) => one(() => db.all<T>(sql, ...p)),
      getRaw: (sql: string, ...p: SqlParam[]) => one(() => db.getRaw(sql, ...p)),
      allRawOpening: (sql: string, ...p: number[]) => one(() => db.allRawOpening(sql, ...p)),
      allRaw: (sql: string, ...p: SqlParam[]) => one(() => db.allRaw(sql, ...p)),
      run: (sql: string, ...p: SqlParam[]) => one(() => db.run(sql, ...p)),
      allRawVaried: (sql: string, ...p: SqlParam[]) => one(() => db.allRawVaried(sql, ...p)),
      allRawUnnamed: (sql: string, ...p: SqlParam[]) => one(() => db.allRawUnnamed(sql, ...p)),
      firstsVaried: (sql: string, ...p: SqlParam[]) => one(() => db.firstsVaried(sql, ...p)),
    };
  }

  async migrationStatus(): Promise<MigrationStatus> {
    return this.mutex.run(async () => migrationStatusOf(this.writer.db));
  }

  async migrate(): Promise<MigrationStatus> {
    return this.mutex.run(async () => {
      const ran: number[] = [];
      for (const m of MIGRATIONS) {
        // Each step is its own transaction; the check repeats inside it so that two processes
        // migrating at once do not both apply a step.
        this.writer.exec('BEGIN IMMEDIATE');
        try {
          this.writer.exec(
            'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT',
          );
          if (!appliedVersions(this.writer.db).includes(m.version)) {
            this.writer.exec(m.sql);
            m.afterSql?.(this.writer.db);
            this.writer.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', m.version, m.name, Math.floor(Date.now() / 1000));
            ran.push(m.version);
          }
          this.writer.exec('COMMIT');
        } catch (err) {
          if (this.writer.db.inTransaction) this.writer.exec('ROLLBACK');
          throw err;
        }
      }
      return { applied: ran, pending: [] };
    });
  }

  async close(): Promise<void> {
    await this.mutex.run(async () => {
      if (this.closed) return;
      this.closed = true;
      this.notices.close();
      this.reader.db.close();
      this.writer.db.close();
    });
  }
}
