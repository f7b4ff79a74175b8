import Database from 'better-sqlite3';
import { BoundedMap } from '../../lib/bounded-map.js';
import { storableParams, type Dialect, type JsonKind, type SqlDb, type SqlParam } from '../sql/db.js';

/** Prepared statements kept for allRawVaried(): the field lists in use at once by every app of every account. */
const VARIED_STATEMENTS = 32;

/** A better-sqlite3 connection with a prepared-statement cache. SQL never leaves storage/. */
export class Conn {
  private readonly cache = new Map<string, Database.Statement>();

  constructor(readonly db: Database.Database) {}

  /** The statement for `sql` from `cache`, prepared (and kept there) on first use: rows as objects, arrays (raw) or first values (pluck). */
  private prepared(cache: Map<string, Database.Statement>, sql: string, mode: 'object' | 'raw' | 'pluck'): Database.Statement {
    let s = cache.get(sql);
    if (!s) {
      const fresh = this.db.prepare(sql);
      s = mode === 'raw' ? fresh.raw(true) : mode === 'pluck' ? fresh.pluck(true) : fresh;
      cache.set(sql, s);
    }
    return s;
  }

  private stmt(sql: string): Database.Statement {
    return this.prepared(this.cache, sql, 'object');
  }

  get<T>(sql: string, ...params: SqlParam[]): T | undefined {
    return this.stmt(sql).get(...params) as T | undefined;
  }

  /**
   * A row as an array in select-list order. For wide rows on hot paths: better-sqlite3 builds a
   * row object key by key, which costs twice as much as the array (measured: 10 µs against 5 µs
   * for the 27 columns of an account; docs/decisions/0001-storage.md).
   */
  getRaw(sql: string, ...params: SqlParam[]): unknown[] | undefined {
    return this.rawStmt(sql).get(...params) as unknown[] | undefined;
  }

  allRaw(sql: string, ...params: SqlParam[]): unknown[][] {
    return this.rawStmt(sql).all(...params) as unknown[][];
  }

  private readonly rawCache = new Map<string, Database.Statement>();

  private rawStmt(sql: string): Database.Statement {
    return this.prepared(this.rawCache, sql, 'raw');
  }

  /**
   * The last VARIED_STATEMENTS texts of allRawVaried(), prepared: a client sends the same field list
   * on every sync, and preparing tasks/get's statement with every field took 127 µs of the 341 µs
   * of a 10-task after= read. Bounded, as the texts vary with the request.
   */
  private readonly variedCache = new BoundedMap<string, Database.Statement>(VARIED_STATEMENTS);

  /** allRaw() of a statement whose text varies with the request (see SqlDb.allRawVaried). */
  allRawVaried(sql: string, ...params: SqlParam[]): unknown[][] {
    return this.prepared(this.variedCache, sql, 'raw').all(...params) as unknown[][];
  }

  private readonly firstsCache = new BoundedMap<string, Database.Statement>(VARIED_STATEMENTS);

  /** Each row's first value, of a statement whose text varies (see SqlDb.firstsVaried). */
  firstsVaried(sql: string, ...params: SqlParam[]): unknown[] {
    return this.prepared(this.firstsCache, sql, 'pluck').all(...params);
  }

  all<T>(sql: string, ...params: SqlParam[]): T[] {
    return this.stmt(sql).all(...params) as T[];
  }

  run(sql: string, ...params: SqlParam[]): Database.RunResult {
    return this.stmt(sql).run(...params);
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }
}

/** The Conn as the shared repositories see it: the same calls, as promises, with storable text. */
export class SqliteDb implements SqlDb {
  constructor(private readonly c: Conn) {}

  async get<T>(sql: string, ...params: SqlParam[]): Promise<T | undefined> {
    return this.c.get<T>(sql, ...storableParams(params));
  }

  async all<T>(sql: string, ...params: SqlParam[]): Promise<T[]> {
    return this.c.all<T>(sql, ...storableParams(params));
  }

  async getRaw(sql: string, ...params: SqlParam[]): Promise<unknown[] | undefined> {
    return this.c.getRaw(sql, ...storableParams(params));
  }

  async allRawOpening(sql: string, ...params: number[]): Promise<unknown[][]> {
    return this.c.allRaw(sql, ...params);
  }

  async allRaw(sql: string, ...params: SqlParam[]): Promise<unknown[][]> {
    return this.c.allRaw(sql, ...storableParams(params));
  }

  async run(sql: string, ...params: SqlParam[]): Promise<number> {
    return this.c.run(sql, ...storableParams(params)).changes;
  }

  async allRawVaried(sql: string, ...params: SqlParam[]): Promise<unknown[][]> {
    return this.c.allRawVaried(sql, ...storableParams(params));
  }

  async allRawUnnamed(sql: string, ...params: SqlParam[]): Promise<unknown[][]> {
    return this.c.allRawVaried(sql, ...storableParams(params));
  }

  async firstsVaried(sql: string, ...params: SqlParam[]): Promise<unknown[]> {
    return this.c.firstsVaried(sql, ...storableParams(params));
  }
}

/** The characters XML 1.0 forbids that SQLite's text can hold: C0 controls but TAB, LF and CR; U+FFFE, U+FFFF. */
const XML_FORBIDDEN = [...Array.from({ length: 31 }, (_, i) => i + 1).filter((c) => c !== 9 && c !== 10 && c !== 13), 0xfffe, 0xffff];
/** A GLOB pattern matching text that holds one of them (a class of ranges, by code point). */
const FORBIDDEN_GLOB = `'*[' || char(1) || '-' || char(8) || char(11, 12, 14) || '-' || char(31) || char(65534, 65535) || ']*'`;

