import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freshSchema, testDatabaseUrl, type TestDatabase } from '../database.js';
import { cli, serve, type ServerProcess } from './processes.js';
import { authorizeInBrowser } from './web-client.js';

const base = testDatabaseUrl();

/**
 * Two real server processes on one PostgreSQL database, and a client that alternates between them:
 * everything must behave as on one instance. Caches are set to one second here, so that the bound
 * on what another instance may still hold is short enough to wait for.
 */
describe('two instances on one PostgreSQL database', { skip: base ? false : 'TEST_DATABASE_URL is not set' }, () => {
  let db: TestDatabase;
  let a: ServerProcess;
  let b: ServerProcess;
  let env: Record<string, string>;
  let app: { client_id: string; client_secret: string };
  const email = 'two@example.org';
  const password = 'two instances, one database';

  before(async () => {
    db = await freshSchema(base as string);
    env = {
      DATABASE_URL: db.url,
      DATABASE_POOL_SIZE: '3',
      TOKEN_CACHE_SECONDS: '1',
      ACCOUNT_CACHE_SECONDS: '1',
      RATE_LIMIT_API_PER_USER: '12/1h',
    };
    assert.equal(cli(['user', 'add', '--email', email, '--password', password, '--pro', '1'], env).code, 0);
    const out = cli(['app', 'add', '--name', 'Two', '--redirect-uri', 'http://127.0.0.1:8000/cb'], env);
    assert.equal(out.code, 0, out.stderr);
    app = JSON.parse(out.stdout) as typeof app;
    [a, b] = await Promise.all([serve(env), serve(env)]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  const basic = () => `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`;
  const token = async (server: ServerProcess, form: Record<string, string>) =>
    (await (await fetch(`${server.url}/3/account/token.php`, { method: 'POST', headers: { authorization: basic() }, body: new URLSearchParams(form) })).json()) as Record<string, unknown>;
  const call = async (server: ServerProcess, accessToken: string, path: string, form: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${accessToken}` }, body: new URLSearchParams(form) });
    return { status: res.status, body: (await res.json()) as unknown };
  };

  let tokens: { access_token: string; refresh_token: string };

  it('walks sign-in and consent across both instances and exchanges the code on either', async () => {
    const { code } = await authorizeInBrowser([a.url, b.url], app.client_id, email, password);
    tokens = (await token(b, { grant_type: 'authorization_code', code })) as typeof tokens;
    assert.ok(tokens.access_token);
    // The code was spent on B: A refuses it and revokes what B issued.
    assert.equal((await token(a, { grant_type: 'authorization_code', code }))['errorCode'], 102);
    await sleep(1100);
    assert.equal((await call(b, tokens.access_token, '/3/account/get.php')).status, 401, 'revoked on every instance');
    const { code: again } = await authorizeInBrowser([b.url, a.url], app.client_id, email, password);
    tokens = (await token(a, { grant_type: 'authorization_code', code: again })) as typeof tokens;
  });

  it('syncs tasks through either instance', async () => {
    const added = (await call(a, tokens.access_token, '/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'Written on A' }]) })).body as Array<{ id: number }>;
    const id = added[0]?.id as number;
    const seen = (await call(b, tokens.access_token, '/3/tasks/get.php', { id: String(id) })).body as Array<{ title?: string }>;
    assert.equal(seen[1]?.title, 'Written on A');
    await call(b, tokens.access_token, '/3/tasks/edit.php', { tasks: JSON.stringify([{ id, title: 'Edited on B' }]) });
    // account/get reports a second once it and the clock-skew allowance are over (2 s after the
    // edit's second began, at most 3 s after the edit), and A may hold the account for
    // ACCOUNT_CACHE_SECONDS (1 s here); after that it shows B's edit.
    await sleep(3100);
    const account = (await call(a, tokens.access_token, '/3/account/get.php')).body as { lastedit_task: number };
    const [, task] = (await call(a, tokens.access_token, '/3/tasks/get.php', { id: String(id) })).body as Array<{ modified?: number; title?: string }>;
    assert.equal(task?.title, 'Edited on B');
    assert.equal(account.lastedit_task, task?.modified);
  });

  it('rotates refresh tokens across instances, and a replay on the other one revokes the family', async () => {
    const next = (await token(b, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })) as typeof tokens;
    assert.ok(next.access_token);
    // Within REFRESH_TOKEN_REUSE_SECONDS the token just spent gets B's answer again, from A.
    const retried = (await token(a, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })) as typeof tokens;
    assert.deepEqual([retried.access_token, retried.refresh_token], [next.access_token, next.refresh_token]);
    const newest = (await token(a, { grant_type: 'refresh_token', refresh_token: next.refresh_token })) as typeof tokens;
    assert.ok(newest.access_token);
    // Older than the newest token's predecessor: a replay.
    const replay = await token(b, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    assert.equal(replay['errorCode'], 102);
    await sleep(1100);
    for (const accessToken of [next.access_token, newest.access_token]) {
      assert.equal((await call(b, accessToken, '/3/account/get.php')).status, 401);
      assert.equal((await call(a, accessToken, '/3/account/get.php')).status, 401);
    }
    assert.equal((await token(b, { grant_type: 'refresh_token', refresh_token: newest.refresh_token }))['errorCode'], 102);
    const { code } = await authorizeInBrowser([a.url, b.url], app.client_id, email, password);
    tokens = (await token(b, { grant_type: 'authorization_code', code })) as typeof tokens;
  });

  it('counts the rate limit of a user across both instances', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) statuses.push((await call(i % 2 ? a : b, tokens.access_token, '/3/account/get.php')).status);
    // Twelve calls an hour per user. The tests before made five that counted (three on A, two on
    // B; refused tokens are not counted), so seven more pass and the eighth is refused, whichever
    // instance it reaches. Counters kept per process would let all fourteen through.
    assert.deepEqual(statuses, [...Array(7).fill(200), ...Array(7).fill(429)]);
  });

  it("counts the app's calls too: in batches, written within a second, none lost", async () => {
    // Each call counts once for the user and once for the app. The user's limit (12) is written
    // hit by hit; the app's (100,000 an hour by default) is held by each instance and written in
    // batches (src/storage/batched-rate-limiter.ts). One user, one app: once the held counts are
    // written, both counters hold the same number, whichever instance counted.
    for (let i = 0; i < 6; i++) await call(i % 2 ? a : b, tokens.access_token, '/3/account/get.php');
    await sleep(1500);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ key: string; count: number }>("SELECT key, count FROM rate_counters WHERE key LIKE 'api:%' ORDER BY key");
      assert.deepEqual(rows.map((r) => r.key.replace(/\d+$/, 'N')), ['api:client:N', 'api:user:N']);
      const [app, user] = rows;
      assert.ok((user?.count ?? 0) >= 12, `the user's count ${user?.count}`);
      assert.equal(app?.count, user?.count);
    } finally {
      await client.end();
    }
  });
});
