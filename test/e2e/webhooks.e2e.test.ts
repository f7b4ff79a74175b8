import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import pg from 'pg';
import { defaultDatabase, freshDatabase, type TestDatabase } from '../database.js';
import { Receiver, type Delivery } from '../webhook-receiver.js';
import { addApp, addUser, tokensFor, type RemoteApp } from './accounts.js';
import { cli, serve, type ServerProcess } from './processes.js';

/**
 * Webhooks with `bin/tickler serve` (docs/decisions/0026): the endpoints added with the command
 * line, deliveries owed while the receiver is down, a kill -9 of the server with them pending, and
 * every one delivered after the restart, once per endpoint and account; on PostgreSQL, two
 * instances sharing the outbox deliver each once. The first retry comes 5 to 5.5 s after a failed
 * attempt: that is the wait of these tests.
 */

/** What the outbox and the attempts hold, read from the database beside the server. */
async function query<T>(database: TestDatabase, sql: string): Promise<T[]> {
  if (database.url.startsWith('sqlite:')) {
    const db = new Database(database.url.slice('sqlite:'.length), { readonly: true });
    try {
      return db.prepare(sql).all() as T[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Waits (a few seconds at most) until `check` holds. */
async function until(what: string, check: () => Promise<boolean>, seconds = 15): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${seconds} s: ${what}`);
    await sleep(100);
  }
}

/** A receiver that is down (it drops every connection unanswered) until its `down` is cleared. */
async function downReceiver(): Promise<Receiver> {
  const r = await Receiver.start();
  r.down = true;
  return r;
}

interface Setup {
  readonly app: RemoteApp;
  readonly hooks: ReadonlyArray<{ readonly id: string; readonly secret: string; readonly path: string }>;
}

/** An app with two endpoints on `port`, added with the command line. */
function appWithHooks(env: Record<string, string>, port: number): Setup {
  const app = addApp(env, 'Hooked');
  const hooks = ['/one', '/two'].map((path) => {
    const r = cli(['app', 'webhook', 'add', '--client-id', app.client_id, '--url', `http://127.0.0.1:${port}${path}`], env);
    assert.equal(r.code, 0, r.stderr);
    const printed = JSON.parse(r.stdout) as { id: string; secret: string };
    assert.match(printed.id, /^ep_[0-9a-f]{16}$/);
    assert.match(printed.secret, /^whsec_/);
    return { ...printed, path };
  });
  return { app, hooks };
}

/** Every delivery arrived once per endpoint and account, signed with its endpoint's secret. */
function eachOnce(received: readonly Delivery[], setup: Setup, userids: readonly string[]): void {
  const got = received.map((d) => `${d.path} ${String(d.json['userid'])}`).sort();
  assert.deepEqual(got, setup.hooks.flatMap((h) => userids.map((u) => `${h.path} ${u}`)).sort());
  for (const d of received) {
    const hook = setup.hooks.find((h) => h.path === d.path);
    assert.ok(hook && Receiver.verify(hook.secret, d), `${d.path} is signed with its endpoint's secret`);
    assert.equal(d.json['type'], 'changes');
    assert.deepEqual(d.json['kinds'], ['task']);
  }
}

const owedAfterAFailure = (database: TestDatabase) =>
  query<{ n: number | string }>(database, 'SELECT count(*) AS n FROM webhook_deliveries WHERE attempts >= 1 AND claimed_by IS NULL').then((r) => Number(r[0]?.n));
const owed = (database: TestDatabase) => query<{ n: number | string }>(database, 'SELECT count(*) AS n FROM webhook_deliveries').then((r) => Number(r[0]?.n));

describe('webhooks of bin/tickler serve', () => {
  let dir: string;
  let database: TestDatabase;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;
  let receiver: Receiver | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-webhooks-'));
    database = await freshDatabase(join(dir, 'data'));
    env = { DATABASE_URL: database.url, ...database.env, WEBHOOK_ALLOW_PRIVATE: '1' };
  });
  after(async () => {
    await server?.kill().catch(() => undefined);
    await receiver?.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the command line adds, lists and removes endpoints, and refuses private targets unless allowed', () => {
    const app = addApp(env, 'Listed');
    const strict = { ...env, WEBHOOK_ALLOW_PRIVATE: 'false' };
    for (const url of ['http://127.0.0.1:9/x', 'https://127.0.0.1/x', 'https://10.0.0.1/x', 'https://localhost/x']) {
      const refused = cli(['app', 'webhook', 'add', '--client-id', app.client_id, '--url', url], strict);
      assert.equal(refused.code, 2, url);
      assert.match(refused.stderr, /^tickler: (the address must start with https|.* is not a public address)/, url);
    }
    const added = cli(['app', 'webhook', 'add', '--client-id', app.client_id, '--url', 'http://127.0.0.1:9/x'], env);
    assert.equal(added.code, 0, added.stderr);
    const { id } = JSON.parse(added.stdout) as { id: string };
    const listed = cli(['app', 'webhook', 'list', '--client-id', app.client_id], env);
    const line = JSON.parse(listed.stdout) as Record<string, unknown>;
    assert.deepEqual([line['id'], line['url'], line['client_id'], line['disabled'], 'secret' in line], [id, 'http://127.0.0.1:9/x', app.client_id, null, false]);
    assert.equal(cli(['app', 'webhook', 'remove', '--client-id', app.client_id, '--id', id], env).code, 0);
    const again = cli(['app', 'webhook', 'remove', '--client-id', app.client_id, '--id', id], env);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /no webhook endpoint/);
    assert.equal(cli(['app', 'webhook', 'list', '--client-id', app.client_id], env).stdout, '');
    assert.equal(cli(['app', 'webhook'], env).code, 2);
  });

  it('a kill -9 with deliveries owed loses none: after the restart each arrives, once per endpoint and account', async () => {
    receiver = await downReceiver();
    const setup = appWithHooks(env, receiver.port);
    const users = ['kill-a@example.org', 'kill-b@example.org'];
    const userids = users.map((email) => addUser(env, email, 'webhooks, kill -9'));
    server = await serve(env);
    const url = server.url;
    // Signed in first, then the writes close together: their first attempts fail at once, and
    // the kill comes before the retries (5 s later).
    const tokens = [];
    for (const email of users) tokens.push((await tokensFor(url, setup.app, email, 'webhooks, kill -9')).access_token);
    for (const token of tokens) {
      for (const title of ['One', 'Two']) {
        const res = await fetch(`${url}/3/tasks/add.php`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: new URLSearchParams({ tasks: JSON.stringify([{ title }]) }) });
        assert.equal(res.status, 200);
      }
    }
    // The receiver is down: every first attempt failed, and the retries wait their 5 s.
    await until('each delivery tried once and waiting for its retry', async () => (await owedAfterAFailure(database)) === 4);
    await server.kill();
    server = undefined;
    receiver.down = false;
    server = await serve(env);
    // Within seconds (the first retry is due 5 s after the first attempt); on a machine so loaded
    // that a second retry came first, a minute more.
    await until('every delivery arrived', async () => receiver?.received.length === 4 && (await owed(database)) === 0, 75);
    eachOnce(receiver.received, setup, userids);
    // Each attempt of each delivery once: the one that failed before the kill, the one that arrived after.
    const attempts = await query<{ endpoint_id: string; user_pk: number; attempt: number; status: number | null }>(database, 'SELECT endpoint_id, user_pk, attempt, status FROM webhook_attempts ORDER BY id');
    const keys = attempts.map((a) => `${a.endpoint_id} ${a.user_pk} ${a.attempt} ${a.status ?? 'none'}`);
    assert.equal(new Set(keys).size, keys.length);
    assert.deepEqual(
      attempts.filter((a) => a.status === 200).map((a) => `${a.endpoint_id} ${a.user_pk}`).sort(),
      [...new Set(attempts.map((a) => `${a.endpoint_id} ${a.user_pk}`))].sort(),
      'one attempt of each delivery succeeded',
    );
    await server.stop();
    server = undefined;
  });
});

