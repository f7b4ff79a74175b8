import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { newAccount, newTask } from '../factories.js';
import { freshSchema, testDatabaseUrl } from '../database.js';
import { PostgresStore } from '../../src/storage/postgres/pg-store.js';
import { cli, cliAsync, serve, type ServerProcess } from './processes.js';
import { authorizeInBrowser } from './web-client.js';

/** bin/tickler backup and restore on an SQLite file that a server is using; pg_dump for PostgreSQL. */
describe('backup and restore (SQLite)', { timeout: 120_000 }, () => {
  let dir: string;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;
  const tasksIn = (path: string): number => {
    const db = new Database(path, { readonly: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      return (db.prepare('SELECT count(*) AS n FROM tasks').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-backup-'));
    env = { DATABASE_URL: `sqlite:${join(dir, 'tickler.db')}` };
  });
  after(async () => {
    await server?.kill().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a backup taken while the server writes is consistent; restore is refused while served, then brings the backup back', async () => {
    assert.equal(cli(['user', 'add', '--email', 'b@example.org', '--password', 'backup passphrase'], env).code, 0);
    const app = JSON.parse(cli(['app', 'add', '--name', 'B', '--redirect-uri', 'https://b.example/cb'], env).stdout) as { client_id: string; client_secret: string };
    server = await serve(env);
    const { code } = await authorizeInBrowser([server.url], app.client_id, 'b@example.org', 'backup passphrase');
    const basic = `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`;
    const token = ((await (await fetch(`${server.url}/3/account/token.php`, { method: 'POST', headers: { authorization: basic }, body: new URLSearchParams({ grant_type: 'authorization_code', code }) })).json()) as { access_token: string }).access_token;
    const add = (n: number) =>
      fetch(`${server?.url}/3/tasks/add.php`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: new URLSearchParams({ tasks: JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ title: `t${n}.${i}` }))) }) });
    for (let n = 0; n < 10; n++) await add(n);
    // Writes go on while the backup runs.
    let writing = true;
    const writer = (async () => {
      for (let n = 10; writing; n++) await add(n);
    })();
    const backup = join(dir, 'backup.db');
    const made = await cliAsync(['backup', backup], env);
    writing = false;
    await writer;
    assert.equal(made.code, 0, made.stderr);
    const inBackup = tasksIn(backup);
    assert.ok(inBackup >= 500 && inBackup % 50 === 0, `whole calls only (${inBackup})`);
    assert.equal(cli(['backup', backup], env).code, 2, 'an existing file is not overwritten');

    const refused = cli(['restore', backup], env);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /a tickler serve is using .* stop it before restoring/);
    await server.stop();
    server = undefined;
    assert.ok(tasksIn(join(dir, 'tickler.db')) > inBackup, 'the live file went on past the backup');
    const restored = cli(['restore', backup], env);
    assert.equal(restored.code, 0, restored.stderr);
    assert.equal(tasksIn(join(dir, 'tickler.db')), inBackup);
    server = await serve(env);
    const page = (await (await fetch(`${server.url}/3/tasks/get.php?num=0`, { headers: { authorization: `Bearer ${token}` } })).json()) as Array<{ total: number }>;
    assert.equal(page[0]?.total, inBackup, 'the server serves the backup');
    const notOurs = join(dir, 'random.db');
    new Database(notOurs).close();
    await server.stop();
    server = undefined;
    const wrong = cli(['restore', notOurs], env);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /not a Tickler database/);
    assert.equal(cli(['backup', join(dir, 'x.db')], { DATABASE_URL: 'postgres://127.0.0.1:1/x' }).code, 2, 'PostgreSQL: pg_dump');
  });
});

const base = testDatabaseUrl();

/** The documented pg_restore of `dump` into a new database `name`; its address, reading `schema`. */
async function restoreInto(admin: pg.Client, name: string, dump: string, schema: string): Promise<URL> {
  await admin.query(`CREATE DATABASE ${name}`);
  const target = new URL(base as string);
  target.pathname = `/${name}`;
  const restored = spawnSync('pg_restore', ['--no-owner', `--dbname=${target.toString()}`, dump], { encoding: 'utf8' });
  assert.equal(restored.status, 0, restored.stderr);
  target.searchParams.set('options', `-c search_path=${schema}`);
  return target;
}

