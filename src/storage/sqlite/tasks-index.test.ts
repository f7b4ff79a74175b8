import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { Task } from '../store.js';
import { SqliteStore } from './sqlite-store.js';
import { newAccount, newTask } from '../../../test/factories.js';

/**
 * Incremental sync (tasks/get.php?after=…) must read an account's recently modified tasks through
 * tasks_by_modified, not walk every task of the account; the plain listing must walk the primary
 * key in id order without sorting.
 *
 * The statements below copy the shape of SqliteTasks.page() in ./tasks.ts and must follow that
 * file when it changes. As a guard against drift, the statements page() really prepares are
 * captured from the store's reader connection and checked the same way.
 */

const COLUMNS = [
  'id', 'title', 'tag', 'folder', 'context', 'goal', 'location', 'parent', 'ord',
  'duedate', 'duedatemod', 'startdate', 'duetime', 'starttime', 'remind', 'repeat', 'repeat_index',
  'status', 'length', 'priority', 'star', 'modified', 'completed', 'added', 'timer', 'timeron',
  'note', 'previous', 'via',
];
const SELECT = COLUMNS.map((c) => `t.${c}`).join(', ');
/** Listing reads each row as one JSON array built by SQLite. */
const AS_JSON = `json_array(${SELECT})`;
const CHILDREN = '(SELECT count(*) FROM tasks c WHERE c.user_pk = t.user_pk AND c.parent = t.id AND c.parent <> 0)';
const META_JOIN = 'LEFT JOIN task_meta m ON m.user_pk = t.user_pk AND m.task_id = t.id AND m.client_pk = ?';

const SHAPES = {
  countAfter: 'SELECT count(*) AS n FROM tasks t INDEXED BY tasks_by_modified WHERE t.user_pk = ? AND t.modified > ?',
  rowsAfter: `SELECT ${AS_JSON}, 0, NULL FROM tasks t INDEXED BY tasks_by_modified  WHERE t.user_pk = ? AND t.modified > ? ORDER BY t.id LIMIT ? OFFSET ?`,
  rowsAfterBefore: `SELECT ${AS_JSON}, 0, NULL FROM tasks t INDEXED BY tasks_by_modified  WHERE t.user_pk = ? AND t.modified > ? AND t.modified < ? ORDER BY t.id LIMIT ? OFFSET ?`,
  rowsAll: `SELECT ${AS_JSON}, 0, NULL FROM tasks t   WHERE t.user_pk = ? ORDER BY t.id LIMIT ? OFFSET ?`,
  rowsAllWithExtras: `SELECT ${AS_JSON}, ${CHILDREN}, m.meta FROM tasks t  ${META_JOIN} WHERE t.user_pk = ? ORDER BY t.id LIMIT ? OFFSET ?`,
};

const TASKS_A = 3000;
const TASKS_B = 500;
const BASE = 1_700_000_000;

function task(id: number, modified: number): Task {
  // Every tenth task is a subtask of the one before, so tasks_by_parent has rows.
  return newTask(id, { parent: id % 10 === 0 ? id - 1 : 0, ord: id % 10 === 0 ? 1 : 0, modified, added: BASE });
}

interface Filled {
  readonly store: SqliteStore;
  readonly path: string;
  readonly a: number;
  readonly b: number;
}

/** A store with TASKS_A tasks in one account (modified in id order) and TASKS_B in another. */
async function filledStore(dir: string): Promise<Filled> {
  const path = join(dir, 't.db');
  const store = new SqliteStore({ path, synchronous: 'NORMAL' });
  await store.migrate();
  const account = (n: number) => store.transaction((tx) => tx.accounts.create(newAccount('ix', n, { pro: 1 })));
  const a = (await account(1)).pk;
  const b = (await account(2)).pk;
  await store.transaction(async (tx) => {
    for (let id = 1; id <= TASKS_A; id++) await tx.tasks.insert(a, task(id, BASE + id));
    for (let id = 1; id <= TASKS_B; id++) await tx.tasks.insert(b, task(id, BASE + id));
  });
  return { store, path, a, b };
}

/** The query plan's lines, one per step, with every parameter bound to 1. */
function plan(db: Database.Database, sql: string): string {
  const params = Array.from({ length: sql.split('?').length - 1 }, () => 1);
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('\n');
}

