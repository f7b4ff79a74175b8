import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { Task, TaskQuery } from '../store.js';
import { SqliteStore } from './sqlite-store.js';
import { newAccount, newTask } from '../../../test/factories.js';

/**
 * Incremental sync (tasks/get.php?after=…) must read an account's recently modified tasks through
 * tasks_by_modified, not walk every task of the account; the plain listing must walk the primary
 * key in id order without sorting.
 *
 * The statements checked are the ones SqlTasks.page() (src/storage/sql/tasks.ts) really prepares,
 * captured from a store's reader connection, so the checks follow that file when it changes.
 */

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

/** The statements page() prepares for each kind of query, as it prepares them. */
interface Shapes {
  readonly countAfter: string;
  readonly rowsAfter: string;
  /** What page(after, before) prepared after page(after): nothing, if they are one statement. */
  readonly afterBeforeNew: readonly string[];
  readonly rowsAll: string;
  readonly rowsAllWithExtras: string;
}

/**
 * Runs page() on a second store on the file and captures what its reader prepares: the store's
 * statement caches start empty, so every statement of page() is prepared, and seen, on first use.
 */
async function pageStatements(filled: Filled): Promise<Shapes> {
  const store = new SqliteStore({ path: filled.path, synchronous: 'NORMAL' });
  const reader = (store as unknown as { reader: { db: Database.Database } }).reader.db;
  const seen: string[] = [];
  const prepare = reader.prepare.bind(reader);
  reader.prepare = ((sql: string) => {
    seen.push(sql);
    return prepare(sql);
  }) as unknown as typeof reader.prepare;
  const prepared = async (q: TaskQuery): Promise<string[]> => {
    await store.read.tasks.page(filled.a, q);
    return seen.splice(0);
  };
  /** The one statement of `statements` that is a count (or not); exactly one, or the capture is wrong. */
  const only = (statements: string[], count: boolean): string => {
    const found = statements.filter((sql) => /ORDER BY/.test(sql) !== count && (!count || /count\(\*\)/.test(sql)));
    assert.equal(found.length, 1, statements.join('\n'));
    return found[0] as string;
  };
  try {
    const base = { start: 0, num: 1000, withChildren: false };
    // Pages smaller than the matches, so that page() also counts them (a first page holding every
    // match needs no count).
    const after = await prepared({ ...base, num: 5, after: BASE + TASKS_A - 10 });
    const afterBefore = await prepared({ ...base, num: 5, after: BASE + 10, before: BASE + 20 });
    const all = await prepared(base);
    const withExtras = await prepared({ ...base, withChildren: true, metaFor: 1 });
    return {
      countAfter: only(after, true),
      rowsAfter: only(after, false),
      afterBeforeNew: afterBefore,
      rowsAll: only(all, false),
      rowsAllWithExtras: only(withExtras, false),
    };
  } finally {
    await store.close();
  }
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
  let shapes: Shapes;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-tasks-index-'));
    filled = await filledStore(dir);
    db = new Database(filled.path, { readonly: true });
    shapes = await pageStatements(filled);
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
    const p = plan(db, shapes.countAfter);
    assertByModified(p, shapes.countAfter);
    assert.match(p, /COVERING INDEX tasks_by_modified/);
  });

  it('the rows of page(after) come through tasks_by_modified, not a walk of the account by id', () => {
    assertByModified(plan(db, shapes.rowsAfter), shapes.rowsAfter);
  });

  it('after alone and after together with before are one statement, which bounds the index on both sides', () => {
    assert.deepEqual(shapes.afterBeforeNew, [], 'page(after, before) prepared nothing new');
    assert.match(plan(db, shapes.rowsAfter), /modified>\? AND modified<\?/);
  });

  it('the plain listing walks the primary key in id order without sorting', () => {
    assertByPrimaryKey(plan(db, shapes.rowsAll), shapes.rowsAll);
  });

  it('with children and meta: the primary key, tasks_by_parent for the count, the meta key for the join', () => {
    const p = plan(db, shapes.rowsAllWithExtras);
    assertByPrimaryKey(p, shapes.rowsAllWithExtras);
    assert.match(p, /SEARCH c USING (COVERING )?INDEX tasks_by_parent \(user_pk=\? AND parent=\?\)/, p);
    assert.match(p, /SEARCH m USING PRIMARY KEY \(user_pk=\? AND task_id=\? AND client_pk=\?\)/, p);
  });

  // SQLite's planner reads some bound values (a LIMIT's; the account's, compared with a column the
  // correlated subqueries use), and binding such a value anew makes it prepare the statement again
  // at the next run: the values the pages bind go through `+?`, which it does not read
  // (Dialect.opaqueParam; an `after=` fetch of 10 tasks with every field, 146 → 22 µs in SQLite).
  it('the account, the app and the LIMIT are bound through placeholders the planner does not read', () => {
    for (const sql of [shapes.rowsAfter, shapes.rowsAll, shapes.rowsAllWithExtras]) {
      assert.match(sql, /t\.user_pk = \+\?/, sql);
      assert.match(sql, /LIMIT \+\?/, sql);
      assert.doesNotMatch(sql, /(user_pk|client_pk|LIMIT) (= )?\?/, sql);
    }
    assert.match(shapes.rowsAllWithExtras, /m\.client_pk = \+\?/);
  });
});

describe('sqlite tasks: index use once the file has statistics', () => {
  // Nothing in the store runs ANALYZE today, but an operator or a future `PRAGMA optimize` may.
  // With statistics the planner weighs the index against walking the primary key to skip the
  // sort; incremental sync should still read by modification time.
  let dir: string;
  let filled: Filled;
  let db: Database.Database;
  let shapes: Shapes;

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
    shapes = await pageStatements(filled);
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
    assertByModified(plan(db, shapes.countAfter), shapes.countAfter);
  });

  it('the rows of page(after) still come through tasks_by_modified', () => {
    assertByModified(plan(db, shapes.rowsAfter), shapes.rowsAfter);
  });

  it('the plain listing still walks the primary key', () => {
    assertByPrimaryKey(plan(db, shapes.rowsAll), shapes.rowsAll);
  });
});
