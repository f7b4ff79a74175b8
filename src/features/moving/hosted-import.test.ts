import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostedFixture as fixture } from '../../../test/fixtures.js';
import { createAccount, testContext, type TestContext } from '../../../test/harness.js';
import { exportAccount } from './export.service.js';
import { exportTasksCsv } from './export-formats.js';
import { HostedFileSource } from './hosted-source.js';
import { runImport, type ImportSummary } from './import.service.js';

/**
 * import csv and import xml through the import engine: the same rules, id map, dry run and
 * second-run idempotence as import v3, organisers matched by name, nothing deleted because a
 * file lacks it.
 */
describe('import of the hosted export files', () => {
  let ctx: TestContext;

  before(async () => {
    ctx = await testContext();
  });
  after(async () => ctx.close());

  const csv = (name = 'tasks.csv'): HostedFileSource => HostedFileSource.parse('csv', fixture(name));
  const xml = (): HostedFileSource => HostedFileSource.parse('xml', fixture('backup.xml'));
  const nothingWritten = (s: ImportSummary): void => {
    for (const [kind, t] of Object.entries(s.kinds)) assert.deepEqual([t.created, t.updated, t.deleted], [0, 0, 0], kind);
  };

  it('CSV: tasks with their organisers, dates, times and rules; a second run adds nothing', async () => {
    const account = await createAccount(ctx, { pro: 2 });
    const first = await runImport(ctx.deps, account.pk, csv());
    assert.deepEqual(first.refusals, []);
    assert.equal(first.kinds.task.created, 7);
    assert.equal(first.kinds.folder.created, 2);
    assert.equal(first.warnings.length, 6);
    const doc = await exportAccount(ctx.deps, account.pk);
    assert.deepEqual(doc.folders.map((f) => f['name']).sort(), ['Home', 'Work']);
    assert.deepEqual(doc.contexts.map((c) => c['name']).sort(), ['Office', 'Phone']);
    assert.deepEqual([doc.goals.length, doc.locations.length], [1, 1]);
    const task = (title: string) => doc.tasks.find((t) => t['title'] === title) as Record<string, unknown>;
    const home = doc.folders.find((f) => f['name'] === 'Home')?.['id'];
    const ann = task('Call Ann');
    assert.equal(ann['folder'], home);
    assert.equal(ann['duedate'], Date.UTC(2026, 2, 2, 12) / 1000);
    assert.equal(ann['duetime'], Date.UTC(2026, 2, 2, 20) / 1000);
    assert.equal(ann['note'], 'She asked about the trip,\r\nand the "big" question');
    assert.equal(ann['status'], 5);
    assert.equal(task('Pay the rent')['tag'], 'money, bills');
    assert.equal(task('Pay the rent')['repeat'], 'FREQ=MONTHLY');
    assert.equal(task('Write the report')['repeat'], 'FREQ=WEEKLY;BYDAY=MO,WE');
    assert.equal(task('Write the report')['timer'], 1200);
    assert.equal(task('Water the plants')['folder'], home, '"home" is the folder Home');
    assert.equal(task('Odd one')['duedate'], 0, 'what cannot be read is left out, not guessed');

    const again = await runImport(ctx.deps, account.pk, csv());
    nothingWritten(again);
    assert.equal(again.kinds.task.unchanged, 7);
    assert.equal((await exportAccount(ctx.deps, account.pk)).tasks.length, 7);

    // A later export with one note changed: that task is updated, the rest passed over.
    const edited = HostedFileSource.parse('csv', fixture('tasks.csv').replace('Transfer to the landlord', 'Pay cash'));
    const third = await runImport(ctx.deps, account.pk, edited);
    assert.deepEqual([third.kinds.task.created, third.kinds.task.updated, third.kinds.task.unchanged], [0, 1, 6]);
    const after3 = await exportAccount(ctx.deps, account.pk);
    assert.equal(after3.tasks.find((t) => t['title'] === 'Pay the rent')?.['note'], 'Pay cash');
    assert.equal(after3.tasks.find((t) => t['title'] === 'Pay the rent')?.['added'], task('Pay the rent')['added'], 'added is kept');
  });

  it('the completed file after the current one: completed tasks added, nothing of the first file deleted', async () => {
    const account = await createAccount(ctx, { pro: 2 });
    await runImport(ctx.deps, account.pk, csv());
    const done = await runImport(ctx.deps, account.pk, csv('completed.csv'));
    assert.equal(done.kinds.task.created, 2);
    nothingWritten({ ...done, kinds: { ...done.kinds, task: { ...done.kinds.task, created: 0 }, folder: { ...done.kinds.folder, created: 0 } } });
    const doc = await exportAccount(ctx.deps, account.pk);
    assert.equal(doc.tasks.length, 9);
    assert.deepEqual(doc.folders.map((f) => f['name']).sort(), ['Home', 'Shopping', 'Work']);
    const taxes = doc.tasks.find((t) => t['title'] === 'File the taxes');
    assert.equal(taxes?.['completed'], Date.UTC(2026, 0, 30, 12) / 1000);
    assert.equal(taxes?.['priority'], 3);
    assert.equal(doc.tasks.find((t) => t['title'] === 'Buy a lamp')?.['status'], 9);
  });

  it('an account that has the names already: its folders are used, not doubled', async () => {
    const account = await createAccount(ctx, { pro: 2 });
    await runImport(ctx.deps, account.pk, xml());
    const before = (await exportAccount(ctx.deps, account.pk)).folders;
    await runImport(ctx.deps, account.pk, csv());
    const folders = (await exportAccount(ctx.deps, account.pk)).folders;
    assert.deepEqual(folders.map((f) => f['name']).sort(), ['Home', 'Work']);
    assert.equal(folders.find((f) => f['name'] === 'Home')?.['id'], before.find((f) => f['name'] === 'Home')?.['id']);
  });

  it('--dry-run counts what would be created and writes nothing', async () => {
    const account = await createAccount(ctx, { pro: 2 });
    const dry = await runImport(ctx.deps, account.pk, csv(), { dryRun: true });
    assert.equal(dry.dryRun, true);
    assert.equal(dry.kinds.task.created, 7);
    assert.equal(dry.kinds.folder.created, 2);
    const doc = await exportAccount(ctx.deps, account.pk);
    assert.deepEqual([doc.tasks.length, doc.folders.length, doc.contexts.length], [0, 0, 0]);
    // And a real run after it is a first run.
    const real = await runImport(ctx.deps, account.pk, csv());
    assert.equal(real.kinds.task.created, 7);
  });

  it('XML: subtasks under their parent in the backup order, completed and repeating tasks; a second run adds nothing', async () => {
    const account = await createAccount(ctx, { pro: 2 });
    const first = await runImport(ctx.deps, account.pk, xml());
    assert.deepEqual(first.refusals, []);
    assert.equal(first.kinds.task.created, 4);
    const doc = await exportAccount(ctx.deps, account.pk);
    const task = (title: string) => doc.tasks.find((t) => t['title'] === title) as Record<string, unknown>;
    const plan = task('Plan the move');
    assert.equal(task('Book the van')['parent'], plan['id']);
    assert.equal(task('Tell the bank')['parent'], plan['id']);
    assert.deepEqual([task('Tell the bank')['order'], task('Book the van')['order']], [1, 2]);
    assert.equal(task('Book the van')['completed'], Date.UTC(2026, 2, 15, 12) / 1000);
    assert.equal(task('Tell the bank')['repeat'], 'FREQ=WEEKLY;FROMCOMP');
    assert.equal(plan['note'], 'Boxes & tape <lots>');
    assert.deepEqual([plan['priority'], plan['status'], plan['duedatemod'], plan['star'], plan['length']], [1, 3, 1, 1, 120]);
    assert.equal(plan['starttime'], Date.UTC(2026, 3, 1, 9) / 1000);
    assert.equal(task('Daily walk')['folder'], 0);
    assert.deepEqual([doc.contexts.length, doc.goals.length, doc.locations.length], [1, 1, 1]);
    nothingWritten(await runImport(ctx.deps, account.pk, xml()));
  });

  it('subtasks need pro: without it they arrive at the top level and the summary says so', async () => {
    const account = await createAccount(ctx, { pro: 0 });
    const s = await runImport(ctx.deps, account.pk, xml());
    assert.equal(s.kinds.task.created, 4);
    assert.ok(s.warnings.some((w) => /subtasks were copied as top-level tasks/.test(w)));
  });

  it('a notebook file becomes notes in their folders', async () => {
    const account = await createAccount(ctx, { pro: 2 });
    const s = await runImport(ctx.deps, account.pk, csv('notebook.csv'));
    assert.equal(s.kinds.note.created, 2);
    const doc = await exportAccount(ctx.deps, account.pk);
    const packing = doc.notes.find((n) => n['title'] === 'Packing list');
    assert.equal(packing?.['text'], 'passport\r\ncharger, adapter');
    assert.equal(packing?.['folder'], doc.folders.find((f) => f['name'] === 'Home')?.['id']);
    assert.equal(packing?.['added'], Date.UTC(2025, 10, 2, 12) / 1000);
    nothingWritten(await runImport(ctx.deps, account.pk, csv('notebook.csv')));
  });

  it("Tickler's own CSV export reads back: ids, subtasks, rules, dates and times", async () => {
    const from = await createAccount(ctx, { pro: 2 });
    await runImport(ctx.deps, from.pk, xml());
    await runImport(ctx.deps, from.pk, csv());
    const text = await exportTasksCsv(ctx.deps, from.pk);
    const to = await createAccount(ctx, { pro: 2 });
    const s = await runImport(ctx.deps, to.pk, HostedFileSource.parse('csv', text));
    assert.deepEqual(s.refusals, []);
    assert.deepEqual(s.warnings, []);
    const [a, b] = [await exportAccount(ctx.deps, from.pk), await exportAccount(ctx.deps, to.pk)];
    assert.equal(b.tasks.length, a.tasks.length);
    // What the CSV holds, with organisers and parents by name.
    const view = (doc: typeof a) => {
      const title = new Map(doc.tasks.map((t) => [t['id'], t['title']]));
      const names = (kind: 'folders' | 'contexts' | 'goals' | 'locations') => new Map(doc[kind].map((r) => [r['id'], r['name']]));
      const [f, c, g, l] = [names('folders'), names('contexts'), names('goals'), names('locations')];
      const fields = ['title', 'tag', 'duedate', 'duetime', 'startdate', 'starttime', 'repeat', 'length', 'timer', 'priority', 'status', 'star', 'note', 'completed', 'added'];
      return doc.tasks
        .map((t) => ({ ...Object.fromEntries(fields.map((k) => [k, t[k]])), folder: f.get(t['folder']), context: c.get(t['context']), goal: g.get(t['goal']), location: l.get(t['location']), parent: title.get(t['parent']) }))
        .sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
    };
    assert.deepEqual(view(b), view(a));
    nothingWritten(await runImport(ctx.deps, to.pk, HostedFileSource.parse('csv', text)));
  });

  it('5,000 rows: one run creates them all, a second writes nothing (its time is printed)', async () => {
    const account = await createAccount(ctx, { pro: 2 });
    const lines = ['"TASK","FOLDER","CONTEXT","DUEDATE","DUETIME","REPEAT","PRIORITY","STATUS","STAR","NOTE"'];
    for (let i = 0; i < 5000; i++) lines.push(`"Task ${i}","Folder ${i % 20}","Context ${i % 7}","2026-${String((i % 12) + 1).padStart(2, '0')}-15","${(i % 12) + 1}:30 pm","${i % 5 === 0 ? 'Weekly' : ''}","${i % 4}","Next Action","${i % 2 ? 'Yes' : 'No'}","note ${i}"`);
    const text = `${lines.join('\r\n')}\r\n`;
    let started = Date.now();
    const first = await runImport(ctx.deps, account.pk, HostedFileSource.parse('csv', text));
    const firstSeconds = (Date.now() - started) / 1000;
    assert.deepEqual([first.kinds.task.created, first.kinds.folder.created, first.kinds.context.created], [5000, 20, 7]);
    started = Date.now();
    const again = await runImport(ctx.deps, account.pk, HostedFileSource.parse('csv', text));
    nothingWritten(again);
    console.log(`import csv of 5,000 rows (${ctx.deps.store.dialect}): ${firstSeconds.toFixed(1)} s; again, nothing written: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });

  it('a row the task rules refuse is reported, the others go in', async () => {
    const account = await createAccount(ctx, { pro: 2 });
    const text = `TASK,FOLDER,DUEDATE\r\n,Home,2026-01-01\r\nFine,Home,2026-02-30\r\nGood,Home,2026-03-01\r\n${'x'.repeat(300)},,\r\n`;
    const s = await runImport(ctx.deps, account.pk, HostedFileSource.parse('csv', text));
    assert.equal(s.kinds.task.created, 1);
    assert.equal(s.kinds.task.refused, 3);
    assert.equal(s.refusals.length, 3);
  });
});
