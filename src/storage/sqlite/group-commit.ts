import type { Mutex } from '../../lib/mutex.js';

/** What a group needs of the writer connection. */
export interface GroupConn {
  exec(sql: string): void;
  readonly db: { readonly inTransaction: boolean };
}

interface Call {
  readonly fn: () => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Calls one group takes at most. A group holds the write lock until its commit, and a settled read
 * queued behind it (SqliteStore.settledAccount) waits for all of it: a bound on both.
 */
export const GROUP_MAX = 16;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Group commit (docs/decisions/0019): the write transactions that arrive together share one
 * SQLite transaction and so one fsync, each in a savepoint of its own. A call's changes are undone
 * alone when it fails; the others' are answered only once the shared COMMIT is on disk, so an
 * answered write is as durable as with a commit of its own, and a COMMIT that fails fails every
 * call of the group (none was answered). Calls run one at a time, in arrival order, each seeing
 * the ones before it, as behind the mutex before.
 *
 * A group is queued on the store's mutex when its first call arrives and takes every call that
 * arrives until it runs; when it has run them it gives the event loop one turn, in which requests
 * already read from their sockets can join, and commits when none did (or it is full).
 */
export class GroupCommit {
  /** The group that calls join: queued or running, not yet committing. */
  private open: Call[] | null = null;

  constructor(
    private readonly conn: GroupConn,
    private readonly mutex: Mutex,
    /** Throws when the store may no longer write (closed). */
    private readonly check: () => void,
    /** Called after each commit, before its calls are answered (the change log's notices). */
    private readonly committed: () => void = () => undefined,
  ) {}

  run<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const call: Call = { fn, resolve: resolve as (value: unknown) => void, reject };
      if (this.open !== null && this.open.length < GROUP_MAX) {
        this.open.push(call);
        return;
      }
      const group = [call];
      this.open = group;
      void this.mutex.run(() =>
        this.drain(group).catch((err: unknown) => {
          // A statement of the group's own (a savepoint's) failed unexpectedly: nothing of the
          // group is committed, and no later call may join it. A call already answered ignores
          // the second answer; a failing ROLLBACK leaves SQLite to end the transaction.
          if (this.open === group) this.open = null;
          try {
            if (this.conn.db.inTransaction) this.conn.exec('ROLLBACK');
          } catch {
            // Nothing more to undo from here: the calls are failed below either way.
          }
          for (const c of group) c.reject(err);
        }),
      );
    });
  }

  /** Runs the group's calls, then commits the ones that succeeded and answers them. */
  private async drain(group: Call[]): Promise<void> {
    /** Calls that succeeded, to be answered once the commit is durable. */
    let done: Array<() => void> = [];
    let failedWith: Array<(err: unknown) => void> = [];
    for (let i = 0; ; ) {
      if (i === group.length && this.open === group && group.length < GROUP_MAX && done.length > 0) await nextTurn();
      if (i === group.length) {
        if (this.open === group) this.open = null;
        break;
      }
      const call = group[i++] as Call;
      try {
        this.check();
        if (!this.conn.db.inTransaction) this.conn.exec('BEGIN IMMEDIATE');
      } catch (err) {
        call.reject(err);
        continue;
      }
      this.conn.exec('SAVEPOINT call');
      try {
        const value = await call.fn();
        this.conn.exec('RELEASE call');
        done.push(() => call.resolve(value));
        failedWith.push(call.reject);
      } catch (err) {
        if (this.conn.db.inTransaction) {
          this.conn.exec('ROLLBACK TO call');
          this.conn.exec('RELEASE call');
        } else {
          // SQLite rolled the whole transaction back (a full disk, an I/O error): the calls
          // before this one in the group are undone too, and were not answered.
          for (const fail of failedWith) fail(err);
          done = [];
          failedWith = [];
        }
        call.reject(err);
      }
    }
    if (!this.conn.db.inTransaction) return;
    try {
      this.conn.exec('COMMIT');
    } catch (err) {
      for (const fail of failedWith) fail(err);
      if (this.conn.db.inTransaction) this.conn.exec('ROLLBACK');
      return;
    }
    this.committed();
    for (const answer of done) answer();
  }
}
