import type { ChangeNotices } from '../changes-port.js';

/**
 * Notices of SQLite's change log (changes-port.ts). One process serves an SQLite file, so its own
 * commits are the news: after each (poke(), from the group commit) one read of the positions of
 * the accounts someone listens to tells which moved, however many listen. A write by another
 * process on the same file (the command line's import beside the server) is caught by the same
 * read every `pollMs` while anyone listens.
 */
export class SqliteNotices implements ChangeNotices {
  private readonly listeners = new Map<number, Set<() => void>>();
  /** Told of every commit of this process (subscribeAll): one process writes the file. */
  private readonly everyCommit = new Set<() => void>();
  /** The position each listened account was last seen at. */
  private readonly seen = new Map<number, number>();
  private checking = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** The positions of these accounts now (a read of the committed state). */
    private readonly positions: (pks: readonly number[]) => ReadonlyArray<readonly [pk: number, seq: number]>,
    private readonly pollMs = 1000,
  ) {}

  subscribe(userPk: number, listener: () => void): () => void {
    let set = this.listeners.get(userPk);
    if (!set) {
      set = new Set();
      this.listeners.set(userPk, set);
      // Seen now: a commit from here on moves it, and is told.
      for (const [pk, seq] of this.positions([userPk])) this.seen.set(pk, seq);
    }
    set.add(listener);
    this.timer ??= setInterval(() => this.check(), this.pollMs).unref();
    return () => {
      const current = this.listeners.get(userPk);
      if (!current?.delete(listener) || current.size > 0) return;
      this.listeners.delete(userPk);
      this.seen.delete(userPk);
      if (this.listeners.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  subscribeAll(listener: () => void): () => void {
    this.everyCommit.add(listener);
    return () => void this.everyCommit.delete(listener);
  }

  /** A commit happened: check once the current turn's commits are done. */
  poke(): void {
    if ((this.listeners.size === 0 && this.everyCommit.size === 0) || this.checking) return;
    this.checking = true;
    setImmediate(() => {
      this.checking = false;
      for (const listener of [...this.everyCommit]) listener();
      this.check();
    });
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.listeners.clear();
    this.everyCommit.clear();
    this.seen.clear();
  }

  private check(): void {
    if (this.listeners.size === 0) return;
    let moved: number[];
    try {
      moved = this.positions([...this.listeners.keys()]).flatMap(([pk, seq]) => {
        const before = this.seen.get(pk);
        this.seen.set(pk, seq);
        return before === seq ? [] : [pk];
      });
    } catch {
      // The store is closing: nobody is told, and the listeners' own time limits end their waits.
      return;
    }
    for (const pk of moved) for (const listener of this.listeners.get(pk) ?? []) listener();
  }
}
