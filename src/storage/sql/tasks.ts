import type { FilterColumn, ListedTask, PublicTaskField, RecordForm, Task, TaskFilter, TaskWrittenPage, TaskPage, TaskQuery, TaskReference, TasksRepo, Tombstone } from '../store.js';
import { movedStamp } from './accounts.js';
import { idList, inParts, pageClause, pageParams, rowSource, updateFromValues, type Dialect, type JsonKind, type SqlDb, type WideRow } from './db.js';
import { filterColumns, filterSql } from './task-filter.js';
import { BoundedMap } from '../../lib/bounded-map.js';
import { storableText } from '../../lib/text.js';
import { xmlTextIfOther } from '../../lib/xml-chars.js';

/** Columns in the order of the Task fields below; rows are read as arrays (see Conn.getRaw). */
const COLUMNS = [
  'id', 'title', 'tag', 'folder', 'context', 'goal', 'location', 'parent', 'ord',
  'duedate', 'duedatemod', 'startdate', 'duetime', 'starttime', 'remind', 'repeat', 'repeat_index',
  'status', 'length', 'priority', 'star', 'modified', 'completed', 'added', 'timer', 'timeron',
  'note', 'previous', 'via',
] as const;
const SELECT = COLUMNS.map((c) => `t.${c}`).join(', ');

function toTask(r: unknown[]): Task {
  return {
    id: r[0] as number,
    title: r[1] as string,
    tag: r[2] as string,
    folder: r[3] as number,
    context: r[4] as number,
    goal: r[5] as number,
    location: r[6] as number,
    parent: r[7] as number,
    ord: r[8] as number,
    duedate: r[9] as number,
    duedatemod: r[10] as number,
    startdate: r[11] as number,
    duetime: r[12] as number | null,
    starttime: r[13] as number | null,
    remind: r[14] as number,
    repeat: r[15] as string,
    repeatIndex: r[16] as number,
    status: r[17] as number,
    length: r[18] as number,
    priority: r[19] as number,
    star: r[20] as number,
    modified: r[21] as number,
    completed: r[22] as number,
    added: r[23] as number,
    timer: r[24] as number,
    timeron: r[25] as number,
    note: r[26] as string,
    previous: r[27] as number,
    via: r[28] as number,
  };
}

/** Adds what only listing knows; spreading a Task into a new object cost more than reading it. */
function toListed(r: unknown[], children: number, meta: string | null): ListedTask {
  return Object.assign(toTask(r), { children, meta });
}

function values(t: Task): Array<string | number | null> {
  return [
    t.id, t.title, t.tag, t.folder, t.context, t.goal, t.location, t.parent, t.ord,
    t.duedate, t.duedatemod, t.startdate, t.duetime, t.starttime, t.remind, t.repeat, t.repeatIndex,
    t.status, t.length, t.priority, t.star, t.modified, t.completed, t.added, t.timer, t.timeron,
    t.note, t.previous, t.via,
  ];
}

/**
 * The task's own text fields whose XML is kept in `task_xml` (`kx`) where the dialect reads it
 * (XmlSql.readsKept: SQLite), each where it differs from the text (NULL for text that is XML as it
 * stands, as most is), in a row only for a task that has such text: every write of a task
 * (insertMany, update) writes it with the text, so that the database writes a task's XML without
 * escaping (pageWritten; SQLite's replace() calls took as long as the rest of the record). Kept apart from `tasks`, whose reads (a saved search counts over an
 * account's every row) would otherwise carry it. Those two are the only ways a task's text may be
 * written: any other would leave its XML stale.
 */
const XML_KEPT: ReadonlySet<string> = new Set(['title', 'tag', 'repeat', 'note']);

/** The XML kept for a task, of its text as it will be stored (storableParams cleans it), or null when none differs. */
function keptXml(t: Task): [string | null, string | null, string | null, string | null] | null {
  const kept = [t.title, t.tag, t.repeat, t.note].map((text) => xmlTextIfOther(storableText(text)));
  return kept.some((k) => k !== null) ? (kept as [string | null, string | null, string | null, string | null]) : null;
}

const XML_ROW = '(?, ?, ?, ?, ?, ?)';
const XML_INTO = 'INSERT INTO task_xml (user_pk, task_id, title, tag, repeat, note) VALUES ';
const XML_ON_CONFLICT = ' ON CONFLICT (user_pk, task_id) DO UPDATE SET title = excluded.title, tag = excluded.tag, repeat = excluded.repeat, note = excluded.note';

