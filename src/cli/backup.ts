import { existsSync, renameSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { migrationStatusOf } from '../storage/sqlite/sqlite-store.js';
import { claimServing, FileInUse } from '../storage/sqlite/serve-lock.js';

/** A backup or restore the command line refuses (one line, exit 2). */
export class BackupRefused extends Error {
  override name = 'BackupRefused';
}

/**
 * bin/tickler backup PATH (SQLite): SQLite's online backup API (better-sqlite3's db.backup), which
 * copies a consistent picture of the database while a server goes on writing to it. Read through
 * its own read-only connection; the copy is a plain database file (rollback journal), ready to
 * open or to restore. Returns the pages copied.
 */
export async function backupSqlite(from: string, to: string): Promise<{ pages: number }> {
  if (!existsSync(from)) throw new BackupRefused(`DATABASE_URL: no database file at ${from}`);
  if (existsSync(to)) throw new BackupRefused(`${to} exists already: choose a new file for the backup`);
  const db = new Database(from, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const r = await db.backup(to);
    return { pages: r.totalPages };
  } finally {
    db.close();
  }
}

/**
 * bin/tickler restore PATH (SQLite): puts a backup in place of the database file. Refused while a
 * server uses the file (its claim, serve-lock.ts), and the claim is held during the restore so
 * that no server starts on a half-written file. The backup is checked to be a Tickler database
 * first; it is written beside the file and renamed over it (one step), after the old file's
 * write-ahead log is removed (it belongs to the old file and must not be replayed onto the new).
 * A backup from an older Tickler is migrated by the next `serve` or `migrate`.
 */
export async function restoreSqlite(backup: string, to: string): Promise<{ pages: number; migrationsApplied: number }> {
  if (!existsSync(backup)) throw new BackupRefused(`no backup file at ${backup}`);
  const src = new Database(backup, { readonly: true, fileMustExist: true });
  try {
    let applied: readonly number[];
    try {
      applied = migrationStatusOf(src).applied;
    } catch {
      throw new BackupRefused(`${backup} is not an SQLite database`);
    }
    if (applied.length === 0) throw new BackupRefused(`${backup} is not a Tickler database (it has no migrations applied)`);
    let claim: { release(): void };
    try {
      claim = claimServing(to);
    } catch (err) {
      if (err instanceof FileInUse) throw new BackupRefused(`a tickler serve is using ${to}: stop it before restoring`);
      throw err;
    }
    try {
      const temp = `${to}.restoring`;
      rmSync(temp, { force: true });
      const r = await src.backup(temp);
      for (const suffix of ['-wal', '-shm']) rmSync(`${to}${suffix}`, { force: true });
      renameSync(temp, to);
      return { pages: r.totalPages, migrationsApplied: applied.length };
    } finally {
      claim.release();
    }
  } finally {
    src.close();
  }
}
