/**
 * The change log part of the storage port (docs/decisions/0023-change-log.md): one sequence per
 * account, moved by every change of a task, folder, context, goal, location, note, outline, list
 * or row in the transaction that makes it (the database's triggers write it, migration 17), and
 * the latest change of each record at its position. The change feed's cursors, CalDAV's sync
 * tokens and the push notices all read it.
 */

/** The kinds of records the log follows, as the change feed names them. */
export const CHANGE_KINDS = ['task', 'folder', 'context', 'goal', 'location', 'note', 'outline', 'list', 'row'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface ChangePosition {
  /** The position of the account's latest change (0: none yet). */
  readonly seq: number;
  /**
   * The highest position of a deletion the log no longer holds (pruned after the retention time):
   * a reader whose cursor is below it may have missed that deletion.
   */
  readonly floor: number;
}

/** The latest change of one record. */
export interface LoggedChange {
  readonly seq: number;
  readonly kind: ChangeKind;
  /** The record's id as text (tasks, notes and organizers have numbers, the others hex text). */
  readonly id: string;
  /** The change deleted the record. */
  readonly gone: boolean;
}

export interface ChangeRange {
  /** Exclusive. */
  readonly after: number;
  /** Inclusive: a position read before, so that nothing after it that is still being written is read half. */
  readonly upTo: number;
  readonly kinds: readonly ChangeKind[];
  readonly limit: number;
  /** Leave deletions out (a reader starting from nothing needs only what exists). */
  readonly live: boolean;
}

/** A task of a folder's calendar, at the position of its latest change. */
export interface FolderMember {
  readonly id: number;
  readonly seq: number;
}

export interface ChangesRepo {
  /** The account's position and floor; null when there is no such account. */
  position(userPk: number): Promise<ChangePosition | null>;
  /** The latest change of each record of `kinds` whose position is in the range, in the order of their positions, at most `limit`. */
  since(userPk: number, range: ChangeRange): Promise<LoggedChange[]>;
  /**
   * For a folder's calendar (0: the tasks without a folder): the tasks in the folder now whose
   * latest change is in (after, upTo], and the tasks that left it in that range and are not in it
   * now (moved elsewhere or deleted), each in the order of its position.
   */
  folderSince(userPk: number, folder: number, after: number, upTo: number): Promise<{ readonly members: FolderMember[]; readonly left: FolderMember[] }>;
  /** The positions of these tasks' latest changes (their ETags); tasks not logged are absent. */
  taskPositions(userPk: number, taskIds: readonly number[]): Promise<Map<number, number>>;
  /** The kinds of the records whose latest change is in (after, upTo], in CHANGE_KINDS' order (what a webhook tells). */
  kindsSince(userPk: number, after: number, upTo: number): Promise<ChangeKind[]>;
  /** Every task in the folder now (0: without a folder), with the position of its latest change, by id. */
  folderMembers(userPk: number, folder: number): Promise<FolderMember[]>;
  /**
   * Forgets deletions and folder exits recorded before `before` (Unix seconds, the database's
   * clock), and raises each account's floor to the highest position forgotten. Returns how many
   * rows were removed.
   */
  prune(before: number): Promise<number>;
}

/**
 * Word that an account's log may have moved, from any instance: the change feed's long polls and
 * the pushes wait on it instead of asking the database again and again. A notice may come for a
 * commit that changed nothing a listener cares about, and a listener that read the position
 * before subscribing must read it again after: notices tell of commits after subscribe() only.
 */
export interface ChangeNotices {
  /** Calls `listener` after commits that moved the account's position; returns what stops it. */
  subscribe(userPk: number, listener: () => void): () => void;
  /**
   * Calls `listener` after commits that moved any account's position (the webhook worker, which
   * then reads which accounts moved); returns what stops it. Like subscribe(), it may be called
   * for commits that moved nothing, and tells of commits after it only.
   */
  subscribeAll(listener: () => void): () => void;
}
