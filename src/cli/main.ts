import { parseArgs, type ParseArgsConfig } from 'node:util';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ConfigError, loadConfig, parseDatabaseUrl, type Config } from '../config.js';
import { InvalidInput, createUser } from '../features/users/users.service.js';
import { systemClock } from '../lib/clock.js';
import { InvalidClientInput, registerClient } from '../oauth/clients.service.js';
import { startServer } from '../server.js';
import { isServed } from '../storage/sqlite/serve-lock.js';
import { copySqliteToPostgres, SourceNotMigrated, TargetNotEmpty } from '../storage/copy.js';
import { openStore } from '../storage/open.js';
import { PostgresStore } from '../storage/postgres/pg-store.js';
import { UniqueViolation, type Store } from '../storage/store.js';
import { accountPk, importV3, importWithProgress, NoSuchAccount } from './import-command.js';
import { backupSqlite, BackupRefused, restoreSqlite } from './backup.js';
import { ImportProgress } from './progress.js';
import { createDeps } from '../deps.js';
import { exportAccount } from '../features/moving/export.service.js';
import { exportTasksCsv, exportTasksIcal } from '../features/moving/export-formats.js';
import { JsonSource, NotAnExport } from '../features/moving/json-source.js';

const USAGE = `Usage: tickler <command>

  serve                                   run the server (applies pending migrations first)
  migrate [--status]                      apply pending database migrations (or list them)
  user add --email E --password P [--alias A] [--pro 0|1|2]
                                          create an account; prints {"userid":"…"}
  app add --name N --redirect-uri URI     register an application; prints {"client_id":"…","client_secret":"…"}
  app list                                list registered applications (without secrets)
  copy --from sqlite:PATH --to postgres://… [--force]
                                          copy everything into PostgreSQL; prints rows per table.
                                          A target holding data is refused unless --force, which
                                          replaces it
  import v3 --user E --from BASE_URL --client-id ID --client-secret S [--redirect-uri URI]
                                          copy an account of another v3 server (the hosted
                                          service, another Tickler) into the account E; prints
                                          a summary. Run again to bring changes over
  import json --user E --file PATH [--dry-run]
                                          read back an export (export json) into the account E
  export json|csv|ical --user E [--out PATH]
                                          the account as one JSON document, or its tasks as CSV
                                          or iCalendar to-dos; to stdout unless --out
  backup PATH                             copy the SQLite database while it is served (PostgreSQL:
                                          use pg_dump, docs/moving.md)
  restore PATH                            put a backup in place of the SQLite database (refused
                                          while a server uses it)

Settings come from the environment (PORT, HOST, DATABASE_URL, PUBLIC_URL, …): see the README.`;

/** Bad arguments or settings: one line on stderr, exit code 2, nothing written. */
class UsageError extends Error {
  override name = 'UsageError';
}

function args(argv: string[], options: ParseArgsConfig['options']): Record<string, string | boolean | undefined> {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: options ?? {}, strict: true, allowPositionals: true });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    return values as Record<string, string | boolean | undefined>;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError((err as Error).message.split('\n')[0] ?? 'bad arguments');
  }
}

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

