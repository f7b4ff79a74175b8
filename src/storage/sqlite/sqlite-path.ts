import { accessSync, closeSync, constants, mkdirSync, openSync, statSync, unlinkSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, resolve } from 'node:path';

/**
 * What is wrong with the path of an SQLite file, in words that name the path at fault: the one
 * line `serve` prints (README: a setting it cannot use stops it in one line naming the variable).
 */
export class SqlitePathProblem extends Error {
  override name = 'SqlitePathProblem';
}

/** The files SQLite and Tickler open beside a database file (WAL mode; serve-lock.ts's claim). */
const COMPANIONS = ['-wal', '-shm', '-serving'] as const;

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The user this process runs as, for permission messages (a uid without a name in /etc/passwd too). */
function whoAmI(): string {
  try {
    return `the user ${userInfo().username}`;
  } catch {
    return `the user with uid ${process.getuid?.() ?? '?'}`;
  }
}

type Kind = 'folder' | 'not a folder' | 'missing';

/** What is at `path`; a path the user may not look at is said at once. */
function kindOf(path: string): Kind {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'not a folder';
  } catch (err) {
    const code = codeOf(err);
    // ENOTDIR: something above is a file, which the walk up finds and names.
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    if (code === 'EACCES' || code === 'EPERM') throw new SqlitePathProblem(`permission denied: ${whoAmI()} may not look into ${dirname(path)} (${code})`);
    throw new SqlitePathProblem(`cannot look at ${path} (${code ?? String(err)})`);
  }
}

/** Why a folder could not be made in `parent`, in words. */
function cannotCreate(code: string | undefined, parent: string): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `permission denied: ${whoAmI()} may not create folders in ${parent} (${code})`;
    case 'EROFS':
      return `${parent} is on a read-only file system (EROFS)`;
    case 'ENOSPC':
      return `no space is left on the device of ${parent} (ENOSPC)`;
    case 'ENOENT':
      // A folder that exists and still answers "no such file": a file system of the kernel's (/proc).
      return `${parent} does not take new folders (ENOENT)`;
    default:
      return `${parent} refused it (${code ?? 'unknown error'})`;
  }
}

/**
 * Makes the folder an SQLite file goes in ("folder created on demand", README), one level at a
 * time, after finding the nearest one that exists. Never `mkdirSync(…, { recursive: true })`: on
 * a folder that answers ENOENT to a mkdir although it exists (`/proc`), Node.js's recursive mkdir
 * goes back and forth between the two levels forever, and `serve` hung without a word. This walk
 * ends after at most as many steps as the path has levels, and says what stopped it.
 */
export function makeFolderFor(file: string): void {
  const missing: string[] = [];
  let at = dirname(resolve(file));
  for (;;) {
    const kind = kindOf(at);
    if (kind === 'folder') break;
    if (kind === 'not a folder') throw new SqlitePathProblem(`${at} is not a folder`);
    missing.unshift(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (err) {
      // Made meanwhile by someone else: as good.
      if (codeOf(err) === 'EEXIST' && kindOf(folder) === 'folder') continue;
      throw new SqlitePathProblem(`cannot create the folder ${folder}: ${cannotCreate(codeOf(err), dirname(folder))}`);
    }
  }
}

/**
 * What keeps this process from reading and writing the database file and the files beside it, or
 * from creating those that are missing in their folder; undefined when nothing does. Judged by the
 * process's own rights (access(2)), so a root process is refused only by a read-only file system.
 */
export function accessProblem(file: string): string | undefined {
  const path = resolve(file);
  const folder = dirname(path);
  if (kindOf(path) === 'folder') return `${path} is a folder, not a file`;
  for (const p of [path, ...COMPANIONS.map((suffix) => `${path}${suffix}`)]) {
    const exists = kindOf(p) !== 'missing';
    try {
      accessSync(exists ? p : folder, exists ? constants.R_OK | constants.W_OK : constants.W_OK | constants.X_OK);
    } catch (err) {
      const code = codeOf(err);
      if (code === 'EROFS') return `${exists ? p : folder} is on a read-only file system (EROFS)`;
      if (code !== 'EACCES' && code !== 'EPERM') return `cannot use ${exists ? p : folder} (${code ?? String(err)})`;
      return exists
        ? `permission denied: ${whoAmI()} may not read and write ${p} (${code})`
        : `permission denied: ${whoAmI()} may not create files in the folder ${folder} (${code})`;
    }
  }
  return undefined;
}

/**
 * Why a missing database file cannot be created although access(2) allowed it (a file system of the
 * kernel's, such as /proc or /sys, refuses new files whoever asks): found by creating it, as SQLite
 * would have, and removing it again. Undefined when the file exists or could be created.
 */
function createProblem(file: string): string | undefined {
  const path = resolve(file);
  if (kindOf(path) !== 'missing') return undefined;
  try {
    closeSync(openSync(path, 'wx'));
    unlinkSync(path);
    return undefined;
  } catch (err) {
    const code = codeOf(err);
    const folder = dirname(path);
    if (code === 'EACCES' || code === 'EPERM') return `${folder} does not take new files, not even from ${whoAmI()} (${code})`;
    if (code === 'ENOENT') return `${folder} does not take new files (ENOENT)`;
    return `cannot create ${path} (${code ?? String(err)})`;
  }
}

/**
 * Why an SQLite file could not be opened, in words, once: SQLite's own "unable to open database
 * file" says neither which file nor why, so the path is looked at again for the reason.
 */
export function openFailure(file: string, err: unknown): string {
  if (err instanceof SqlitePathProblem) return err.message;
  const code = codeOf(err);
  if (code === 'SQLITE_NOTADB') return `${resolve(file)} is not an SQLite database (SQLITE_NOTADB)`;
  if (code !== undefined && /^SQLITE_(CANTOPEN|READONLY|PERM|AUTH)/.test(code)) {
    let found: string | undefined;
    try {
      found = accessProblem(file);
    } catch (problem) {
      found = problem instanceof SqlitePathProblem ? problem.message : undefined;
    }
    if (found) return found;
    const created = createProblem(file);
    if (created) return created;
  }
  const message = (err as { message?: unknown } | null)?.message;
  const line = typeof message === 'string' ? (message.split('\n')[0] ?? '') : String(err);
  // Node.js's own messages begin with their code ("EACCES: permission denied, …"): say it once.
  return code === undefined || line.startsWith(code) ? line : `${line} (${code})`;
}
