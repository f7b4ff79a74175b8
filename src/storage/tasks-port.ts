import type { Attachment } from './documents-port.js';
import type { TaskSharing } from './sharing-port.js';

/**
 * The tasks part of the storage port. A Task is the stored form: dates at 12:00 GMT (0 = none),
 * floating times as seconds after midnight (null = no time). Presenters turn it into the public record.
 */
export interface Task {
  readonly id: number;
  readonly title: string;
  readonly tag: string;
  readonly folder: number;
  readonly context: number;
  readonly goal: number;
  readonly location: number;
  readonly parent: number;
  /** Position among the siblings of a subtask (1 = first); 0 for top-level tasks. */
  readonly ord: number;
  readonly duedate: number;
  readonly duedatemod: number;
  readonly startdate: number;
  readonly duetime: number | null;
  readonly starttime: number | null;
  readonly remind: number;
  readonly repeat: string;
  /** Occurrences of the repeating series used up, the current one included (for COUNT). */
  readonly repeatIndex: number;
  readonly status: number;
  readonly length: number;
  readonly priority: number;
  readonly star: number;
  readonly modified: number;
  readonly completed: number;
  readonly added: number;
  readonly timer: number;
  readonly timeron: number;
  readonly note: string;
  readonly previous: number;
  readonly via: number;
}

/** A task as listed: with its number of subtasks, the calling app's meta and its attachments when asked for. */
export interface ListedTask extends Task {
  readonly children: number;
  readonly meta: string | null;
  /** The notes, outlines and lists linked to it (absent when not asked for). */
  readonly attachment?: readonly Attachment[];
  /** Its owner and other participants when it is a joint task, and who reassigned it (absent when not asked for). */
  readonly sharing?: TaskSharing;
}

/** The stored columns a TaskFilter may compare: each is the Task field of the same name. */
export type FilterColumn =
  | 'id' | 'title' | 'tag' | 'note' | 'repeat' | 'folder' | 'context' | 'goal' | 'location' | 'parent'
  | 'priority' | 'status' | 'length' | 'star' | 'duedate' | 'startdate' | 'completed' | 'added' | 'modified';

/** The text columns among them. */
export type TextColumn = 'title' | 'tag' | 'note' | 'repeat';

/**
 * A condition on a task's stored columns (TaskQuery.where), which the database applies: all of its
 * parts hold (none: every task), any of them does (none: no task), a number column compared with a
 * whole number, a text column empty or not, a text column holding `folded` once its ASCII capitals
 * are lowered (and U+212A and U+0130, which JavaScript lowers to k and i̇, read as k and i:
 * Dialect.foldedHolds), or the id one of a list.
 */
export type TaskFilter =
  | { readonly all: readonly TaskFilter[] }
  | { readonly any: readonly TaskFilter[] }
  | { readonly column: Exclude<FilterColumn, TextColumn>; readonly op: '=' | '<>' | '<' | '<=' | '>' | '>='; readonly value: number }
  | { readonly column: TextColumn; readonly empty: boolean }
  | { readonly column: TextColumn; readonly folded: string }
  | { readonly ids: readonly number[] };

export interface TaskQuery {
  readonly id?: number | undefined;
  /** Only tasks this condition holds for (saved searches). */
  readonly where?: TaskFilter | undefined;
  /** Only tasks modified after this stamp (exclusive). */
  readonly after?: number | undefined;
  /** Only tasks modified before this stamp (exclusive). */
  readonly before?: number | undefined;
  /** 0: uncompleted only; 1: completed only; undefined: both. */
  readonly comp?: 0 | 1 | undefined;
  readonly start: number;
  readonly num: number;
  /** Count subtasks (only when the `children` field was asked for). */
  readonly withChildren: boolean;
  /** Include this app's meta (only when the `meta` field was asked for). */
  readonly metaFor?: number | undefined;
}

export interface TaskPage {
  /** Tasks matching the filters, before start/num. */
  readonly total: number;
  readonly tasks: readonly ListedTask[];
}

/**
 * The names of a task's public record (spec 2.1), as tasks/get writes them: the four always
 * returned, then the optional ones (src/features/tasks/task-fields.ts lists those in order).
 */
export type PublicTaskField =
  | 'id' | 'title' | 'modified' | 'completed' | 'tag' | 'folder' | 'context' | 'goal' | 'location'
  | 'parent' | 'children' | 'order' | 'duedate' | 'duedatemod' | 'startdate' | 'duetime' | 'starttime'
  | 'remind' | 'repeat' | 'status' | 'length' | 'priority' | 'star' | 'added' | 'timer' | 'timeron'
  | 'note' | 'meta' | 'previous' | 'shared' | 'sharedowner' | 'sharedwith' | 'addedby' | 'via' | 'attachment';

/** The two forms of a public record: a JSON object, or an XML element. */
export type RecordForm = 'json' | 'xml';

/** A page of tasks as the database wrote them: each one's public record, in JSON or XML. */
export interface TaskWrittenPage {
  readonly total: number;
  /** One record per task, with exactly the fields asked for, in that order: a JSON object, or a `<task>` element. */
  readonly rows: readonly string[];
}

