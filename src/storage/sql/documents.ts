import type {
  DocumentId,
  DocumentKind,
  DocumentPage,
  DocumentQuery,
  DocumentsRepo,
  DocumentTombstone,
  DocumentTypes,
  DocumentWrittenPage,
  ListRow,
  StampMove,
  StampName,
  WrittenKind,
} from '../store.js';
import { movedStamp } from './accounts.js';
import { BoundedMap } from '../../lib/bounded-map.js';
import { storableText } from '../../lib/text.js';
import { idList, inParts, pageClause, pageParams, rowSource, textList, updateFromValues, type Dialect, type SqlDb, type SqlParam } from './db.js';
import { num, selectList, tableOf, writtenColumns, type DbRow, type Table } from './document-tables.js';

/** The one parameter of SqlDocuments.ids(): note ids as digits joined by commas, other ids as a JSON array of text. */
function idsParam(kind: DocumentKind, ids: readonly DocumentId[]): string {
  // A note id that is not a whole number names no note (get() finds none): left out.
  return kind === 'note' ? idList(ids.map(Number)) : textList(ids.map(String));
}

/** Rows per multi-row insert: a call adds at most 50 records, an import more. */
const INSERT_SIZES = [50, 16, 4, 1] as const;
const INSERTS = new Map<string, string>();

function insertStatement(t: Pick<Table<DocumentKind>, 'table' | 'columns'>, size: number): string {
  const key = `${t.table}:${size}`;
  let sql = INSERTS.get(key);
  if (sql === undefined) {
    const row = `(?, ${t.columns.map(() => '?').join(', ')})`;
    sql = `INSERT INTO ${t.table} (user_pk, ${t.columns.join(', ')}) VALUES ${Array.from({ length: size }, () => row).join(', ')}`;
    INSERTS.set(key, sql);
  }
  return sql;
}

/** The account's column counting each kind (migration 14); a list counts its own rows (row_count). */
const KEPT_COUNT: { readonly [K in Exclude<DocumentKind, 'row'>]: string } = { note: 'note_count', outline: 'outline_count', list: 'list_count' };

const COUNTED_INSERTS = new Map<string, string>();
/**
 * insertStatement() that also adds its records to their kept count in the same statement, where
 * the dialect writes in WITH (Dialect.writesInWith: one round trip fewer on PostgreSQL), and moves
 * `stamp` of the account with it (not for rows, whose count is their list's); the stamp's two
 * values, then the account's pk, are its last parameters.
 */
function countedInsertStatement(t: Pick<Table<DocumentKind>, 'table' | 'columns'>, kind: DocumentKind, size: number, stamp: StampName | undefined): string {
  const key = `${t.table}:${size}:${stamp ?? ''}`;
  let sql = COUNTED_INSERTS.get(key);
  if (sql === undefined) {
    const insert = insertStatement(t, size);
    sql =
      kind === 'row'
        ? `WITH added AS (${insert} RETURNING list_id) UPDATE lists SET row_count = lists.row_count + c.n
           FROM (SELECT list_id, count(*) AS n FROM added GROUP BY list_id) c WHERE lists.user_pk = ? AND lists.id = c.list_id`
        : `WITH added AS (${insert} RETURNING 1) UPDATE accounts SET ${KEPT_COUNT[kind]} = ${KEPT_COUNT[kind]} + (SELECT count(*) FROM added)${movedWith(stamp)} WHERE pk = ?`;
    COUNTED_INSERTS.set(key, sql);
  }
  return sql;
}

/** The assignment moving `stamp` (movedStamp) after the others of an UPDATE of accounts, or nothing. */
const movedWith = (stamp: StampName | undefined): string => (stamp === undefined ? '' : `, ${movedStamp(stamp)}`);

/** The columns update() writes: a record never moves to another parent, and its ref is the add's. */
const settable = (t: Pick<Table<DocumentKind>, 'columns' | 'parent'>): string[] => t.columns.slice(1).filter((c) => c !== t.parent && c !== 'ref');

const UPDATES = new Map<string, string>();

/** updateMany's statement for `size` records of a kind: their id and the columns update() writes. */
function updateStatement(t: Pick<Table<DocumentKind>, 'table' | 'columns' | 'parent' | 'text'>, size: number): string {
  const key = `${t.table}:${size}`;
  let sql = UPDATES.get(key);
  if (sql === undefined) UPDATES.set(key, (sql = updateFromValues(t.table, [t.columns[0] as string, ...settable(t)], t.text, size)));
  return sql;
}

