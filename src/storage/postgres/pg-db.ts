import { createHash } from 'node:crypto';
import pg from 'pg';
import { BoundedMap } from '../../lib/bounded-map.js';
import { storableParams, type Dialect, type JsonKind, type SqlDb, type SqlParam } from '../sql/db.js';

/** `?` placeholders (how the shared SQL is written) numbered as PostgreSQL wants ($1, $2, …). */
const numbered = new Map<string, { text: string; name: string }>();

function withNumbers(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

function statement(sql: string): { text: string; name: string } {
  let s = numbered.get(sql);
  if (!s) {
    const text = withNumbers(sql);
    // A named statement is parsed and planned once per connection, then only executed.
    s = { text, name: `t${createHash('sha1').update(text).digest('hex').slice(0, 16)}` };
    numbered.set(sql, s);
  }
  return s;
}

/**
 * Which of allRawVaried's texts (tasks/get's: one per field list, form and filter) are sent as
 * named statements, parsed once per connection and kept there: a text once it has been sent
 * `sightings` times among the last 256 texts seen, up to `limit` texts for the process's life. A
 * client sends the same few texts on every sync; one that invents them (a scanner) sends each once
 * or twice and gets no slot, and no text ever leaves a statement prepared without bound.
 */
export class VariedNames {
  private readonly named = new Set<string>();
  private readonly seen = new BoundedMap<string, number>(256);

  constructor(
    private readonly limit = 32,
    private readonly sightings = 3,
  ) {}

  /** Whether to send `sql` named this time (counting this sighting). */
  name(sql: string): boolean {
    if (this.named.has(sql)) return true;
    if (this.named.size >= this.limit) return false;
    const times = (this.seen.get(sql) ?? 0) + 1;
    if (times < this.sightings) {
      this.seen.set(sql, times);
      return false;
    }
    this.seen.delete(sql);
    this.named.add(sql);
    return true;
  }
}

const variedNames = new VariedNames();

type Queryable = pg.Pool | pg.PoolClient;

/** A statement as the driver takes it. */
interface Sent {
  readonly name?: string;
  readonly text: string;
  readonly values: unknown[];
  readonly rowMode?: 'array';
}

/**
 * The text of `sql` with its values written in, when every value is an integer (written as digits,
 * nothing any input can turn into SQL), else null. A negative one is bracketed: `x - -1` would
 * start a comment.
 */
export function withIntegers(sql: string, params: readonly SqlParam[]): string | null {
  if (!params.every((p) => typeof p === 'number' && Number.isSafeInteger(p))) return null;
  let i = 0;
  const text = sql.replace(/\?/g, () => {
    const n = params[i++] as number;
    return n < 0 ? `(${n})` : String(n);
  });
  return i === params.length ? text : null;
}

/**
 * A transaction's BEGIN, not sent yet: it goes with the transaction's first statement (PgDb.send),
 * one round trip instead of two for every write call. Shared by the transaction's PgDb objects.
 */
export class PendingBegin {
  sent = false;
}

/** A pool (autocommit) or a transaction's client, as the shared repositories see it. */
export class PgDb implements SqlDb {
  constructor(
    private readonly q: Queryable,
    private readonly names: VariedNames = variedNames,
    /** Set for a transaction whose BEGIN this object sends with its first statement. */
    private readonly begin?: PendingBegin,
  ) {}

  private async query<R extends pg.QueryResultRow>(sql: string, params: SqlParam[], rowMode?: 'array'): Promise<pg.QueryResult<R>> {
    const { text, name } = statement(sql);
    return this.send<R>(null, { name, text, values: storableParams(params), ...(rowMode && { rowMode }) });
  }

  /**
   * Sends one statement; the first of a transaction carries its BEGIN. An opening statement
   * (allRawOpening: the account's lock, the partners read), `inline` with its integer values written into its text
   * (withIntegers), goes with it in one message of the simple protocol: one round trip, where the
   * driver would wait for BEGIN's answer before sending the statement. That statement is parsed
   * for the call instead of kept prepared, which costs PostgreSQL less than the round trip it
   * saves. Any other first statement is sent once BEGIN has been answered.
   */
  private send<R extends pg.QueryResultRow>(inline: string | null, config: Sent): Promise<pg.QueryResult<R>> {
    const begin = this.begin;
    if (!begin || begin.sent) return this.q.query<R>(config as pg.QueryConfig);
    // Marked at once: the transaction's other statements go without a BEGIN of their own (a
    // transaction's statements run one after another: none is sent before this one returns).
    begin.sent = true;
    return this.beginWith<R>(inline, config);
  }

  private async beginWith<R extends pg.QueryResultRow>(inline: string | null, config: Sent): Promise<pg.QueryResult<R>> {
    if (inline === null) {
      await this.q.query('BEGIN');
      return this.q.query<R>(config as pg.QueryConfig);
    }
    const results = (await this.q.query<R>({ text: `BEGIN; ${inline}`, ...(config.rowMode && { rowMode: config.rowMode }) } as pg.QueryConfig)) as unknown as Array<pg.QueryResult<R>>;
    return results[1] as pg.QueryResult<R>;
  }

  async get<T>(sql: string, ...params: SqlParam[]): Promise<T | undefined> {
    return (await this.query(sql, params)).rows[0] as T | undefined;
  }

  async all<T>(sql: string, ...params: SqlParam[]): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }

  async getRaw(sql: string, ...params: SqlParam[]): Promise<unknown[] | undefined> {
    return (await this.query(sql, params, 'array')).rows[0] as unknown[] | undefined;
  }

  async allRawOpening(sql: string, ...params: number[]): Promise<unknown[][]> {
    const inline = this.begin && !this.begin.sent ? withIntegers(sql, params) : null;
    if (inline === null) return this.allRaw(sql, ...params);
    return (await this.send<unknown[]>(inline, { text: inline, values: [], rowMode: 'array' })).rows;
  }

  async allRaw(sql: string, ...params: SqlParam[]): Promise<unknown[][]> {
    return (await this.query(sql, params, 'array')).rows as unknown[][];
  }

  async run(sql: string, ...params: SqlParam[]): Promise<number> {
    return (await this.query(sql, params)).rowCount ?? 0;
  }

  async allRawVaried(sql: string, ...params: SqlParam[]): Promise<unknown[][]> {
    // A text in use is named, as allRaw's are (VariedNames): parsed once per connection instead of
    // on every call (an all-fields after= read: 0.19 of PostgreSQL's 0.74 ms). Any other is parsed
    // for the call and never left prepared: a client inventing texts costs time, not memory.
    if (this.names.name(sql)) return this.allRaw(sql, ...params);
    return this.allRawUnnamed(sql, ...params);
  }

  async firstsVaried(sql: string, ...params: SqlParam[]): Promise<unknown[]> {
    return (await this.allRawVaried(sql, ...params)).map((row) => row[0]);
  }

  async allRawUnnamed(sql: string, ...params: SqlParam[]): Promise<unknown[][]> {
    return (await this.send<unknown[]>(null, { text: withNumbers(sql), values: storableParams(params), rowMode: 'array' })).rows;
  }
}

