import { storableText } from '../../lib/text.js';
import { UniqueViolation } from '../store.js';

export type SqlParam = string | number | null;

/**
 * What the shared repositories need of a database connection. SQL is written once, with `?`
 * placeholders; each adapter runs it (PostgreSQL numbers the placeholders). Rows come back as
 * objects (`get`, `all`) or, for wide rows on hot paths, as arrays in select-list order (`getRaw`,
 * `allRaw`).
 */
export interface SqlDb {
  get<T>(sql: string, ...params: SqlParam[]): Promise<T | undefined>;
  all<T>(sql: string, ...params: SqlParam[]): Promise<T[]>;
  getRaw(sql: string, ...params: SqlParam[]): Promise<unknown[] | undefined>;
  /**
   * allRaw() of a statement that opens a write transaction (the account's lock; the partners read
   * before the locks of a call that may reach them), whose values are integers: PostgreSQL sends
   * it with the transaction's BEGIN where that is not sent yet, its values written into its text
   * (one round trip for both: postgres/pg-db.ts, PendingBegin).
   */
  allRawOpening(sql: string, ...params: number[]): Promise<unknown[][]>;
  allRaw(sql: string, ...params: SqlParam[]): Promise<unknown[][]>;
  /** Runs a statement; resolves to the number of rows it changed. */
  run(sql: string, ...params: SqlParam[]): Promise<number>;
  /**
   * allRaw() of a statement whose text varies with the request in more ways than are worth
   * keeping prepared for good (tasks/get's field lists): SQLite keeps the last few prepared,
   * PostgreSQL names the texts in use, up to a bound (a named statement stays on every
   * connection: postgres/pg-db.ts, VariedNames), and parses any other for its call only.
   */
  allRawVaried(sql: string, ...params: SqlParam[]): Promise<unknown[][]>;
  /**
   * allRawVaried() of a statement of one column, as that column's values: tasks/get's page of
   * written records (SQLite hands them over without an array per row: 0.55–0.70 → 0.47 ms for
   * 1000 rows joined).
   */
  firstsVaried(sql: string, ...params: SqlParam[]): Promise<unknown[]>;
  /**
   * allRaw() of a statement made for a kind of request that has as many texts as its users make
   * (a saved search's conditions): never named on PostgreSQL, so that such texts take none of the
   * slots allRawVaried keeps for tasks/get's field lists; SQLite keeps it among allRawVaried's
   * last few.
   */
  allRawUnnamed(sql: string, ...params: SqlParam[]): Promise<unknown[][]>;
}

/**
 * Parameters as both adapters send them: every text in its storable form (lib/text.ts: no U+0000,
 * which PostgreSQL refuses with an error, no lone surrogate, which the two databases would each
 * store differently). Services clean what they store before checking its length; this is the one
 * place that makes sure no text reaches a database in a form the other would treat differently.
 */
export function storableParams(params: SqlParam[]): SqlParam[] {
  return params.some((p) => typeof p === 'string' && storableText(p) !== p)
    ? params.map((p) => (typeof p === 'string' ? storableText(p) : p))
    : params;
}

/**
 * The parameter of Dialect.inTextList: the texts, each once, as stored text is (storableText; a
 * JSON array's escapes would carry past storableParams what storing removes), in a JSON array.
 */
export function textList(texts: readonly string[]): string {
  return JSON.stringify([...new Set(texts.map(storableText))]);
}

/** The parameter of Dialect.inIdList: the ids, each once, as digits joined by commas; one that is not a whole number names nothing and is left out. */
export function idList(ids: readonly number[]): string {
  return [...new Set(ids.filter(Number.isSafeInteger))].join(',');
}

/**
 * Runs `run` over `rows` in parts of the sizes `sizes` (largest first, ending with 1), so that a
 * batch of any length takes a few statement texts, each prepared once: each part's values
 * flattened in order.
 */
export async function inParts(
  sizes: readonly number[],
  rows: ReadonlyArray<readonly SqlParam[]>,
  run: (size: number, params: SqlParam[]) => Promise<unknown>,
): Promise<void> {
  for (let at = 0; at < rows.length; ) {
    const size = sizes.find((n) => n <= rows.length - at) as number;
    await run(size, rows.slice(at, at + size).flat());
    at += size;
  }
}

/**
 * An UPDATE of `table` writing `columns` but the first (the id) for `size` rows of one account:
 * the rows as a VALUES list (its columns are named column1… on both databases), the first row
 * typed (`text` columns as TEXT, the others BIGINT) so that PostgreSQL types the others alike;
 * the rows' values, then the account's pk, are its parameters.
 */