/**
 * Text as XML character data: the characters XML forbids left out (looked for first: thirty nested
 * replace() run only where one is found), then the entities and CR's reference. A task's own text
 * needs none of it (kept as XML in task_xml: sql/tasks.ts, XML_KEPT); a link's title, meta, a user id do.
 */
function xmlText(e: string): string {
  const dropped = XML_FORBIDDEN.reduce((inner, c) => `replace(${inner}, char(${c}), '')`, e);
  const allowed = `CASE WHEN ${e} GLOB ${FORBIDDEN_GLOB} THEN ${dropped} ELSE ${e} END`;
  return `replace(replace(replace(replace(${allowed}, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), char(13), '&#13;')`;
}

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  lockRows: () => '',
  skipLocked: () => '',
  // BEGIN IMMEDIATE locked the whole database already; settled reads queue behind the one writer
  // instead of waiting for a lock (sqlite-store.ts).
  lockAccount: (columns) => `SELECT ${columns} FROM accounts WHERE pk = ?`,
  fence: '',
  accountHasRows: null,
  writesInWith: false,
  opaqueParam: '+?',
  rangeRead: (table, index, filter) => ({ from: `${table} t INDEXED BY ${index}`, where: filter }),
  // better-sqlite3's raw rows hand the columns over as they are: 1.2 ms per 1000 rows of 29
  // columns, against 1.9 ms through one json_array per row and JSON.parse.
  wideRow: (columns, count) => ({ select: columns, width: count, values: (row) => row }),
  // As text: CAST(json_object(…) AS BLOB) was measured to cost SQLite more (5.1 against 2.8 ms for
  // 1000 rows of all fields) than decoding the text and encoding it again (sql/tasks.ts) costs.
  // A record with a member of stored JSON is joined as text instead: json_object would take that
  // member as a string unless json() parsed it again, which cost more than the joins (a page of
  // 1000 list rows 1,133 → 819 µs of CPU, 200 outlines 1,541 → 882); joining every record so
  // made those of many members slower (1000 tasks 2,733 → 4,723 µs: each || copies the record).
  jsonRecords: (columns, from) => {
    if (!columns.some(([, , kind]) => kind === 'json')) return `SELECT json_object(${columns.map(([k, e]) => `'${k}', ${e}`).join(', ')}) ${from}`;
    const member = (e: string, kind: JsonKind): string => (kind === 'text' ? `json_quote(${e})` : `coalesce(${e}, 'null')`);
    return `SELECT ${columns.map(([k, e, kind], i) => `'${i === 0 ? '{' : ','}"${k}":' || ${member(e, kind)}`).join(' || ')} || '}' ${from}`;
  },
  // json(): a subquery's value reaches the outer json_object as text unless marked JSON again.
  jsonList: (columns, from, orderBy) => `json((SELECT json_group_array(json_object(${columns.map(([k, e]) => `'${k}', ${e}`).join(', ')}) ORDER BY ${orderBy}) ${from}))`,
  jsonTextList: (expression, from, orderBy) => `json((SELECT json_group_array(${expression} ORDER BY ${orderBy}) ${from}))`,
  // CAST alone would read the digits that begin any text ('12x' as 12).
  idOfText: (e) => `CASE WHEN ${e} <> '' AND ${e} NOT GLOB '*[^0-9]*' THEN CAST(${e} AS INTEGER) END`,
  inIdList: (e) => `${e} IN (SELECT value FROM json_each('[' || ? || ']'))`,
  inTextList: (e) => `${e} IN (SELECT value FROM json_each(?))`,
  textTable: (alias) => `(SELECT value AS v FROM json_each(?)) AS ${alias}`,
  // SQLite's lower() lowers ASCII only (without ICU, which Tickler's build does not load).
  // LIKE folds ASCII alone, as lower() does here, without a copy of each text, but reads a text
  // only up to a U+0000, which text stored before input was cleaned may hold. A text of ASCII
  // without U+0000 (its length in characters, which stops at a U+0000, equals its bytes: the file is UTF-8) is
  // decided by LIKE; any other is lowered and searched whole, as before (a text-rule search's scan
  // of 80,000 titles: 19.4-20.3 -> 10.2-10.4 ms). LIKE would also fold the value, which folded text
  // never holds with ASCII capitals.
  foldedHolds: (e, value) => {
    const lowered = `instr(replace(replace(lower(${e}), char(8490), 'k'), char(304), 'i'), ?) > 0`;
    if (/[A-Z]/.test(value)) return { sql: lowered, params: [value] };
    const pattern = `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return { sql: `(${e} LIKE ? ESCAPE '\\' OR (length(${e}) <> length(CAST(${e} AS BLOB)) AND ${lowered}))`, params: [pattern, value] };
  },
  jsonNumberOfText: (e) => `CAST(${e} AS INTEGER)`,
  jsonText: (e) => e,
  xml: {
    text: xmlText,
    list: (expression, from, orderBy) => `coalesce((SELECT group_concat(${expression}, '' ORDER BY ${orderBy}) ${from}), '')`,
    // format() writes each record into one buffer, NULL as nothing; the keys are names of a fixed
    // table, never input, and hold no %.
    records: (name, columns, from) =>
      `SELECT format('<${name}>${columns.map(([k]) => `<${k}>%s</${k}>`).join('')}</${name}>', ${columns.map(([, e, kind]) => (kind === 'text' ? xmlText(e) : e)).join(', ')}) ${from}`,
    readsKept: true,
  },
  emptyJsonArray: `json('[]')`,
  uniqueViolation(err) {
    const e = err as { code?: string; message?: string };
    return e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ? (e.message ?? '') : undefined;
  },
};