const TOMBSTONE_ROW = '(?, ?, ?, ?, ?)';
const TOMBSTONES = new Map<number, string>(
  INSERT_SIZES.map((n) => [
    n,
    `INSERT INTO deleted_records (user_pk, kind, id, list_id, stamp) VALUES ${Array.from({ length: n }, () => TOMBSTONE_ROW).join(', ')}
     ON CONFLICT (user_pk, kind, id) DO UPDATE SET stamp = excluded.stamp`,
  ]),
);

export class SqlDocuments implements DocumentsRepo {
  /** pageWritten's statements by kind and page shape (a few of each: with an id, a range, an offset). */
  private readonly written = new BoundedMap<string, string>(32);

  constructor(
    private readonly db: SqlDb,
    private readonly dialect: Dialect,
  ) {}

  async page<K extends DocumentKind>(userPk: number, kind: K, q: DocumentQuery): Promise<DocumentPage<K>> {
    const t = tableOf(kind);
    const range = this.range(userPk, kind, q);
    const rows = range.num === 0 ? [] : await this.db.all<DbRow>(`SELECT ${selectList(t)} ${range.tail}`, ...range.params);
    return { total: await range.total(rows.length), items: rows.map((r) => t.toRecord(r)) };
  }

  async pageWritten(userPk: number, kind: WrittenKind, q: DocumentQuery): Promise<DocumentWrittenPage> {
    const range = this.range(userPk, kind, q);
    // The database writes each record's JSON: JSON.stringify of the records read as objects took
    // a third of a notes/get of 1000 notes, and reading them as objects another quarter.
    const key = `${kind}|${range.tail}`;
    let sql = this.written.get(key);
    if (sql === undefined) {
      this.written.set(key, (sql = this.dialect.jsonRecords(writtenColumns(kind, this.dialect), range.tail)));
    }
    const rows = range.num === 0 ? [] : await this.db.firstsVaried(sql, ...range.params);
    return { total: await range.total(rows.length), rows: rows as string[] };
  }

  /** A page of a kind's records: the statement's FROM … LIMIT tail with its parameters, and the total. */
  private range(userPk: number, kind: DocumentKind, q: DocumentQuery) {
    const t: Pick<Table<DocumentKind>, 'table' | 'parent' | 'byModified'> = tableOf(kind);
    // The WHERE clause is built from fixed fragments; every value is a bound parameter (the
    // account, the list and the id as Dialect.opaqueParam).
    const p = this.dialect.opaqueParam;
    const where = [`t.user_pk = ${p}`];
    const params: SqlParam[] = [userPk];
    if (t.parent) where.push(`t.${t.parent} = ${p}`), params.push(q.list ?? '');
    if (q.id !== undefined) where.push(`t.id = ${p}`), params.push(q.id);
    const source = rowSource(this.dialect, t.table, t.byModified, q, where, params);
    const from = `FROM ${source.from}${source.where === null ? '' : ` WHERE ${source.where}`}`;
    const limit = Math.max(0, q.num);
    return {
      num: limit,
      tail: `${from} ORDER BY t.id ${pageClause(this.dialect, q.start)}`,
      params: [...params, ...pageParams(limit, q.start)],
      // A first page that holds every match needs no separate count, nor does a page of every
      // record (of a list): that total is kept (count(), migration 14).
      total: async (got: number): Promise<number> => {
        if (q.start === 0 && got < limit) return got;
        if (q.id === undefined && q.after === undefined && q.before === undefined) return q.listRows ?? this.count(userPk, kind, q.list);
        return num((await this.db.get<{ n: number }>(`SELECT count(*) AS n ${from}`, ...params))?.n);
      },
    };
  }

  async get<K extends DocumentKind>(userPk: number, kind: K, id: DocumentId): Promise<DocumentTypes[K] | null> {
    const t = tableOf(kind);
    const row = await this.db.get<DbRow>(`SELECT ${selectList(t)} FROM ${t.table} t WHERE t.user_pk = ? AND t.id = ?`, userPk, id);
    return row ? t.toRecord(row) : null;
  }

