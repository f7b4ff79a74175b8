import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { accessProblem, makeFolderFor, openFailure, SqlitePathProblem } from './sqlite-path.js';

// Rights (EACCES) are tested end to end, as another user when the tests run as root
// (test/e2e/serve.e2e.test.ts): root passes every check of access(2) in this process.
describe('the path of an SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tickler-sqlite-path-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('makes the missing folders, level by level, and leaves existing ones', () => {
    const file = join(dir, 'a', 'b', 'c', 'tickler.db');
    makeFolderFor(file);
    assert.ok(statSync(join(dir, 'a', 'b', 'c')).isDirectory());
    makeFolderFor(file);
    assert.equal(accessProblem(file), undefined);
  });

  it('names a file where a folder should be, and a folder where the file should be', () => {
    writeFileSync(join(dir, 'plain'), 'x');
    assert.throws(() => makeFolderFor(join(dir, 'plain', 'deeper', 'tickler.db')), (err: Error) => err instanceof SqlitePathProblem && err.message === `${join(dir, 'plain')} is not a folder`);
    assert.ok(!existsSync(join(dir, 'plain', 'deeper')));
    assert.equal(accessProblem(dir), `${dir} is a folder, not a file`);
  });

  it('ends, with the reason, on a folder that answers ENOENT to mkdir', { skip: existsSync('/proc/self') ? false : 'no /proc on this system' }, () => {
    assert.throws(() => makeFolderFor('/proc/nope/deeper/tickler.db'), { message: 'cannot create the folder /proc/nope: /proc does not take new folders (ENOENT)' });
  });

  it('says an error code once, in words where it can', () => {
    const nodeError = Object.assign(new Error("EMFILE: too many open files, open '/x'"), { code: 'EMFILE' });
    assert.equal(openFailure('/x', nodeError), "EMFILE: too many open files, open '/x'");
    const sqliteError = Object.assign(new Error('file is not a database'), { code: 'SQLITE_NOTADB' });
    assert.equal(openFailure(join(dir, 'x.db'), sqliteError), `${join(dir, 'x.db')} is not an SQLite database (SQLITE_NOTADB)`);
    const other = Object.assign(new Error('disk I/O error\nmore'), { code: 'SQLITE_IOERR' });
    assert.equal(openFailure(join(dir, 'x.db'), other), 'disk I/O error (SQLITE_IOERR)');
  });
});
