import { existsSync } from 'node:fs';
import { ConfigError, loadConfig, parseDatabaseUrl, type Config } from '../config.js';
import { InvalidInput } from '../features/users/users.service.js';
import { InvalidClientInput } from '../oauth/clients.service.js';
import { InvalidWebhook } from '../webhooks/endpoints.service.js';
import { isServed } from '../storage/sqlite/serve-lock.js';
import { copySqliteToPostgres, SourceNotMigrated, TargetNotEmpty } from '../storage/copy.js';
import { openStore } from '../storage/open.js';
import { PostgresStore } from '../storage/postgres/pg-store.js';
import { UniqueViolation, UnsupportedDatabase } from '../storage/store.js';
import { NotAnExport } from '../features/moving/json-source.js';
import { APP_VERBS, GRANT_VERBS } from './app-commands.js';
import { BackupRefused } from './backup.js';
import { args, NoSuchAccount, print, required, UsageError, type Verb } from './kit.js';
import { backupOrRestore, EXPORT_VERBS, IMPORT_VERBS } from './moving-commands.js';
import { USER_VERBS } from './user-commands.js';
import { COLLAB_VERBS } from './share-commands.js';

const GROUPS: Readonly<Record<string, Readonly<Record<string, Verb>>>> = {
  user: USER_VERBS,
  app: APP_VERBS,
  grant: GRANT_VERBS,
  import: IMPORT_VERBS,
  export: EXPORT_VERBS,
  collab: COLLAB_VERBS,
};

function groupUsage(group: string): string {
  return Object.values(GROUPS[group] ?? {})
    .map((v) => `  ${v.usage}`)
    .join('\n');
}

const USAGE = `Usage: tickler <command>

  serve                                   run the server (applies pending migrations first)
  migrate [--status]                      apply pending database migrations (or list them)
${groupUsage('user')}
${groupUsage('app')}
${groupUsage('grant')}
  copy --from sqlite:PATH --to postgres://… [--force]
                                          copy everything into PostgreSQL; prints rows per table.
                                          A target holding data is refused unless --force, which
                                          replaces it
${groupUsage('import')}
${groupUsage('export')}
${groupUsage('collab')}
  backup PATH                             copy the SQLite database while it is served (PostgreSQL:
                                          use pg_dump, docs/moving.md)
  restore PATH                            put a backup in place of the SQLite database (refused
                                          while a server uses it)

Settings come from the environment (PORT, HOST, DATABASE_URL, PUBLIC_URL, …): see the README.`;

async function run(argv: string[], config: () => Config): Promise<number> {
  const [command, sub, ...rest] = argv;
  const group = command === undefined ? undefined : GROUPS[command];
  if (group) {
    // A group without a verb lists its verbs (not an error: it is how one finds them).
    if (sub === undefined || sub === 'help' || sub === '--help' || sub === '-h') {
      process.stdout.write(`Usage: tickler ${command} <verb>\n\n${groupUsage(command as string)}\n`);
      return 0;
    }
    const verb = Object.hasOwn(group, sub) ? group[sub] : undefined;
    if (!verb) throw new UsageError(`unknown command "${command} ${sub}": the verbs are ${Object.keys(group).join(', ')}`);
    return verb.run(rest, config);
  }
  switch (command ?? '') {
    case 'serve': {
      args(argv.slice(1), {});
      // The settings are checked first, then the server's modules loaded (not above: the other
      // commands start in a third of the time without them, and a bad setting is reported at once).
      const checked = config();
      const { startServer } = await import('../server.js');
      await startServer(checked);
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
    case 'backup':
    case 'restore':
      return backupOrRestore(command as 'backup' | 'restore', argv.slice(1), config);
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
    const refused = [ConfigError, InvalidInput, InvalidClientInput, InvalidWebhook, NoSuchAccount, NotAnExport, BackupRefused, UnsupportedDatabase];
    if (refused.some((kind) => err instanceof kind)) {
      process.stderr.write(`tickler: ${(err as Error).message}\n`);
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