const ROW = `(?, ${COLUMNS.map(() => '?').join(', ')})`;
const CHILDREN = '(SELECT count(*) FROM tasks c WHERE c.user_pk = t.user_pk AND c.parent = t.id AND c.parent <> 0)';

/**
 * Writes per-row lookups of one statement guarded by Dialect.accountHasRows: `lookup` only for an
 * account with a row in `table` (narrowed by `where`), `none` for every row of the others, decided
 * once per statement. Where the dialect does not guard, `lookup` as it stands. `count` is the
 * number of account placeholders written, in the order they were written.
 */
function guards(d: Dialect): { readonly guard: (table: string, where: string | undefined, lookup: string, none: string) => string; readonly count: () => number } {
  let n = 0;
  return {
    guard: (table, where, lookup, none) => {
      if (d.accountHasRows === null) return lookup;
      n += 1;
      return `CASE WHEN ${d.accountHasRows(table, where)} THEN ${lookup} ELSE ${none} END`;
    },
    count: () => n,
  };
}

/**
 * The row of `table` (as `alias`, giving `columns`) of each task `t`, by account, task id and
 * `extra`. Where the dialect guards (Dialect.accountHasRows) a lateral subquery, whose probe a
 * one-time filter skips for an account with no row in the table; `guarded` says so, and that its
 * account placeholder comes before those of `extra`.
 */
function taskRowJoin(d: Dialect, alias: string, table: string, columns: string, extra = ''): { readonly sql: string; readonly guarded: boolean } {
  const on = `${alias}.user_pk = t.user_pk AND ${alias}.task_id = t.id${extra}`;
  if (d.accountHasRows === null) return { sql: `LEFT JOIN ${table} ${alias} ON ${on}`, guarded: false };
  return { sql: `LEFT JOIN LATERAL (SELECT ${columns} FROM ${table} ${alias} WHERE ${d.accountHasRows(table)} AND ${on}${d.fence}) ${alias} ON true`, guarded: true };
}
const SHARING_FIELDS: ReadonlySet<PublicTaskField> = new Set(['shared', 'sharedowner', 'sharedwith', 'addedby']);
/** The public fields that are text (JSON strings); the others are numbers, or JSON the expression writes. */
const TEXT_FIELDS: ReadonlySet<PublicTaskField> = new Set(['title', 'tag', 'repeat', 'note', 'meta']);
/*
 * The subqueries below read one or two tables each, with scalar subqueries where a wider join
 * would do: where PostgreSQL plans a statement for each call's values, it plans every subquery
 * on each call, rows or not, and a join of three or four tables costs it more to plan than as
 * many one-table lookups (planning an all-fields after= read: 0.55–0.70 → 0.41–0.51 ms; the
 * links alone 0.16 → 0.07 ms).
 */
/** The owner of the row's share. */
const SHARE_OWNER = '(SELECT sh.user_pk FROM shares sh WHERE sh.pk = s.share_pk)';
/** The other participants of the row's share (`pa`): neither the row's account nor the owner. */
const OTHERS = `FROM task_shares p JOIN accounts pa ON pa.pk = p.user_pk
  WHERE p.share_pk = s.share_pk AND p.user_pk <> t.user_pk AND p.user_pk <> ${SHARE_OWNER}`;
/** The user id of the share's owner, written as the form writes text (inside: XML's escaping tests its value more than once). */
const ownerId = (r: RecordSql): string => `(SELECT ${r.text('oa.userid')} FROM accounts oa WHERE oa.pk = ${SHARE_OWNER})`;

/**
 * What differs between the two forms a database writes a task's public record in (pageWritten):
 * JSON (as JSON.stringify writes it) and XML (as the XML writer does, src/http/xml.ts).
 */
interface RecordSql {
  /** A text value nested in a field (a user id): a JSON string, or escaped XML text. */
  text(e: string): string;
  /** A number held as text (a note's id, or the constant '0'). */
  numberOfText(e: string): string;
  /** A list of the text values of `e` over `from`: a JSON array, or one `<id>` element each. */
  textList(e: string, from: string, orderBy: string): string;
  /**
   * A list of records over `from`: a JSON array of objects, or one `<item>` element each. A text
   * member is written as text; a literal one is a number or a value of this form already.
   */
  recordList(item: string, members: ReadonlyArray<readonly [string, string, JsonKind]>, from: string, orderBy: string): string;
  /** A list with no members. */
  readonly emptyList: string;
  /** The statement writing each row of `from` as one record of `columns`. */
  records(columns: ReadonlyArray<readonly [string, string, JsonKind]>, from: string): string;
}