export interface Tombstone {
  readonly id: number;
  readonly stamp: number;
}

export type TaskReference = 'folder' | 'context' | 'goal' | 'location';

export interface TasksRepo {
  count(userPk: number): Promise<number>;
  get(userPk: number, id: number): Promise<Task | null>;
  /** get() of many ids in one read: id → task; ids with no task are absent. */
  getMany(userPk: number, ids: readonly number[]): Promise<Map<number, Task>>;
  /** Tasks matching the query, ordered by id (stable paging), with the total before paging. */
  page(userPk: number, query: TaskQuery): Promise<TaskPage>;
  /**
   * The `columns`, with the id, of up to `limit` tasks matching the query's filters whose id is
   * after `afterId`, ordered by id (start, num, withChildren and metaFor do not apply): what a saved
   * search decides in code reads, without the rest of each row, a part of the account at a time.
   * Only the columns named are read.
   */
  scan<C extends FilterColumn>(
    userPk: number,
    query: Omit<TaskQuery, 'start' | 'num' | 'withChildren' | 'metaFor'>,
    columns: readonly C[],
    part: { readonly afterId: number; readonly limit: number },
  ): Promise<Array<Pick<Task, 'id' | C>>>;
  /**
   * page(), with each task written as its public record by the database, in JSON or in XML (the
   * fastest way to answer tasks/get; docs/decisions/0007). The record must
   * equal what the task presenter writes for the same task and fields (a test holds the two
   * together). `withChildren` and `metaFor` are read from `fields` (children, meta) and the query's
   * metaFor.
   */
  pageWritten(userPk: number, query: TaskQuery, fields: readonly PublicTaskField[], form: RecordForm): Promise<TaskWrittenPage>;
  insert(userPk: number, task: Task): Promise<void>;
  /**
   * insert() of many tasks, in a few multi-row statements (same rules, same result). With
   * `editStamp`, also moves the account's lastedit_task to it as AccountsRepo.touch() would (never
   * back), in the statement that counts the rows: an add that has not yet moved its stamp needs
   * no statement of its own for it.
   */
  insertMany(userPk: number, tasks: readonly Task[], editStamp?: number): Promise<void>;
  /**
   * Writes every field of the task (the caller has merged its changes). With insert/insertMany,
   * the only way a task's text is written: on SQLite each keeps the text's XML in task_xml
   * (sql/tasks.ts). Updating a task that is not there changes nothing.
   */
  update(userPk: number, task: Task): Promise<void>;
  /**
   * update() of many tasks, in a few multi-row statements whatever their number (same rules: a
   * task that is not there is left out). Each id at most once.
   */
  updateMany(userPk: number, tasks: readonly Task[]): Promise<void>;
  /**
   * Deletes the tasks (with their meta) and records a tombstone for each at `stamp`, in a few
   * statements whatever their number; an id with no task still gets its tombstone.
   */
  remove(userPk: number, ids: readonly number[], stamp: number): Promise<void>;
  childIds(userPk: number, parent: number): Promise<number[]>;
  /** childIds() of many parents in one read: parent → its subtasks' ids in order; parents without any are absent. */
  childIdsOf(userPk: number, parents: readonly number[]): Promise<Map<number, number[]>>;
  /** The position a new subtask of `parent` takes: after its last sibling. */
  nextOrder(userPk: number, parent: number): Promise<number>;
  isDeleted(userPk: number, id: number): Promise<boolean>;
  /** Tombstones with a stamp after `after`, oldest first. */
  deletedAfter(userPk: number, after: number): Promise<Tombstone[]>;
  meta(userPk: number, taskId: number, clientPk: number): Promise<string | null>;
  /** meta() of many tasks for one app in one read: task id → meta; tasks without any are absent. */
  metasOf(userPk: number, clientPk: number, taskIds: readonly number[]): Promise<Map<number, string>>;
  /** Sets this app's meta of a task; null or '' removes it. */
  setMeta(userPk: number, taskId: number, clientPk: number, meta: string | null): Promise<void>;
  /** setMeta() of many tasks for one app, in a few statements whatever their number. Each task at most once. */
  setMetas(userPk: number, clientPk: number, metas: ReadonlyArray<{ readonly taskId: number; readonly meta: string | null }>): Promise<void>;
  /** Whether any task of the account points at `id` through `field`. */
  hasReference(userPk: number, field: TaskReference, id: number): Promise<boolean>;
  /**
   * How many tasks of the account (completed ones included) point at each record through `field`:
   * id → count, records no task points at absent. The pages say it before a delete or archive.
   */
  countByReference(userPk: number, field: TaskReference): Promise<Map<number, number>>;
  /**
   * Sets `field` to 0 on every task that pointed at `id`, as an edit stamped `stamp`; returns how
   * many tasks changed (the organiser was deleted).
   */
  clearReference(userPk: number, field: TaskReference, id: number, stamp: number): Promise<number>;
}
