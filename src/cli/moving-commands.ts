import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { exportAccount } from '../features/moving/export.service.js';
import { exportTasksCsv, exportTasksIcal } from '../features/moving/export-formats.js';
import { HostedFileSource } from '../features/moving/hosted-source.js';
import { JsonSource } from '../features/moving/json-source.js';
import { systemClock } from '../lib/clock.js';
import type * as ImportCommand from './import-command.js';
import { backupSqlite, restoreSqlite } from './backup.js';
import { args, optional, print, required, UsageError, withStore, type Verb } from './kit.js';
import { ImportProgress } from './progress.js';

/**
 * The services' wiring, loaded when a command of this file runs: the command line's other
 * commands (user, app…) start without it.
 */
const wiring = async (): Promise<typeof ImportCommand & { createDeps: typeof import('../deps.js').createDeps }> => ({
  ...(await import('./import-command.js')),
  createDeps: (await import('../deps.js')).createDeps,
});

/** Moving in and out (docs/moving.md): the commands only call the services of features/moving. */
export const IMPORT_VERBS: Readonly<Record<string, Verb>> = {
  v3: {
    usage: `import v3 --user E --from BASE_URL --client-id ID --client-secret S [--redirect-uri URI]
                                          copy an account of another v3 server (the hosted
                                          service, another Tickler) into the account E; prints
                                          a summary. Run again to bring changes over`,
    async run(rest, config) {
      const v = args(rest, { user: { type: 'string' }, from: { type: 'string' }, 'client-id': { type: 'string' }, 'client-secret': { type: 'string' }, 'redirect-uri': { type: 'string' } });
      const from = required(v, 'from');
      if (!/^https?:\/\/[^/]/.test(from) || !URL.canParse(from)) throw new UsageError("--from must be the source server's address (https://…)");
      const input = { user: required(v, 'user'), from, clientId: required(v, 'client-id'), clientSecret: required(v, 'client-secret'), redirectUri: optional(v, 'redirect-uri') };
      const c = config();
      const { importV3 } = await wiring();
      print(await withStore(c, (store) => importV3(c, store, input)));
      return 0;
    },
  },
  json: fileImport('json', `import json --user E --file PATH [--dry-run]
                                          read back an export (export json) into the account E`),
  csv: fileImport('csv', `import csv --user E --file PATH [--dry-run]
                                          import the hosted service's CSV export of tasks
                                          (current or completed) or of its notebook`),
  xml: fileImport('xml', `import xml --user E --file PATH [--dry-run]
                                          import the hosted service's XML backup of tasks`),
};

/** import json|csv|xml: a file read whole, then the same import as import v3 (--dry-run: nothing written). */
function fileImport(format: 'json' | 'csv' | 'xml', usage: string): Verb {
  return {
    usage,
    async run(rest, config) {
      const v = args(rest, { user: { type: 'string' }, file: { type: 'string' }, 'dry-run': { type: 'boolean' } });
      const file = required(v, 'file');
      if (!existsSync(file)) throw new UsageError(`--file: no file at ${file}`);
      const text = readFileSync(file, 'utf8');
      const source = format === 'json' ? JsonSource.parse(text) : HostedFileSource.parse(format, text);
      const c = config();
      const { importWithProgress, createDeps, accountPk } = await wiring();
      const summary = await withStore(c, async (store) =>
        importWithProgress(createDeps(c, store, systemClock), await accountPk(store, required(v, 'user')), source, { dryRun: v['dry-run'] === true, progress: new ImportProgress() }),
      );
      print(summary);
      return 0;
    },
  };
}

function exportVerb(format: 'json' | 'csv' | 'ical', usage: string): Verb {
  return {
    usage,
    async run(rest, config) {
      const v = args(rest, { user: { type: 'string' }, out: { type: 'string' } });
      const c = config();
      const { createDeps, accountPk } = await wiring();
      const text = await withStore(c, async (store) => {
        const deps = createDeps(c, store, systemClock);
        const pk = await accountPk(store, required(v, 'user'));
        if (format === 'json') return `${JSON.stringify(await exportAccount(deps, pk))}\n`;
        return format === 'csv' ? exportTasksCsv(deps, pk) : exportTasksIcal(deps, pk);
      });
      const out = optional(v, 'out');
      if (out !== undefined) writeFileSync(out, text);
      else process.stdout.write(text);
      return 0;
    },
  };
}

export const EXPORT_VERBS: Readonly<Record<string, Verb>> = {
  json: exportVerb('json', 'export json --user E [--out PATH]       the whole account as one JSON document (import json reads it back)'),
  csv: exportVerb('csv', 'export csv --user E [--out PATH]        its tasks as CSV (the hosted export\'s columns, with ID, PARENT, ADDED)'),
  ical: exportVerb('ical', 'export ical --user E [--out PATH]       its tasks as iCalendar to-dos; to stdout unless --out'),
};

/** backup PATH and restore PATH: one positional argument, SQLite only. */
export async function backupOrRestore(command: 'backup' | 'restore', argv: string[], config: () => Config): Promise<number> {
  let positionals: string[];
  try {
    ({ positionals } = parseArgs({ args: argv, options: {}, strict: true, allowPositionals: true }));
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