export function updateFromValues(table: string, columns: readonly string[], text: ReadonlySet<string>, size: number): string {
  const typed = `(${columns.map((c) => (text.has(c) ? 'CAST(? AS TEXT)' : 'CAST(? AS BIGINT)')).join(', ')})`;
  const rows = [typed, ...Array.from({ length: size - 1 }, () => `(${columns.map(() => '?').join(', ')})`)].join(', ');
  const set = columns.slice(1).map((c, i) => `${c} = v.column${i + 2}`).join(', ');
  return `UPDATE ${table} SET ${set} FROM (VALUES ${rows}) AS v WHERE ${table}.user_pk = ? AND ${table}.id = v.column1`;
}

/**
 * Whether a lookup key can equal stored text. Stored text is always storable (storableParams), so a
 * key that is not (an e-mail or client id with U+0000 in it) matches nothing: the repositories
 * answer "not found" without asking, the same on both databases, instead of matching the key's
 * cleaned form.
 */
export function matchable(key: string): boolean {
  return storableText(key) === key;
}

/**
 * Where a page's rows come from: `table` (as `t`) filtered by the clauses of `where`, whose values
 * are `params`, and by the query's range of modification times (`after=`, `before=`, each
 * exclusive), which this appends to both. A query with a range and no id is a range read, along
 * `index` (Dialect.rangeRead): incremental sync costs the same whatever the account's size.
 *
 * The range states both ends: an end the query leaves open is bound to a stamp no row reaches.
 * PostgreSQL weighs one plan for any values (a generic plan) against the plans it makes for each
 * call's values, estimating a third of the account for `modified > $n` alone but a two-hundredth
 * for a range between two values it does not know. With one end it found the plan for any values
 * dearer than its estimate for each call's few changed tasks, and planned the `after=` fetch for
 * every call (0.5-0.7 ms of its 1 ms); with both it settles on one plan, which the range read's
 * shape keeps on the modified index. Does not change which rows match.
 */
export function rowSource(
  dialect: Dialect,
  table: string,
  index: string,
  q: { readonly id?: unknown; readonly after?: number | undefined; readonly before?: number | undefined },
  where: string[],
  params: SqlParam[],
): { readonly from: string; readonly where: string | null } {
  const ranged = q.after !== undefined || q.before !== undefined;
  if (ranged) where.push('t.modified > ?', 't.modified < ?'), params.push(q.after ?? -Number.MAX_SAFE_INTEGER, q.before ?? Number.MAX_SAFE_INTEGER);
  const filter = where.join(' AND ');
  return ranged && q.id === undefined ? dialect.rangeRead(table, index, filter) : { from: `${table} t`, where: filter };
}

/**
 * The LIMIT of a page, with an OFFSET only past the first page (pageParams gives their values).
 * An OFFSET whose value PostgreSQL does not know made it charge a plan for any values (see
 * rowSource) for skipping rows, which on its own kept it planning a small account's `after=`
 * fetch for every call.
 */
export function pageClause(d: Dialect, start: number): string {
  return start > 0 ? `LIMIT ${d.opaqueParam} OFFSET ?` : `LIMIT ${d.opaqueParam}`;
}

/** The values of pageClause()'s placeholders. */
export function pageParams(num: number, start: number): number[] {
  return start > 0 ? [num, start] : [num];
}

/** A dialect's lockRows inside a transaction; outside one, reads lock nothing. */
export type LockRows = (of?: string) => string;

/** See Dialect.wideRow. */
export interface WideRow {
  readonly select: string;
  readonly width: number;
  values(row: unknown[]): unknown[];
}

/**
 * What a column of jsonRecords or XmlSql.records gives: text (written as a JSON string, or as XML
 * character data), or a literal (a number, or JSON or XML the expression wrote); for jsonRecords
 * only, also a text column that holds JSON, written as it is stored (a row's cells).
 */
export type JsonKind = 'text' | 'literal' | 'json';

/**
 * How a database writes tasks/get's XML (Dialect.xml), which must equal what the presenter's
 * compiled writer (src/features/tasks/task-writers.ts) writes.
 */
