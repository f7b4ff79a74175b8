import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { newAccount, newTask } from '../../../test/factories.js';
import { freshDatabase } from '../../../test/database.js';
import { caldavContract } from '../caldav.contract.js';
import { changesContract } from '../changes.contract.js';
import { oauthContract } from '../oauth.contract.js';
import { documentsContract, keptCountsBackfilled, listColumnsReordered } from '../documents.contract.js';
import { accountsAppsContract } from '../accounts-apps.contract.js';
import { appPasswordsContract } from '../app-passwords.contract.js';
import { feedsContract } from '../feeds.contract.js';
import { importsContract } from '../imports.contract.js';
import { sharingContract } from '../sharing.contract.js';
import { idempotencyContract } from '../idempotency.contract.js';
import { organizersContract } from '../organizers.contract.js';
import { pushContract } from '../push.contract.js';
import { storeContract } from '../store.contract.js';
import { tasksContract } from '../tasks.contract.js';
import { Conn } from './connection.js';
import { keepXmlOfTextWithNul, MIGRATIONS } from './migrations.js';
import { SqliteStore } from './sqlite-store.js';

/** A store on a file of its own: a copy of one migrated for this process unless `empty`. */
async function openSqlite(options: { readonly empty?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'tickler-store-'));
  await freshDatabase(dir, { kind: 'sqlite' }, { migrated: !options.empty });
  const store = new SqliteStore({ path: join(dir, 'tickler.db'), synchronous: 'FULL' });
  return {
    store,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

storeContract('sqlite', openSqlite);
tasksContract('sqlite', openSqlite);
organizersContract('sqlite', openSqlite);
oauthContract('sqlite', openSqlite);
documentsContract('sqlite', openSqlite);
accountsAppsContract('sqlite', openSqlite);
importsContract('sqlite', openSqlite);
sharingContract('sqlite', openSqlite);
changesContract('sqlite', openSqlite);
caldavContract('sqlite', openSqlite);
idempotencyContract('sqlite', openSqlite);
appPasswordsContract('sqlite', openSqlite);
feedsContract('sqlite', openSqlite);
pushContract('sqlite', openSqlite);

const VERSIONS = MIGRATIONS.map((m) => m.version);

/** Migrates the file from another thread, so that migrations really run side by side. */
function migrateInWorker(path: string): Promise<number[]> {
  const moduleUrl = new URL('./sqlite-store.js', import.meta.url).href;
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.moduleUrl).then(async ({ SqliteStore }) => {
      const store = new SqliteStore({ path: workerData.path, synchronous: 'FULL' });
      try {
        parentPort.postMessage((await store.migrate()).applied);
      } finally {
        await store.close();
      }
    });`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { moduleUrl, path } });
    worker.once('message', (applied: number[]) => resolve(applied));
    worker.once('error', reject);
    worker.once('exit', (exitCode) => {
      if (exitCode !== 0) reject(new Error(`migration worker exited with ${exitCode}`));
    });
  });
}

describe('sqlite store', () => {
  let dir: string;
  let path: string;
  const opened: SqliteStore[] = [];

  function openStore(synchronous: 'FULL' | 'NORMAL' = 'FULL'): SqliteStore {
    const store = new SqliteStore({ path, synchronous });
    opened.push(store);
    return store;
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-store-'));
    path = join(dir, 't.db');
  });

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the file is in WAL mode', async () => {
    await openStore().migrate();
    const db = new Database(path, { readonly: true });
    try {
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    } finally {
      db.close();
    }
  });

  it('both connections use the synchronous level the options ask for', async () => {
    // The level is per connection and not stored in the file, so it can only be read from the store's own.
    type Inside = { writer: { db: Database.Database }; reader: { db: Database.Database } };
    const FULL = 2;
    const NORMAL = 1;
    for (const [level, expected] of [['FULL', FULL], ['NORMAL', NORMAL]] as const) {
      const store = openStore(level) as unknown as Inside;
      assert.equal(store.writer.db.pragma('synchronous', { simple: true }), expected);
      assert.equal(store.reader.db.pragma('synchronous', { simple: true }), expected);
      assert.equal(store.writer.db.pragma('foreign_keys', { simple: true }), 1);
    }
  });

  it('store.read refuses writes', async () => {
    const store = openStore();
    await store.migrate();
    await assert.rejects(store.read.accounts.create(newAccount('sq', 1)), /readonly/i);
    await assert.rejects(store.read.sessions.prune(2_000_000_000), /readonly/i);
    assert.equal(await store.read.accounts.credentialsByEmail(newAccount('sq', 1).emailKey), null);
  });

  it('a reopened file keeps its data and needs no migration', async () => {
    const first = openStore();
    assert.deepEqual((await first.migrate()).applied, VERSIONS);
    const a = await first.transaction((tx) => tx.accounts.create(newAccount('sq', 1)));
    await first.close();

    const second = openStore();
    assert.deepEqual(await second.migrationStatus(), { applied: VERSIONS, pending: [] });
    assert.deepEqual((await second.migrate()).applied, []);
    assert.deepEqual(await second.read.accounts.get(a.pk), a);
  });

  it('migrationStatus() of a fresh file lists every step as pending', async () => {
    assert.deepEqual(await openStore().migrationStatus(), { applied: [], pending: VERSIONS });
  });

  it('two stores open on one file: the first to migrate applies every step, the second finds none left', async () => {
    // migrate() does not await between steps, so within one thread the two calls run one after
    // the other; the real race (threads) is the next test.
    const [a, b] = await Promise.all([openStore().migrate(), openStore().migrate()]);
    assert.deepEqual([...a.applied, ...b.applied].sort((x, y) => x - y), VERSIONS);
    assert.deepEqual(a.applied, VERSIONS);
    assert.deepEqual(b.applied, []);
  });

  it('threads migrating one file at once apply each step once', async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => migrateInWorker(path)));
    assert.deepEqual(results.flat().sort((x, y) => x - y), VERSIONS);
    const db = new Database(path, { readonly: true });
    try {
      const rows = db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as { version: number }[];
      assert.deepEqual(rows.map((r) => r.version), VERSIONS);
    } finally {
      db.close();
    }
  });

  it('a closed store refuses transactions and can be closed again', async () => {
    const store = openStore();
    await store.migrate();
    await store.close();
    await store.close();
    await assert.rejects(store.transaction(async () => 1), /closed/);
  });

  it('a text rule finds text holding U+0000 (stored before input was cleaned), where LIKE stops reading', async () => {
    const store = openStore();
    await store.migrate();
    const account = await store.transaction((tx) => tx.accounts.create(newAccount('nul', 0)));
    await store.transaction((tx) => tx.tasks.insertMany(account.pk, [newTask(1), newTask(2, { title: 'Buy milk' }), newTask(3, { title: 'Buy bread' })]));
    const raw = new Database(path);
    try {
      raw.prepare('UPDATE tasks SET title = ? WHERE id = 1').run('Buy\u0000 MILK');
    } finally {
      raw.close();
    }
    const found = async (folded: string): Promise<number[]> =>
      (await store.read.tasks.page(account.pk, { start: 0, num: 10, withChildren: false, where: { column: 'title', folded } })).tasks.map((t) => t.id);
    assert.deepEqual(await found('milk'), [1, 2]);
    assert.deepEqual(await found('buy'), [1, 2, 3]);
  });

  it('versions may have gaps (18 belongs to another branch): a file at 17 gets step 19 alone, and a step missing below the last applied is applied too', async () => {
    assert.deepEqual(VERSIONS, [...VERSIONS].sort((x, y) => x - y), 'the steps are listed in order');
    const first = openStore();
    await first.migrate();
    await first.close();
    const raw = new Database(path);
    try {
      // As a server of before step 19 left the file.
      raw.exec('DROP TABLE app_passwords');
      raw.exec('DELETE FROM schema_migrations WHERE version = 19');
    } finally {
      raw.close();
    }
    const store = openStore();
    assert.deepEqual((await store.migrationStatus()).pending, [19]);
    assert.deepEqual((await store.migrate()).applied, [19]);
    const account = await store.transaction((tx) => tx.accounts.create(newAccount('gap', 0)));
    await store.transaction((tx) => tx.appPasswords.create({ userPk: account.pk, name: 'iPhone', secretHash: 'h', readOnly: false, createdAt: 1 }));
    assert.equal((await store.read.appPasswords.list(account.pk)).length, 1);
  });

  it('migration 12 gives text holding U+0000 (stored before input was cleaned) its XML: GLOB, replace() and format() stop there', async () => {
    const first = openStore();
    await first.migrate();
    const account = await first.transaction((tx) => tx.accounts.create(newAccount('nul', 0)));
    await first.transaction((tx) => tx.tasks.insertMany(account.pk, [newTask(1), newTask(2, { title: 'plain' }), newTask(3)]));
    await first.close();
    const raw = new Database(path);
    try {
      // As an older version left the file: text holding U+0000, and no step 12 yet. Task 1's SQL
      // half keeps text cut at the U+0000, which the JavaScript half replaces; task 3's finds
      // nothing in its note, the JavaScript half does.
      raw.exec('DROP TABLE task_xml');
      raw.exec('DELETE FROM schema_migrations WHERE version = 12');
      raw.prepare('UPDATE tasks SET title = ?, note = ? WHERE id = 1').run('a&\u0000b', 'x\u0000y');
      raw.prepare('UPDATE tasks SET title = ?, note = ? WHERE id = 3').run('&', 'p\u0000q');
    } finally {
      raw.close();
    }
    const store = openStore();
    assert.deepEqual((await store.migrate()).applied, [12]);
    assert.equal(MIGRATIONS.find((m) => m.version === 12)?.afterSql, keepXmlOfTextWithNul);
    const check = new Database(path, { readonly: true });
    try {
      assert.deepEqual(check.prepare('SELECT task_id, title, tag, repeat, note FROM task_xml ORDER BY task_id').raw(true).all(), [
        [1, 'a&amp;b', null, null, 'xy'],
        [3, '&amp;', null, null, 'pq'],
      ]);
    } finally {
      check.close();
    }
    const xml = await store.read.tasks.pageWritten(account.pk, { start: 0, num: 10, withChildren: false }, ['id', 'title', 'note'], 'xml');
    assert.deepEqual(xml.rows, [
      '<task><id>1</id><title>a&amp;b</title><note>xy</note></task>',
      '<task><id>2</id><title>plain</title><note></note></task>',
      '<task><id>3</id><title>&amp;</title><note>pq</note></task>',
    ]);
  });

  it('migration 14 counts the notes, outlines, lists and rows an account already holds', async () => {
    const store = openStore();
    await store.migrate();
    const raw = new Database(path);
    try {
      await keptCountsBackfilled(store, async (sql) => void raw.exec(sql));
    } finally {
      raw.close();
    }
  });

  it('migration 16 stores the columns of lists already stored in the order lists/get answers them', async () => {
    const store = openStore();
    await store.migrate();
    const raw = new Database(path);
    try {
      await listColumnsReordered(store, async (sql) => void raw.exec(sql));
    } finally {
      raw.close();
    }
  });

  it('an in-memory database is refused: the store needs two connections to one file', () => {
    assert.throws(() => new SqliteStore({ path: ':memory:', synchronous: 'FULL' }), /file/);
  });
});

describe('sqlite connection: statements whose text varies (allRawVaried)', () => {
  it('keeps the last 32 texts prepared and prepares an older one again', () => {
    const db = new Database(':memory:');
    try {
      let prepared = 0;
      const prepare = db.prepare.bind(db);
      db.prepare = ((sql: string) => {
        prepared += 1;
        return prepare(sql);
      }) as typeof db.prepare;
      const conn = new Conn(db);
      const text = (i: number): string => `SELECT ${i} + ?`;
      assert.deepEqual(conn.allRawVaried(text(0), 1), [[1]]);
      assert.deepEqual(conn.allRawVaried(text(0), 2), [[2]], 'the same text again, other values');
      assert.equal(prepared, 1);
      for (let i = 1; i <= 32; i++) conn.allRawVaried(text(i), 0);
      assert.equal(prepared, 33);
      conn.allRawVaried(text(32), 0);
      assert.equal(prepared, 33, 'a recent text is still prepared');
      assert.deepEqual(conn.allRawVaried(text(0), 5), [[5]]);
      assert.equal(prepared, 34, 'the oldest was let go, and is prepared again');
    } finally {
      db.close();
    }
  });
});
