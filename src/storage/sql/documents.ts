import type {
  DocumentId,
  DocumentKind,
  DocumentPage,
  DocumentQuery,
  DocumentsRepo,
  DocumentTombstone,
  DocumentTypes,
  List,
  ListRow,
  Note,
  Outline,
} from '../store.js';
import { pageClause, pageParams, rowSource, type Dialect, type SqlDb, type SqlParam } from './db.js';

type DbRow = Record<string, unknown>;

/** How one kind is stored: its table, its columns (in insert order) and the two conversions. */
interface Table<K extends DocumentKind> {
  readonly table: string;
  readonly columns: readonly string[];
  /** Extra read-only expressions of the select list (a list's row count). */
  readonly computed?: string;
  readonly toRecord: (r: DbRow) => DocumentTypes[K];
  readonly toValues: (record: DocumentTypes[K]) => SqlParam[];
  /** The column holding the parent's id (rows: their list), for filters. */
  readonly parent?: string;
  /** The index by account (and parent) and modification time, for range reads. */
  readonly byModified: string;
}

const num = (v: unknown): number => Number(v);
const json = <T>(v: unknown): T => JSON.parse(v as string) as T;

const NOTES: Table<'note'> = {
  table: 'notes',
  byModified: 'notes_by_modified',
  columns: ['id', 'title', 'text', 'folder', 'private', 'added', 'modified'],
  toRecord: (r): Note => ({
    id: num(r['id']),
    title: r['title'] as string,
    text: r['text'] as string,
    folder: num(r['folder']),
    private: num(r['private']),
    added: num(r['added']),
    modified: num(r['modified']),
  }),
  toValues: (n) => [n.id, n.title, n.text, n.folder, n.private, n.added, n.modified],
};

const OUTLINES: Table<'outline'> = {
  table: 'outlines',
  byModified: 'outlines_by_modified',
  columns: ['id', 'ref', 'title', 'keywords', 'note', 'hidden', 'version', 'added', 'modified', 'nodes'],
  toRecord: (r): Outline => ({
    id: r['id'] as string,
    ref: r['ref'] as string,
    title: r['title'] as string,
    keywords: r['keywords'] as string,
    note: r['note'] as string,
    hidden: num(r['hidden']),
    version: num(r['version']),
    added: num(r['added']),
    modified: num(r['modified']),
    nodes: json(r['nodes']),
  }),
  toValues: (o) => [o.id, o.ref, o.title, o.keywords, o.note, o.hidden, o.version, o.added, o.modified, JSON.stringify(o.nodes)],
};

const LISTS: Table<'list'> = {
  table: 'lists',
  byModified: 'lists_by_modified',
  columns: ['id', 'ref', 'title', 'keywords', 'note', 'version', 'added', 'modified', 'cols', 'next_col'],
  computed: '(SELECT count(*) FROM list_rows r WHERE r.user_pk = t.user_pk AND r.list_id = t.id) AS row_count',
  toRecord: (r): List => ({
    id: r['id'] as string,
    ref: r['ref'] as string,
    title: r['title'] as string,
    keywords: r['keywords'] as string,
    note: r['note'] as string,
    version: num(r['version']),
    added: num(r['added']),
    modified: num(r['modified']),
    cols: json(r['cols']),
    nextCol: num(r['next_col']),
    rows: num(r['row_count']),
  }),
  toValues: (l) => [l.id, l.ref, l.title, l.keywords, l.note, l.version, l.added, l.modified, JSON.stringify(l.cols), l.nextCol],
};

const ROWS: Table<'row'> = {
  table: 'list_rows',
  byModified: 'list_rows_by_list',
  columns: ['id', 'list_id', 'ref', 'version', 'added', 'modified', 'cells'],
  parent: 'list_id',
  toRecord: (r): ListRow => ({
    id: r['id'] as string,
    list: r['list_id'] as string,
    ref: r['ref'] as string,
    version: num(r['version']),
    added: num(r['added']),
    modified: num(r['modified']),
    cells: json(r['cells']),
  }),
  toValues: (w) => [w.id, w.list, w.ref, w.version, w.added, w.modified, JSON.stringify(w.cells)],
};

const TABLES: { readonly [K in DocumentKind]: Table<K> } = { note: NOTES, outline: OUTLINES, list: LISTS, row: ROWS };

function tableOf<K extends DocumentKind>(kind: K): Table<K> {
  const t = TABLES[kind];
  if (!t) throw new Error(`unknown document kind ${String(kind)}`);
  return t as Table<K>;
}

