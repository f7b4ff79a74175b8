import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { freshSchema, testDatabaseUrl, type TestDatabase } from '../../test/database.js';
import { cli } from '../../test/e2e/processes.js';
import { newAccount, newTask } from '../../test/factories.js';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import { createDeps } from '../deps.js';
import { createUser } from '../features/users/users.service.js';
import { ManualClock } from '../lib/clock.js';
import { createCode } from '../oauth/authorize.service.js';
import { registerClient } from '../oauth/clients.service.js';
import { copySqliteToPostgres, dumpTables, readSqlite, SourceNotMigrated, TargetNotEmpty, type TableDump } from './copy.js';
import { PostgresStore } from './postgres/pg-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';

const base = testDatabaseUrl();

describe('reading a SQLite database to copy it', () => {
  let dir: string;

  /** A migrated file holding one account with one task. */
  async function source(name: string): Promise<string> {
    const path = join(dir, name);
    const store = new SqliteStore({ path, synchronous: 'NORMAL' });
    try {
      await store.migrate();
      const a = await store.transaction((tx) => tx.accounts.create(newAccount('cp', 1)));
      await store.transaction((tx) => tx.tasks.insert(a.pk, newTask(1)));
    } finally {
      await store.close();
    }
    return path;
  }

  const rowsOf = (dumps: readonly TableDump[], table: string): number | undefined => dumps.find((d) => d.table === table)?.rows.length;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-copy-read-'));
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads every table from one snapshot: rows committed meanwhile are not half copied', async () => {
    const path = await source('snapshot.db');
    const db = new Database(path, { readonly: true, fileMustExist: true });
    const writer = new Database(path);
    // Once accounts have been read, another connection commits a new account with a task of its
    // own (copies of the first, moved to new keys; temporary tables spare listing the columns).
    const prepare = db.prepare.bind(db);
    let wrote = false;
    db.prepare = ((sql: string) => {
      if (!wrote && sql.includes('FROM "tasks"')) {
        wrote = true;
        writer.exec(`BEGIN;
          CREATE TEMP TABLE a AS SELECT * FROM accounts; UPDATE a SET pk = pk + 100, userid = 'later', email_key = 'later';
          CREATE TEMP TABLE t AS SELECT * FROM tasks; UPDATE t SET user_pk = user_pk + 100;
          INSERT INTO accounts SELECT * FROM a; INSERT INTO tasks SELECT * FROM t;
          COMMIT`);
      }
      return prepare(sql);
    }) as typeof db.prepare;
    try {
      const dumps = dumpTables(db);
      assert.ok(wrote, 'the rows were written during the read');
      assert.equal(rowsOf(dumps, 'accounts'), 1);
      assert.equal(rowsOf(dumps, 'tasks'), 1, 'the task of the account written meanwhile is not in the copy');
      assert.equal((writer.prepare('SELECT count(*) AS n FROM tasks').get() as { n: number }).n, 2, 'it is in the file');
    } finally {
      db.close();
      writer.close();
    }
  });

  it('leaves a rollback-journal file (a backup) as it was: not switched to WAL, not a byte changed', async () => {
    const live = await source('live.db');
    const backup = join(dir, 'backup.db');
    const db = new Database(live);
    db.exec(`VACUUM INTO '${backup}'`);
    db.close();
    const journalMode = (): unknown => {
      const check = new Database(backup, { readonly: true });
      try {
        return check.pragma('journal_mode', { simple: true });
      } finally {
        check.close();
      }
    };
    assert.equal(journalMode(), 'delete', 'VACUUM INTO writes a rollback-journal file');
    const bytes = readFileSync(backup);
    assert.equal(rowsOf(readSqlite(backup), 'tasks'), 1);
    assert.deepEqual(readFileSync(backup), bytes);
    assert.equal(journalMode(), 'delete');
    assert.equal(existsSync(`${backup}-wal`), false);
  });

  it('refuses a file with pending migrations, and a missing file without creating it', async () => {
    const path = join(dir, 'unmigrated.db');
    await new SqliteStore({ path, synchronous: 'NORMAL' }).close();
    assert.throws(() => readSqlite(path), SourceNotMigrated);
    const missing = join(dir, 'missing.db');
    assert.throws(() => readSqlite(missing));
    assert.equal(existsSync(missing), false);
  });
});

