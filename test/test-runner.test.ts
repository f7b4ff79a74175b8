import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** scripts/ of the project (this file runs from dist/test/). */
const SCRIPTS = fileURLToPath(new URL('../../scripts/', import.meta.url));

interface Skip {
  readonly kind: 'suite' | 'test';
  readonly name: string;
  readonly reason: string;
  readonly store?: string;
}
interface Summary {
  parseSkips(text: string): Skip[];
  skipLines(skips: readonly Skip[], postgresPassFiles: number): string[];
  passLine(store: string, totals: { tests: number; pass: number; fail: number; cancelled: number }, skips: readonly Skip[]): string;
}

/**
 * What `npm test` says of the parts it skipped (scripts/test.mjs): a suite skipped whole, as the
 * browser suites are without Chromium, declares no tests, and the spec reporter counted it as
 * "tests 0, skipped 0". The skip reporter is run here by node:test itself over a small test file.
 */
describe('the test runner counts what it skipped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tickler-runner-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('every skipped suite and test, apart from the tests that ran, with its cause', async () => {
    const file = join(dir, 'skips.test.mjs');
    writeFileSync(
      file,
      `import { describe, it } from 'node:test';
describe('in a browser', { skip: 'Chromium is not installed (apt-get install -y chromium); CI fails instead of skipping' }, () => { it('a', () => {}); it('b', () => {}); });
describe('on PostgreSQL', () => { it('c', { skip: 'TEST_DATABASE_URL is not set' }, () => {}); it('d', () => {}); });
`,
    );
    const out = join(dir, 'skips.txt');
    const reporter = pathToFileURL(join(SCRIPTS, 'skip-reporter.mjs')).href;
    const run = spawnSync(process.execPath, ['--test', `--test-reporter=${reporter}`, `--test-reporter-destination=${out}`, file], {
      encoding: 'utf8',
      // A test process of node:test's own tells its children to report to it instead: this one reports to its file.
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT')),
    });
    assert.equal(run.status, 0, run.stderr);
    const summary = (await import(pathToFileURL(join(SCRIPTS, 'skip-summary.mjs')).href)) as Summary;
    const skips = summary.parseSkips(readFileSync(out, 'utf8')).map((s) => ({ ...s, store: 'sqlite' }));
    assert.deepEqual(
      skips.map((s) => [s.kind, s.name]),
      [
        ['suite', 'in a browser'],
        ['test', 'c'],
      ],
    );
    assert.equal(summary.passLine('sqlite', { tests: 2, pass: 1, fail: 0, cancelled: 0 }, skips), 'sqlite: 2 tests, 1 passed, 0 failed, 0 cancelled, 1 skipped; 1 suite skipped whole');
    assert.deepEqual(summary.skipLines(skips, 3), [
      '',
      'NOT A WHOLE RUN: parts were skipped.',
      'skipped, no Chromium (apt-get install chromium, or CHROMIUM_PATH): 1 suite on sqlite',
      'skipped, no PostgreSQL (TEST_DATABASE_URL is not set): 1 test on sqlite',
      'skipped, no PostgreSQL (TEST_DATABASE_URL is not set): the PostgreSQL pass, 3 test files (.ci/run sets it; see README, Development)',
    ]);
    assert.deepEqual(summary.skipLines([], 0), [], 'a whole run says nothing of skips');
  });
});
