/**
 * One benchmark server, run as a child process so that it has a core to itself while the load
 * generator runs in the parent. argv[2] says which:
 * - `tickler`: the real app (buildApp, production options, SQLite file in a temporary folder)
 *   prepared as argv[3] (TicklerSetup) says; reports {port, tokens, body} to the parent.
 * - `bare`: a node:http server answering every request with the body the parent sends it.
 * - `fastify`: Fastify with one route answering that body: the framework's own floor.
 * - `raw-add`: node:http writing the 50 rows of a tasks/add call (argv[3] `tasks`, the default)
 *   or a notes/add call (`notes`) with the database driver alone, in one transaction, as durably
 *   as Tickler (bench/raw-add.ts), answering that body.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import Fastify from 'fastify';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { syncToken } from '../src/caldav/dav-context.js';
import { createDeps } from '../src/deps.js';
import { encodeCursor } from '../src/features/changes/cursor.js';
import { createAppPassword } from '../src/features/users/app-passwords.service.js';
import { createUser } from '../src/features/users/users.service.js';
import { utcOffsetMinutes } from '../src/lib/account-clock.js';
import { systemClock } from '../src/lib/clock.js';
import { createCode } from '../src/oauth/authorize.service.js';
import { registerClient } from '../src/oauth/clients.service.js';
import { openStore } from '../src/storage/open.js';
import { freshSchema, type TestDatabase } from '../test/database.js';
import { counted, countStatements } from './counters.js';
import { radicaleServer } from './radicale.js';
import { RAW_TABLES, rawAddServer } from './raw-add.js';
import { seedList, seedLists, seedNotes, seedOutlines, seedTasks } from './seed.js';

export interface ServerReady {
  readonly port: number;
  readonly tokens?: readonly string[];
  /** Whole Authorization headers (CalDAV's Basic), used instead of the tokens when given. */
  readonly authorizations?: readonly string[];
  /** Values the scenario's requests name as `{{NAME}}` (a sync token, a cursor), known once the server is prepared. */
  readonly substitutions?: Readonly<Record<string, string>>;
  readonly body?: string;
}

function ready(msg: ServerReady, cpuOfServer?: () => number): void {
  // The parent asks for this process's CPU time and statement count before and after a measurement
  // (or, for a server that runs in a process of its own, that process's CPU).
  process.on('message', (m) => {
    if (m !== 'cpu') return;
    process.send?.(cpuOfServer ? { cpu: { user: cpuOfServer(), system: 0 }, statements: 0 } : { cpu: process.cpuUsage(), statements: counted.statements });
  });
  process.send?.(msg);
}

/** What a Tickler benchmark server prepares before it listens (argv[3], JSON). */
export interface TicklerSetup {
  /** Accounts, each with one app token (the load is spread over them). Default 1. */
  readonly accounts?: number;
  /** Tasks seeded into each account, of which the last `changed` have a later stamp. */
  readonly tasks?: number;
  readonly changed?: number;
  /** Notes seeded into each account. */
  readonly notes?: number;
  /** Lists of four columns without rows (bench/seed.ts, seedLists) seeded into each account. */
  readonly lists?: number;
  /** Rows of one list (bench/seed.ts, seedList) seeded into each account. */
  readonly rows?: number;
  /** Outlines seeded into each account, and the nodes of each. */
  readonly outlines?: { readonly total: number; readonly nodes: number };
  /** Saved searches made in each account, in order (a fresh database numbers them 1, 2, …). */
  readonly searches?: ReadonlyArray<{ readonly bool: 'All' | 'Any'; readonly search: unknown }>;
  /** CalDAV: an app password per account, whose Basic header the load generator sends. */
  readonly dav?: boolean;
  /**
   * After seeding, one task of each account changed: `{{POSITION}}` (its log position before the
   * change, a CalDAV sync token's number) and `{{CURSOR}}` (the change feed's cursor there) name
   * the moment just before it, so that each request finds one change.
   */
  readonly oneChange?: boolean;
  /** A request whose answer becomes the baseline's body. */
  readonly probe: { readonly method: string; readonly url: string; readonly payload?: string; readonly headers?: Readonly<Record<string, string>> };
}

/** SQLite in a temporary folder, or (BENCH_DB=postgres) a fresh schema of BENCH_DATABASE_URL, committing as durably as a server does. */
async function benchDatabase(dir: string): Promise<TestDatabase> {
  if (process.env['BENCH_DB'] !== 'postgres') return { url: `sqlite:${join(dir, 'bench.db')}`, env: {}, drop: async () => undefined };
  const db = await freshSchema(process.env['BENCH_DATABASE_URL'] as string, { durable: true });
  return { ...db, env: {} };
}

/** The variables of `keys` that are set in `env`. */
function pick(env: NodeJS.ProcessEnv, keys: readonly string[]): Record<string, string> {
  return Object.fromEntries(keys.flatMap((k) => (env[k] === undefined ? [] : [[k, env[k]]])));
}