// Two instances share a PostgreSQL database (the second pass; one process serves an SQLite file).
if (defaultDatabase().kind === 'postgres') {
  describe('webhooks of two instances on one PostgreSQL database', () => {
    let dir: string;
    let database: TestDatabase;
    let env: Record<string, string>;
    let servers: ServerProcess[] = [];
    let receiver: Receiver | undefined;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'tickler-webhooks-two-'));
      database = await freshDatabase(join(dir, 'data'));
      env = { DATABASE_URL: database.url, ...database.env, WEBHOOK_ALLOW_PRIVATE: '1', DATABASE_POOL_SIZE: '3' };
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.kill().catch(() => undefined)));
      await receiver?.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('deliver each once, whichever instance the writes and the retries reach', async () => {
      receiver = await downReceiver();
      const setup = appWithHooks(env, receiver.port);
      const users = ['two-a@example.org', 'two-b@example.org', 'two-c@example.org'];
      const userids = users.map((email) => addUser(env, email, 'webhooks, two instances'));
      servers = await Promise.all([serve(env), serve(env)]);
      const tokens = [];
      for (const [i, email] of users.entries()) tokens.push((await tokensFor((servers[i % 2] as ServerProcess).url, setup.app, email, 'webhooks, two instances')).access_token);
      for (const token of tokens) {
        // A burst on both instances: one delivery per endpoint and account all the same.
        for (const [j, title] of ['One', 'Two', 'Three'].entries()) {
          const res = await fetch(`${(servers[j % 2] as ServerProcess).url}/3/tasks/add.php`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}` },
            body: new URLSearchParams({ tasks: JSON.stringify([{ title }]) }),
          });
          assert.equal(res.status, 200);
        }
      }
      await until('each delivery tried once and waiting for its retry', async () => (await owedAfterAFailure(database)) === 6);
      receiver.down = false;
      // Within seconds; a minute more on a machine so loaded that a second retry came first.
      await until('every delivery arrived', async () => receiver?.received.length === 6 && (await owed(database)) === 0, 75);
      eachOnce(receiver.received, setup, userids);
    });
  });
}
