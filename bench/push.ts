/**
 * Push (docs/decisions/0026): three figures of `npm run bench` (group `push`).
 * - SSE notification latency: a stream held on one `bin/tickler serve`, a task added through
 *   another on the same PostgreSQL database (one server on SQLite when there is none), one after
 *   another; the time from sending the add to the event, p50 and p99 (goal: p99 ≤ 1 s across
 *   instances). It includes the add's own time.
 * - 1,000 idle streams: the resident memory a `serve` child gains while 1,000 streams of 10 accounts
 *   stay open (goal ≤ 50 MB).
 * - Webhook deliveries per second: 2,000 owed deliveries (10 endpoints × 200 accounts) sent by one
 *   worker to a receiver on loopback, in one process, claims and signatures and the record of each
 *   attempt included.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { systemClock } from '../src/lib/clock.js';
import { registerClient } from '../src/oauth/clients.service.js';
import { openStore } from '../src/storage/open.js';
import { WebhookWorker } from '../src/webhooks/worker.js';
import { freshSchema, type TestDatabase } from '../test/database.js';
import { addApp, addUser, tokensFor } from '../test/e2e/accounts.js';
import { serve, type ServerProcess } from '../test/e2e/processes.js';
import { newAccount } from '../test/factories.js';
import { openEvents, type SseStream } from '../test/sse-client.js';
import { Receiver } from '../test/webhook-receiver.js';

const PASSWORD = 'push benchmark password';

function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))] as number;
}

/** A database for serve children: a fresh PostgreSQL schema, or an SQLite file in `dir`. */
async function database(dir: string, pgUrl: string | undefined): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  if (!pgUrl) return { env: { DATABASE_URL: `sqlite:${join(dir, 'push.db')}` }, drop: async () => undefined };
  const db: TestDatabase = await freshSchema(pgUrl, { durable: true });
  return { env: { DATABASE_URL: db.url }, drop: () => db.drop() };
}

const addTask = (url: string, token: string, title: string) =>
  fetch(`${url}/3/tasks/add.php`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: new URLSearchParams({ tasks: JSON.stringify([{ title }]) }) });