async function withStore<T>(config: Config, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(config.database);
  try {
    await store.migrate();
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function run(argv: string[], config: () => Config): Promise<number> {
  const [command, sub, ...rest] = argv;
  const print = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value)}\n`);
  switch (`${command ?? ''} ${command === 'user' || command === 'app' || command === 'import' || command === 'export' ? (sub ?? '') : ''}`.trim()) {
    case 'serve': {
      args(argv.slice(1), {});
      await startServer(config());
      return 0;
    }
    case 'migrate': {
      const v = args(argv.slice(1), { status: { type: 'boolean' } });
      const store = await openStore(config().database);
      try {
        print(v['status'] ? await store.migrationStatus() : await store.migrate());
      } finally {
        await store.close();
      }
      return 0;
    }
    case 'user add': {
      const v = args(rest, { email: { type: 'string' }, password: { type: 'string' }, alias: { type: 'string' }, pro: { type: 'string' } });
      const pro = v['pro'] === undefined ? undefined : String(v['pro']);
      if (pro !== undefined && !/^[012]$/.test(pro)) throw new UsageError('--pro must be 0, 1 or 2');
      const input = { email: required(v, 'email'), password: required(v, 'password'), alias: v['alias'] as string | undefined, pro: pro === undefined ? undefined : Number(pro) };
      const account = await withStore(config(), (store) => createUser({ store, clock: systemClock }, input));
      print({ userid: account.userid });
      return 0;
    }
    case 'app add': {
      const v = args(rest, { name: { type: 'string' }, 'redirect-uri': { type: 'string' } });
      const input = { name: required(v, 'name'), redirectUri: required(v, 'redirect-uri') };
      const app = await withStore(config(), (store) => registerClient({ store, clock: systemClock }, input));
      print({ client_id: app.client.clientId, client_secret: app.clientSecret });
      return 0;
    }
    case 'app list': {
      args(rest, {});
      const clients = await withStore(config(), (store) => store.read.clients.list());
      for (const c of clients) print({ client_id: c.clientId, name: c.name, redirect_uri: c.redirectUri, created: c.createdAt });
      return 0;
    }
    case 'copy': {
      const v = args(argv.slice(1), { from: { type: 'string' }, to: { type: 'string' }, force: { type: 'boolean' } });
      const from = parseDatabaseUrl(required(v, 'from'), '--from');
      const to = parseDatabaseUrl(required(v, 'to'), '--to');
      if (from.kind !== 'sqlite') throw new UsageError('--from must be a sqlite: URL');
      if (to.kind !== 'postgres') throw new UsageError('--to must be a postgres:// URL');
      if (!existsSync(from.path)) throw new UsageError(`--from: no database file at ${from.path}`);
      // The copy reads one snapshot: what a running server writes after it would be lost.
      if (isServed(from.path)) throw new UsageError(`--from: a tickler serve is using ${from.path}: stop it first, or what it writes during the copy is lost`);
      const target = new PostgresStore({ url: to.url, poolSize: 2 });
      try {
        print(await copySqliteToPostgres(from.path, target, { replace: v['force'] === true }));
      } catch (err) {
        if (err instanceof TargetNotEmpty) throw new UsageError(`${err.message}: add --force to replace it`);
        if (err instanceof SourceNotMigrated) throw new UsageError(`${err.message}: run DATABASE_URL=${String(v['from'])} bin/tickler migrate first`);
        throw err;
      } finally {
        await target.close();
      }
      return 0;
    }
    case 'import v3': {
      const v = args(rest, { user: { type: 'string' }, from: { type: 'string' }, 'client-id': { type: 'string' }, 'client-secret': { type: 'string' }, 'redirect-uri': { type: 'string' } });
      const from = required(v, 'from');
      if (!/^https?:\/\/[^/]/.test(from) || !URL.canParse(from)) throw new UsageError('--from must be the source server\'s address (https://…)');
      const input = {
        user: required(v, 'user'),
        from,
        clientId: required(v, 'client-id'),
        clientSecret: required(v, 'client-secret'),
        redirectUri: v['redirect-uri'] as string | undefined,
      };
      const c = config();
      print(await withStore(c, (store) => importV3(c, store, input)));
      return 0;
    }
    case 'import json': {
      const v = args(rest, { user: { type: 'string' }, file: { type: 'string' }, 'dry-run': { type: 'boolean' } });
      const file = required(v, 'file');
      if (!existsSync(file)) throw new UsageError(`--file: no file at ${file}`);
      const source = JsonSource.parse(readFileSync(file, 'utf8'));
      const c = config();
      const summary = await withStore(c, async (store) =>
        importWithProgress(createDeps(c, store, systemClock), await accountPk(store, required(v, 'user')), source, { dryRun: v['dry-run'] === true, progress: new ImportProgress() }),
      );
      print(summary);
      return 0;
    }
    case 'export json':
    case 'export csv':
    case 'export ical': {
      const v = args(rest, { user: { type: 'string' }, out: { type: 'string' } });
      const c = config();
      const text = await withStore(c, async (store) => {
        const deps = createDeps(c, store, systemClock);
        const pk = await accountPk(store, required(v, 'user'));
        if (sub === 'json') return `${JSON.stringify(await exportAccount(deps, pk))}\n`;
        return sub === 'csv' ? exportTasksCsv(deps, pk) : exportTasksIcal(deps, pk);
      });
      if (typeof v['out'] === 'string') writeFileSync(v['out'], text);
      else process.stdout.write(text);
      return 0;
    }
    case 'backup':
    case 'restore': {
      let positionals: string[];
      try {
        ({ positionals } = parseArgs({ args: argv.slice(1), options: {}, strict: true, allowPositionals: true }));
      } catch (err) {
        throw new UsageError((err as Error).message.split('\n')[0] ?? 'bad arguments');
      }
      const [path, extra] = positionals;
      if (!path || extra !== undefined) throw new UsageError(`${command} takes one PATH`);
      const db = config().database;
      if (db.kind !== 'sqlite') throw new UsageError(`${command} is for SQLite; for PostgreSQL use pg_dump and pg_restore (docs/moving.md)`);
      print(command === 'backup' ? await backupSqlite(db.path, path) : await restoreSqlite(path, db.path));
      return 0;
    }
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    default:
      throw new UsageError(command ? `unknown command "${[command, sub].filter(Boolean).join(' ')}"` : 'no command given');
  }
}

/** Runs one command; returns the exit code (0 ok, 2 bad arguments or settings, 1 failure). */
export async function main(argv: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  try {
    return await run(argv, () => loadConfig(env));
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`tickler: ${err.message} (see tickler help)\n`);
      return 2;
    }
    if (err instanceof ConfigError || err instanceof InvalidInput || err instanceof InvalidClientInput || err instanceof NoSuchAccount || err instanceof NotAnExport || err instanceof BackupRefused) {
      process.stderr.write(`tickler: ${err.message}\n`);
      return 2;
    }
    if (err instanceof UniqueViolation) {
      process.stderr.write(`tickler: ${err.what === 'email' ? 'an account with that e-mail address already exists' : err.message}\n`);
      return 2;
    }
    process.stderr.write(`tickler: ${(err as Error).message}\n`);
    return 1;
  }
}
