import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freshDatabase, type TestDatabase } from '../database.js';
import { cli, type CliResult } from './processes.js';

/** bin/tickler import csv and import xml, as a person moving from the hosted service runs them. */

const fixture = (name: string): string => fileURLToPath(new URL(`../../../test/fixtures/hosted/${name}`, import.meta.url));

interface Summary {
  readonly dryRun: boolean;
  readonly source: string;
  readonly kinds: Record<string, { created: number; updated: number; unchanged: number; deleted: number; refused: number }>;
  readonly warnings: string[];
}

describe('bin/tickler import csv and import xml', () => {
  let dir: string;
  let database: TestDatabase;
  let env: Record<string, string>;
  const summary = (r: CliResult): Summary => {
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Summary;
  };
  const tasks = (email: string): number => {
    const r = cli(['export', 'json', '--user', email], env);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as { tasks: unknown[] }).tasks.length;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-import-files-'));
    database = await freshDatabase(dir);
    env = { DATABASE_URL: database.url, ...database.env, PUBLIC_URL: 'https://todo.example.org' };
    for (const email of ['csv@example.org', 'xml@example.org']) assert.equal(cli(['user', 'add', '--email', email, '--password', 'moving passphrase', '--pro', '2'], env).code, 0);
  });
  after(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('import csv: --dry-run creates nothing; a run creates; a second run adds nothing', () => {
    const dry = summary(cli(['import', 'csv', '--user', 'csv@example.org', '--file', fixture('tasks.csv'), '--dry-run'], env));
    assert.equal(dry.dryRun, true);
    assert.equal(dry.source, 'hosted-csv');
    assert.equal(dry.kinds['task']?.created, 7);
    assert.equal(dry.kinds['folder']?.created, 2);
    assert.ok(dry.warnings.some((w) => /Every full moon/.test(w)), 'what cannot be read is said even in a dry run');
    assert.equal(tasks('csv@example.org'), 0);

    const first = summary(cli(['import', 'csv', '--user', 'csv@example.org', '--file', fixture('tasks.csv')], env));
    assert.equal(first.kinds['task']?.created, 7);
    assert.equal(tasks('csv@example.org'), 7);
    const again = summary(cli(['import', 'csv', '--user', 'csv@example.org', '--file', fixture('tasks.csv')], env));
    for (const [kind, t] of Object.entries(again.kinds)) assert.deepEqual([t.created, t.updated, t.deleted], [0, 0, 0], kind);
    assert.equal(tasks('csv@example.org'), 7);
  });

  it('import xml: --dry-run creates nothing; a run creates; a second run adds nothing', () => {
    const dry = summary(cli(['import', 'xml', '--user', 'xml@example.org', '--file', fixture('backup.xml'), '--dry-run'], env));
    assert.equal(dry.kinds['task']?.created, 4);
    assert.equal(tasks('xml@example.org'), 0);
    assert.equal(summary(cli(['import', 'xml', '--user', 'xml@example.org', '--file', fixture('backup.xml')], env)).kinds['task']?.created, 4);
    const again = summary(cli(['import', 'xml', '--user', 'xml@example.org', '--file', fixture('backup.xml')], env));
    assert.equal(again.kinds['task']?.unchanged, 4);
    assert.equal(tasks('xml@example.org'), 4);
  });

  it('a file that is not one, a missing file, an unknown account: exit 2 and one line', () => {
    const other = join(dir, 'other.csv');
    writeFileSync(other, 'NAME,EMAIL\r\nAda,ada@example.org\r\n');
    const cases: Array<[string[], RegExp]> = [
      [['import', 'csv', '--user', 'csv@example.org', '--file', other], /no TASK column/],
      [['import', 'xml', '--user', 'csv@example.org', '--file', fixture('tasks.csv')], /not an XML/],
      [['import', 'csv', '--user', 'csv@example.org', '--file', join(dir, 'missing.csv')], /no file at/],
      [['import', 'xml', '--user', 'nobody@example.org', '--file', fixture('backup.xml')], /no account/],
      [['import', 'csv', '--file', fixture('tasks.csv')], /--user is required/],
    ];
    for (const [args, message] of cases) {
      const r = cli(args, env);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split('\n').length, 1);
    }
  });
});
