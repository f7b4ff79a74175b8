import { orderedColumn } from '../documents-port.js';
import type { DocumentKind, DocumentTypes, List, ListRow, Note, Outline, WrittenKind } from '../store.js';
import type { Dialect, JsonKind, SqlParam } from './db.js';

/**
 * How notes, outlines, lists and rows are stored: one description per kind (its table, columns and
 * the conversions between a record and a row), and the public JSON record the database writes for
 * each kind whose get it writes. SqlDocuments (documents.ts) runs the statements over them.
 */

export type DbRow = Record<string, unknown>;

/** How one kind is stored: its table, its columns (in insert order) and the two conversions. */
export interface Table<K extends DocumentKind> {
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
  /** The columns holding text (the others hold whole numbers), for the typed rows of updateMany. */
  readonly text: ReadonlySet<string>;
}

export const num = (v: unknown): number => Number(v);
const json = <T>(v: unknown): T => JSON.parse(v as string) as T;

const NOTES: Table<'note'> = {
  table: 'notes',
  byModified: 'notes_by_modified',
  text: new Set(['title', 'text']),
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
  text: new Set(['id', 'ref', 'title', 'keywords', 'note', 'nodes']),
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
  text: new Set(['id', 'ref', 'title', 'keywords', 'note', 'cols']),
  columns: ['id', 'ref', 'title', 'keywords', 'note', 'version', 'added', 'modified', 'cols', 'next_col'],
  // Kept by the inserts and deletes of its rows (migration 14).
  computed: 't.row_count AS row_count',
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
  // In the order the record lists them (orderedColumn), so that lists/get writes them as stored.
  toValues: (l) => [l.id, l.ref, l.title, l.keywords, l.note, l.version, l.added, l.modified, JSON.stringify(l.cols.map(orderedColumn)), l.nextCol],
};

const ROWS: Table<'row'> = {
  table: 'list_rows',
  byModified: 'list_rows_by_list',
  text: new Set(['id', 'list_id', 'ref', 'cells']),
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

/**
 * The public JSON record of each WrittenKind as the database writes it (Dialect.jsonRecords): the
 * presenter's keys in its order (documents.presenter.ts), each from its column. A JSON column is
 * written as it is stored: toValues stores JSON.stringify of the value the presenter would write,
 * whose own keys the code that builds it orders (a row's cells by column, an outline's nodes as
 * outline-nodes.ts makes them). A test holds the two equal, byte for byte, on every database
 * (documents.written.test.ts).
 */
export const WRITTEN: { readonly [K in WrittenKind]: ReadonlyArray<readonly [string, string, JsonKind]> } = {
  note: [
    ['id', 't.id', 'literal'],
    ['title', 't.title', 'text'],
    ['modified', 't.modified', 'literal'],
    ['added', 't.added', 'literal'],
    ['folder', 't.folder', 'literal'],
    ['private', 't.private', 'literal'],
    ['text', 't.text', 'text'],
  ],
  outline: [
    ['id', 't.id', 'text'],
    ['title', 't.title', 'text'],
    ['keywords', 't.keywords', 'text'],
    ['note', 't.note', 'text'],
    ['added', 't.added', 'literal'],
    ['modified', 't.modified', 'literal'],
    ['hidden', 't.hidden', 'literal'],
    ['version', 't.version', 'literal'],
    ['nodes', 't.nodes', 'json'],
  ],
  list: [
    ['id', 't.id', 'text'],
    ['added', 't.added', 'literal'],
    ['modified', 't.modified', 'literal'],
    ['title', 't.title', 'text'],
    ['cols', 't.cols', 'json'],
    ['version', 't.version', 'literal'],
    ['note', 't.note', 'text'],
    ['keywords', 't.keywords', 'text'],
    ['rows', 't.row_count', 'literal'],
  ],
  row: [
    ['id', 't.id', 'text'],
    ['added', 't.added', 'literal'],
    ['modified', 't.modified', 'literal'],
    ['version', 't.version', 'literal'],
    ['cells', 't.cells', 'json'],
  ],
};

/** The texts of WRITTEN whose JSON string a database may keep (Dialect.keptJsonText): key → the column keeping it. */
const JSON_KEPT: { readonly [K in WrittenKind]?: Readonly<Record<string, string>> } = { note: { text: 't.text_json' } };

/** WRITTEN[kind] as `dialect` writes it: each text the database keeps as JSON read from where it is kept. */
export function writtenColumns(kind: WrittenKind, dialect: Pick<Dialect, 'keptJsonText'>): ReadonlyArray<readonly [string, string, JsonKind]> {
  const kept = JSON_KEPT[kind];
  const write = dialect.keptJsonText;
  if (kept === undefined || write === undefined) return WRITTEN[kind];
  return WRITTEN[kind].map(([key, e, as]) => {
    const column = kept[key];
    return column === undefined ? ([key, e, as] as const) : ([key, write(column, e), 'literal'] as const);
  });
}

export function tableOf<K extends DocumentKind>(kind: K): Table<K> {
  const t = TABLES[kind];
  if (!t) throw new Error(`unknown document kind ${String(kind)}`);
  return t as Table<K>;
}

export function selectList(t: Pick<Table<DocumentKind>, 'columns' | 'computed'>): string {
  return [...t.columns.map((c) => `t.${c}`), ...(t.computed ? [t.computed] : [])].join(', ');
}
