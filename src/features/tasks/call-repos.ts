import type { Repos, Share, SharingRepo, Task, TasksRepo } from '../../storage/store.js';

/**
 * Methods that never read or write a row of the `tasks` table, nor a share: they need no flush
 * of the held task updates before them, and change nothing CallRepos keeps.
 */
const UNTOUCHED: Readonly<Partial<Record<keyof Repos, ReadonlySet<string>>>> = {
  tasks: new Set(['count', 'isDeleted', 'deletedAfter']),
  organizers: new Set(['exists']),
  attachments: new Set(['forTasks']),
  sharing: new Set(['forTasks', 'partners']),
};
/** Repositories none of whose methods read or write the `tasks` table or the shares. */
const APART: ReadonlySet<keyof Repos> = new Set(['accounts', 'clients', 'oauth', 'authRequests', 'sessions', 'accountLinks']);

/**
 * The repositories of one write call of one account (tasks/edit, tasks/delete, …), so that a call
 * of 50 items makes a handful of statements rather than a few per item (on PostgreSQL each is a
 * round trip; docs/decisions/0007):
 * - prefetch() reads the tasks and shares the call will look at, in one statement each; tasks.get
 *   and sharing.shareOf answer those from memory, as this call last saw or wrote them;
 * - tasks.update of the account's own tasks is held, and written by one updateMany at flush();
 *   so are tasks.setMeta (one setMetas), and tasks.meta answers from what prefetchMetas() read;
 * - every other call of a repository that could read or write the tasks table or the shares
 *   flushes first, and one that could write them forgets what was kept, so that every statement
 *   sees exactly what it would have seen had each update been written at once.
 * The caller flushes before the transaction ends (writeCall does).
 */
export class CallRepos {
  readonly tx: Repos;
  /** The account's tasks as this call last read or wrote them (null: not there). */
  private readonly tasks = new Map<number, Task | null>();
  /** Held updates, by id: the last one of each task. */
  private readonly held = new Map<number, Task>();
  /** Shares of the account's tasks, as prefetch() read them (ids read: in `sharesRead`). */
  private readonly shares = new Map<number, Share>();
  private readonly sharesRead = new Set<number>();
  /** The account's tasks' meta, by app and task (`app:task`), as this call last read or wrote it (null: none). */
  private readonly metas = new Map<string, string | null>();
  /** Held meta writes, by `app:task`: the last one of each. */
  private readonly heldMetas = new Map<string, { readonly clientPk: number; readonly taskId: number; readonly meta: string | null }>();

  constructor(
    private readonly inner: Repos,
    private readonly userPk: number,
  ) {
    const wrapped = {} as Record<keyof Repos, unknown>;
    for (const name of Object.keys(inner) as Array<keyof Repos>) {
      wrapped[name] = APART.has(name) ? inner[name] : this.flushing(name, inner[name] as object);
    }
    this.tx = { ...(wrapped as unknown as Repos), tasks: this.tasksRepo(wrapped.tasks as TasksRepo), sharing: this.sharingRepo(wrapped.sharing as SharingRepo) };
  }

  /** Reads `ids`' tasks and shares, one statement each (ids already known are not read again). */
  async prefetch(ids: readonly number[]): Promise<void> {
    const unread = [...new Set(ids)].filter((id) => !this.tasks.has(id) || !this.sharesRead.has(id));
    if (unread.length === 0) return;
    // Held tasks are known, so never among those read: no flush needed.
    const [tasks, shares] = [await this.inner.tasks.getMany(this.userPk, unread), await this.inner.sharing.sharesOf(this.userPk, unread)];
    for (const id of unread) {
      if (!this.tasks.has(id)) this.tasks.set(id, tasks.get(id) ?? null);
      const share = shares.get(id);
      if (share) this.shares.set(id, share);
      this.sharesRead.add(id);
    }
  }

  /** Reads the meta of `ids`' tasks for the app, in one statement (tasks already known are not read again). */
  async prefetchMetas(clientPk: number, ids: readonly number[]): Promise<void> {
    const unread = [...new Set(ids)].filter((id) => !this.metas.has(metaKey(clientPk, id)));
    if (unread.length === 0) return;
    const found = await this.inner.tasks.metasOf(this.userPk, clientPk, unread);
    for (const id of unread) this.metas.set(metaKey(clientPk, id), found.get(id) ?? null);
  }

