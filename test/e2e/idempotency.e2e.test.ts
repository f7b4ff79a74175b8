import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freshSchema, testDatabaseUrl, type TestDatabase } from '../database.js';
import { addApp, addUser, tokensFor, type RemoteApp } from './accounts.js';
import { serve, type ServerProcess } from './processes.js';

const base = testDatabaseUrl();

interface Answer {
  readonly status: number;
  readonly replayed: string | null;
  readonly body: string;
}

/**
 * Idempotency-Key across two real server processes on one PostgreSQL database, and across a
 * kill -9 of the one running the request (docs/decisions/0022): the claim is a row of the
 * database, renewed while its request lives, free again once its lease ends unrenewed.
 */
describe('Idempotency-Key on two instances sharing PostgreSQL', { skip: base ? false : 'TEST_DATABASE_URL is not set' }, () => {
  let db: TestDatabase;
  let a: ServerProcess;
  let b: ServerProcess;
  let env: Record<string, string>;
  let app: RemoteApp;
  let token: string;
  const email = 'keys@example.org';
  const password = 'one key, two instances';

  before(async () => {
    db = await freshSchema(base as string);
    // The shortest lease: a claim of a killed process is free again 3 s after its last renewal.
    env = { DATABASE_URL: db.url, IDEMPOTENCY_LEASE_SECONDS: '3' };
    addUser(env, email, password);
    app = addApp(env, 'Keys');
    [a, b] = await Promise.all([serve(env), serve(env)]);
    token = (await tokensFor(a.url, app, email, password)).access_token;
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  const post = async (server: ServerProcess, path: string, form: Record<string, string>, key: string): Promise<Answer> => {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'idempotency-key': key }, body: new URLSearchParams(form) });
    return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: await res.text() };
  };
  const add = (server: ServerProcess, title: string, key: string) => post(server, '/3/tasks/add.php', { tasks: JSON.stringify([{ title }]) }, key);

  async function query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  }
  const tasksTitled = async (title: string) => Number((await query<{ n: string }>('SELECT count(*) AS n FROM tasks WHERE title = $1', [title]))[0]?.n);

  /**
   * A database session holding the account's row as a write does (FOR NO KEY UPDATE): the
   * account's writes wait behind it, and the claims, which only refer to the account, do not.
   */
  async function holdAccount(): Promise<{ release(): Promise<void> }> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query('BEGIN');
    await client.query('SELECT pk FROM accounts WHERE email_key = $1 FOR NO KEY UPDATE', [email]);
    return {
      async release() {
        await client.query('COMMIT');
        await client.end();
      },
    };
  }

  /** Waits until an instance has claimed `key` (its request then waits for the account). */
  async function claimed(key: string): Promise<void> {
    for (let i = 0; i < 400; i++) {
      if ((await query('SELECT 1 FROM idempotency_keys WHERE key = $1', [key])).length > 0) return;
      await sleep(50);
    }
    throw new Error(`no instance claimed ${key}`);
  }

  it("a request running on A: B answers 1104 (409) for its key, 1103 (422) for other parameters, then A's answer again", async () => {
    const held = await holdAccount();
    const running = add(a, 'Once across instances', 'k-running');
    try {
      await claimed('k-running');
      const busy = await add(b, 'Once across instances', 'k-running');
      assert.equal(busy.status, 409);
      assert.equal((JSON.parse(busy.body) as { errorCode: number }).errorCode, 1104);
      const other = await add(b, 'Something else', 'k-running');
      assert.equal(other.status, 422);
      assert.equal((JSON.parse(other.body) as { errorCode: number }).errorCode, 1103);
    } finally {
      await held.release();
    }
    const first = await running;
    assert.equal(first.status, 200);
    assert.equal(first.replayed, null);
    const again = await add(b, 'Once across instances', 'k-running');
    assert.deepEqual(again, { status: 200, replayed: 'true', body: first.body });
    assert.equal(await tasksTitled('Once across instances'), 1);
    assert.equal(await tasksTitled('Something else'), 0);
  });

  it('A killed with SIGKILL mid-request: B answers 1104 until the dead claim’s lease ends, then runs the request once; A restarted gives that answer', async () => {
    const held = await holdAccount();
    const dying = add(a, 'After a kill', 'k-killed').catch(() => null);
    try {
      await claimed('k-killed');
      await a.kill();
      assert.equal(await dying, null, 'the killed instance never answered');
    } finally {
      await held.release();
    }
    // Nothing of the killed request was written (it waited for the account); its claim stays
    // until its lease ends unrenewed, and every retry meanwhile is told it still runs.
    const tries: number[] = [];
    let done: Answer | undefined;
    while (!done && tries.length < 200) {
      const res = await add(b, 'After a kill', 'k-killed');
      if (res.status === 409) {
        tries.push(res.status);
        await sleep(250);
      } else {
        done = res;
      }
    }
    assert.ok(done, `still 409 after ${tries.length} tries`);
    assert.equal(done.status, 200, done.body);
    assert.equal(done.replayed, null);
    a = await serve(env);
    assert.deepEqual(await add(a, 'After a kill', 'k-killed'), { status: 200, replayed: 'true', body: done.body });
    assert.equal(await tasksTitled('After a kill'), 1);
  });
});
