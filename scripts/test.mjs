#!/usr/bin/env node
// Runs every compiled test file (dist/**/*.test.js) with node:test. `npm test` compiles first
// (type-checking the tests too). Arguments filter test files by substring:
//   npm test -- token        runs only files whose path contains "token".
//
// Two passes: every file on SQLite; and, when TEST_DATABASE_URL names a PostgreSQL database, at the
// same time, the files listed in SECOND_PASS again with TEST_STORE=postgres (the storage contract runs on
// PostgreSQL in the first pass already). Without TEST_DATABASE_URL the second pass is skipped, and
// says so; in CI (CI set) that fails the run. With it, an unreachable database fails the run.
//
// The closing lines count every suite and test that was skipped, by cause (no Chromium, no
// PostgreSQL), so that a green run that left parts out cannot pass for a whole one. In CI every
// part must run: any skip fails the run.
//
// How the files are run (docs/decisions/0017): the files that start processes or browsers, or
// attack the server for seconds (ALONE), each run in a test process of their own; the other files
// of a pass are dealt into a few shards, each one test process that imports its files one after
// another (node:test's isolation "none"). Starting a process and loading the app for every file
// cost about 0.45 s of CPU a file, more than most files' tests. The test processes run a few at a
// time, the longest first; each one's report is printed when it ends, and the failures again at
// the end.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { requireSupportedNode } from './node-version.mjs';
import { causeOf, counted, parseSkips, passLine, skipLines } from './skip-summary.mjs';

requireSupportedNode('npm test');

/**
 * The test files that run a second time on PostgreSQL: those that open their database through
 * test/database.ts (the harness's testContext(), or freshDatabase()), which TEST_STORE=postgres
 * moves onto a fresh PostgreSQL schema. Paths relative to dist/, one per file: pure unit tests
 * beside them gain nothing from a second run. A file that uses the harness but is not listed is
 * named at the end of the run (and fails it in CI), so a new one cannot be forgotten silently.
 */
