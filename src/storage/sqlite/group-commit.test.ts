import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { Mutex } from '../../lib/mutex.js';
import { GROUP_MAX, GroupCommit } from './group-commit.js';

/**
 * A GroupCommit over a real SQLite file in WAL mode, with a second connection that sees only what
 * was committed (as the store's reader does), and a log of the group's own statements and answers.
 */
function harness() {
  const dir = mkdtempSync(join(tmpdir(), 'tickler-group-'));
  const writer = new Database(join(dir, 'g.db'));
  writer.pragma('journal_mode = WAL');
  writer.pragma('foreign_keys = ON');
  writer.exec(`CREATE TABLE t (x INTEGER NOT NULL);
    CREATE TABLE parent (id INTEGER PRIMARY KEY);
    CREATE TABLE child (pid INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
    CREATE TABLE doomed (x INTEGER);
    CREATE TRIGGER doom BEFORE INSERT ON doomed BEGIN SELECT RAISE(ROLLBACK, 'the whole transaction is rolled back'); END;`);
  const reader = new Database(join(dir, 'g.db'), { readonly: true });
  const log: string[] = [];
  /** A statement of the group's own to fail once, as an I/O error would. */
  let failing: string | undefined;
  const conn = {
    db: writer,
    exec(sql: string): void {
      if (sql === 'BEGIN IMMEDIATE' || sql === 'COMMIT' || sql === 'ROLLBACK') log.push(sql);
      if (sql === failing) {
        failing = undefined;
        throw new Error(`${sql} failed`);
      }
      writer.exec(sql);
    },
  };
  let closed = false;
  const mutex = new Mutex();
  const groups = new GroupCommit(conn, mutex, () => {
    if (closed) throw new Error('store is closed');
  });
  const insert = writer.prepare('INSERT INTO t (x) VALUES (?)');
  return {
    groups,
    mutex,
    log,
    close: () => (closed = true),
    failOnce: (sql: string) => (failing = sql),
    /** A call inserting x, answering what it saw: the values before it, uncommitted ones included. */
    add: (x: number) =>
      groups.run(async () => {
        const before = writer.prepare('SELECT x FROM t ORDER BY rowid').pluck().all() as number[];
        insert.run(x);
        await Promise.resolve();
        return before;
      }),
    committed: () => reader.prepare('SELECT x FROM t ORDER BY rowid').pluck().all() as number[],
    writer,
    cleanup() {
      writer.close();
      reader.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('GroupCommit (SQLite)', () => {
  let h: ReturnType<typeof harness>;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.cleanup());

  test('calls that arrive together share one transaction and one commit, run in order, each seeing the ones before it', async () => {
    const seen = await Promise.all([1, 2, 3].map((x) => h.add(x)));
    assert.deepEqual(seen, [[], [1], [1, 2]]);
    assert.deepEqual(h.log, ['BEGIN IMMEDIATE', 'COMMIT']);
    assert.deepEqual(h.committed(), [1, 2, 3]);
  });

  test('a call is answered only once the commit is made, never before a later call of its group has run', async () => {
    const order: string[] = [];
    const first = h.add(1).then(() => order.push(`answer 1, committed ${JSON.stringify(h.committed())}`));
    const second = h.groups.run(async () => {
      order.push('call 2 runs');
      return null;
    });
    await Promise.all([first, second]);
    assert.deepEqual(order, ['call 2 runs', 'answer 1, committed [1]']);
  });

  test('a call that arrives in the turn after the first still joins its group', async () => {
    const first = h.add(1);
    await new Promise((resolve) => setImmediate(resolve));
    const second = h.add(2);
    await Promise.all([first, second]);
    assert.deepEqual(h.log, ['BEGIN IMMEDIATE', 'COMMIT']);
  });

  test('a call that fails is undone alone: the others of its group are committed', async () => {
    const failing = () =>
      h.groups.run(async () => {
        h.writer.prepare('INSERT INTO t (x) VALUES (?)').run(99);
        throw new Error('refused');
      });
    const [a, b, c] = await Promise.allSettled([h.add(1), failing(), h.add(2)]);
    assert.equal(a.status, 'fulfilled');
    assert.equal(b.status, 'rejected');
    assert.equal((b as PromiseRejectedResult).reason.message, 'refused');
    assert.deepEqual((c as PromiseFulfilledResult<number[]>).value, [1], 'the failed call left nothing behind for the next');
    assert.deepEqual(h.committed(), [1, 2]);
    assert.deepEqual(h.log, ['BEGIN IMMEDIATE', 'COMMIT']);
  });

  test('a commit that fails fails every call of the group, and nothing of the group is stored', async () => {
    const orphan = () => h.groups.run(async () => h.writer.prepare('INSERT INTO child (pid) VALUES (42)').run().changes);
    const results = await Promise.allSettled([h.add(1), orphan(), h.add(2)]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected', 'rejected'],
    );
    assert.match(String((results[0] as PromiseRejectedResult).reason), /FOREIGN KEY/);
    assert.deepEqual(h.committed(), []);
    assert.equal(h.writer.inTransaction, false);
    await h.add(3);
    assert.deepEqual(h.committed(), [3], 'the next group writes again');
  });

  test('a call whose error rolls the whole transaction back fails the calls before it; the ones after commit anew', async () => {
    const doomed = () => h.groups.run(async () => h.writer.prepare('INSERT INTO doomed (x) VALUES (1)').run().changes);
    const results = await Promise.allSettled([h.add(1), doomed(), h.add(2)]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected', 'fulfilled'],
    );
    assert.match(String((results[0] as PromiseRejectedResult).reason), /rolled back/);
    assert.deepEqual((results[2] as PromiseFulfilledResult<number[]>).value, [], 'the later call did not see the undone one');
    assert.deepEqual(h.committed(), [2]);
    assert.deepEqual(h.log, ['BEGIN IMMEDIATE', 'BEGIN IMMEDIATE', 'COMMIT']);
  });

  test(`a group takes at most ${GROUP_MAX} calls`, async () => {
    const n = GROUP_MAX * 2 + 3;
    await Promise.all(Array.from({ length: n }, (_, i) => h.add(i)));
    assert.equal(h.log.filter((s) => s === 'COMMIT').length, 3);
    assert.deepEqual(h.committed(), Array.from({ length: n }, (_, i) => i));
  });

  test('whoever waits on the mutex behind a group finds it committed (a settled read)', async () => {
    const writes = [h.add(1), h.add(2)];
    const settled = await h.mutex.run(async () => h.committed());
    await Promise.all(writes);
    assert.deepEqual(settled, [1, 2]);
  });

  test("a failing statement of the group's own fails its calls, commits nothing, and later calls are not stuck behind it", async () => {
    h.failOnce('ROLLBACK TO call');
    const failing = () =>
      h.groups.run(async () => {
        throw new Error('refused');
      });
    const results = await Promise.allSettled([h.add(1), failing(), h.add(2)]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected', 'rejected'],
    );
    assert.match(String((results[0] as PromiseRejectedResult).reason), /ROLLBACK TO call failed/);
    assert.equal(h.writer.inTransaction, false);
    assert.deepEqual(h.committed(), []);
    await h.add(3);
    assert.deepEqual(h.committed(), [3]);
  });

  test('a closed store refuses the calls that had not run, and nothing is begun', async () => {
    const pending = h.add(1);
    h.close();
    await assert.rejects(pending, /store is closed/);
    assert.deepEqual(h.log, []);
  });
});
