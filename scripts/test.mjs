#!/usr/bin/env node
// Runs every compiled test file (dist/**/*.test.js) with node:test. `npm test` compiles first
// (type-checking the tests too). Arguments filter test files by substring:
//   npm test -- token        runs only files whose path contains "token".
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return find(p);
    return e.name.endsWith('.test.js') ? [p] : [];
  });
}

const filters = process.argv.slice(2);
const files = find(dist)
  .filter((f) => filters.length === 0 || filters.some((s) => relative(dist, f).includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}
const concurrency = Math.max(2, availableParallelism());
const result = spawnSync(
  process.execPath,
  ['--enable-source-maps', '--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...files],
  { stdio: 'inherit', cwd: root },
);
process.exit(result.status ?? 1);
