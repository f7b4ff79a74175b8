// What scripts/test.mjs says about the suites and tests that were skipped, from the lines of
// scripts/skip-reporter.mjs: counted apart from the tests that ran (a suite skipped whole declares
// no tests), and by cause, so that a green run that left parts out cannot pass for a whole one.

/** Why a part was left out, in a few words: what the machine lacks. */
export function causeOf(reason) {
  if (/chromium/i.test(reason)) return 'no Chromium (apt-get install chromium, or CHROMIUM_PATH)';
  if (/TEST_DATABASE_URL|PostgreSQL/i.test(reason)) return 'no PostgreSQL (TEST_DATABASE_URL is not set)';
  return reason === '' ? 'skipped without a reason' : reason;
}

/** "5 suites and 4 tests", leaving out what is 0. */
export function counted(suites, tests) {
  const parts = [];
  if (suites > 0) parts.push(`${suites} suite${suites === 1 ? '' : 's'}`);
  if (tests > 0) parts.push(`${tests} test${tests === 1 ? '' : 's'}`);
  return parts.join(' and ');
}

/** The skip reporter's lines, as records ({ kind, name, file, reason }). */
export function parseSkips(text) {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

/**
 * The closing lines about skips: `skips` are the reporter's records with their `store` ('sqlite'
 * or 'postgres'); `postgresPassFiles` the number of files of a PostgreSQL pass that did not run
 * (0 when it ran or had none). No lines when nothing was left out.
 */
export function skipLines(skips, postgresPassFiles) {
  const causes = new Map();
  for (const skip of skips) {
    const cause = causeOf(skip.reason);
    const entry = causes.get(cause) ?? { sqlite: { suites: 0, tests: 0 }, postgres: { suites: 0, tests: 0 } };
    entry[skip.store][skip.kind === 'suite' ? 'suites' : 'tests'] += 1;
    causes.set(cause, entry);
  }
  if (causes.size === 0 && postgresPassFiles === 0) return [];
  const lines = ['', 'NOT A WHOLE RUN: parts were skipped.'];
  for (const [cause, entry] of causes) {
    const where = ['sqlite', 'postgres']
      .filter((store) => entry[store].suites + entry[store].tests > 0)
      .map((store) => `${counted(entry[store].suites, entry[store].tests)} on ${store}`);
    lines.push(`skipped, ${cause}: ${where.join(', ')}`);
  }
  if (postgresPassFiles > 0) {
    lines.push(`skipped, ${causeOf('TEST_DATABASE_URL')}: the PostgreSQL pass, ${postgresPassFiles} test file${postgresPassFiles === 1 ? '' : 's'} (.ci/run sets it; see README, Development)`);
  }
  return lines;
}

/** A pass's figures: the spec reporter's, with skipped tests and suites from the skip reporter. */
export function passLine(store, totals, skips) {
  const own = skips.filter((skip) => skip.store === store);
  const suites = own.filter((skip) => skip.kind === 'suite').length;
  return `${store}: ${totals.tests} tests, ${totals.pass} passed, ${totals.fail} failed, ${totals.cancelled} cancelled, ${own.length - suites} skipped; ${suites} suite${suites === 1 ? '' : 's'} skipped whole`;
}