export interface XmlSql {
  /**
   * Text as XML character data, complete: `&`, `<`, `>` as entities, CR as a reference (parsers
   * turn a raw one into LF), the characters XML 1.0 forbids left out (src/http/xml.ts, escapeText).
   */
  text(e: string): string;
  /** Joins the XML text of `expression` over the rows of `from` (a FROM … WHERE tail), ordered by `orderBy`; '' when there are none. */
  list(expression: string, from: string, orderBy: string): string;
  /**
   * A statement whose one column is each row of `from` as the XML element `<name>`, one child
   * element per column in the order given (`<key>value</key>`), compact: `columns` as in
   * jsonRecords, a text value through text(), a literal as it is, NULL as nothing.
   */
  records(name: string, columns: ReadonlyArray<readonly [string, string, JsonKind]>, from: string): string;
  /**
   * Whether tasks keep their text's XML (task_xml, written with every task) and tasks/get reads it
   * rather than escaping in the statement: on SQLite the escaping is the server's own CPU and
   * replace() per value cost as much as the record; PostgreSQL escapes in its own processes,
   * cheaply (a regular expression test per value), and a join with task_xml whose statistics were
   * not yet gathered made it walk that table for every row (56 against 171 req/s). PostgreSQL's
   * table exists so that the schemas match; a copy from SQLite fills it, and nothing reads it.
   */
  readonly readsKept: boolean;
}