function jsonSql(d: Dialect): RecordSql {
  return {
    text: (e) => d.jsonText(e),
    numberOfText: (e) => d.jsonNumberOfText(e),
    textList: (e, from, orderBy) => d.jsonTextList(e, from, orderBy),
    recordList: (_item, members, from, orderBy) => d.jsonList(members.map(([k, e]) => [k, e]), from, orderBy),
    emptyList: d.emptyJsonArray,
    records: (columns, from) => d.jsonRecords(columns, from),
  };
}

/**
 * XML, where the database writes it (Dialect.xml): a list is its members' elements, which the
 * record's `<field>` element encloses; the XML writer names them `<id>` for a value and after the
 * list for a record (src/http/xml.ts, itemName).
 */
function xmlSql(d: Dialect): RecordSql {
  const x = d.xml;
  const element = (name: string, e: string): string => `'<${name}>' || ${e} || '</${name}>'`;
  return {
    text: (e) => x.text(e),
    numberOfText: (e) => `CAST(CAST(${e} AS BIGINT) AS TEXT)`,
    textList: (e, from, orderBy) => x.list(element('id', x.text(e)), from, orderBy),
    recordList: (item, members, from, orderBy) =>
      x.list(element(item, members.map(([k, e, kind]) => element(k, kind === 'text' ? x.text(e) : e)).join(' || ')), from, orderBy),
    emptyList: "''",
    // Where the dialect reads it, the task's own text as kept for its XML (XML_KEPT; `kx`, joined by
    // query()), or as it stands; elsewhere escaped by the statement like any text.
    records: (columns, from) =>
      x.records('task', x.readsKept ? columns.map(([k, e, kind]) => (XML_KEPT.has(k) ? [k, `coalesce(kx.${k}, ${e})`, 'literal'] : [k, e, kind])) : columns, from),
  };
}

/**
 * Each public field as a SQL expression over the row `t` (and `m`, the calling app's meta), for
 * pageWritten. The same record as the presenter's (src/features/tasks/task-writers.ts), which a
 * test compares field by field on both databases, in both forms: times are floating (the start of
 * the date's day plus the time, 0 without a time); a user id is text, 0 when there is none. Only
 * names of this fixed table reach the SQL.
 */
function publicExpression(field: PublicTaskField, r: RecordSql, d: Dialect, guard: ReturnType<typeof guards>['guard']): string {
  switch (field) {
    case 'children':
      return guard('tasks', 'g.parent <> 0', CHILDREN, '0');
    case 'order':
      return 't.ord';
    case 'duetime':
      return 'CASE WHEN t.duetime IS NULL THEN 0 ELSE (t.duedate / 86400) * 86400 + t.duetime END';
    case 'starttime':
      return 'CASE WHEN t.starttime IS NULL THEN 0 ELSE (t.startdate / 86400) * 86400 + t.starttime END';
    case 'meta':
      return 'm.meta';
    case 'shared':
      return 'CASE WHEN s.share_pk IS NULL THEN 0 ELSE 1 END';
    case 'sharedowner':
      return `CASE WHEN s.share_pk IS NULL THEN ${r.numberOfText("'0'")} ELSE ${ownerId(r)} END`;
    case 'sharedwith':
      return `CASE WHEN s.share_pk IS NULL THEN ${r.emptyList} ELSE ${r.textList('pa.userid', OTHERS, 'pa.pk')} END`;
    case 'addedby':
      return `CASE WHEN ab.by_pk IS NULL THEN ${r.numberOfText("'0'")} ELSE (SELECT ${r.text('ba.userid')} FROM accounts ba WHERE ba.pk = ab.by_pk) END`;
    case 'attachment':
      return guard('task_attachments', undefined, attachmentsExpression(r, d), r.emptyList);
    default:
      return `t.${field}`;
  }
}

/**
 * A task's links as {id, kind, name}, in the order they were made, as AttachmentsRepo.forTasks
 * reads them: a note's id is a number, an outline's or a list's its text id, the name the linked
 * record's title; a link whose record is gone is left out.
 */
function attachmentsExpression(r: RecordSql, d: Dialect): string {
  // Most tasks have no links: one probe of the index answers them without building a list
  // (measured on SQLite: 2.9 → 2.4 ms for 1000 rows of all fields).
  return `CASE WHEN NOT EXISTS (SELECT 1 FROM task_attachments x WHERE x.user_pk = t.user_pk AND x.task_id = t.id) THEN ${r.emptyList} ELSE ${linkList(r, d)} END`;
}