describe('copying a SQLite database into PostgreSQL', { skip: base ? false : 'TEST_DATABASE_URL is not set' }, () => {
  let dir: string;
  let sqlitePath: string;
  let target: TestDatabase;
  let sqliteApp: FastifyInstance;
  let pgApp: FastifyInstance;
  let pgStore: PostgresStore;
  let token: { access_token: string; refresh_token: string };
  let client: { clientId: string; secret: string };
  const clock = new ManualClock();
  let listId = '';

  const call = (app: FastifyInstance, path: string, form: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: path, headers: { authorization: `Bearer ${token.access_token}` }, payload: form });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-copy-'));
    sqlitePath = join(dir, 'source.db');
    const config = loadConfig({ DATABASE_URL: `sqlite:${sqlitePath}`, LOG_LEVEL: 'silent' });
    const source = new SqliteStore({ path: sqlitePath, synchronous: 'FULL' });
    await source.migrate();
    const deps = createDeps(config, source, clock);
    sqliteApp = await buildApp(deps);
    // Data made the way users make it: accounts, an app, tokens, tasks with meta, a subtask,
    // a deleted task (tombstone), a goal.
    const ann = await createUser(deps, { email: 'ann@example.org', password: 'copy me over please', pro: 1 });
    await createUser(deps, { email: 'bob@example.org', password: 'copy me over please' });
    const reg = await registerClient(deps, { name: 'Copy', redirectUris: ['https://copy.example/cb'] });
    client = { clientId: reg.client.clientId, secret: reg.clientSecret };
    const scope = 'basic tasks notes outlines lists write';
    const request = { client: reg.client, state: 's', scope, scopeWords: scope.split(' '), codeChallenge: null, redirectUri: null };
    const code = new URL(await deps.store.transaction((tx) => createCode(deps, tx, request, ann.pk))).searchParams.get('code');
    token = (
      await sqliteApp.inject({ method: 'POST', url: '/3/account/token.php', payload: { grant_type: 'authorization_code', code: code ?? '', client_id: client.clientId, client_secret: client.secret } })
    ).json() as typeof token;
    await call(sqliteApp, '/3/goals/add.php', { name: 'Health' });
    const added = (await call(sqliteApp, '/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'Parent', meta: 'm1', goal: 1 }, { title: 'Gone' }]) })).json() as Array<{ id: number }>;
    await call(sqliteApp, '/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'Child', parent: added[0]?.id }]) });
    await call(sqliteApp, '/3/tasks/delete.php', { tasks: JSON.stringify([added[1]?.id]) });
    // Notes, an outline, a list with a row, a tombstone, and a task's attachment.
    const notes = (await call(sqliteApp, '/3/notes/add.php', { notes: JSON.stringify([{ title: 'Kept' }, { title: 'Gone' }]) })).json() as Array<{ id: number }>;
    await call(sqliteApp, '/3/notes/delete.php', { notes: JSON.stringify([notes[1]?.id]) });
    await call(sqliteApp, '/3/outlines/add.php', { outlines: JSON.stringify([{ title: 'Plan', ref: 'p', nodes: [{ content: 'a' }] }]) });
    const [list] = (await call(sqliteApp, '/3/lists/add.php', { lists: JSON.stringify([{ title: 'L', ref: 'l', cols: [{ title: 'Item', type: 19 }] }]) })).json() as Array<{ id: string }>;
    listId = list?.id ?? '';
    await call(sqliteApp, '/3/rows/add.php', { rows: JSON.stringify([{ list: listId, ref: 'r', cells: { c1: 'Milk' } }]) });
    await call(sqliteApp, '/3/tasks/edit.php', { tasks: JSON.stringify([{ id: added[0]?.id, attach: [{ kind: 'note', id: notes[0]?.id }] }]) });
    // An app password (a phone's CalDAV sign-in), stored as the service stores it.
    await source.transaction((tx) => tx.appPasswords.create({ userPk: ann.pk, name: 'iPhone', secretHash: 'copied-hash', readOnly: true, createdAt: 1000 }));
    // Calendar feeds, of the account and of a folder (which must arrive before them).
    const [work] = (await call(sqliteApp, '/3/folders/add.php', { name: 'Work' })).json() as Array<{ id: number }>;
    await source.transaction(async (tx) => {
      await tx.calendarFeeds.create({ userPk: ann.pk, folder: null, secretHash: 'feed-all', createdAt: 1000 });
      await tx.calendarFeeds.create({ userPk: ann.pk, folder: work?.id ?? 0, secretHash: 'feed-work', createdAt: 1001 });
    });

    target = await freshSchema(base as string);
    pgStore = new PostgresStore({ url: target.url, poolSize: 3 });
  });

  after(async () => {
    await sqliteApp?.close();
    await pgApp?.close();
    await pgStore?.close();
    await target?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies every table and verifies the counts', async () => {
    const counts = await copySqliteToPostgres(sqlitePath, pgStore, { replace: false });
    assert.equal(counts['accounts'], 2);
    assert.equal(counts['clients'], 1);
    assert.equal(counts['tasks'], 2);
    assert.equal(counts['deleted_tasks'], 1);
    assert.equal(counts['task_meta'], 1);
    assert.equal(counts['goals'], 1);
    assert.equal(counts['tokens'], 2);
    assert.equal(counts['notes'], 1);
    assert.equal(counts['outlines'], 1);
    assert.equal(counts['lists'], 1);
    assert.equal(counts['list_rows'], 1);
    assert.equal(counts['deleted_records'], 1);
    assert.equal(counts['task_attachments'], 1);
    assert.equal(counts['app_passwords'], 1);
    assert.equal(counts['calendar_feeds'], 2);
  });

  it('answers on PostgreSQL exactly as on SQLite: same token, same records, stamps and tombstones', async () => {
    pgApp = await buildApp(createDeps(loadConfig({ DATABASE_URL: target.url, LOG_LEVEL: 'silent' }), pgStore, clock));
    for (const [path, form] of [
      ['/3/account/get.php', {}],
      ['/3/tasks/get.php', { fields: 'parent,children,order,goal,meta,added' }],
      ['/3/tasks/deleted.php', {}],
      ['/3/goals/get.php', {}],
      ['/3/tasks/get.php', { fields: 'attachment' }],
      ['/3/notes/get.php', {}],
      ['/3/notes/deleted.php', {}],
      ['/3/outlines/get.php', {}],
      ['/3/lists/get.php', {}],
    ] as const) {
      const [was, is] = await Promise.all([call(sqliteApp, path, form), call(pgApp, path, form)]);
      assert.equal(is.statusCode, 200, `${path}: ${is.body}`);
      assert.equal(is.body, was.body, path);
    }
    const rows = await Promise.all([call(sqliteApp, '/3/rows/get.php', { list: listId }), call(pgApp, '/3/rows/get.php', { list: listId })]);
    assert.match(rows[1].body, /"cells":\{"c1":"Milk"\}/);
    assert.equal(rows[1].body, rows[0].body);
  });

  it('continues where SQLite stopped: ids, identity keys, refresh tokens', async () => {
    const [t] = (await call(pgApp, '/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'After the move' }]) })).json() as Array<{ id: number }>;
    assert.equal(t?.id, 4, 'tasks 1-3 were used on SQLite (3 deleted): the counter came along');
    const again = await registerClient({ store: pgStore, clock }, { name: 'New on PostgreSQL', redirectUris: ['https://new.example/cb'] });
    assert.ok(again.client.pk > 1);
    const copied = await pgStore.read.appPasswords.byHash('copied-hash');
    assert.deepEqual([copied?.name, copied?.readOnly], ['iPhone', true]);
    const next = await pgStore.transaction((tx) => tx.appPasswords.create({ userPk: copied?.userPk ?? 0, name: 'New', secretHash: 'new-hash', readOnly: false, createdAt: 2000 }));
    assert.ok(next.id > (copied?.id ?? 0), 'the identity of app passwords moved past the copied ones');
    const feed = await pgStore.read.calendarFeeds.byHash('feed-work');
    assert.deepEqual([feed?.folder, feed?.createdAt], [1, 1001]);
    const newFeed = await pgStore.transaction((tx) => tx.calendarFeeds.create({ userPk: feed?.userPk ?? 0, folder: null, secretHash: 'feed-new', createdAt: 2000 }));
    assert.ok(newFeed.id > (feed?.id ?? 0), 'the identity of calendar feeds moved past the copied ones');
    const refreshed = await pgApp.inject({
      method: 'POST',
      url: '/3/account/token.php',
      payload: { grant_type: 'refresh_token', refresh_token: token.refresh_token, client_id: client.clientId, client_secret: client.secret },
    });
    assert.ok((refreshed.json() as { access_token?: string }).access_token, refreshed.body);
  });

  it('refuses a target that holds data, unless told to replace it', async () => {
    await assert.rejects(copySqliteToPostgres(sqlitePath, pgStore, { replace: false }), TargetNotEmpty);
    const counts = await copySqliteToPostgres(sqlitePath, pgStore, { replace: true });
    assert.equal(counts['tasks'], 2, 'the target now holds exactly the source again');
  });

  it('copies old text that holds U+0000 without it (PostgreSQL cannot store that character)', async () => {
    // Written straight into the file, as a server from before input was cleaned could have.
    const raw = new Database(sqlitePath);
    raw.prepare("UPDATE tasks SET title = 'Old' || char(0) || 'text' WHERE title = 'Parent'").run();
    raw.close();
    await copySqliteToPostgres(sqlitePath, pgStore, { replace: true });
    const res = await call(pgApp, '/3/tasks/get.php');
    assert.match(res.body, /"title":"Oldtext"/);
  });

  it('refuses a source with pending migrations and leaves it as it was', async () => {
    const path = join(dir, 'unmigrated.db');
    const old = new SqliteStore({ path, synchronous: 'FULL' });
    try {
      await assert.rejects(copySqliteToPostgres(path, pgStore, { replace: true }), SourceNotMigrated);
      assert.deepEqual((await old.migrationStatus()).applied, [], 'the copy did not migrate its source');
    } finally {
      await old.close();
    }
    const refused = cli(['copy', '--from', `sqlite:${path}`, '--to', target.url, '--force'], {});
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /pending migration.*bin\/tickler migrate/);
    assert.match((await call(pgApp, '/3/tasks/get.php')).body, /"title":"Oldtext"/, 'the target is untouched');
  });

  it('bin/tickler copy: exit 2 on bad arguments or a non-empty target, 0 with --force', () => {
    assert.equal(cli(['copy', '--from', `sqlite:${sqlitePath}`, '--to', `sqlite:${sqlitePath}`], {}).code, 2);
    assert.equal(cli(['copy', '--from', `sqlite:${join(dir, 'missing.db')}`, '--to', target.url], {}).code, 2);
    const refused = cli(['copy', '--from', `sqlite:${sqlitePath}`, '--to', target.url], {});
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--force/);
    const forced = cli(['copy', '--from', `sqlite:${sqlitePath}`, '--to', target.url, '--force'], {});
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal((JSON.parse(forced.stdout) as Record<string, number>)['accounts'], 2);
  });
});