describe('backup and restore (PostgreSQL, pg_dump and pg_restore)', { skip: base ? false : 'TEST_DATABASE_URL is not set' }, () => {
  it('the documented pg_dump and pg_restore commands round-trip a database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tickler-pgdump-'));
    const source = await freshSchema(base as string);
    const name = `tk_restore_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    try {
      const store = new PostgresStore({ url: source.url, poolSize: 2 });
      await store.migrate();
      const a = await store.transaction((tx) => tx.accounts.create(newAccount('pgd', 1)));
      await store.transaction(async (tx) => {
        for (let i = 1; i <= 20; i++) await tx.tasks.insert(a.pk, newTask(i));
      });
      await store.close();
      const schema = new URL(source.url).searchParams.get('options')?.match(/search_path=(\w+)/)?.[1] as string;
      const dump = join(dir, 'tickler.dump');
      // As docs/moving.md says, with --schema only because tests share one database.
      const dumped = spawnSync('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${dump}`, base as string], { encoding: 'utf8' });
      assert.equal(dumped.status, 0, dumped.stderr);
      const target = await restoreInto(admin, name, dump, schema);
      const back = new PostgresStore({ url: target.toString(), poolSize: 2 });
      try {
        assert.deepEqual((await back.migrationStatus()).pending, []);
        assert.equal(await back.read.tasks.count(a.pk), 20);
        assert.deepEqual(await back.read.accounts.get(a.pk), a);
      } finally {
        await back.close();
      }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
      await source.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pg_dump of a database a server is writing to is one consistent state, which a server then serves', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tickler-pgdump-'));
    const source = await freshSchema(base as string);
    const name = `tk_restore_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    const env = { DATABASE_URL: source.url, ...source.env };
    let served: ServerProcess | undefined;
    let restoredServer: ServerProcess | undefined;
    try {
      assert.equal(cli(['migrate'], env).code, 0);
      assert.equal(cli(['user', 'add', '--email', 'p@example.org', '--password', 'dump passphrase'], env).code, 0);
      const app = JSON.parse(cli(['app', 'add', '--name', 'P', '--redirect-uri', 'https://p.example/cb'], env).stdout) as { client_id: string; client_secret: string };
      served = await serve(env);
      const url = served.url;
      const { code } = await authorizeInBrowser([url], app.client_id, 'p@example.org', 'dump passphrase');
      const basic = `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`;
      const token = ((await (await fetch(`${url}/3/account/token.php`, { method: 'POST', headers: { authorization: basic }, body: new URLSearchParams({ grant_type: 'authorization_code', code }) })).json()) as { access_token: string }).access_token;
      const add = (n: number) =>
        fetch(`${url}/3/tasks/add.php`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: new URLSearchParams({ tasks: JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ title: `t${n}.${i}` }))) }) });
      for (let n = 0; n < 10; n++) await add(n);
      // Writes go on while pg_dump runs (it reads one snapshot).
      let writing = true;
      const writer = (async () => {
        for (let n = 10; writing; n++) await add(n);
      })();
      const schema = new URL(source.url).searchParams.get('options')?.match(/search_path=(\w+)/)?.[1] as string;
      const dump = join(dir, 'tickler.dump');
      const dumped = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
        const child = spawn('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${dump}`, base as string], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.once('exit', (status) => resolve({ status, stderr }));
      });
      writing = false;
      await writer;
      assert.equal(dumped.status, 0, dumped.stderr);
      const live = (await (await fetch(`${url}/3/tasks/get.php?num=0`, { headers: { authorization: `Bearer ${token}` } })).json()) as Array<{ total: number }>;
      await served.stop();
      served = undefined;

      const target = await restoreInto(admin, name, dump, schema);
      // The restored database is served, and answers the same token with whole calls only.
      restoredServer = await serve({ DATABASE_URL: target.toString(), ...source.env });
      const page = (await (await fetch(`${restoredServer.url}/3/tasks/get.php?num=0`, { headers: { authorization: `Bearer ${token}` } })).json()) as Array<{ total: number }>;
      const total = page[0]?.total ?? 0;
      assert.ok(total >= 500 && total % 50 === 0, `whole calls only (${total})`);
      assert.ok(total < (live[0]?.total ?? 0), `the live database went on past the dump (${total} < ${live[0]?.total})`);
    } finally {
      await served?.kill().catch(() => undefined);
      await restoredServer?.kill().catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
      await source.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