  async getMany<K extends DocumentKind>(userPk: number, kind: K, ids: readonly DocumentId[]): Promise<Map<string, DocumentTypes[K]>> {
    const t = tableOf(kind);
    if (ids.length === 0) return new Map();
    const rows = await this.db.all<DbRow>(`SELECT ${selectList(t)} FROM ${t.table} t WHERE t.user_pk = ? AND ${this.ids(kind, 't.id')}`, userPk, idsParam(kind, ids));
    return new Map(rows.map((r) => [String(r['id']), t.toRecord(r)]));
  }

  /** Whether `e` is one of the ids of the one parameter idsParam() writes: numbers for notes, text for the others. */
  private ids(kind: DocumentKind, e: string): string {
    return kind === 'note' ? this.dialect.inIdList(e) : this.dialect.inTextList(e);
  }

  async idByRef(userPk: number, kind: DocumentKind, ref: string, list?: string): Promise<DocumentId | null> {
    return (await this.idsByRef(userPk, kind, [ref], list)).get(ref) ?? null;
  }

  async idsByRef(userPk: number, kind: DocumentKind, refs: readonly string[], list?: string): Promise<Map<string, DocumentId>> {
    const t = tableOf(kind);
    if (!t.columns.includes('ref') || refs.length === 0) return new Map();
    const byParent = t.parent ? ` AND ${t.parent} = ?` : '';
    const rows = await this.db.allRaw(
      `SELECT ref, id FROM ${t.table} WHERE user_pk = ? AND ${this.dialect.inTextList('ref')}${byParent}`,
      userPk,
      textList(refs),
      ...(t.parent ? [list ?? ''] : []),
    );
    // Keyed by the refs as given: a ref is stored as storable text, and found as such.
    const found = new Map(rows.map(([ref, id]) => [String(ref), id as DocumentId]));
    const byRef = new Map<string, DocumentId>();
    for (const ref of refs) {
      const id = found.get(storableText(ref));
      if (id !== undefined) byRef.set(ref, id);
    }
    return byRef;
  }

  async count(userPk: number, kind: DocumentKind, list?: string): Promise<number> {
    // Kept by insertMany and removeMany (migration 14), instead of counting the records each time.
    const row =
      kind === 'row'
        ? await this.db.get<{ n: number }>('SELECT row_count AS n FROM lists WHERE user_pk = ? AND id = ?', userPk, list ?? '')
        : await this.db.get<{ n: number }>(`SELECT ${KEPT_COUNT[kind]} AS n FROM accounts WHERE pk = ?`, userPk);
    return num(row?.n ?? 0);
  }

  /**
   * Moves the kept counts (migration 14) by `sign` for each record of `parents` (a row's list; ''
   * for the other kinds), and `stamp` with the account's count (not with a list's).
   */
  private async recount(userPk: number, kind: DocumentKind, parents: readonly string[], sign: 1 | -1, stamp?: StampMove): Promise<void> {
    if (parents.length === 0) return;
    if (kind !== 'row') {
      const moved = stamp ? [stamp.value, stamp.value] : [];
      await this.db.run(`UPDATE accounts SET ${KEPT_COUNT[kind]} = ${KEPT_COUNT[kind]} + ?${movedWith(stamp?.name)} WHERE pk = ?`, sign * parents.length, ...moved, userPk);
      return;
    }
    const byList = new Map<string, number>();
    for (const list of parents) byList.set(list, (byList.get(list) ?? 0) + 1);
    for (const [list, n] of byList) await this.db.run('UPDATE lists SET row_count = row_count + ? WHERE user_pk = ? AND id = ?', sign * n, userPk, list);
  }

  async insert<K extends DocumentKind>(userPk: number, kind: K, record: DocumentTypes[K]): Promise<void> {
    await this.insertMany(userPk, kind, [record]);
  }

  async insertMany<K extends DocumentKind>(userPk: number, kind: K, records: ReadonlyArray<DocumentTypes[K]>, editStamp?: StampMove): Promise<void> {
    if (records.length === 0) return;
    const t = tableOf(kind);
    // A few multi-row statements of fixed sizes (each prepared once) instead of one per record.
    const rows = records.map((record) => [userPk, ...t.toValues(record)]);
    // The stamp moves with the account's count; rows, counted in their list, move it on its own.
    const withCount = kind === 'row' ? undefined : editStamp;
    if (this.dialect.writesInWith) {
      const moved = withCount ? [withCount.value, withCount.value] : [];
      await inParts(INSERT_SIZES, rows, (size, params) => this.db.run(countedInsertStatement(t, kind, size, withCount?.name), ...params, ...moved, userPk));
    } else {
      await inParts(INSERT_SIZES, rows, (size, params) => this.db.run(insertStatement(t, size), ...params));
      await this.recount(userPk, kind, records.map((r) => (kind === 'row' ? (r as ListRow).list : '')), 1, withCount);
    }
    if (editStamp && !withCount) await this.db.run(`UPDATE accounts SET ${movedStamp(editStamp.name)} WHERE pk = ?`, editStamp.value, editStamp.value, userPk);
  }