  /** Writes the held updates (one updateMany), then the held meta (one setMetas per app). */
  async flush(): Promise<void> {
    if (this.held.size > 0) {
      const tasks = [...this.held.values()];
      this.held.clear();
      await this.inner.tasks.updateMany(this.userPk, tasks);
    }
    if (this.heldMetas.size > 0) {
      const metas = [...this.heldMetas.values()];
      this.heldMetas.clear();
      for (const clientPk of new Set(metas.map((m) => m.clientPk))) {
        await this.inner.tasks.setMetas(this.userPk, clientPk, metas.filter((m) => m.clientPk === clientPk));
      }
    }
  }

  /** Forgets every task, meta and share kept: the next reads go to the database. */
  private forget(): void {
    this.tasks.clear();
    this.metas.clear();
    this.shares.clear();
    this.sharesRead.clear();
  }

  /** `repo` with a flush before each method that may see the tasks table, and a forget after each that may change it. */
  private flushing<T extends object>(name: keyof Repos, repo: T): T {
    const untouched = UNTOUCHED[name];
    return new Proxy(repo, {
      get: (target, key, receiver) => {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        const method = value as (...args: unknown[]) => unknown;
        if (untouched?.has(String(key))) return method.bind(target);
        return async (...args: unknown[]) => {
          await this.flush();
          try {
            return await method.apply(target, args);
          } finally {
            // Reads forget nothing; anything else might have changed a kept task or share.
            if (!READS.has(String(key))) this.forget();
          }
        };
      },
    });
  }

  private tasksRepo(flushed: TasksRepo): TasksRepo {
    const own = (userPk: number): boolean => userPk === this.userPk;
    return new Proxy(flushed, {
      get: (target, key, receiver) => {
        if (key === 'get') {
          return async (userPk: number, id: number): Promise<Task | null> => {
            if (!own(userPk)) return this.inner.tasks.get(userPk, id);
            const kept = this.tasks.get(id);
            if (kept !== undefined) return kept;
            const task = await this.inner.tasks.get(userPk, id);
            this.tasks.set(id, task);
            return task;
          };
        }
        if (key === 'meta') {
          return async (userPk: number, taskId: number, clientPk: number): Promise<string | null> => {
            if (!own(userPk)) return this.inner.tasks.meta(userPk, taskId, clientPk);
            const kept = this.metas.get(metaKey(clientPk, taskId));
            if (kept !== undefined) return kept;
            const meta = await this.inner.tasks.meta(userPk, taskId, clientPk);
            this.metas.set(metaKey(clientPk, taskId), meta);
            return meta;
          };
        }
        if (key === 'setMeta') {
          return async (userPk: number, taskId: number, clientPk: number, meta: string | null): Promise<void> => {
            // Held only for a task this call knows is there (its meta's key names the task).
            if (own(userPk) && this.tasks.get(taskId)) {
              const stored = meta === '' ? null : meta;
              this.metas.set(metaKey(clientPk, taskId), stored);
              this.heldMetas.set(metaKey(clientPk, taskId), { clientPk, taskId, meta: stored });
              return;
            }
            await target.setMeta(userPk, taskId, clientPk, meta);
          };
        }
        if (key === 'update') {
          return async (userPk: number, task: Task): Promise<void> => {
            // Held only for a task this call knows is there (an update of a missing one changes nothing).
            if (own(userPk) && this.tasks.get(task.id)) {
              this.tasks.set(task.id, task);
              this.held.set(task.id, task);
              return;
            }
            await target.update(userPk, task);
          };
        }
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
  }

  private sharingRepo(flushed: SharingRepo): SharingRepo {
    return new Proxy(flushed, {
      get: (target, key, receiver) => {
        if (key === 'shareOf') {
          return async (userPk: number, taskId: number): Promise<Share | null> =>
            userPk === this.userPk && this.sharesRead.has(taskId) ? (this.shares.get(taskId) ?? null) : target.shareOf(userPk, taskId);
        }
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
  }
}

/** The key of a task's meta for an app in CallRepos. */
const metaKey = (clientPk: number, taskId: number): string => `${clientPk}:${taskId}`;

/** Methods (of any repository) that only read: after them, what was kept still holds. */
const READS: ReadonlySet<string> = new Set([
  'get', 'getMany', 'meta', 'metasOf', 'page', 'pageWritten', 'scan', 'childIds', 'childIdsOf', 'nextOrder', 'hasReference', 'countByReference',
  'shareOf', 'sharesOf', 'sharesBetween', 'searches', 'search', 'list', 'exists', 'forTasks', 'byTarget',
]);