/** Where the two databases differ, in the few places the repositories care about. */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /**
   * The clause appended to reads inside a transaction whose rows it will change: PostgreSQL locks
   * them (two instances must not both spend one code); SQLite's transactions lock the whole
   * database already, so it gives ''. `of` names the one table of a join whose rows are locked.
   */
  lockRows(of?: string): string;
  /**
   * The clause of a subquery choosing rows to claim (the webhook outbox): PostgreSQL locks them and
   * passes over rows another transaction holds (`FOR UPDATE OF <of> SKIP LOCKED`), so that two
   * instances claiming at once take different rows; SQLite's one writer needs nothing ('').
   */
  skipLocked(of: string): string;
  /**
   * The read of one account (`columns`, by pk) that locks it for a transaction's writes, and that
   * Store.settledAccount waits for. PostgreSQL marks the account (postgres/migrations.ts, step 13)
   * after the row lock: a writer that holds the row lock before calling this does not deadlock
   * with another writer of the account.
   */
  lockAccount(columns: string): string;
  /**
   * Appended to a subquery in FROM to keep it one (PostgreSQL: OFFSET 0), where merging it into the
   * query around it would copy its expressions, subqueries and all; SQLite takes ''.
   */
  readonly fence: string;
  /**
   * A condition that the account bound to its one placeholder has a row in `table` (as `g`,
   * narrowed by `where`), which the statement decides once, for guarding the per-row lookups of
   * what most accounts never use (subtasks, joint tasks, links, apps' meta): PostgreSQL spent about
   * half of a page of all fields on those lookups, each row probing five indexes that were empty
   * for its account (decisions/0007). null where a lookup costs too little to guard (SQLite, inside
   * the process, whose plans tasks-index.test holds).
   */
  readonly accountHasRows: ((table: string, where?: string) => string) | null;
  /**
   * Whether a statement may write in its WITH clause (PostgreSQL: `WITH a AS (INSERT … RETURNING
   * …) UPDATE …`), so that two writes take one round trip; SQLite has no such statement.
   */
  readonly writesInWith: boolean;
  /**
   * A placeholder whose value the query planner does not read, for the values of hot statements
   * (the account, the calling app, an id, a LIMIT). SQLite's planner reads some bound values (a
   * LIMIT's; an account's compared with a column its correlated subqueries use, for constant
   * propagation), and binding such a value anew makes SQLite prepare the statement again at its
   * next run: an `after=` fetch of 10 tasks with every field took 146 µs of CPU in SQLite, most of
   * it preparing its text again, and 22 µs with `+?` (the same value, which the planner leaves).
   */
  readonly opaqueParam: string;
  /**
   * The rows of `table` (as `t`) that `filter` keeps, read along `index` (by account and
   * modification time), for a range read (`after=`, `before=`) ordered by id: FROM's first item
   * and what is left to put in WHERE. SQLite names the index (`INDEXED BY`): with statistics it
   * may prefer walking all of an account's rows by id, to skip a sort. PostgreSQL filters in a
   * subquery of its own (OFFSET 0), which has no order to keep, so even a plan made for any values
   * (a generic plan) reads along the index instead of walking the account by id (28-38 ms against
   * 0.05 on 80,000 tasks).
   */
  rangeRead(table: string, index: string, filter: string): { readonly from: string; readonly where: string | null };
  /**
   * How a wide row (listing tasks) is read fastest: the select expressions for `columns` (a list
   * of `count`), how many values of the answer's row they take, and the column values back.
   */
  wideRow(columns: string, count: number): WideRow;
  /**
   * A statement whose one column is each row's JSON object text, compact (no spaces, as
   * JSON.stringify writes it), keys in the order given: `columns` are [key, expression, kind]
   * over the rows of `from` (the FROM … ORDER BY id … LIMIT tail). `kind` says what the
   * expression gives: text to write as a JSON string, or a number or JSON to write as it is.
   */
  jsonRecords(columns: ReadonlyArray<readonly [string, string, JsonKind]>, from: string): string;
  /**
   * An expression giving a JSON array of objects, compact, in order: `columns` are [key,
   * expression] pairs over the rows of `from` (a FROM … WHERE tail), ordered by `orderBy`; `[]`
   * when there are none. For the nested lists of a jsonRecords column.
   */
  jsonList(columns: ReadonlyArray<readonly [string, string]>, from: string, orderBy: string): string;
  /**
   * An expression giving a JSON array of the text values of `expression` over the rows of `from`
   * (a FROM … WHERE tail), ordered by `orderBy`; `[]` when there are none.
   */
  jsonTextList(expression: string, from: string, orderBy: string): string;
  /**
   * A text column holding a number's digits (a note's id kept as text) as that number, for a key
   * comparison; NULL (never an error) for text that is not one.
   */
  idOfText(text: string): string;
  /**
   * Whether `text`, folded, holds `value` (in lower case), and the statement's values for the
   * condition's placeholders, in order: folded is its ASCII capitals in lower case, and the two
   * characters JavaScript lowers into ASCII letters (U+212A KELVIN SIGN to k, U+0130 İ to i, its dot
   * dropped) as those letters; every other character as it is, whatever the database's locale
   * (TaskFilter's `folded`). An empty value is in every text.
   */
  foldedHolds(text: string, value: string): { readonly sql: string; readonly params: readonly string[] };
  /** Whether `e` is one of the ids of the one `?` parameter, written as digits joined by commas ('1,2,3'): one text for any number of ids. */
  inIdList(e: string): string;
  /**
   * Whether the text `e` is one of the texts of the one `?` parameter, written by textList(): one
   * parameter for any number of them.
   */
  inTextList(e: string): string;
  /**
   * The texts of the one `?` parameter (written by textList()) as a table `alias` of one column
   * `v`, to drive lookups by a key (a correlated subquery per text finds its row by the key,
   * whatever the planner knows of the table: before statistics, PostgreSQL read every row of an
   * account to match an IN list).
   */
  textTable(alias: string): string;
  /** A JSON number from a text column holding digits (a note's id kept as text). */
  jsonNumberOfText(text: string): string;
  /** A JSON string from a text column. */
  jsonText(text: string): string;
  /**
   * Where the database keeps a text's JSON string in a column of its own, computed with every
   * write and NULL where it is the text between quotes (notes.text_json, PostgreSQL's step 15):
   * the JSON string of `text` from that column `kept`, for jsonRecords to write as it is. Escaping
   * each note's text in the statement was a third of PostgreSQL's work for a page of notes.
   * Undefined where the statement escapes (SQLite).
   */
  readonly keptJsonText?: (kept: string, text: string) => string;

  /**
   * How the database writes tasks/get's XML, which the server only joins (PostgreSQL: 4,365 →
   * 2,389 µs of the server's CPU per 1000-task answer of all fields, back to back). Where
   * `readsKept`, a task's own text is read as kept in task_xml (sql/tasks.ts, XML_KEPT) and text()
   * escapes only the rest (a link's title, meta, a user id): on SQLite, replace() per text value
   * had made the XML slower than the presenter's writer from the rows (docs/decisions/0007).
   */
  readonly xml: XmlSql;

  /** The JSON value [] as an expression, for a jsonRecords column. */
  readonly emptyJsonArray: string;
  /** The text naming the columns of a unique-key violation, or undefined for any other error. */
  uniqueViolation(err: unknown): string | undefined;
}

/**
 * Runs `fn`, turning a unique-key violation into the port's UniqueViolation named after the first
 * column of `what` that the database's message mentions.
 */
export async function translateUnique<T>(dialect: Dialect, what: Readonly<Record<string, string>>, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const text = dialect.uniqueViolation(err);
    if (text === undefined) throw err;
    for (const [column, label] of Object.entries(what)) {
      if (text.includes(column)) throw new UniqueViolation(label);
    }
    throw new UniqueViolation('record');
  }
}