/**
 * The title of the record a link `a` names, or NULL when it is gone. A note's id is compared as a
 * number, so that the notes' primary key finds it (compared as text, each note link read all of
 * the account's notes).
 */
const linkedTitle = (d: Dialect): string => `CASE a.kind
  WHEN 'note' THEN (SELECT n.title FROM notes n WHERE n.user_pk = a.user_pk AND n.id = ${d.idOfText('a.target')})
  WHEN 'outline' THEN (SELECT o.title FROM outlines o WHERE o.user_pk = a.user_pk AND o.id = a.target)
  ELSE (SELECT l.title FROM lists l WHERE l.user_pk = a.user_pk AND l.id = a.target) END`;

function linkList(r: RecordSql, d: Dialect): string {
  return r.recordList(
    'attachment',
    [
      ['id', `CASE WHEN z.kind = 'note' THEN ${r.numberOfText('z.target')} ELSE ${r.text('z.target')} END`, 'literal'],
      ['kind', 'z.kind', 'text'],
      ['name', 'z.title', 'text'],
    ],
    // The links with their titles, kept a subquery of its own (Dialect.fence) so that the title's
    // lookups are not copied into the filter.
    `FROM (SELECT a.seq, a.kind, a.target, ${linkedTitle(d)} AS title FROM task_attachments a
       WHERE a.user_pk = t.user_pk AND a.task_id = t.id${d.fence}) z
     WHERE z.title IS NOT NULL`,
    'z.seq',
  );
}

const INSERT_INTO = `INSERT INTO tasks (user_pk, ${COLUMNS.join(', ')}) VALUES `;

/**
 * Rows per multi-row insert, largest first: a batch is split greedily into these, so that only a
 * handful of distinct statements are ever prepared (each size is one cached statement on each
 * connection). 50 is a full tasks/add call, one statement; 256 rows × 30 columns stays under both
 * databases' parameter limits.
 */
const INSERT_SIZES = [256, 50, 16, 4, 1] as const;
const INSERTS = new Map<number, string>(INSERT_SIZES.map((n) => [n, INSERT_INTO + Array.from({ length: n }, () => ROW).join(', ')]));
/** INSERTS that also add their rows to the account's kept count (Dialect.writesInWith), the account's pk last. */
const COUNTED_INSERTS = new Map<number, string>(
  INSERT_SIZES.map((n) => [n, `WITH added AS (${INSERTS.get(n) as string} RETURNING 1) UPDATE accounts SET task_count = task_count + (SELECT count(*) FROM added) WHERE pk = ?`]),
);
/** COUNTED_INSERTS moving lastedit_task as well: the stamp's two values come before the account's pk. */
const STAMPED_INSERTS = new Map<number, string>(
  INSERT_SIZES.map((n) => [
    n,
    `WITH added AS (${INSERTS.get(n) as string} RETURNING 1) UPDATE accounts SET task_count = task_count + (SELECT count(*) FROM added), ${movedStamp('lastedit_task')} WHERE pk = ?`,
  ]),
);
const XML_INSERTS = new Map<number, string>(INSERT_SIZES.map((n) => [n, XML_INTO + Array.from({ length: n }, () => XML_ROW).join(', ')]));
const TEXT_COLUMNS: ReadonlySet<string> = new Set(['title', 'tag', 'repeat', 'note']);
const UPDATES = new Map<number, string>(INSERT_SIZES.map((n) => [n, updateFromValues('tasks', COLUMNS, TEXT_COLUMNS, n)]));
const XML_UPSERTS = new Map<number, string>(INSERT_SIZES.map((n) => [n, `${XML_INTO}${Array.from({ length: n }, () => XML_ROW).join(', ')}${XML_ON_CONFLICT}`]));
const META_UPSERTS = new Map<number, string>(
  INSERT_SIZES.map((n) => [
    n,
    `INSERT INTO task_meta (user_pk, task_id, client_pk, meta) VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?)').join(', ')}
     ON CONFLICT (user_pk, task_id, client_pk) DO UPDATE SET meta = excluded.meta`,
  ]),
);
const TOMBSTONE_ROW = '(?, ?, ?)';
const TOMBSTONES = new Map<number, string>(
  INSERT_SIZES.map((n) => [
    n,
    `INSERT INTO deleted_tasks (user_pk, id, stamp) VALUES ${Array.from({ length: n }, () => TOMBSTONE_ROW).join(', ')} ON CONFLICT (user_pk, id) DO UPDATE SET stamp = excluded.stamp`,
  ]),
);