/**
 * The characters XML 1.0 forbids that PostgreSQL's text can hold (U+0000 and lone surrogates never
 * reach it), as a regular expression in an escape-string literal.
 */
const XML_FORBIDDEN = `E'[\\x01-\\x08\\x0b\\x0c\\x0e-\\x1f\\uFFFE\\uFFFF]'`;

/**
 * Text as XML character data: the characters XML forbids left out, the entities, CR's reference.
 * The forbidden ones are looked for first and replaced only when found: a match costs PostgreSQL
 * 0.2 ms per 1000 notes and regexp_replace 0.35, where translate() took 9 ms.
 */
function xmlText(e: string): string {
  const allowed = `CASE WHEN ${e} ~ ${XML_FORBIDDEN} THEN regexp_replace(${e}, ${XML_FORBIDDEN}, '', 'g') ELSE ${e} END`;
  return `replace(replace(replace(replace(${allowed}, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), E'\\r', '&#13;')`;
}

/**
 * format() writes each record into one buffer, and its %s writes NULL as nothing where || would
 * make the whole record NULL. The keys are names of a fixed table, never input, and hold no %.
 */
function xmlRecords(name: string, columns: ReadonlyArray<readonly [string, string, JsonKind]>, from: string): string {
  const template = `<${name}>${columns.map(([k]) => `<${k}>%s</${k}>`).join('')}</${name}>`;
  return `SELECT format('${template}', ${columns.map(([, e, kind]) => (kind === 'text' ? xmlText(e) : e)).join(', ')}) ${from}`;
}