/** A read through tasks_by_modified, bounded by the stamp, with no walk over the account's rows. */
function assertByModified(p: string, sql: string): void {
  assert.match(p, /USING (COVERING )?INDEX tasks_by_modified \(user_pk=\? AND modified>\?/, `${sql}\n${p}`);
  assert.doesNotMatch(p, /sqlite_autoindex_tasks_1|PRIMARY KEY/, `walks the account's rows by id:\n${p}`);
  assert.doesNotMatch(p, /^SCAN /m, `full scan:\n${p}`);
}

/** A walk of the primary key of one account, in id order, with no sort step. */
function assertByPrimaryKey(p: string, sql: string): void {
  assert.match(p, /SEARCH t USING (INDEX sqlite_autoindex_tasks_1|PRIMARY KEY) \(user_pk=\?\)/, `${sql}\n${p}`);
  assert.doesNotMatch(p, /TEMP B-TREE FOR ORDER BY/, `sorts:\n${p}`);
  assert.doesNotMatch(p, /^SCAN /m, `full scan:\n${p}`);
}

describe('sqlite tasks: index use of page()', () => {
  let dir: string;
  let filled: Filled;
  let db: Database.Database;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-tasks-index-'));
    filled = await filledStore(dir);
    db = new Database(filled.path, { readonly: true });
  });

  after(async () => {
    db.close();
    await filled.store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the data is there and page(after) finds exactly the recent tasks of the account', async () => {
    const page = await filled.store.read.tasks.page(filled.a, { after: BASE + TASKS_A - 10, start: 0, num: 1000, withChildren: false });
    assert.equal(page.total, 10);
    assert.deepEqual(page.tasks.map((t) => t.id), Array.from({ length: 10 }, (_, i) => TASKS_A - 9 + i));
    assert.equal(await filled.store.read.tasks.count(filled.a), TASKS_A);
    assert.equal((await filled.store.read.tasks.page(filled.b, { after: BASE + TASKS_A - 10, start: 0, num: 1000, withChildren: false })).total, 0);
  });

  it('count with after reads tasks_by_modified alone (covering)', () => {
    const p = plan(db, SHAPES.countAfter);
    assertByModified(p, SHAPES.countAfter);
    assert.match(p, /COVERING INDEX tasks_by_modified/);
  });

  it('the rows of page(after) come through tasks_by_modified, not a walk of the account by id', () => {
    assertByModified(plan(db, SHAPES.rowsAfter), SHAPES.rowsAfter);
  });

  it('after together with before bounds the same index on both sides', () => {
    const p = plan(db, SHAPES.rowsAfterBefore);
    assertByModified(p, SHAPES.rowsAfterBefore);
    assert.match(p, /modified>\? AND modified<\?/);
  });

  it('the plain listing walks the primary key in id order without sorting', () => {
    assertByPrimaryKey(plan(db, SHAPES.rowsAll), SHAPES.rowsAll);
  });

  it('with children and meta: the primary key, tasks_by_parent for the count, the meta key for the join', () => {
    const p = plan(db, SHAPES.rowsAllWithExtras);
    assertByPrimaryKey(p, SHAPES.rowsAllWithExtras);
    assert.match(p, /SEARCH c USING (COVERING )?INDEX tasks_by_parent \(user_pk=\? AND parent=\?\)/, p);
    assert.match(p, /SEARCH m USING PRIMARY KEY \(user_pk=\? AND task_id=\? AND client_pk=\?\)/, p);
  });

  it('the statements page() really prepares get the same plans (guards the copies above)', async () => {
    // A second store on the same file: its statement caches are empty, so every statement of
    // page() is prepared, and seen, on first use.
    const store = new SqliteStore({ path: filled.path, synchronous: 'NORMAL' });
    const reader = (store as unknown as { reader: { db: Database.Database } }).reader.db;
    const seen: string[] = [];
    const prepare = reader.prepare.bind(reader);
    reader.prepare = ((sql: string) => {
      seen.push(sql);
      return prepare(sql);
    }) as unknown as typeof reader.prepare;
    try {
      const base = { start: 0, num: 1000, withChildren: false };
      // A page smaller than the matches, so that page() also counts them (a first page holding
      // every match needs no count).
      await store.read.tasks.page(filled.a, { ...base, num: 5, after: BASE + TASKS_A - 10 });
      const afterSql = seen.splice(0);
      await store.read.tasks.page(filled.a, base);
      const allSql = seen.splice(0);

      const afterRows = afterSql.filter((s) => /ORDER BY/.test(s));
      const afterCount = afterSql.filter((s) => /count\(\*\)/.test(s) && !/ORDER BY/.test(s));
      assert.equal(afterRows.length, 1, afterSql.join('\n'));
      assert.equal(afterCount.length, 1, afterSql.join('\n'));
      for (const sql of [...afterRows, ...afterCount]) assertByModified(plan(db, sql), sql);

      const allRows = allSql.filter((s) => /ORDER BY/.test(s));
      assert.equal(allRows.length, 1, allSql.join('\n'));
      for (const sql of allRows) assertByPrimaryKey(plan(db, sql), sql);
    } finally {
      await store.close();
    }
  });
});

describe('sqlite tasks: index use once the file has statistics', () => {
  // Nothing in the store runs ANALYZE today, but an operator or a future `PRAGMA optimize` may.
  // With statistics the planner weighs the index against walking the primary key to skip the
  // sort; incremental sync should still read by modification time.
  let dir: string;
  let filled: Filled;
  let db: Database.Database;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-tasks-index-'));
    filled = await filledStore(dir);
    const writer = new Database(filled.path);
    try {
      writer.exec('ANALYZE');
    } finally {
      writer.close();
    }
    db = new Database(filled.path, { readonly: true });
  });

  after(async () => {
    db.close();
    await filled.store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('statistics exist for the tasks indexes', () => {
    const rows = db.prepare("SELECT idx FROM sqlite_stat1 WHERE tbl = 'tasks' ORDER BY idx").all() as { idx: string }[];
    assert.ok(rows.some((r) => r.idx === 'tasks_by_modified'), JSON.stringify(rows));
  });

  it('count with after still uses tasks_by_modified', () => {
    assertByModified(plan(db, SHAPES.countAfter), SHAPES.countAfter);
  });

  it('the rows of page(after) still come through tasks_by_modified', () => {
    assertByModified(plan(db, SHAPES.rowsAfter), SHAPES.rowsAfter);
  });

  it('the plain listing still walks the primary key', () => {
    assertByPrimaryKey(plan(db, SHAPES.rowsAll), SHAPES.rowsAll);
  });
});
