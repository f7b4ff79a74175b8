/**
 * Notes, outlines, lists and rows: the hosted service's other records, and the links between tasks
 * and them (a task's `attachment`). One repository serves the four kinds; each kind has its own
 * record type. Notes have integer ids from the account's counter; outlines, lists and rows have
 * hexadecimal string ids that the service makes. Outline nodes, list columns and row cells are
 * structured values: the repository stores them as JSON text and hands them back as values.
 */
import type { StampName } from './store.js';

/** A stamp of the account that an insert moves (DocumentsRepo.insertMany): to `value`, never back. */
export interface StampMove {
  readonly name: StampName;
  readonly value: number;
}

export interface Note {
  readonly id: number;
  readonly title: string;
  readonly text: string;
  /** A folder of the account, or 0. */
  readonly folder: number;
  readonly private: number;
  readonly added: number;
  readonly modified: number;
}

/** One node of an outline's tree. `parent_id` and `position` follow from the tree. */
export interface OutlineNode {
  readonly id: number;
  readonly parent_id: number;
  readonly content: string;
  readonly checked: number;
  /** Place among its siblings, 1 = first. */
  readonly position: number;
  readonly children: readonly OutlineNode[];
}

export interface Outline {
  readonly id: string;
  /** The client's id of the add; unique in the account (a second add with it is refused). */
  readonly ref: string;
  readonly title: string;
  readonly keywords: string;
  readonly note: string;
  readonly hidden: number;
  readonly version: number;
  readonly added: number;
  readonly modified: number;
  readonly nodes: {
    readonly count: number;
    /** The second the tree last changed (0: never had nodes). */
    readonly updated_at: number;
    readonly children: readonly OutlineNode[];
  };
}

export interface ListColumn {
  /** Assigned by the server, per list, never reused. */
  readonly id: number;
  readonly title: string;
  /** A column type code of the hosted service (1 checkbox … 22 year; 12.1–12.4 decimals). */
  readonly type: number;
  readonly width: number;
  readonly sort: number;
  /** Pick-one and pick-several columns only: the values a cell may hold. */
  readonly choices?: readonly string[];
}

/**
 * A list's column with its keys in the order of the hosted service's example answer (title, type,
 * id, sort, width, then its choices where it has them). Columns are stored so (document-tables.ts)
 * and presented so (documents.presenter.ts): the database writes lists/get's records from the
 * stored JSON as it is.
 */
export function orderedColumn(c: ListColumn): OrderedColumn {
  return { title: c.title, type: c.type, id: c.id, sort: c.sort, width: c.width, ...(c.choices && { choices: c.choices }) };
}

/** ListColumn as a plain object type, which a public record may hold. */
export type OrderedColumn = {
  readonly title: string;
  readonly type: number;
  readonly id: number;
  readonly sort: number;
  readonly width: number;
  readonly choices?: readonly string[];
};

export interface List {
  readonly id: string;
  readonly ref: string;
  readonly title: string;
  readonly keywords: string;
  readonly note: string;
  readonly version: number;
  readonly added: number;
  readonly modified: number;
  readonly cols: readonly ListColumn[];
  /** The id the next new column takes. */
  readonly nextCol: number;
  /** How many rows the list has (read; ignored on write). */
  readonly rows: number;
}

export type CellValue = string | number | readonly string[];

export interface ListRow {
  readonly id: string;
  /** The list it belongs to. */
  readonly list: string;
  readonly ref: string;
  readonly version: number;
  readonly added: number;
  readonly modified: number;
  /** Keyed `c` + column id; an empty cell has no key. */
  readonly cells: Readonly<Record<string, CellValue>>;
}

export interface DocumentTypes {
  readonly note: Note;
  readonly outline: Outline;
  readonly list: List;
  readonly row: ListRow;
}

export type DocumentKind = keyof DocumentTypes;
export type DocumentId = number | string;

export interface DocumentQuery {
  readonly id?: DocumentId | undefined;
  /** Only records modified after this stamp (exclusive). */
  readonly after?: number | undefined;
  /** Only records modified before this stamp (exclusive). */
  readonly before?: number | undefined;
  /** Rows: the list they belong to (required for rows, ignored otherwise). */
  readonly list?: string | undefined;
  readonly start: number;
  readonly num: number;
  /**
   * Rows: the list's kept count of rows, when the caller has just read the list. A page with no
   * filter but the list then takes its total from it instead of reading it again.
   */
  readonly listRows?: number | undefined;
}

export interface DocumentPage<K extends DocumentKind> {
  /** Records matching the filters, before start/num. */
  readonly total: number;
  readonly items: Array<DocumentTypes[K]>;
}

/**
 * The kinds whose public JSON record the database writes (DocumentsRepo.pageWritten): records of
 * their own columns, a JSON column (a row's cells, an outline's nodes, a list's columns) written
 * as it is stored.
 */
export type WrittenKind = 'note' | 'row' | 'outline' | 'list';
const WRITTEN_KINDS: ReadonlySet<DocumentKind> = new Set<WrittenKind>(['note', 'row', 'outline', 'list']);
export function isWrittenKind(kind: DocumentKind): kind is WrittenKind {
  return WRITTEN_KINDS.has(kind);
}

export interface DocumentWrittenPage {
  /** Records matching the filters, before start/num. */
  readonly total: number;
  /** Each record's public JSON object, as the presenter writes it (documentRecord, JSON.stringify). */
  readonly rows: readonly string[];
}

