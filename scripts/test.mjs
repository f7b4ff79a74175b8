#!/usr/bin/env node
// Runs every compiled test file (dist/**/*.test.js) with node:test. `npm test` compiles first
// (type-checking the tests too). Arguments filter test files by substring:
//   npm test -- token        runs only files whose path contains "token".
//
// Two passes: every file on SQLite; and, when TEST_DATABASE_URL names a PostgreSQL database, at the
// same time, the files listed in SECOND_PASS again with TEST_STORE=postgres (the storage contract runs on
// PostgreSQL in the first pass already). Without TEST_DATABASE_URL the second pass is skipped, and
// says so; in CI (CI set) that fails the run. With it, an unreachable database fails the run.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import pg from 'pg';
import { requireSupportedNode } from './node-version.mjs';

requireSupportedNode('npm test');

/**
 * The test files that run a second time on PostgreSQL: those that open their database through
 * test/database.ts (the harness's testContext(), or freshDatabase()), which TEST_STORE=postgres
 * moves onto a fresh PostgreSQL schema. Paths relative to dist/, one per file: pure unit tests
 * beside them gain nothing from a second run. A file that uses the harness but is not listed is
 * named at the end of the run (and fails it in CI), so a new one cannot be forgotten silently.
 */
const SECOND_PASS = [
  'src/features/account/account.routes.test.js',
  'src/features/documents/attachments.test.js',
  'src/features/documents/documents.scopes.test.js',
  'src/features/documents/lists.test.js',
  'src/features/documents/notes.test.js',
  'src/features/documents/outlines.test.js',
  'src/features/documents/rows.test.js',
  'src/features/moving/export.test.js',
  'src/features/moving/hosted-import.test.js',
  'src/features/organizers/goals.rules.test.js',
  'src/features/organizers/organizers.accounts.test.js',
  'src/features/organizers/organizers.cascade.test.js',
  'src/features/organizers/organizers.errors.test.js',
  'src/features/organizers/organizers.shapes.test.js',
  'src/features/organizers/organizers.sync.test.js',
  'src/features/sharing/isolation.test.js',
  'src/features/sharing/searches.test.js',
  'src/features/sharing/sharing.errors.test.js',
  'src/features/sharing/sharing.test.js',
  'src/features/tasks/task-json.test.js',
  'src/features/tasks/tasks.add.test.js',
  'src/features/tasks/tasks.batch.test.js',
  'src/features/tasks/tasks.delete.test.js',
  'src/features/tasks/tasks.edit.test.js',
  'src/features/tasks/tasks.fields.test.js',
  'src/features/tasks/tasks.get.test.js',
  'src/features/tasks/tasks.repeat.test.js',
  'src/http/api-plumbing.test.js',
  'src/http/health.test.js',
  'src/http/multipart.test.js',
  'src/oauth/authorize.routes.test.js',
  'src/oauth/consent.routes.test.js',
  'src/oauth/refresh-reuse.test.js',
  'src/oauth/revoke.routes.test.js',
  'src/oauth/token-replay.test.js',
  'src/oauth/token.routes.test.js',
  'src/oauth/unstorable-text.test.js',
  'src/storage/account-cache.test.js',
  'src/storage/account-deletion.test.js',
  'src/storage/store-rate-limiter.test.js',
  'src/web/account.routes.test.js',
  'src/web/apps.routes.test.js',
  'src/web/collaborators.routes.test.js',
  'src/web/export.routes.test.js',
  'src/web/notes/notes.routes.test.js',
  'src/web/organize/organize.routes.test.js',
  'src/web/reset.routes.test.js',
  'src/web/tasks/task-editor.routes.test.js',
  'src/web/tasks/tasks.routes.test.js',
  'src/web/visitor.routes.test.js',
  'test/e2e/cli.e2e.test.js',
  'test/e2e/collab.e2e.test.js',
  'test/e2e/import-files.e2e.test.js',
  'test/e2e/import-v3.e2e.test.js',
  'test/e2e/serve.e2e.test.js',
  'test/fuzz/fuzz.test.js',
  'test/sync/documents-sync.test.js',
  'test/sync/sharing-sync.test.js',
  'test/web/collaborators.browser.test.js',
  'test/web/organize.browser.test.js',
  'test/web/tasks.browser.test.js',
  'test/web/web.browser.test.js',
  'test/sync/stamps.property.test.js',
  'test/sync/tasks-sync.test.js',
];

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return find(p);
    return e.name.endsWith('.test.js') ? [p] : [];
  });
}