  async update<K extends DocumentKind>(userPk: number, kind: K, record: DocumentTypes[K]): Promise<void> {
    await this.updateMany(userPk, kind, [record]);
  }

  async updateMany<K extends DocumentKind>(userPk: number, kind: K, records: ReadonlyArray<DocumentTypes[K]>): Promise<void> {
    const t = tableOf(kind);
    const written = new Set(settable(t));
    const rows = records.map((record) => {
      const values = t.toValues(record);
      return [values[0] as SqlParam, ...t.columns.flatMap((c, i) => (written.has(c) ? [values[i] as SqlParam] : []))];
    });
    await inParts(INSERT_SIZES, rows, (size, params) => this.db.run(updateStatement(t, size), ...params, userPk));
  }

  async remove(userPk: number, kind: DocumentKind, id: DocumentId, stamp: number): Promise<boolean> {
    return (await this.removeMany(userPk, kind, [id], stamp)).size > 0;
  }

  async removeMany(userPk: number, kind: DocumentKind, ids: readonly DocumentId[], stamp: number): Promise<Set<string>> {
    const t = tableOf(kind);
    if (ids.length === 0) return new Set();
    // A list's rows go with it (the foreign key cascades); each record removed leaves a tombstone,
    // a row's with its list.
    const gone = await this.db.allRaw(
      `DELETE FROM ${t.table} WHERE user_pk = ? AND ${this.ids(kind, 'id')} RETURNING id, ${t.parent ?? "''"}`,
      userPk,
      idsParam(kind, ids),
    );
    await inParts(
      INSERT_SIZES,
      gone.map(([id, list]) => [userPk, kind, String(id), String(list), stamp]),
      (size, params) => this.db.run(TOMBSTONES.get(size) as string, ...params),
    );
    await this.recount(userPk, kind, gone.map(([, list]) => String(list)), -1);
    return new Set(gone.map(([id]) => String(id)));
  }

  async deletedAfter(userPk: number, kind: DocumentKind, after: number, list?: string): Promise<DocumentTombstone[]> {
    const rows = await this.db.all<{ id: string; list_id: string; stamp: number }>(
      `SELECT id, list_id, stamp FROM deleted_records WHERE user_pk = ? AND kind = ? AND stamp > ?${list !== undefined ? ' AND list_id = ?' : ''} ORDER BY stamp, id`,
      userPk,
      kind,
      after,
      ...(list !== undefined ? [list] : []),
    );
    // Note ids are integers; the table keeps every kind's id as text.
    return rows.map((r) => ({ id: kind === 'note' ? Number(r.id) : r.id, list: r.list_id, stamp: num(r.stamp) }));
  }

  async touchList(userPk: number, id: string, stamp: number): Promise<void> {
    await this.db.run('UPDATE lists SET modified = ? WHERE user_pk = ? AND id = ?', stamp, userPk, id);
  }

  async hasFolder(userPk: number, folder: number): Promise<boolean> {
    // `folder <> 0` (folder ids are positive) lets a plan made for any folder use notes_by_folder.
    return (await this.db.get('SELECT 1 AS x FROM notes WHERE user_pk = ? AND folder = ? AND folder <> 0 LIMIT 1', userPk, folder)) !== undefined;
  }

  async countByFolder(userPk: number): Promise<Map<number, number>> {
    const rows = await this.db.all<{ folder: number; n: number | string }>('SELECT folder, COUNT(*) AS n FROM notes WHERE user_pk = ? AND folder <> 0 GROUP BY folder', userPk);
    // PostgreSQL answers COUNT(*) as a bigint, which pg hands over as text.
    return new Map(rows.map((r) => [Number(r.folder), Number(r.n)]));
  }

  async clearFolder(userPk: number, folder: number, stamp: number): Promise<number> {
    return this.db.run('UPDATE notes SET folder = 0, modified = ? WHERE user_pk = ? AND folder = ? AND folder <> 0', stamp, userPk, folder);
  }
}