export interface DocumentTombstone {
  readonly id: DocumentId;
  /** Rows: the list the row belonged to; '' for the other kinds. */
  readonly list: string;
  readonly stamp: number;
}

export interface DocumentsRepo {
  /** Records ordered by id (stable paging), with the total before paging. */
  page<K extends DocumentKind>(userPk: number, kind: K, query: DocumentQuery): Promise<DocumentPage<K>>;
  /** page() with each record written by the database as its public JSON (get in JSON, docs/decisions/0007). */
  pageWritten(userPk: number, kind: WrittenKind, query: DocumentQuery): Promise<DocumentWrittenPage>;
  get<K extends DocumentKind>(userPk: number, kind: K, id: DocumentId): Promise<DocumentTypes[K] | null>;
  /** get() of many ids in one read: String(id) → record; ids with no record are absent. */
  getMany<K extends DocumentKind>(userPk: number, kind: K, ids: readonly DocumentId[]): Promise<Map<string, DocumentTypes[K]>>;
  /** The id of the record the client added with `ref` (rows: within `list`), or null. */
  idByRef(userPk: number, kind: DocumentKind, ref: string, list?: string): Promise<DocumentId | null>;
  /** idByRef() of many refs in one read: ref → id; refs no record was added with are absent. */
  idsByRef(userPk: number, kind: DocumentKind, refs: readonly string[], list?: string): Promise<Map<string, DocumentId>>;
  /** Records of the kind in the account (rows: in `list`). */
  count(userPk: number, kind: DocumentKind, list?: string): Promise<number>;
  insert<K extends DocumentKind>(userPk: number, kind: K, record: DocumentTypes[K]): Promise<void>;
  /**
   * insert() of many records of one kind, in a few multi-row statements (same rules, same result).
   * With `editStamp`, also moves that stamp of the account as AccountsRepo.touch() would (never
   * back), where the database can in the statement that counts the records (notes, outlines and
   * lists: an add that has not yet moved its stamp needs no statement of its own for it).
   */
  insertMany<K extends DocumentKind>(userPk: number, kind: K, records: ReadonlyArray<DocumentTypes[K]>, editStamp?: StampMove): Promise<void>;
  /** Writes every field of the record with this id (the caller has merged its changes). */
  update<K extends DocumentKind>(userPk: number, kind: K, record: DocumentTypes[K]): Promise<void>;
  /** update() of many records of one kind, in a few multi-row statements whatever their number. Each id at most once. */
  updateMany<K extends DocumentKind>(userPk: number, kind: K, records: ReadonlyArray<DocumentTypes[K]>): Promise<void>;
  /**
   * Deletes the record and records a tombstone at `stamp`; false when there was none. A list
   * takes its rows with it (they get no tombstones of their own: the list's covers them).
   */
  remove(userPk: number, kind: DocumentKind, id: DocumentId, stamp: number): Promise<boolean>;
  /** remove() of many records of one kind, in a few statements whatever their number: String(id) of those there were. */
  removeMany(userPk: number, kind: DocumentKind, ids: readonly DocumentId[], stamp: number): Promise<Set<string>>;
  /** Tombstones with a stamp after `after`, oldest first (rows: of `list` only, when given). */
  deletedAfter(userPk: number, kind: DocumentKind, after: number, list?: string): Promise<DocumentTombstone[]>;
  /** Moves a list's `modified` (its row count changed) without a new version. */
  touchList(userPk: number, id: string, stamp: number): Promise<void>;
  /** Whether any note of the account is filed in the folder. */
  hasFolder(userPk: number, folder: number): Promise<boolean>;
  /** How many notes are filed in each folder: folder id → count, folder 0 and empty folders absent. */
  countByFolder(userPk: number): Promise<Map<number, number>>;
  /** Files the folder's notes under no folder, as an edit stamped `stamp`; returns how many. */
  clearFolder(userPk: number, folder: number, stamp: number): Promise<number>;
}

/** What a task's `attachment` can point at (files are not stored here). */
export type AttachmentKind = 'note' | 'outline' | 'list';

export interface Attachment {
  readonly kind: AttachmentKind;
  readonly id: DocumentId;
  /** The linked record's title, as it is now. */
  readonly name: string;
}

export interface AttachmentsRepo {
  /** Each task's links in the order they were made; tasks without links are absent. */
  forTasks(userPk: number, taskIds: readonly number[]): Promise<Map<number, Attachment[]>>;
  /** Links the record to the task (after its other links); false when it was linked already. */
  link(userPk: number, taskId: number, kind: AttachmentKind, id: DocumentId): Promise<boolean>;
  /** False when there was no such link. */
  unlink(userPk: number, taskId: number, kind: AttachmentKind, id: DocumentId): Promise<boolean>;
  count(userPk: number, taskId: number): Promise<number>;
  /** Whether any task links to the record. */
  isLinked(userPk: number, kind: AttachmentKind, id: DocumentId): Promise<boolean>;
  /** isLinked() of many records of one kind in one read: String(id) of those a task links to. */
  linkedOf(userPk: number, kind: AttachmentKind, ids: readonly DocumentId[]): Promise<Set<string>>;
  /**
   * Removes every link to the record (it was deleted), as an edit of the tasks that had one: their
   * `modified` becomes `stamp`. Returns how many tasks changed.
   */
  removeTarget(userPk: number, kind: AttachmentKind, id: DocumentId, stamp: number): Promise<number>;
}
