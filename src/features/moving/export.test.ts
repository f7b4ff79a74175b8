import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse as parseCsv } from 'csv-parse/sync';
import ICAL from 'ical.js';
import ical from 'node-ical';
import { newTask } from '../../../test/factories.js';
import { comparableExport } from '../../../test/export-compare.js';
import { api, createAccount, signIn, testContext, type TestContext } from '../../../test/harness.js';
import { exportAccount } from './export.service.js';
import { exportTasksCsv, exportTasksIcal } from './export-formats.js';
import { runImport } from './import.service.js';
import { JsonSource } from './json-source.js';

/**
 * The exports: the whole account as JSON, read back by import json without losing anything (ids
 * aside, which are the new account's, and the change stamps, which are the import's); tasks as
 * CSV and as iCalendar, each checked by parsing it with a maintained library.
 */
describe('exports', () => {
  let ctx: TestContext;
  let pk: number;

  before(async () => {
    ctx = await testContext();
    const { account, token } = await signIn(ctx, { pro: 2, scope: 'basic tasks notes outlines lists write' });
    pk = account.pk;
    const call = async (path: string, form: Record<string, string>): Promise<unknown> => (await api(ctx, token, path, form)).json();
    const folder = ((await call('/3/folders/add.php', { name: 'Work' })) as Array<{ id: number }>)[0]?.id;
    await call('/3/folders/add.php', { name: 'Later' });
    const life = ((await call('/3/goals/add.php', { name: 'Life', level: '0' })) as Array<{ id: number }>)[0]?.id;
    await call('/3/goals/add.php', { name: 'Year', level: '1', contributes: String(life), private: '1' });
    await call('/3/contexts/add.php', { name: 'Phone' });
    await call('/3/locations/add.php', { name: 'Home', lat: '1.5', lon: '-2.25' });
    const [note] = (await call('/3/notes/add.php', { notes: JSON.stringify([{ title: 'N', text: 'a\nb', folder }]) })) as Array<{ id: number }>;
    await call('/3/outlines/add.php', { outlines: JSON.stringify([{ title: 'O', ref: 'o', nodes: [{ content: 'x', children: [{ content: 'y' }] }] }]) });
    const [list] = (await call('/3/lists/add.php', { lists: JSON.stringify([{ title: 'L', ref: 'l', cols: [{ title: 'A', type: 19 }, { title: 'B', type: 9, choices: ['p', 'q'] }] }]) })) as Array<{ id: string }>;
    await call('/3/rows/add.php', { rows: JSON.stringify([{ list: list?.id, ref: 'r', cells: { c1: 'v', c2: ['q', 'p'] } }]) });
    const [parent] = (await call('/3/tasks/add.php', {
      tasks: JSON.stringify([
        { title: 'Parent, "quoted"', note: 'line 1\nline 2, with a comma', tag: 'x, y', folder, duedate: 1767268800, duetime: 1767225600 + 9 * 3600 + 1800, startdate: 1767096000, repeat: 'FREQ=WEEKLY;BYDAY=MO;FROMCOMP', priority: 3, star: 1, attach: [{ kind: 'note', id: note?.id }] },
      ]),
    })) as Array<{ id: number }>;
    await call('/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'Child', parent: parent?.id, completed: 1767268800 }, { title: 'Due only', duedate: 1767355200 }, { title: 'Canceled', status: 9, startdate: 1767355200 }]) });
  });

  after(async () => ctx.close());

  it('the JSON document round-trips through import json, and a second import adds nothing', async () => {
    const doc = await exportAccount(ctx.deps, pk);
    assert.equal(doc.tasks.length, 4);
    assert.equal(doc.goals.find((g) => g['name'] === 'Year')?.['private'], 1, 'goals keep private');
    const other = await createAccount(ctx, { pro: 2 });
    const text = JSON.stringify(doc);
    const first = await runImport(ctx.deps, other.pk, JsonSource.parse(text));
    assert.deepEqual(first.refusals, []);
    assert.equal(first.kinds.task.created, 4);
    const back = await exportAccount(ctx.deps, other.pk);
    assert.deepEqual(comparableExport(back), comparableExport(doc));
    const again = await runImport(ctx.deps, other.pk, JsonSource.parse(text));
    for (const [kind, t] of Object.entries(again.kinds)) assert.deepEqual([t.created, t.updated, t.deleted], [0, 0, 0], kind);
    // A dry run of a third account writes nothing.
    const third = await createAccount(ctx, { pro: 2 });
    const dry = await runImport(ctx.deps, third.pk, JsonSource.parse(text), { dryRun: true });
    assert.equal(dry.kinds.task.created, 4);
    assert.equal((await exportAccount(ctx.deps, third.pk)).tasks.length, 0);
  });

  it('refuses what is not an export', () => {
    assert.throws(() => JsonSource.parse('{"format":"something else"}'), /not a tickler-export/);
    assert.throws(() => JsonSource.parse('not json'), /not JSON/);
  });

  it('tasks as CSV: the hosted service\'s columns, quoting that survives commas, quotes and line breaks', async () => {
    const csv = await exportTasksCsv(ctx.deps, pk);
    const rows = parseCsv(csv, { columns: true }) as Array<Record<string, string>>;
    assert.equal(rows.length, 4);
    const parent = rows.find((r) => r['TASK'] === 'Parent, "quoted"');
    assert.equal(parent?.['NOTE'], 'line 1\nline 2, with a comma');
    assert.equal(parent?.['FOLDER'], 'Work');
    assert.equal(parent?.['DUEDATE'], '2026-01-01');
    assert.equal(parent?.['DUETIME'], '9:30 am');
    assert.equal(parent?.['STAR'], 'Yes');
    assert.equal(parent?.['TAG'], 'x, y');
    const child = rows.find((r) => r['TASK'] === 'Child');
    assert.equal(child?.['PARENT'], parent?.['ID']);
    assert.equal(child?.['COMPLETED'], '2026-01-01');
  });

  it('tasks as iCalendar: VTODOs a maintained parser reads, by the mapping CalDAV serves, with rules, subtasks and states', async () => {
    const text = await exportTasksIcal(ctx.deps, pk);
    const parsed = ical.sync.parseICS(text);
    const todos = Object.values(parsed).filter((c) => c?.type === 'VTODO') as unknown as Array<Record<string, unknown>>;
    assert.equal(todos.length, 4);
    const byTitle = (t: string) => todos.find((c) => c['summary'] === t) as Record<string, unknown>;
    const parent = byTitle('Parent, "quoted"');
    assert.equal(parent['description'], 'line 1\nline 2, with a comma');
    // The clock time stored, in the account's clock (UTC-5 here), sent with the file as a time zone
    // of its own: the task repeats, and repeats on that clock's days.
    assert.match(text, /\r\nDUE;TZID=Tickler UTC-0500:20260101T093000\r\n/);
    assert.match(text, /\r\nTZOFFSETTO:-0500\r\n/);
    // A start day beside a due time cannot be DTSTART (RFC 5545 3.8.2.3: one value type for both).
    assert.match(text, /\r\nX-TICKLER-START:20251230\r\n/, 'a start without a time stays a date');
    assert.match(text, /\r\nRRULE:FREQ=WEEKLY;BYDAY=MO\r\n/);
    assert.equal(parent['priority'], '1');
    assert.deepEqual(parent['categories'], ['x', 'y', 'Work']);
    assert.ok(parent['rrule'], 'the rule is read');
    const child = byTitle('Child');
    assert.equal(child['status'], 'COMPLETED');
    assert.ok(child['completed']);
    const related = child['related-to'] as { val?: string; params?: { RELTYPE?: string } } | string;
    assert.equal(typeof related === 'string' ? related : related.val, parent['uid']);
    assert.match(text, /RELATED-TO;RELTYPE=PARENT:task-/);
    assert.match(text, /\r\nDUE;VALUE=DATE:20260102\r\n/, 'a date without a time is a DATE');
    assert.equal(byTitle('Canceled')['status'], 'CANCELLED');
  });

  it('a stored rule iCalendar cannot hold (no frequency, an unknown frequency) is kept as X-TICKLER-REPEAT, and the file still parses', async () => {
    const other = await createAccount(ctx);
    const repeats = ['BYDAY=MO', 'INTERVAL=2;FASTFORWARD', 'FREQ=FORTNIGHTLY'];
    await ctx.deps.store.transaction(async (tx) => {
      const first = await tx.accounts.allocateIds(other.pk, 'task', repeats.length);
      await tx.tasks.insertMany(other.pk, repeats.map((repeat, i) => newTask(first + i, { title: `Rule ${i}`, repeat })));
    });
    const text = await exportTasksIcal(ctx.deps, other.pk);
    // ical.js itself, which wrote it, reads it back (FREQ=null was what it could not read).
    ICAL.parse(text);
    const todos = Object.values(ical.sync.parseICS(text)).filter((c) => c?.type === 'VTODO');
    assert.equal(todos.length, 3);
    assert.doesNotMatch(text, /RRULE/);
    for (const repeat of repeats) assert.match(text, new RegExp(`\\r\\nX-TICKLER-REPEAT:${repeat}\\r\\n`));
  });
});