function selectList(t: Pick<Table<DocumentKind>, 'columns' | 'computed'>): string {
  return [...t.columns.map((c) => `t.${c}`), ...(t.computed ? [t.computed] : [])].join(', ');
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

export class SqlDocuments implements DocumentsRepo {
  constructor(
    private readonly db: SqlDb,
    private readonly dialect: Dialect,
  ) {}

  async page<K extends DocumentKind>(userPk: number, kind: K, q: DocumentQuery): Promise<DocumentPage<K>> {
    const t = tableOf(kind);
    // The WHERE clause is built from fixed fragments; every value is a bound parameter.
    const where = ['t.user_pk = ?'];
    const params: SqlParam[] = [userPk];
    if (t.parent) where.push(`t.${t.parent} = ?`), params.push(q.list ?? '');
    if (q.id !== undefined) where.push('t.id = ?'), params.push(q.id);
    const source = rowSource(this.dialect, t.table, t.byModified, q, where, params);
    const from = `FROM ${source.from}${source.where === null ? '' : ` WHERE ${source.where}`}`;
    const numRows = Math.max(0, q.num);
    const rows = numRows === 0 ? [] : await this.db.all<DbRow>(`SELECT ${selectList(t)} ${from} ORDER BY t.id ${pageClause(q.start)}`, ...params, ...pageParams(numRows, q.start));
    // A first page that holds every match needs no separate count.
    const total = q.start === 0 && rows.length < numRows ? rows.length : num((await this.db.get<{ n: number }>(`SELECT count(*) AS n ${from}`, ...params))?.n);
    return { total, items: rows.map((r) => t.toRecord(r)) };
  }

  async get<K extends DocumentKind>(userPk: number, kind: K, id: DocumentId): Promise<DocumentTypes[K] | null> {
    const t = tableOf(kind);
    const row = await this.db.get<DbRow>(`SELECT ${selectList(t)} FROM ${t.table} t WHERE t.user_pk = ? AND t.id = ?`, userPk, id);
    return row ? t.toRecord(row) : null;
  }

  async idByRef(userPk: number, kind: DocumentKind, ref: string, list?: string): Promise<DocumentId | null> {
    const t = tableOf(kind);
    if (!t.columns.includes('ref')) return null;
    const byParent = t.parent ? ` AND ${t.parent} = ?` : '';
    const row = await this.db.get<{ id: DocumentId }>(
      `SELECT id FROM ${t.table} WHERE user_pk = ? AND ref = ?${byParent}`,
      userPk,
      ref,
      ...(t.parent ? [list ?? ''] : []),
    );
    return row?.id ?? null;
  }

  async count(userPk: number, kind: DocumentKind, list?: string): Promise<number> {
    const t = tableOf(kind);
    const byParent = t.parent ? ` AND ${t.parent} = ?` : '';
    const row = await this.db.get<{ n: number }>(`SELECT count(*) AS n FROM ${t.table} WHERE user_pk = ?${byParent}`, userPk, ...(t.parent ? [list ?? ''] : []));
    return num(row?.n);
  }

  async insert<K extends DocumentKind>(userPk: number, kind: K, record: DocumentTypes[K]): Promise<void> {
    await this.insertMany(userPk, kind, [record]);
  }

  async insertMany<K extends DocumentKind>(userPk: number, kind: K, records: ReadonlyArray<DocumentTypes[K]>): Promise<void> {
    const t = tableOf(kind);
    // A few multi-row statements of fixed sizes (each prepared once) instead of one per record.
    for (let at = 0; at < records.length; ) {
      const size = INSERT_SIZES.find((n) => n <= records.length - at) as number;
      const params: SqlParam[] = [];
      for (const record of records.slice(at, at + size)) params.push(userPk, ...t.toValues(record));
      await this.db.run(insertStatement(t, size), ...params);
      at += size;
    }
  }

  async update<K extends DocumentKind>(userPk: number, kind: K, record: DocumentTypes[K]): Promise<void> {
    const t = tableOf(kind);
    const [id, ...rest] = t.toValues(record);
    // A record never moves to another parent, and its ref is the add's: neither is rewritten.
    const settable = t.columns.slice(1).map((c, i) => [c, rest[i] as SqlParam] as const).filter(([c]) => c !== t.parent && c !== 'ref');
    await this.db.run(
      `UPDATE ${t.table} SET ${settable.map(([c]) => `${c} = ?`).join(', ')} WHERE user_pk = ? AND id = ?`,
      ...settable.map(([, v]) => v),
      userPk,
      id as SqlParam,
    );
  }

  async remove(userPk: number, kind: DocumentKind, id: DocumentId, stamp: number): Promise<boolean> {
    const t = tableOf(kind);
    const parentOf = t.parent ? await this.db.get<{ p: string }>(`SELECT ${t.parent} AS p FROM ${t.table} WHERE user_pk = ? AND id = ?`, userPk, id) : undefined;
    // A list's rows go with it (the foreign key cascades).
    if ((await this.db.run(`DELETE FROM ${t.table} WHERE user_pk = ? AND id = ?`, userPk, id)) === 0) return false;
    await this.db.run(
      `INSERT INTO deleted_records (user_pk, kind, id, list_id, stamp) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (user_pk, kind, id) DO UPDATE SET stamp = excluded.stamp`,
      userPk,
      kind,
      String(id),
      parentOf?.p ?? '',
      stamp,
    );
    return true;
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