async function sseLatency(pgUrl: string | undefined): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tickler-bench-sse-'));
  const db = await database(dir, pgUrl);
  const env = { ...db.env, RATE_LIMIT_API_PER_USER: '0' };
  const servers: ServerProcess[] = [];
  try {
    addUser(env, 'latency@example.org', PASSWORD);
    const app = addApp(env, 'Latency');
    servers.push(await serve(env));
    if (pgUrl) servers.push(await serve(env));
    const writer = servers[0] as ServerProcess;
    const listener = servers.at(-1) as ServerProcess;
    const { access_token } = await tokensFor(writer.url, app, 'latency@example.org', PASSWORD);
    const stream = (await openEvents(`${listener.url}/3/sync/events.php`, { authorization: `Bearer ${access_token}` })).stream as SseStream;
    await stream.nextEvent();
    const samples: number[] = [];
    for (let i = 0; i < 220; i++) {
      const started = performance.now();
      const added = addTask(writer.url, access_token, `Latency ${i}`);
      await stream.nextEvent(5000);
      const ms = performance.now() - started;
      await added;
      if (i >= 20) samples.push(ms);
    }
    stream.close();
    const where = pgUrl ? 'PostgreSQL, written on one instance, heard on another' : 'SQLite, one instance';
    const p99 = percentile(samples, 0.99);
    return [`| SSE notification latency (${where}), ${samples.length} adds | p50 ${percentile(samples, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms | p99 ≤ 1,000 ms | ${p99 <= 1000 ? 'yes' : 'no'} |`];
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

async function idleStreams(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tickler-bench-idle-'));
  const env = { DATABASE_URL: `sqlite:${join(dir, 'idle.db')}`, RATE_LIMIT_API_PER_USER: '0', SSE_MAX_PER_ACCOUNT: '100' };
  const accounts = 10;
  const perAccount = 100;
  let server: ServerProcess | undefined;
  const streams: SseStream[] = [];
  try {
    const app = addApp(env, 'Idle');
    for (let i = 0; i < accounts; i++) addUser(env, `idle-${i}@example.org`, PASSWORD);
    server = await serve(env);
    const tokens: string[] = [];
    for (let i = 0; i < accounts; i++) tokens.push((await tokensFor(server.url, app, `idle-${i}@example.org`, PASSWORD)).access_token);
    // One stream open and closed first, so that what every stream shares is loaded before the count.
    const warm = (await openEvents(`${server.url}/3/sync/events.php`, { authorization: `Bearer ${tokens[0]}` })).stream as SseStream;
    await warm.nextEvent();
    warm.close();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const pid = server.child.pid as number;
    const before = rssOf(pid);
    for (const token of tokens) {
      for (let i = 0; i < perAccount; i++) {
        const opened = await openEvents(`${server.url}/3/sync/events.php`, { authorization: `Bearer ${token}` });
        if (!opened.stream) throw new Error(`a stream was refused: ${opened.status} ${opened.body}`);
        streams.push(opened.stream);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const extra = (rssOf(pid) - before) / 1024 / 1024;
    return [`| 1,000 idle SSE streams (${accounts} accounts): extra resident memory of the server | ${extra.toFixed(1)} MB (${((extra * 1024) / 1000).toFixed(1)} KB a stream) | ≤ 50 MB | ${extra <= 50 ? 'yes' : 'no'} |`];
  } finally {
    for (const s of streams) s.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function webhookThroughput(pgUrl: string | undefined): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tickler-bench-hooks-'));
  const db = await database(dir, pgUrl);
  const config = loadConfig({ ...db.env, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE: '1' });
  const store = await openStore(config.database);
  const receiver = await Receiver.start();
  try {
    await store.migrate();
    const deps = createDeps(config, store, systemClock);
    const { client } = await registerClient(deps, { name: 'Hooks', redirectUris: ['https://hooks.example.org/cb'] });
    const now = Math.floor(Date.now() / 1000);
    const endpoints: string[] = [];
    for (let i = 0; i < 10; i++) {
      const id = `ep_bench${String(i).padStart(8, '0')}`;
      await store.transaction((tx) => tx.webhooks.addEndpoint({ id, clientPk: client.pk, url: receiver.url(`/e${i}`), secret: 'whsec_YmVuY2htYXJrIGJlbmNobWFyayBiZW5jaG1hcms=', createdAt: now }, now));
      endpoints.push(id);
    }
    await store.transaction(async (tx) => {
      for (let a = 0; a < 200; a++) {
        const account = await tx.accounts.create(newAccount('hooks-bench', a));
        for (const [i, id] of endpoints.entries()) await tx.webhooks.enqueue(id, account.pk, ['task'], now, now, `msg_${a}_${i}`);
      }
    });
    const worker = new WebhookWorker(deps, { batch: 20 });
    const started = performance.now();
    while (receiver.received.length < 2000) await worker.runOnce();
    const seconds = (performance.now() - started) / 1000;
    return [`| webhook deliveries to a receiver on loopback (${pgUrl ? 'PostgreSQL' : 'SQLite'}, one worker, 20 at a time) | ${Math.round(2000 / seconds)} a second | | |`];
  } finally {
    await receiver.close();
    await store.close();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The push figures as rows of a table: figure, value, goal, met. */
export async function pushBench(pgUrl: string | undefined): Promise<string[]> {
  return [
    '| figure | value | goal | met |',
    '|---|---|---|---|',
    ...(await sseLatency(pgUrl)),
    ...(await idleStreams()),
    ...(await webhookThroughput(undefined)),
    ...(pgUrl ? await webhookThroughput(pgUrl) : []),
  ];
}