const SECOND_PASS = [
  'src/caldav/caldav.clients.test.js',
  'src/caldav/caldav.discovery.test.js',
  'src/caldav/caldav.objects.test.js',
  'src/caldav/caldav.reports.test.js',
  'src/caldav/caldav.writes.test.js',
  'src/feeds/feeds.routes.test.js',
  'src/features/account/account.routes.test.js',
  'src/features/changes/changes.routes.test.js',
  'src/features/events/events.routes.test.js',
  'src/features/documents/attachments.test.js',
  'src/features/documents/documents.batch.test.js',
  'src/features/documents/documents.scopes.test.js',
  'src/features/documents/documents.written.test.js',
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
  'src/features/users/app-passwords.service.test.js',
  'src/features/tasks/call-repos.test.js',
  'src/features/tasks/task-records.test.js',
  'src/features/tasks/tasks.add.test.js',
  'src/features/tasks/tasks.batch.test.js',
  'src/features/tasks/tasks.delete.test.js',
  'src/features/tasks/tasks.edit.test.js',
  'src/features/tasks/tasks.fields.test.js',
  'src/features/tasks/tasks.get.test.js',
  'src/features/tasks/tasks.if-modified.test.js',
  'src/features/tasks/tasks.repeat.test.js',
  'src/http/api-plumbing.test.js',
  'src/http/client-errors.test.js',
  'src/http/health.test.js',
  'src/http/idempotent-answer.test.js',
  'src/http/multipart.test.js',
  'src/oauth/authorize.routes.test.js',
  'src/oauth/consent.routes.test.js',
  'src/oauth/metadata.routes.test.js',
  'src/oauth/refresh-reuse.test.js',
  'src/oauth/revoke.routes.test.js',
  'src/oauth/token-replay.test.js',
  'src/oauth/token.routes.test.js',
  'src/oauth/unstorable-text.test.js',
  'src/storage/account-cache.test.js',
  'src/storage/account-deletion.test.js',
  'src/storage/store-rate-limiter.test.js',
  'src/web/account.routes.test.js',
  'src/web/app-passwords.routes.test.js',
  'src/web/apps.routes.test.js',
  'src/web/collaborators.routes.test.js',
  'src/web/csrf.test.js',
  'src/web/export.routes.test.js',
  'src/web/feeds.routes.test.js',
  'src/web/notes/notes.routes.test.js',
  'src/web/lists/list-edit.routes.test.js',
  'src/web/lists/lists.routes.test.js',
  'src/web/lists/rows.routes.test.js',
  'src/web/outlines/outline-edit.routes.test.js',
  'src/web/outlines/outlines.routes.test.js',
  'src/web/organize/organize.routes.test.js',
  'src/web/reset.routes.test.js',
  'src/web/tasks/task-editor.routes.test.js',
  'src/web/tasks/tasks.routes.test.js',
  'src/web/visitor.routes.test.js',
  'src/web/webhooks.routes.test.js',
  'src/webhooks/webhooks.test.js',
  'test/e2e/cli.e2e.test.js',
  'test/e2e/caldav-clients.e2e.test.js',
  'test/e2e/collab.e2e.test.js',
  'test/e2e/import-files.e2e.test.js',
  'test/e2e/import-v3.e2e.test.js',
  'test/e2e/serve.e2e.test.js',
  'test/e2e/webhooks.e2e.test.js',
  'test/fuzz/fuzz.test.js',
  'test/sync/documents-sync.test.js',
  'test/sync/sharing-sync.test.js',
  // Of the browser tests, the to-do and collaborators pages run on both databases: their scripts
  // poll for changes and share across accounts; so does the app passwords walk (a few seconds),
  // whose passwords sign in through the service the CalDAV face calls, and the calendar feeds walk,
  // whose addresses are fetched as a calendar fetches them. The account and organize
  // pages run on SQLite only: every one of their forms runs on PostgreSQL in its inject test
  // (src/web/), and a browser adds nothing that depends on the database but 80 s of a test run's time.
  'test/web/app-passwords.browser.test.js',
  'test/web/collaborators.browser.test.js',
  'test/web/feeds.browser.test.js',
  'test/web/tasks.browser.test.js',
  'test/sync/stamps.property.test.js',
  'test/sync/changes.property.test.js',
  'test/sync/caldav.property.test.js',
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
 * The files that get a test process of their own: they spend seconds waiting on child processes,
 * browsers, sockets or PostgreSQL (the storage contracts, the sync properties), or hash at the
 * production cost, so they run beside the rest rather than in a queue with it, and the shards of
 * the rest come out about even. Sharing a process with other files would also mix their
 * process-wide handlers (the fuzzer's uncaughtException watch) into the other files' tests.
 */
const ALONE = ['test/web/', 'test/fuzz/', 'test/crashloop/', 'test/e2e/', 'test/sync/', 'src/storage/', 'src/lib/password.'];
const path = (f) => relative(dist, f);
const alone = (f) => ALONE.some((prefix) => path(f).startsWith(prefix));

/**
 * The order the test processes start in: the longest first, as measured on a loaded machine (the
 * browser tests and import v3 20 to 60 s, the crash loop and end-to-end tests 5 to 25, the
 * PostgreSQL storage contract 15 to 20, the shards 4 to 10), so that no long one starts last and
 * runs alone while the other slots stand idle.
 */
const ORDER = ['test/web/', 'test/e2e/import-v3.', 'test/crashloop/', 'test/e2e/', 'src/storage/postgres/', 'test/fuzz/', '(the shards)', ''];
const order = (job) => ORDER.findIndex((prefix) => (job.shard ? prefix === '(the shards)' : path(job.files[0]).startsWith(prefix)));

/** Test processes at once: the machine's cores twice over, as much of a test's time is waiting. */
const PARALLEL = Math.max(2, availableParallelism()) * 2;
/**
 * Browser tests at once: each drives a Chromium of several processes, and more of them than cores
 * starve one another into their timeouts.
 */
const BROWSERS = Math.max(1, availableParallelism());
const browser = (job) => !job.shard && path(job.files[0]).startsWith('test/web/');
/** Shards per pass for the files that share test processes: a process each costs its start-up again. */
const SHARDS = Math.max(2, availableParallelism());

/**
 * The test processes of one pass: each ALONE file by itself, then the other files dealt in turn
 * into SHARDS shards (none of them takes more than a second alone).
 */
function jobs(files, store) {
  const own = files.filter(alone).sort();
  const shared = files.filter((f) => !alone(f)).sort();
  const shards = Array.from({ length: Math.min(SHARDS, shared.length) }, () => []);
  shared.forEach((f, i) => shards[i % shards.length].push(f));
  return [...own.map((f) => ({ files: [f], store, shard: false })), ...shards.map((group) => ({ files: group, store, shard: true }))];
}

/**
 * node:test's isolation "none" arrived in Node.js 22.8 (this flag's name is still accepted by 24);
 * an earlier 22 runs a shard's files in a process each, which is slower but tests the same.
 */
const [major, minor] = process.versions.node.split('.').map(Number);
const SHARED_PROCESS = major > 22 || (major === 22 && minor >= 8) ? ['--experimental-test-isolation=none'] : [];

/** Writes a line per skipped suite or test (scripts/skip-reporter.mjs) beside the spec report. */
const SKIP_REPORTER = pathToFileURL(join(root, 'scripts', 'skip-reporter.mjs')).href;

/** Runs one test process over `job.files`, its report into a file (and its skips into `.skips`); resolves to the exit code. */
function run(job, reportTo) {
  const args = [
    '--enable-source-maps',
    '--test',
    ...SHARED_PROCESS,
    '--test-reporter=spec',
    `--test-reporter-destination=${reportTo}`,
    `--test-reporter=${SKIP_REPORTER}`,
    `--test-reporter-destination=${reportTo}.skips`,
  ];
  const child = spawn(process.execPath, [...args, ...job.files], {
    stdio: ['ignore', 'inherit', 'inherit'],
    cwd: root,
    // Compiled code cached between processes (and runs): the tests start about 30 CLI processes.
    env: { NODE_COMPILE_CACHE: join(tmpdir(), 'tickler-compile-cache'), ...process.env, TEST_STORE: job.store },
  });
  return new Promise((resolve) => {
    child.on('error', () => resolve(1));
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/** The figure after `ℹ <name>` in a spec report (0 when absent). */
function figure(report, name) {
  const m = report.match(new RegExp(`^ℹ ${name} (\\d+)`, 'm'));
  return m ? Number(m[1]) : 0;
}

/** Runs `all` jobs, PARALLEL at a time, in order; prints each report as its process ends. */
async function runAll(all, reportDir) {
  const totals = { sqlite: { tests: 0, pass: 0, fail: 0, cancelled: 0 }, postgres: { tests: 0, pass: 0, fail: 0, cancelled: 0 } };
  /** Every skipped suite and test: { store, kind, name, file, reason }. */
  const skips = [];
  const failures = [];
  const pending = [...all];
  let browsers = 0;
  let failed = false;
  async function worker() {
    for (;;) {
      const next = pending.findIndex((job) => !browser(job) || browsers < BROWSERS);
      // Only browser tests are left and BROWSERS of them run: the workers running those take the rest.
      if (next === -1) return;
      const [job] = pending.splice(next, 1);
      if (browser(job)) browsers += 1;
      const reportTo = join(reportDir, `${all.indexOf(job)}.txt`);
      const started = Date.now();
      const code = await run(job, reportTo);
      if (browser(job)) browsers -= 1;
      const report = existsSync(reportTo) ? readFileSync(reportTo, 'utf8') : '';
      const names = job.files.map(path);
      const what = job.shard ? `shard of ${names.length} files (${names[0]} …)` : names[0];
      console.log(`\n── ${job.store}: ${what}, ${((Date.now() - started) / 1000).toFixed(1)} s${code === 0 ? '' : `, exit ${code}`}`);
      process.stdout.write(report);
      for (const key of ['tests', 'pass', 'fail', 'cancelled']) totals[job.store][key] += figure(report, key);
      skips.push(...skipsOf(`${reportTo}.skips`).map((skip) => ({ ...skip, store: job.store })));
      if (code !== 0) {
        failed = true;
        const tail = report.indexOf('✖ failing tests:');
        failures.push(`${job.store}: ${what}, exit ${code}\n${tail === -1 ? '(no report of failing tests: see its output above)\n' : report.slice(tail)}`);
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(PARALLEL, all.length) }, worker));
  return { totals, skips, failures, failed };
}

/** The skip reporter's lines (none when the process died before writing them). */
function skipsOf(file) {
  return existsSync(file) ? parseSkips(readFileSync(file, 'utf8')) : [];
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
  .filter((f) => filters.length === 0 || filters.some((s) => path(f).includes(s)))
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
const secondPass = pgUrl ? files.filter((f) => SECOND_PASS.includes(path(f))) : [];
const leftOut = files.filter((f) => !SECOND_PASS.includes(path(f)) && readFileSync(f, 'utf8').includes('testContext('));

// The two passes run side by side: much of a test's time is spent waiting (on fsync, on
// PostgreSQL, on child processes), so each pass fills the other's idle time.
const sqliteJobs = jobs(files, 'sqlite');
const postgresJobs = jobs(secondPass, 'postgres');
const ordered = [...sqliteJobs, ...postgresJobs].sort((a, b) => order(a) - order(b));
const reportDir = mkdtempSync(join(tmpdir(), 'tickler-test-'));
const started = Date.now();
const { totals, skips, failures, failed } = await runAll(ordered, reportDir);
rmSync(reportDir, { recursive: true, force: true });

console.log(`\n${files.length} test files on SQLite, ${secondPass.length} on PostgreSQL (scripts/test.mjs, SECOND_PASS); ${ordered.length} test processes, ${((Date.now() - started) / 1000).toFixed(1)} s`);
for (const store of ['sqlite', 'postgres']) {
  if (store === 'postgres' && secondPass.length === 0) continue;
  // A suite skipped whole declares no tests: its tests are in neither figure, so it is counted apart.
  console.log(passLine(store, totals[store], skips));
}
// What was left out, by cause: a green run with any of these lines is not a whole run.
const postgresPassFiles = pgUrl ? 0 : files.filter((f) => SECOND_PASS.includes(path(f))).length;
for (const line of skipLines(skips, postgresPassFiles)) console.log(line);
const postgresMissing = !pgUrl && inCi;
if (postgresMissing) console.error('CI is set: the PostgreSQL part must run. Set TEST_DATABASE_URL.');
// In CI every part runs (.ci/run installs Chromium and starts PostgreSQL): a skip is a broken machine.
const skippedInCi = inCi && skips.length > 0;
if (skippedInCi) {
  const suites = skips.filter((skip) => skip.kind === 'suite').length;
  const causes = [...new Set(skips.map((skip) => causeOf(skip.reason)))];
  console.error(`CI is set: nothing may be skipped, and ${counted(suites, skips.length - suites)} were: ${causes.join('; ')}`);
}
for (const f of leftOut) console.error(`not run on PostgreSQL, though it uses the test harness: ${path(f)} (add it to SECOND_PASS in scripts/test.mjs)`);
if (failures.length > 0) console.error(`\nFailed:\n${failures.join('\n')}`);
process.exit(failed || postgresMissing || skippedInCi || (inCi && leftOut.length > 0) ? 1 : 0);
