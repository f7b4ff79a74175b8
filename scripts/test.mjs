#!/usr/bin/env node
// Runs every compiled test file (dist/**/*.test.js) with node:test. `npm test` compiles first
// (type-checking the tests too). Arguments filter test files by substring:
//   npm test -- token        runs only files whose path contains "token".
//
// Two passes: every file on SQLite; then, when TEST_DATABASE_URL names a PostgreSQL database, the
// files that build the app through the test harness again with TEST_STORE=postgres (the storage
// contract runs on PostgreSQL in the first pass already). Without TEST_DATABASE_URL the second
// pass is skipped, and says so; with it, an unreachable database fails the run.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import pg from 'pg';
import { requireSupportedNode } from './node-version.mjs';

requireSupportedNode('npm test');

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return find(p);
    return e.name.endsWith('.test.js') ? [p] : [];
  });
}

function run(files, env) {
  const concurrency = Math.max(2, availableParallelism());
  const result = spawnSync(
    process.execPath,
    ['--enable-source-maps', '--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...files],
    { stdio: 'inherit', cwd: root, env: { ...process.env, ...env } },
  );
  return result.status ?? 1;
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

const sqlite = run(files, { TEST_STORE: 'sqlite' });
if (!pgUrl) {
  console.log('\nPostgreSQL part skipped: TEST_DATABASE_URL is not set (.ci/run sets it; see README, Development).');
  process.exit(sqlite);
}
const onHarness = files.filter((f) => readFileSync(f, 'utf8').includes('testContext('));
console.log(`\nSecond pass on PostgreSQL: ${onHarness.length} test files through the HTTP harness`);
const postgres = onHarness.length > 0 ? run(onHarness, { TEST_STORE: 'postgres' }) : 0;
process.exit(sqlite || postgres);
