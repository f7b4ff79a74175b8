import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { ConfigError, type Config } from './config.js';
import { createDeps } from './deps.js';
import { systemClock, unixSeconds } from './lib/clock.js';
import { openForServing } from './storage/open.js';
import { pruneExpired } from './storage/prune.js';
import type { Store } from './storage/store.js';
import { WebhookWorker } from './webhooks/worker.js';

const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly address: string;
  close(): Promise<void>;
}

function prune(store: Store, config: Config): Promise<void> {
  return pruneExpired(store, unixSeconds(systemClock), { changesRetentionSeconds: config.changesRetentionDays * 86400 });
}

/** Process entry: open the database, migrate, build the app, listen, and close cleanly on a signal. */
export async function startServer(config: Config): Promise<RunningServer> {
  const { store, release } = await openForServing(config.database);
  let app: FastifyInstance | undefined;
  try {
    await store.migrate();
    const deps = createDeps(config, store, systemClock);
    app = await buildApp(deps);
    await prune(store, config);
    const noAccount = !(await store.read.accounts.hasAny());
    const address = await listen(app, config);
    const log = app.log;
    // Webhook deliveries (docs/decisions/0026): the outbox is in the database; every instance works it.
    const worker = new WebhookWorker(deps, { log: (err, what) => log.error({ err }, `${what} failed`) });
    worker.start();
    const running = serving(config, app, address, store, release, worker);
    // A plain line on stderr, beside the JSON log on stdout: a first run says what to do next.
    // Last, once the signal handlers are in place (serving()).
    if (noAccount) process.stderr.write(`${firstRunLine(config, address)}\n`);
    return running;
  } catch (err) {
    await app?.close();
    await store.close();
    release();
    throw err;
  }
}

/**
 * What a server on a database without any account says, once, in plain words: where it listens,
 * and how the first account is made (docs/decisions/0012: from the command line, an admin; web
 * sign-up, where REGISTRATION=open allows it, never makes an admin).
 */
export function firstRunLine(config: Config, address: string): string {
  const seen = config.publicUrl === address ? '' : ` (people reach it at ${config.publicUrl})`;
  const signUp =
    config.registration === 'open' ? `; or sign up at ${config.publicUrl}/signup (REGISTRATION=open), which never makes an admin` : '';
  return (
    `Tickler listens at ${address}${seen}. This database has no account yet: make the first, an admin, with ` +
    `bin/tickler user add --email you@example.org --password '…' --admin${signUp}.`
  );
}

/** Listens where HOST and PORT say; an address that cannot be used is a problem of those settings. */
async function listen(app: FastifyInstance, config: Config): Promise<string> {
  try {
    return await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (['ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL', 'EAI_NONAME'].includes(code)) {
      throw new ConfigError(`HOST: cannot listen on ${JSON.stringify(config.host)}: ${code} (not an address of this machine)`);
    }
    if (code === 'EADDRINUSE') throw new ConfigError(`PORT: cannot listen on port ${config.port}: another program is using it`);
    if (code === 'EACCES') throw new ConfigError(`PORT: cannot listen on port ${config.port}: not allowed (ports below 1024 need privileges)`);
    throw err;
  }
}

function serving(config: Config, app: FastifyInstance, address: string, store: Store, release: () => void, worker: WebhookWorker): RunningServer {
  // Crash-only (docs/deploy.md): an error nobody expected leaves state nobody can vouch for, so
  // the process ends, as Node.js ends it by default, and the supervisor starts a fresh one; every
  // acknowledged write is already on disk. This only writes the log line first (the monitor
  // changes nothing about what Node.js does next). Request errors never get here: Fastify
  // answers them (src/http/error-handler.ts).
  process.on('uncaughtExceptionMonitor', (err, origin) => {
    app.log.fatal({ err, origin }, 'unexpected error: the process exits so that its supervisor starts a fresh one');
  });
  const pruneTimer = setInterval(() => {
    prune(store, config).catch((err: unknown) => app.log.error({ err }, 'pruning expired credentials and counters failed'));
  }, PRUNE_EVERY_MS);
  pruneTimer.unref();
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      clearInterval(pruneTimer);
      // Deliveries under way end (each within its timeout) and are recorded before the database closes.
      await worker.stop();
      await app.close();
      await store.close();
      release();
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.log.info(`${signal}: closing`);
      close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
  // Said once a signal would close the server cleanly: a supervisor (or a test) that waits for
  // this line and then sends SIGTERM never finds Node.js's default, an abrupt end.
  app.log.info({ publicUrl: config.publicUrl, database: config.database.kind }, `Tickler is serving ${config.publicUrl}`);
  return { app, address, close };
}
