// A node:test reporter that writes one JSON line per skipped suite or test: its kind, name, file
// and reason. scripts/test.mjs runs it beside the spec reporter and counts the lines, because the
// spec reporter's own "skipped" counts tests only: a suite skipped whole (the browser suites
// without Chromium) declares no tests, and was reported as "tests 0, skipped 0".
export default async function* skipReporter(source) {
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.skip === undefined) continue;
    const { name, file, skip, details } = event.data;
    yield `${JSON.stringify({ kind: details?.type === 'suite' ? 'suite' : 'test', name, file, reason: typeof skip === 'string' ? skip : '' })}\n`;
  }
}
