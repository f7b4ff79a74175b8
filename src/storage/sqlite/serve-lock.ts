import Database from 'better-sqlite3';
import { makeFolderFor } from './sqlite-path.js';

/** Thrown when another process already serves the SQLite file. */
export class FileInUse extends Error {
  override name = 'FileInUse';
}

/** The lock file beside a database file (SQLite's own are `-wal` and `-shm`). */
export function lockPathOf(path: string): string {
  return `${path}-serving`;
}

/**
 * Claims the SQLite file for one serving process: one process per file is what the in-memory
 * rate counters and caches assume (docs/deploy.md). The claim is an exclusive SQLite lock on a
 * small file beside the database, held for the life of the process: the operating system drops it
 * when the process ends, however it ends (kill -9 included), so a crash leaves no stale claim.
 * The CLI's other commands do not claim the file and run beside the server.
 */
export function claimServing(path: string): { release(): void } {
  makeFolderFor(path);
  const db = new Database(lockPathOf(path));
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') {
      throw new FileInUse(`another tickler serve is already using ${path}: one process per SQLite file (use PostgreSQL for several)`);
    }
    throw err;
  }
  return { release: () => db.close() };
}

/** Whether a process is serving the file now (its claim is held). */
export function isServed(path: string): boolean {
  try {
    claimServing(path).release();
    return false;
  } catch (err) {
    if (err instanceof FileInUse) return true;
    throw err;
  }
}