async function tickler(setup: TicklerSetup): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tickler-bench-'));
  const database = await benchDatabase(dir);
  // Production options, except that the limits must not stop the load generator: they count every
  // call as by default (on PostgreSQL in the shared database), at a ceiling the load never reaches.
  const config = loadConfig({
    DATABASE_URL: database.url,
    // Log lines go to this child's stdout, which the parent discards.
    LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'silent',
    RATE_LIMIT_API_PER_USER: '999999999/1h',
    RATE_LIMIT_API_PER_CLIENT: '999999999/1h',
    // A notes/add run stores hundreds of thousands of notes: every add must be a real one.
    MAX_NOTES: '1000000',
    // Only what a scenario sets: the others keep loadConfig's defaults, which "defaults" measures.
    ...pick(process.env, ['TOKEN_CACHE_SECONDS', 'ACCOUNT_CACHE_SECONDS']),
  });
  const store = await openStore(config.database);
  await store.migrate();
  const deps = createDeps(config, store, systemClock);
  const { client, clientSecret } = await registerClient(deps, { name: 'Bench', redirectUris: ['https://bench.example/cb'] });
  const app = await buildApp(deps);
  const tokens: string[] = [];
  const authorizations: string[] = [];
  const substitutions: Record<string, string> = {};
  for (let i = 0; i < (setup.accounts ?? 1); i++) {
    const account = await createUser(deps, { email: `bench${i}@example.org`, password: 'benchmark password', alias: 'Bench' });
    await seedTasks(store, account.pk, setup.tasks ?? 0, setup.changed ?? 0);
    await seedNotes(store, account.pk, setup.notes ?? 0);
    await seedList(store, account.pk, setup.rows ?? 0);
    await seedLists(store, account.pk, setup.lists ?? 0);
    await seedOutlines(store, account.pk, setup.outlines?.total ?? 0, setup.outlines?.nodes ?? 0);
    for (const [n, s] of (setup.searches ?? []).entries()) {
      await store.transaction((tx) => tx.sharing.addSearch(account.pk, { name: `Search ${n + 1}`, bool: s.bool, rules: JSON.stringify(s.search), modified: 1 }));
    }
    const scope = 'basic tasks notes outlines lists write';
    const request = { client, state: 's', scope, scopeWords: scope.split(' '), codeChallenge: null, redirectUri: null };
    const location = await deps.store.transaction((tx) => createCode(deps, tx, request, account.pk));
    const code = new URL(location).searchParams.get('code') ?? '';
    const tokenRes = await app.inject({
      method: 'POST',
      url: '/3/account/token.php',
      payload: { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: clientSecret },
    });
    tokens.push((tokenRes.json() as { access_token: string }).access_token);
    if (setup.dav) {
      const { password } = await createAppPassword(deps, account.pk, { name: 'Bench', readOnly: false });
      authorizations.push(`Basic ${Buffer.from(`${account.email}:${password}`).toString('base64')}`);
      substitutions['USERID'] = account.userid;
      substitutions['CAL'] = `/dav/calendars/${account.userid}/tasks/`;
    }
    if (setup.oneChange) {
      const position = (await store.read.changes.position(account.pk))?.seq ?? 0;
      substitutions['POSITION'] = String(position);
      substitutions['SYNC_TOKEN'] = syncToken(position, utcOffsetMinutes(account.prefs));
      substitutions['CURSOR'] = encodeURIComponent(encodeCursor(account.userid, position));
      await store.transaction(async (tx) => {
        const task = await tx.tasks.get(account.pk, 1);
        if (task) await tx.tasks.update(account.pk, { ...task, title: `${task.title} (changed)` });
      });
    }
  }
  const fill = (text: string): string => text.replace(/\{\{(\w+)\}\}/g, (_m, k: string) => substitutions[k] ?? '');
  const probe = await app.inject({
    method: setup.probe.method as 'GET',
    url: fill(setup.probe.url),
    headers: {
      authorization: authorizations[0] ?? `Bearer ${tokens[0]}`,
      'content-type': 'application/x-www-form-urlencoded',
      ...setup.probe.headers,
    },
    ...(setup.probe.payload !== undefined && { payload: fill(setup.probe.payload) }),
  });
  // A scenario measuring an error answer would measure nothing (a search id that is not there, say).
  const ok = probe.statusCode === 200 || probe.statusCode === 207;
  if (!ok || /"errorCode"|<error /.test(probe.body.slice(0, 200))) throw new Error(`the probe ${setup.probe.url} failed: ${probe.statusCode} ${probe.body.slice(0, 200)}`);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  ready({
    port: typeof address === 'object' && address ? address.port : 0,
    tokens,
    ...(authorizations.length > 0 && { authorizations }),
    substitutions,
    body: probe.body,
  });
  process.once('disconnect', () => {
    void app
      .close()
      .then(() => store.close())
      .then(() => database.drop())
      .then(() => rmSync(dir, { recursive: true, force: true }));
  });
}

function bare(body: string): void {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    ready({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  process.once('disconnect', () => server.close());
}

async function fastifyFloor(body: string): Promise<void> {
  const app = Fastify();
  app.get('/', async (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  ready({ port: typeof address === 'object' && address ? address.port : 0 });
  process.once('disconnect', () => void app.close());
}

/** Baselines get the body to answer over the IPC channel: it can be larger than a command line. */
async function bodyFromParent(): Promise<string> {
  return new Promise((resolve) => process.once('message', (m: { body: string }) => resolve(m.body)));
}

const kind = process.argv[2];
countStatements();
if (kind === 'tickler') await tickler(JSON.parse(process.argv[3] ?? '{}') as TicklerSetup);
else if (kind === 'bare') bare(await bodyFromParent());
else if (kind === 'fastify') await fastifyFloor(await bodyFromParent());
else if (kind === 'radicale') await radicaleServer(JSON.parse(process.argv[3] ?? '{}') as { tasks: number; oneChange?: boolean }, ready);
else if (kind === 'raw-add') {
  const name = process.argv[3] ?? 'tasks';
  const table = Object.hasOwn(RAW_TABLES, name) ? RAW_TABLES[name] : undefined;
  if (!table) throw new Error(`no floor for ${String(process.argv[3])}`);
  await rawAddServer(table, await bodyFromParent(), ready);
}
else throw new Error(`unknown server kind ${kind}`);