export const pgDialect: Dialect = {
  name: 'postgres',
  // Rows read before they are changed are locked until the transaction ends: two instances must
  // not both spend one code or compute the same next stamp. NO KEY UPDATE because no key of a
  // locked row ever changes, and unlike FOR UPDATE it lets the KEY SHARE lock of a foreign-key
  // check through: inserting a session or a known device does not queue behind a task batch's
  // hold on the account row. Lockers still exclude one another.
  lockRows: (of) => (of ? ` FOR NO KEY UPDATE OF ${of}` : ' FOR NO KEY UPDATE'),
  skipLocked: (of) => ` FOR UPDATE OF ${of} SKIP LOCKED`,
  // The subquery with its row lock is never merged into the outer query, whose expressions (the
  // mark) are computed for the row it returns, once locked. account_writing's void comes last.
  lockAccount: (columns) => `SELECT *, account_writing(pk) FROM (SELECT ${columns} FROM accounts WHERE pk = ? FOR NO KEY UPDATE) a`,
  fence: ' OFFSET 0',
  // An uncorrelated subquery: PostgreSQL runs it once per statement (an InitPlan), and a guard of a
  // lateral subquery's rows becomes a one-time filter that skips its index probe.
  accountHasRows: (table, where) => `(SELECT EXISTS (SELECT 1 FROM ${table} g WHERE g.user_pk = ?${where === undefined ? '' : ` AND ${where}`}))`,
  writesInWith: true,
  opaqueParam: '?',
  rangeRead: (table, _index, filter) => ({ from: `(SELECT * FROM ${table} t WHERE ${filter} OFFSET 0) t`, where: null }),
  // node-postgres converts values one by one (6.9 ms per 1000 rows of 29 columns); one JSON array
  // per row, which it parses already, costs 2.6 ms.
  wideRow: (columns) => ({
    select: `json_build_array(${columns})`,
    width: 1,
    values: (row) => (typeof row[0] === 'string' ? (JSON.parse(row[0]) as unknown[]) : (row[0] as unknown[])),
  }),
  // Written by concatenation: row_to_json (compact, unlike json_build_object) dispatched on each
  // column's type and took 4.2 ms of PostgreSQL's CPU for 1000 rows of 26 columns, against 2.9 ms
  // for text joined around each value, numbers as they are and only text through to_json.
  jsonRecords: (columns, from) => {
    const members = columns.map(([k, e, kind], i) => `'${i === 0 ? '{' : ','}"${k}":' || ${kind === 'text' ? `coalesce(to_json(${e})::text, 'null')` : `coalesce((${e})::text, 'null')`}`);
    return `SELECT ${members.join(' || ')} || '}' ${from}`;
  },
  xml: {
    text: xmlText,
    list: (expression, from, orderBy) => `coalesce((SELECT string_agg(${expression}, '' ORDER BY ${orderBy}) ${from}), '')`,
    records: xmlRecords,
    readsKept: false,
  },
  emptyJsonArray: `'[]'::json`,
  // array_to_json writes its elements compactly, as row_to_json does (json_agg puts spaces and
  // line breaks between them); the sorted subquery gives array_agg its order.
  jsonList: (columns, from, orderBy) =>
    `(SELECT coalesce(array_to_json(array_agg(x)), '[]'::json) FROM (SELECT ${columns.map(([k, e]) => `${e} AS "${k}"`).join(', ')} ${from} ORDER BY ${orderBy}) x)`,
  jsonTextList: (expression, from, orderBy) =>
    `(SELECT coalesce(array_to_json(array_agg(x.v)), '[]'::json) FROM (SELECT ${expression} AS v ${from} ORDER BY ${orderBy}) x)`,
  // CAST of text that is not a number is an error here: only digits are cast.
  idOfText: (e) => `CAST(CASE WHEN ${e} ~ '^[0-9]{1,18}$' THEN ${e} END AS BIGINT)`,
  // lower() in the C collation lowers ASCII only, whatever the database's locale (a Turkish one
  // would lower I to ı); translate() did the same at 5 µs a title, ten times slower.
  inIdList: (e) => `${e} = ANY(CAST(string_to_array(?, ',') AS INTEGER[]))`,
  inTextList: (e) => `${e} IN (SELECT json_array_elements_text(CAST(? AS json)))`,
  textTable: (alias) => `json_array_elements_text(CAST(? AS json)) AS ${alias}(v)`,
  foldedHolds: (e, value) => ({ sql: `strpos(replace(replace(lower(${e} COLLATE "C"), chr(8490), 'k'), chr(304), 'i'), ?) > 0`, params: [value] }),
  jsonNumberOfText: (e) => `to_json(${e}::bigint)`,
  jsonText: (e) => `to_json(${e})`,
  keptJsonText: (kept, text) => `coalesce(${kept}, '"' || ${text} || '"')`,
  uniqueViolation(err) {
    const e = err as { code?: string; constraint?: string; detail?: string };
    return e.code === '23505' ? `${e.constraint ?? ''} ${e.detail ?? ''}` : undefined;
  },
};

/** BIGINT (int8) as a JS number: every id, count and timestamp here is far below 2^53. */
export const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};