/**
 * The files that take longest (processes started, browsers, fuzzing, whole-database contracts)
 * go first: node:test starts files in the order given, and a long file started last runs alone
 * while the other slot is idle.
 */
const SLOW_FIRST = ['test/e2e/', 'test/web/', 'test/fuzz/', 'test/crashloop/', 'test/sync/', 'src/storage/', 'src/oauth/'];
function slowness(f) {
  const i = SLOW_FIRST.findIndex((prefix) => relative(dist, f).startsWith(prefix));
  return i === -1 ? SLOW_FIRST.length : i;
}

/**
 * Runs `files` with node:test. `reportTo` names a file for the report instead of the terminal,
 * for a pass that runs beside another one (its report is printed when both have ended).
 */
function run(files, env, reportTo) {
  const concurrency = Math.max(2, availableParallelism());
  const ordered = [...files].sort((a, b) => slowness(a) - slowness(b) || a.localeCompare(b));
  const reporter = reportTo ? ['--test-reporter=spec', `--test-reporter-destination=${reportTo}`] : ['--test-reporter=spec'];
  const child = spawn(process.execPath, ['--enable-source-maps', '--test', ...reporter, `--test-concurrency=${concurrency}`, ...ordered], {
    stdio: 'inherit',
    cwd: root,
    env: { ...process.env, ...env },
  });
  return new Promise((resolve) => {
    child.on('error', () => resolve(1));
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

async function reachable(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const filters = process.argv.slice(2);
const files = find(dist)
  .filter((f) => filters.length === 0 || filters.some((s) => relative(dist, f).includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}

const pgUrl = process.env.TEST_DATABASE_URL?.trim();
if (pgUrl) {
  const problem = await reachable(pgUrl);
  if (problem) {
    console.error(`TEST_DATABASE_URL is set but PostgreSQL cannot be reached: ${problem}`);
    process.exit(1);
  }
}

const inCi = Boolean(process.env.CI);
const secondPass = files.filter((f) => SECOND_PASS.includes(relative(dist, f)));
const leftOut = files.filter((f) => !secondPass.includes(f) && readFileSync(f, 'utf8').includes('testContext('));

// The two passes run side by side: much of a test's time is spent waiting (on fsync, on
// PostgreSQL, on child processes), so the second pass fills the first one's idle time. The
// PostgreSQL pass's report is written to a file and printed after the SQLite pass's.
let postgresRun = Promise.resolve(0);
let postgresReport;
if (pgUrl && secondPass.length > 0) {
  postgresReport = join(mkdtempSync(join(tmpdir(), 'tickler-test-')), 'postgres.txt');
  postgresRun = run(secondPass, { TEST_STORE: 'postgres' }, postgresReport);
}
const sqlite = await run(files, { TEST_STORE: 'sqlite' });
let postgres = await postgresRun;
if (!pgUrl) {
  console.log('\nPostgreSQL part skipped: TEST_DATABASE_URL is not set (.ci/run sets it; see README, Development).');
  if (inCi) {
    console.error('CI is set: the PostgreSQL part must run. Set TEST_DATABASE_URL.');
    postgres = 1;
  }
} else {
  console.log(`\nSecond pass on PostgreSQL: ${secondPass.length} test files (scripts/test.mjs, SECOND_PASS)`);
  if (postgresReport) {
    process.stdout.write(readFileSync(postgresReport, 'utf8'));
    rmSync(join(postgresReport, '..'), { recursive: true, force: true });
  }
}
for (const f of leftOut) console.error(`not run on PostgreSQL, though it uses the test harness: ${relative(dist, f)} (add it to SECOND_PASS in scripts/test.mjs)`);
process.exit(sqlite || postgres || (inCi && leftOut.length > 0 ? 1 : 0));