/** pageWritten's statement texts kept: the field lists, forms and filters in use at once. */
const WRITTEN_STATEMENTS = 64;
const REFERENCE_FIELDS: ReadonlySet<TaskReference> = new Set(['folder', 'context', 'goal', 'location']);

export class SqlTasks implements TasksRepo {
  /** Listing reads a task's columns as the dialect reads wide rows best (Dialect.wideRow). */
  private readonly row: WideRow;
  private readonly json: RecordSql;
  private readonly xml: RecordSql;
  /** pageWritten's statements by form, field list and filter (bounded like the prepared ones). */
  private readonly written = new BoundedMap<string, { readonly sql: string; readonly guards: number }>(WRITTEN_STATEMENTS);

  constructor(
    private readonly db: SqlDb,
    private readonly dialect: Dialect,
  ) {
    this.row = dialect.wideRow(SELECT, COLUMNS.length);
    this.json = jsonSql(dialect);
    this.xml = xmlSql(dialect);
  }

  async count(userPk: number): Promise<number> {
    // Kept by insertMany and remove (migration 10), instead of counting the rows each time.
    return Number((await this.db.get<{ n: number }>('SELECT task_count AS n FROM accounts WHERE pk = ?', userPk))?.n ?? 0);
  }

  async getMany(userPk: number, ids: readonly number[]): Promise<Map<number, Task>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.allRaw(`SELECT ${SELECT} FROM tasks t WHERE t.user_pk = ? AND ${this.dialect.inIdList('t.id')}`, userPk, idList(ids));
    return new Map(rows.map((r) => [Number(r[0]), toTask(r)]));
  }

  async get(userPk: number, id: number): Promise<Task | null> {
    const row = await this.db.getRaw(`SELECT ${SELECT} FROM tasks t WHERE t.user_pk = ? AND t.id = ?`, userPk, id);
    return row ? toTask(row) : null;
  }

  /**
   * What page(), pageWritten() and scan() share: the filter, the range read, and the total. With
   * `metaFor`, the rows come with the app's meta (`m`); with `sharing`, with their membership of a
   * joint task (`s`, docs/decisions/0015) and who reassigned them (`ab`), whose subqueries in
   * publicExpression run only for the rows that are shared or reassigned; with `xml`, with their
   * kept XML (`kx`).
   */
  private query(userPk: number, q: Omit<TaskQuery, 'withChildren'>, { sharing = false, xml = false } = {}) {
    // The WHERE clause is built from fixed fragments; every value is a bound parameter (the
    // account, the app and the id as Dialect.opaqueParam: the statements are large).
    const p = this.dialect.opaqueParam;
    const where = [`t.user_pk = ${p}`];
    const params: Array<string | number> = [userPk];
    if (q.id !== undefined) where.push(`t.id = ${p}`), params.push(q.id);
    if (q.comp === 0) where.push('t.completed = 0');
    if (q.comp === 1) where.push('t.completed > 0');
    if (q.where !== undefined) where.push(filterSql(q.where, params, this.dialect));
    const source = rowSource(this.dialect, 'tasks', 'tasks_by_modified', q, where, params);
    const whereClause = source.where === null ? '' : `WHERE ${source.where}`;
    const joins: string[] = [];
    const joinParams: Array<string | number> = [];
    const joinRow = (alias: string, table: string, columns: string, extra = '', extraParams: Array<string | number> = []): void => {
      const j = taskRowJoin(this.dialect, alias, table, columns, extra);
      joins.push(j.sql);
      if (j.guarded) joinParams.push(userPk);
      joinParams.push(...extraParams);
    };
    if (q.metaFor !== undefined) joinRow('m', 'task_meta', 'm.meta', ` AND m.client_pk = ${p}`, [q.metaFor]);
    if (sharing) joinRow('s', 'task_shares', 's.share_pk'), joinRow('ab', 'task_added_by', 'ab.by_pk');
    if (xml) joins.push('LEFT JOIN task_xml kx ON kx.user_pk = t.user_pk AND kx.task_id = t.id');
    const join = joins.join(' ');
    const num = Math.max(0, q.num);
    // A condition's statements are as many as the searches that make them (SqlDb.allRawUnnamed).
    const all = (sql: string, ...p: Array<string | number>): Promise<unknown[][]> => (q.where === undefined ? this.db.allRaw(sql, ...p) : this.db.allRawUnnamed(sql, ...p));
    return {
      num,
      all,
      /** The rows' FROM … LIMIT tail, for a statement of the caller's select list. */
      from: `FROM ${source.from} ${join} ${whereClause} ORDER BY t.id ${pageClause(this.dialect, q.start)}`,
      /** The rows' parameters, in the order of the tail's placeholders (the filter's inside FROM or after the joins). */
      params:
        source.where === null
          ? [...params, ...joinParams, ...pageParams(num, q.start)]
          : [...joinParams, ...params, ...pageParams(num, q.start)],
      // A first page that holds every match needs no separate count (the common incremental sync);
      // without a filter the total is the account's kept count (count()), where counting the rows
      // of an account of 80,000 tasks took PostgreSQL 29 ms.
      total: async (got: number): Promise<number> => {
        if (q.start === 0 && got < num) return got;
        if (where.length === 1) return this.count(userPk);
        return Number((await all(`SELECT count(*) FROM ${source.from} ${whereClause}`, ...params))[0]?.[0] ?? 0);
      },
    };
  }

  async page(userPk: number, q: TaskQuery): Promise<TaskPage> {
    const query = this.query(userPk, q);
    const g = guards(this.dialect);
    const children = q.withChildren ? g.guard('tasks', 'g.parent <> 0', CHILDREN, '0') : '0';
    const meta = q.metaFor !== undefined ? 'm.meta' : 'NULL';
    const sql = `SELECT ${this.row.select}, ${children}, ${meta} ${query.from}`;
    const rows = query.num === 0 ? [] : await query.all(sql, ...Array.from({ length: g.count() }, () => userPk), ...query.params);
    const total = await query.total(rows.length);
    const w = this.row.width;
    const tasks = rows.map((r) => toListed(this.row.values(r), Number(r[w]), r[w + 1] as string | null));
    return { total, tasks };
  }

  async scan<C extends FilterColumn>(
    userPk: number,
    q: Omit<TaskQuery, 'start' | 'num' | 'withChildren' | 'metaFor'>,
    columns: readonly C[],
    part: { readonly afterId: number; readonly limit: number },
  ): Promise<Array<Pick<Task, 'id' | C>>> {
    // after and before as conditions rather than query()'s filters, which name the modified
    // index: a part is read along the ids.
    const where: TaskFilter[] = [{ column: 'id', op: '>', value: part.afterId }];
    if (q.after !== undefined) where.push({ column: 'modified', op: '>', value: q.after });
    if (q.before !== undefined) where.push({ column: 'modified', op: '<', value: q.before });
    if (q.where !== undefined) where.push(q.where);
    const query = this.query(userPk, { id: q.id, comp: q.comp, where: { all: where }, start: 0, num: part.limit });
    const names = ['id' as const, ...columns];
    const rows = query.num === 0 ? [] : await query.all(`SELECT ${filterColumns(names)} ${query.from}`, ...query.params);
    return rows.map((r) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) row[names[i] as string] = r[i];
      return row as Pick<Task, 'id' | C>;
    });
  }

  async pageWritten(userPk: number, q: TaskQuery, fields: readonly PublicTaskField[], form: RecordForm): Promise<TaskWrittenPage> {
    const query = this.query(userPk, { ...q, metaFor: fields.includes('meta') ? q.metaFor : undefined }, {
      sharing: fields.some((f) => SHARING_FIELDS.has(f)),
      xml: form === 'xml' && this.dialect.xml.readsKept,
    });
    // The select list follows the fields asked for: many variants, of which those in use stay
    // prepared (SqlDb.allRawVaried). A statement without a condition is written once per form,
    // field list and filter and kept: writing its 3 KB of text again for every call, and hashing
    // the new text to find the prepared statement, took about 5 % of an `after=` fetch's CPU.
    const key = q.where === undefined ? `${form}|${fields.join(',')}|${query.from}` : undefined;
    let statement = key === undefined ? undefined : this.written.get(key);
    if (statement === undefined) {
      const r = form === 'json' ? this.json : this.xml;
      const g = guards(this.dialect);
      const sql = r.records(
        fields.map((f) => [f, publicExpression(f, r, this.dialect, g.guard), TEXT_FIELDS.has(f) ? 'text' : 'literal'] as const),
        query.from,
      );
      statement = { sql, guards: g.count() };
      if (key !== undefined) this.written.set(key, statement);
    }
    // The select list's guards come first, each the account.
    const params = [...Array.from({ length: statement.guards }, () => userPk), ...query.params];
    const sql = statement.sql;
    const rows = query.num === 0 ? [] : q.where === undefined ? await this.db.firstsVaried(sql, ...params) : (await this.db.allRawUnnamed(sql, ...params)).map((row) => row[0]);
    return { total: await query.total(rows.length), rows: rows as string[] };
  }

  async insert(userPk: number, task: Task): Promise<void> {
    await this.insertMany(userPk, [task]);
  }

  async insertMany(userPk: number, tasks: readonly Task[], editStamp?: number): Promise<void> {
    if (tasks.length === 0) return;
    const rows = tasks.map((task) => [userPk, ...values(task)]);
    const stamp = editStamp === undefined ? [] : [editStamp, editStamp];
    // Where a statement may write in its WITH clause, each part adds its own rows to the account's
    // kept count, and moves the stamp, in the same round trip (a tasks/add call: two round trips
    // fewer on PostgreSQL). Moving one stamp to one value again changes nothing.
    const counted = this.dialect.writesInWith;
    const statements = editStamp === undefined ? COUNTED_INSERTS : STAMPED_INSERTS;
    if (counted) await inParts(INSERT_SIZES, rows, (size, params) => this.db.run(statements.get(size) as string, ...params, ...stamp, userPk));
    else await this.insertInParts(INSERTS, rows);
    if (this.dialect.xml.readsKept) {
      const kept = tasks.flatMap((task) => {
        const xml = keptXml(task);
        return xml ? [[userPk, task.id, ...xml]] : [];
      });
      await this.insertInParts(XML_INSERTS, kept);
    }
    if (counted) return;
    const moved = editStamp === undefined ? '' : `, ${movedStamp('lastedit_task')}`;
    await this.db.run(`UPDATE accounts SET task_count = task_count + ?${moved} WHERE pk = ?`, tasks.length, ...stamp, userPk);
  }

  /** Rows by multi-row inserts of the sizes of INSERT_SIZES, largest first. */
  private async insertInParts(statements: ReadonlyMap<number, string>, rows: ReadonlyArray<ReadonlyArray<string | number | null>>): Promise<void> {
    await inParts(INSERT_SIZES, rows, (size, params) => this.db.run(statements.get(size) as string, ...params));
  }

  async update(userPk: number, task: Task): Promise<void> {
    await this.updateMany(userPk, [task]);
  }

  async updateMany(userPk: number, tasks: readonly Task[]): Promise<void> {
    const rows = tasks.map(values);
    if (!this.dialect.xml.readsKept) {
      await inParts(INSERT_SIZES, rows, (size, params) => this.db.run(UPDATES.get(size) as string, ...params, userPk));
      return;
    }
    // The kept XML is written for the tasks that are there only (its key names a task).
    const there = new Set<number>();
    await inParts(INSERT_SIZES, rows, async (size, params) => {
      for (const [id] of await this.db.allRaw(`${UPDATES.get(size) as string} RETURNING tasks.id`, ...params, userPk)) there.add(Number(id));
    });
    const kept: Array<Array<string | number | null>> = [];
    const none: number[] = [];
    for (const task of tasks) {
      if (!there.has(task.id)) continue;
      const xml = keptXml(task);
      if (xml) kept.push([userPk, task.id, ...xml]);
      else none.push(task.id);
    }
    await this.insertInParts(XML_UPSERTS, kept);
    if (none.length > 0) await this.db.run(`DELETE FROM task_xml WHERE user_pk = ? AND ${this.dialect.inIdList('task_id')}`, userPk, idList(none));
  }

  async remove(userPk: number, ids: readonly number[], stamp: number): Promise<void> {
    const list = idList(ids);
    if (list === '') return;
    const removed = await this.db.run(`DELETE FROM tasks WHERE user_pk = ? AND ${this.dialect.inIdList('id')}`, userPk, list);
    await this.insertInParts(
      TOMBSTONES,
      list.split(',').map((id) => [userPk, Number(id), stamp]),
    );
    if (removed > 0) await this.db.run('UPDATE accounts SET task_count = task_count - ? WHERE pk = ?', removed, userPk);
  }

  async childIds(userPk: number, parent: number): Promise<number[]> {
    return (await this.db.all<{ id: number }>('SELECT id FROM tasks WHERE user_pk = ? AND parent = ? AND parent <> 0 ORDER BY ord, id', userPk, parent)).map(
      (r) => r.id,
    );
  }

  async childIdsOf(userPk: number, parents: readonly number[]): Promise<Map<number, number[]>> {
    const of = new Map<number, number[]>();
    if (parents.length === 0) return of;
    const rows = await this.db.allRaw(
      `SELECT parent, id FROM tasks WHERE user_pk = ? AND parent <> 0 AND ${this.dialect.inIdList('parent')} ORDER BY parent, ord, id`,
      userPk,
      idList(parents),
    );
    for (const [parent, id] of rows) {
      const p = Number(parent);
      let ids = of.get(p);
      if (!ids) of.set(p, (ids = []));
      ids.push(Number(id));
    }
    return of;
  }

  async nextOrder(userPk: number, parent: number): Promise<number> {
    const r = await this.db.get<{ n: number }>(
      'SELECT COALESCE(max(ord), 0) + 1 AS n FROM tasks WHERE user_pk = ? AND parent = ? AND parent <> 0',
      userPk,
      parent,
    );
    return Number((r as { n: number }).n);
  }

  async isDeleted(userPk: number, id: number): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS x FROM deleted_tasks WHERE user_pk = ? AND id = ?', userPk, id)) !== undefined;
  }

  async deletedAfter(userPk: number, after: number): Promise<Tombstone[]> {
    return this.db.all<Tombstone>(
      'SELECT id, stamp FROM deleted_tasks WHERE user_pk = ? AND stamp > ? ORDER BY stamp, id',
      userPk,
      after,
    );
  }

  async meta(userPk: number, taskId: number, clientPk: number): Promise<string | null> {
    return (await this.db.get<{ meta: string }>('SELECT meta FROM task_meta WHERE user_pk = ? AND task_id = ? AND client_pk = ?', userPk, taskId, clientPk))?.meta ?? null;
  }

  async metasOf(userPk: number, clientPk: number, taskIds: readonly number[]): Promise<Map<number, string>> {
    const list = idList(taskIds);
    if (list === '') return new Map();
    const rows = await this.db.allRaw(`SELECT task_id, meta FROM task_meta WHERE user_pk = ? AND client_pk = ? AND ${this.dialect.inIdList('task_id')}`, userPk, clientPk, list);
    return new Map(rows.map(([id, meta]) => [Number(id), String(meta)]));
  }

  async setMeta(userPk: number, taskId: number, clientPk: number, meta: string | null): Promise<void> {
    await this.setMetas(userPk, clientPk, [{ taskId, meta }]);
  }

  async setMetas(userPk: number, clientPk: number, metas: ReadonlyArray<{ readonly taskId: number; readonly meta: string | null }>): Promise<void> {
    const set = metas.filter((m) => m.meta !== null && m.meta !== '');
    const gone = metas.filter((m) => m.meta === null || m.meta === '').map((m) => m.taskId);
    await inParts(
      INSERT_SIZES,
      set.map((m) => [userPk, m.taskId, clientPk, m.meta]),
      (size, params) => this.db.run(META_UPSERTS.get(size) as string, ...params),
    );
    if (gone.length > 0) await this.db.run(`DELETE FROM task_meta WHERE user_pk = ? AND client_pk = ? AND ${this.dialect.inIdList('task_id')}`, userPk, clientPk, idList(gone));
  }

  async hasReference(userPk: number, field: TaskReference, id: number): Promise<boolean> {
    // The field is part of the SQL text: only the four reference columns may get there.
    if (!REFERENCE_FIELDS.has(field)) throw new Error(`not a task reference: ${field}`);
    return (await this.db.get(`SELECT 1 AS x FROM tasks WHERE user_pk = ? AND ${field} = ? LIMIT 1`, userPk, id)) !== undefined;
  }

  async countByReference(userPk: number, field: TaskReference): Promise<Map<number, number>> {
    if (!REFERENCE_FIELDS.has(field)) throw new Error(`not a task reference: ${field}`);
    const rows = await this.db.all<{ id: number; n: number | string }>(
      `SELECT ${field} AS id, COUNT(*) AS n FROM tasks WHERE user_pk = ? AND ${field} <> 0 GROUP BY ${field}`,
      userPk,
    );
    // PostgreSQL answers COUNT(*) as a bigint, which pg hands over as text.
    return new Map(rows.map((r) => [Number(r.id), Number(r.n)]));
  }

  async clearReference(userPk: number, field: TaskReference, id: number, stamp: number): Promise<number> {
    if (!REFERENCE_FIELDS.has(field)) throw new Error(`not a task reference: ${field}`);
    return this.db.run(`UPDATE tasks SET ${field} = 0, modified = ? WHERE user_pk = ? AND ${field} = ?`, stamp, userPk, id);
  }
}
