/**
 * One benchmark server, run as a child process so that it has a core to itself while the load
 * generator runs in the parent. argv[2] says which:
 * - `tickler`: the real app (buildApp, production options, SQLite file in a temporary folder)
 *   with one account, one app and a valid token; reports {port, token, body} to the parent.
 * - `bare`: a node:http server answering every request with the body it is given (argv[3]).
 * - `fastify`: Fastify with one route answering that body: the framework's own floor.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import Fastify from 'fastify';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { createUser } from '../src/features/users/users.service.js';
import { systemClock } from '../src/lib/clock.js';
import { approve } from '../src/oauth/authorize.service.js';
import { registerClient } from '../src/oauth/clients.service.js';
import { openStore } from '../src/storage/open.js';

export interface ServerReady {
  readonly port: number;
  readonly token?: string;
  readonly body?: string;
}

function ready(msg: ServerReady): void {
  // The parent asks for this process's CPU time before and after a measurement.
  process.on('message', (m) => {
    if (m === 'cpu') process.send?.({ cpu: process.cpuUsage() });
  });
  process.send?.(msg);
}

async function tickler(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tickler-bench-'));
  // Production options, except that the limits must not stop the load generator.
  const config = loadConfig({
    DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
    // Log lines go to this child's stdout, which the parent discards.
    LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'silent',
    RATE_LIMIT_API_PER_USER: '0',
    RATE_LIMIT_API_PER_CLIENT: '0',
    TOKEN_CACHE_SECONDS: process.env['TOKEN_CACHE_SECONDS'] ?? '5',
    ACCOUNT_CACHE_SECONDS: process.env['ACCOUNT_CACHE_SECONDS'] ?? '5',
  });
  const store = await openStore(config.database);
  await store.migrate();
  const deps = createDeps(config, store, systemClock);
  const account = await createUser(deps, { email: 'bench@example.org', password: 'benchmark password', alias: 'Bench' });
  const { client, clientSecret } = await registerClient(deps, { name: 'Bench', redirectUri: 'https://bench.example/cb' });
  const code = new URL(await approve(deps, { client, state: 's', scope: 'basic', scopeWords: ['basic'] }, account.pk)).searchParams.get('code');
  const app = await buildApp(deps);
  const tokenRes = await app.inject({
    method: 'POST',
    url: '/3/account/token.php',
    payload: { grant_type: 'authorization_code', code: code ?? '', client_id: client.clientId, client_secret: clientSecret },
  });
  const token = (tokenRes.json() as { access_token: string }).access_token;
  const body = (await app.inject({ method: 'GET', url: '/3/account/get.php', headers: { authorization: `Bearer ${token}` } })).body;
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  ready({ port: typeof address === 'object' && address ? address.port : 0, token, body });
  process.once('disconnect', () => {
    void app.close().then(() => store.close()).then(() => rmSync(dir, { recursive: true, force: true }));
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

const kind = process.argv[2];
if (kind === 'tickler') await tickler();
else if (kind === 'bare') bare(process.argv[3] ?? '{}');
else if (kind === 'fastify') await fastifyFloor(process.argv[3] ?? '{}');
else throw new Error(`unknown server kind ${kind}`);
