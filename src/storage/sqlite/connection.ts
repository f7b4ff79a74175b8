import Database from 'better-sqlite3';
import { UniqueViolation } from '../store.js';

type Param = string | number | bigint | null | Buffer;

/** A better-sqlite3 connection with a prepared-statement cache. SQL never leaves storage/. */
export class Conn {
  private readonly cache = new Map<string, Database.Statement>();

  constructor(readonly db: Database.Database) {}

  private stmt(sql: string): Database.Statement {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }

  get<T>(sql: string, ...params: Param[]): T | undefined {
    return this.stmt(sql).get(...params) as T | undefined;
  }

  /**
   * A row as an array in select-list order. For wide rows on hot paths: better-sqlite3 builds a
   * row object key by key, which costs twice as much as the array (measured: 10 µs against 5 µs
   * for the 27 columns of an account; docs/decisions/0001-storage.md).
   */
  getRaw(sql: string, ...params: Param[]): unknown[] | undefined {
    return this.rawStmt(sql).get(...params) as unknown[] | undefined;
  }

  allRaw(sql: string, ...params: Param[]): unknown[][] {
    return this.rawStmt(sql).all(...params) as unknown[][];
  }

  private readonly rawCache = new Map<string, Database.Statement>();

  private rawStmt(sql: string): Database.Statement {
    let s = this.rawCache.get(sql);
    if (!s) {
      s = this.db.prepare(sql).raw(true);
      this.rawCache.set(sql, s);
    }
    return s;
  }

  all<T>(sql: string, ...params: Param[]): T[] {
    return this.stmt(sql).all(...params) as T[];
  }

  run(sql: string, ...params: Param[]): Database.RunResult {
    return this.stmt(sql).run(...params);
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }
}

/** Maps SQLite's unique-constraint failure to the port's UniqueViolation, naming the column. */
export function translateUnique<T>(what: Record<string, string>, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      for (const [column, label] of Object.entries(what)) {
        if (e.message?.includes(column)) throw new UniqueViolation(label);
      }
      throw new UniqueViolation('record');
    }
    throw err;
  }
}
