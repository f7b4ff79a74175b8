import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { createDeps } from './deps.js';
import { systemClock, unixSeconds } from './lib/clock.js';
import { openStore } from './storage/open.js';
import { pruneExpired } from './storage/prune.js';
import type { Store } from './storage/store.js';

const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly address: string;
  close(): Promise<void>;
}

function prune(store: Store): Promise<void> {
  return pruneExpired(store, unixSeconds(systemClock));
}

/** Process entry: open the database, migrate, build the app, listen, and close cleanly on a signal. */
export async function startServer(config: Config): Promise<RunningServer> {
  const store = await openStore(config.database);
  await store.migrate();
  const deps = createDeps(config, store, systemClock);
  const app = await buildApp(deps);
  // Crash-only (docs/deploy.md): an error nobody expected leaves state nobody can vouch for, so
  // the process ends, as Node.js ends it by default, and the supervisor starts a fresh one; every
  // acknowledged write is already on disk. This only writes the log line first (the monitor
  // changes nothing about what Node.js does next). Request errors never get here: Fastify
  // answers them (src/http/error-handler.ts).
  process.on('uncaughtExceptionMonitor', (err, origin) => {
    app.log.fatal({ err, origin }, 'unexpected error: the process exits so that its supervisor starts a fresh one');
  });
  const pruneTimer = setInterval(() => {
    prune(store).catch((err: unknown) => app.log.error({ err }, 'pruning expired credentials and counters failed'));
  }, PRUNE_EVERY_MS);
  pruneTimer.unref();
  await prune(store);
  const address = await app.listen({ port: config.port, host: config.host });
  app.log.info({ publicUrl: config.publicUrl, database: config.database.kind }, `Tickler is serving ${config.publicUrl}`);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      clearInterval(pruneTimer);
      await app.close();
      await store.close();
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
  return { app, address, close };
}
