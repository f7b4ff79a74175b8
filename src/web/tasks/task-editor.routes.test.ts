import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formInputs } from '../../../test/browser.js';
import { api, createOrganizer, signIn, tasksCall, testContext, type TestContext } from '../../../test/harness.js';
import { landed, signedInBrowser, text } from '../../../test/web-pages.js';

/** The editor of one task: every field the API has, saved through tasks/edit, errors by field. */

let ctx: TestContext;
before(async () => {
  ctx = await testContext();
  ctx.clock.set(Date.UTC(2026, 2, 14, 15, 0));
});
after(() => ctx.close());

const FIELDS = 'folder,context,goal,location,tag,startdate,duedate,duedatemod,starttime,duetime,remind,repeat,status,star,priority,length,note,parent';

async function setup() {
  const s = await signIn(ctx, { pro: 1 });
  const b = await signedInBrowser(ctx, s.account);
  await tasksCall(ctx, s.token, 'add', [{ title: 'Plain task' }, { title: 'A parent' }]);
  const [task, parent] = ((await api(ctx, s.token, '/3/tasks/get.php', { fields: FIELDS })).json() as Array<Record<string, unknown>>).slice(1);
  return { ...s, b, id: Number(task?.['id']), parentId: Number(parent?.['id']) };
}

async function fetchTask(token: string, id: number): Promise<Record<string, unknown>> {
  const rows = (await api(ctx, token, '/3/tasks/get.php', { fields: FIELDS, id: String(id), comp: '-1' })).json() as Array<Record<string, unknown>>;
  return rows[1] ?? {};
}

const decode = (s: string): string => s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));

/** The editor form as a browser sends it: every field's current value, then what the test changes. */
function formOfPage(html: string, id: number, fields: Record<string, string>): Record<string, string> {
  const start = html.indexOf(`action="/tasks/${id}"`);
  const form = html.slice(start, html.indexOf('</form>', start));
  const out: Record<string, string> = { ...formInputs(html, `/tasks/${id}`) };
  for (const m of form.matchAll(/<input [^>]*?name="([^"]+)"[^>]*? type="(?:text|date|time|number)" value="([^"]*)"/g)) out[m[1] as string] = decode(m[2] as string);
  for (const m of form.matchAll(/<input type="checkbox" name="([^"]+)" value="1" checked>/g)) out[m[1] as string] = '1';
  for (const m of form.matchAll(/<select [^>]*name="([^"]+)"[^>]*>(.*?)<\/select>/g)) {
    const selected = /<option value="([^"]*)" selected>/.exec(m[2] as string);
    if (selected) out[m[1] as string] = decode(selected[1] as string);
  }
  // A browser drops the line break that follows the tag.
  for (const m of form.matchAll(/<textarea [^>]*name="([^"]+)"[^>]*>\n?([^<]*)<\/textarea>/g)) out[m[1] as string] = decode(m[2] as string);
  return { ...out, ...fields };
}

describe('the task editor', () => {
  it('saves every field through tasks/edit, and the API sees each one', async () => {
    const { account, token, b, id, parentId } = await setup();
    const folder = await createOrganizer(ctx, account, 'folder', 'Work');
    const context = await createOrganizer(ctx, account, 'context', 'Desk');
    const goal = await createOrganizer(ctx, account, 'goal', 'Ship it');
    const location = await createOrganizer(ctx, account, 'location', 'Office');
    const page = await b.get(`/tasks/${id}`);
    assert.equal(page.statusCode, 200);
    for (const label of ['Title', 'Folder', 'Context', 'Goal', 'Location', 'Priority', 'Status', 'Due date', 'Due time', 'Due how', 'Reminder', 'Start date', 'Start time', 'Length (minutes)', 'Completed on', 'Tags', 'Subtask of', 'Note', 'Rule (RRULE text)']) {
      assert.match(page.body, new RegExp(`<label for="f-[a-z_]+">${label.replace(/[()]/g, '\\$&')}</label>`), label);
    }
    const res = await b.post(`/tasks/${id}`, formOfPage(page.body, id, {
      title: 'Edited title', folder: String(folder), context: String(context), goal: String(goal), location: String(location), parent: String(parentId),
      duedate: '2026-03-20', duetime: '00:00', duedatemod: '1', startdate: '2026-03-18', starttime: '08:30', remind: '1440', length: '45',
      status: '2', priority: '3', star: '1', note: 'Line one\nLine two', tag: 'a, b', repeat: '', rb_freq: 'WEEKLY', rb_interval: '2', rb_MO: '1', rb_FR: '1', completed: '',
    }));
    assert.match(text(await landed(b, res)), /Saved\./);
    const t = await fetchTask(token, id);
    assert.deepEqual(t, {
      id, title: 'Edited title', modified: t['modified'], completed: 0, folder, context, goal, location, tag: 'a, b',
      startdate: Date.UTC(2026, 2, 18, 12) / 1000, duedate: Date.UTC(2026, 2, 20, 12) / 1000, duedatemod: 1,
      starttime: Date.UTC(2026, 2, 18, 8, 30) / 1000, duetime: Date.UTC(2026, 2, 20, 0, 0) / 1000, remind: 1440, repeat: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR',
      status: 2, star: 1, priority: 3, length: 45, note: 'Line one\nLine two', parent: parentId,
    });
    const again = await b.get(`/tasks/${id}`);
    assert.match(again.body, /Every 2 weeks on Monday and Friday/);
    assert.match(again.body, /name="duetime"[^>]* type="time" value="00:00">/);
  });

  it('a changed rule text wins over the builder; a rule the server cannot read is refused at its field', async () => {
    const { token, b, id } = await setup();
    const page = await b.get(`/tasks/${id}`);
    await landed(b, await b.post(`/tasks/${id}`, formOfPage(page.body, id, { title: 'R', repeat: 'FREQ=MONTHLY;BYDAY=2TU', rb_freq: 'DAILY' })));
    assert.equal((await fetchTask(token, id))['repeat'], 'FREQ=MONTHLY;BYDAY=2TU');
    const custom = await b.get(`/tasks/${id}`);
    assert.match(text(custom), /Now: Every month on the 2nd Tuesday/);
    assert.match(custom.body, /<option value="custom" selected>/);
    const bad = await landed(b, await b.post(`/tasks/${id}`, formOfPage(custom.body, id, { title: 'R', repeat: 'FREQ=SECONDLY' })));
    assert.match(bad.body, /<span class="field-error" id="f-repeat-error">This server does not understand that rule/);
    assert.match(bad.body, /aria-invalid="true" type="text" value="FREQ=SECONDLY"/);
    assert.equal((await fetchTask(token, id))['repeat'], 'FREQ=MONTHLY;BYDAY=2TU');
  });

  it('each wrong field is named beside it, by the API\'s own rules, and nothing is saved', async () => {
    const { token, b, id } = await setup();
    const page = await b.get(`/tasks/${id}`);
    const res = await landed(b, await b.post(`/tasks/${id}`, formOfPage(page.body, id, { title: '', duedate: '2026-02-30', starttime: '25:00', length: '-5', priority: '7' })));
    assert.match(text(res), /Not saved: 5 fields need a change/);
    for (const f of ['title', 'duedate', 'starttime', 'length', 'priority']) assert.match(res.body, new RegExp(`id="f-${f}-error"`), f);
    assert.match(res.body, /id="f-length-error">length must be/);
    assert.equal((await fetchTask(token, id))['title'], 'Plain task');
    // What only the service knows (a folder that does not exist) comes back at its field too.
    const gone = await landed(b, await b.post(`/tasks/${id}`, formOfPage(page.body, id, { title: 'x', folder: '999' })));
    assert.match(gone.body, /id="f-folder-error">Invalid folder id: 999/);
  });

  it('completing a repeating task in the editor moves it on, as reschedule=1 does', async () => {
    const { token, b } = await setup();
    await tasksCall(ctx, token, 'add', [{ title: 'Weekly', duedate: Date.UTC(2026, 2, 14, 12) / 1000, repeat: 'FREQ=WEEKLY' }]);
    const rows = (await api(ctx, token, '/3/tasks/get.php')).json() as Array<Record<string, unknown>>;
    const id = Number(rows.slice(1).find((r) => r['title'] === 'Weekly')?.['id']);
    const page = await b.get(`/tasks/${id}`);
    await landed(b, await b.post(`/tasks/${id}`, formOfPage(page.body, id, { completed: '2026-03-14' })));
    const t = await fetchTask(token, id);
    assert.equal(t['completed'], 0);
    assert.equal(t['duedate'], Date.UTC(2026, 2, 21, 12) / 1000);
  });

  it('adds a subtask from its parent\'s editor; another person\'s task is not found', async () => {
    const { token, b, parentId } = await setup();
    const page = await b.get(`/tasks/${parentId}`);
    const res = await b.post('/tasks/add', { ...formInputs(page.body, '/tasks/add'), line: 'Step one !1' });
    assert.equal(res.headers['location'], `/tasks/${parentId}`);
    assert.match(text(await landed(b, res)), /Subtasks Step one/);
    const rows = ((await api(ctx, token, '/3/tasks/get.php', { fields: 'parent,priority' })).json() as Array<Record<string, unknown>>).slice(1);
    assert.deepEqual(rows.filter((r) => r['parent'] === parentId).map((r) => [r['title'], r['priority']]), [['Step one', 1]]);
    // Ids are the account's own: a number no task of this account has is not found.
    assert.equal((await b.get(`/tasks/${parentId + 1000}`)).statusCode, 404);
    assert.equal((await b.get('/tasks/abc')).statusCode, 404);
  });
});
