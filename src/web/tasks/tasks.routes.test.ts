import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formInputs } from '../../../test/browser.js';
import { api, createOrganizer, settle, signIn, tasksCall, testContext, type TestContext } from '../../../test/harness.js';
import { landed, signedInBrowser, text } from '../../../test/web-pages.js';
import { APP_CONTENT_SECURITY_POLICY } from '../html.js';

/** The task pages over HTTP: every change goes through the task services, and the API sees it. */

let ctx: TestContext;
before(async () => {
  ctx = await testContext();
  // Saturday 14 March 2026, 15:00 UTC: 10:00 in the default timezone (UTC-5).
  ctx.clock.set(Date.UTC(2026, 2, 14, 15, 0));
});
after(() => ctx.close());

type ApiTask = Record<string, unknown> & { id: number; title: string };

async function apiTasks(token: string, extra: Record<string, string> = {}): Promise<ApiTask[]> {
  const res = await api(ctx, token, '/3/tasks/get.php', { fields: 'folder,context,tag,priority,star,duedate,duetime,repeat,parent,note,status', ...extra });
  return (res.json() as unknown[]).slice(1) as ApiTask[];
}

async function setup(pro: 0 | 1 = 1) {
  const s = await signIn(ctx, { pro });
  const b = await signedInBrowser(ctx, s.account);
  return { ...s, b };
}

describe('the task list', () => {
  it('is the signed-in start page, with this server\'s script allowed by the policy and nothing inline', async () => {
    const { b } = await setup();
    const page = await b.get('/');
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['content-security-policy'], APP_CONTENT_SECURITY_POLICY);
    assert.match(APP_CONTENT_SECURITY_POLICY, /script-src 'self'; connect-src 'self'/);
    assert.doesNotMatch(APP_CONTENT_SECURITY_POLICY, /unsafe/);
    assert.match(page.body, /<script type="module" src="\/assets\/tasks.js"><\/script>/);
    assert.doesNotMatch(page.body, /<script>|on(click|load|submit)=/);
    assert.match(text(page), /Hotlist/);
    const js = await b.get('/assets/tasks.js');
    assert.equal(js.statusCode, 200);
    assert.match(String(js.headers['content-type']), /^text\/javascript/);
    assert.match(js.body, /stamps\.json/);
  });

  it('quick add saves what the line says, through tasks/add; the API sees it', async () => {
    const { account, token, b } = await setup();
    const home = await createOrganizer(ctx, account, 'folder', 'Home');
    const phone = await createOrganizer(ctx, account, 'context', 'Phone');
    const res = await b.post('/tasks/add', { ...formInputs((await b.get('/')).body, '/tasks/add'), line: 'Call the plumber #home @phone +house !2 * tomorrow 9am every week' });
    assert.match(text(await landed(b, res)), /Added “Call the plumber”/);
    const [t] = await apiTasks(token);
    assert.deepEqual(
      { title: t?.title, folder: t?.['folder'], context: t?.['context'], tag: t?.['tag'], priority: t?.['priority'], star: t?.['star'], duedate: t?.['duedate'], duetime: t?.['duetime'], repeat: t?.['repeat'] },
      { title: 'Call the plumber', folder: home, context: phone, tag: 'house', priority: 2, star: 1, duedate: Date.UTC(2026, 2, 15, 12) / 1000, duetime: Date.UTC(2026, 2, 15, 9) / 1000, repeat: 'FREQ=WEEKLY' },
    );
    const list = text(await b.get('/?view=all'));
    assert.match(list, /Call the plumber/);
    assert.match(list, /Due Tomorrow 9:00 am/);
    assert.match(list, /Every week/);
  });

  it('an unknown folder is refused, naming it, and the line is kept', async () => {
    const { token, b } = await setup();
    const res = await b.post('/tasks/add', { ...formInputs((await b.get('/')).body, '/tasks/add'), line: 'Paint #garage' });
    const page = await landed(b, res);
    assert.match(text(page), /There is no folder named “garage”/);
    assert.match(page.body, /value="Paint #garage"/);
    assert.equal((await apiTasks(token)).length, 0);
  });

  it('the preview is the server\'s own reading of the line', async () => {
    const { account, b } = await setup();
    await createOrganizer(ctx, account, 'folder', 'Home office');
    const res = await b.get(`/tasks/preview.json?line=${encodeURIComponent('Plan #home_office every monday 9am')}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { title: 'Plan', parts: ['Folder: Home office', 'Due: Mar 16, 2026', 'at 09:00', 'Repeats: Every week on Monday'] });
    const bad = (await b.get('/tasks/preview.json?line=x%20%23nope')).json() as { problem: string };
    assert.match(bad.problem, /no folder named “nope”/);
    assert.equal((await ctx.app.inject({ url: '/tasks/preview.json?line=x' })).statusCode, 303);
  });

  it('completing a repeating task reschedules it as reschedule=1 does; uncomplete and star work too', async () => {
    const { token, b } = await setup();
    await tasksCall(ctx, token, 'add', [{ title: 'Water plants', duedate: Date.UTC(2026, 2, 14, 12) / 1000, repeat: 'FREQ=WEEKLY' }, { title: 'Once' }]);
    const [plants, once] = await apiTasks(token);
    const form = formInputs((await b.get('/?view=all')).body, '/tasks/bulk');
    const done = await landed(b, await b.post(`/tasks/${plants?.id}/complete`, form));
    assert.match(text(done), /“Water plants” repeats: next due Mar 21, 2026/);
    const after = await apiTasks(token, { comp: '-1' });
    const moved = after.find((t) => t.id === plants?.id);
    assert.equal(moved?.['duedate'], Date.UTC(2026, 2, 21, 12) / 1000);
    assert.ok(after.some((t) => t.title === 'Water plants' && Number(t['completed']) > 0), 'the completed copy is kept, as the API keeps it');
    await landed(b, await b.post(`/tasks/${once?.id}/complete`, form));
    assert.ok(Number((await apiTasks(token, { comp: '1' })).find((t) => t.id === once?.id)?.['completed']) > 0);
    assert.match(text(await b.get('/?view=completed')), /Once/);
    await landed(b, await b.post(`/tasks/${once?.id}/uncomplete`, form));
    assert.equal((await apiTasks(token, { comp: '0' })).find((t) => t.id === once?.id)?.['completed'], 0);
    await landed(b, await b.post(`/tasks/${once?.id}/star`, form));
    assert.equal((await apiTasks(token)).find((t) => t.id === once?.id)?.['star'], 1);
    await landed(b, await b.post(`/tasks/${once?.id}/star`, form));
    assert.equal((await apiTasks(token)).find((t) => t.id === once?.id)?.['star'], 0);
  });

  it('delete, then Undo brings the task back with its subtasks', async () => {
    const { token, b } = await setup();
    await tasksCall(ctx, token, 'add', [{ title: 'Parent', note: 'kept' }]);
    const [parent] = await apiTasks(token);
    await tasksCall(ctx, token, 'add', [{ title: 'Child A', parent: parent?.id }, { title: 'Child B', parent: parent?.id }]);
    const form = formInputs((await b.get('/?view=all')).body, '/tasks/bulk');
    const page = await landed(b, await b.post(`/tasks/${parent?.id}/delete`, form));
    assert.match(text(page), /Deleted “Parent”/);
    assert.equal((await apiTasks(token)).length, 0);
    const deleted = (await api(ctx, token, '/3/tasks/deleted.php')).json() as unknown[];
    assert.equal(deleted.length - 1, 3, 'an app sees the three deletions');
    const undone = await landed(b, await b.post('/tasks/undo', formInputs(page.body, '/tasks/undo')));
    assert.match(text(undone), /3 tasks are back/);
    const back = await apiTasks(token);
    const newParent = back.find((t) => t.title === 'Parent');
    assert.equal(newParent?.['note'], 'kept');
    assert.deepEqual(back.filter((t) => t['parent'] === newParent?.id).map((t) => t.title).sort(), ['Child A', 'Child B']);
    assert.match(text(await b.get('/?view=all')), /Parent .*2 subtasks.*Child A.*Child B/);
  });

  it('moves a subtask up and down among its siblings; apps see the new order with new stamps', async () => {
    const { token, b } = await setup();
    await tasksCall(ctx, token, 'add', [{ title: 'Trip' }]);
    const [trip] = await apiTasks(token);
    await tasksCall(ctx, token, 'add', [{ title: 'Book', parent: trip?.id }, { title: 'Pack', parent: trip?.id }, { title: 'Go', parent: trip?.id }]);
    const order = async (): Promise<string[]> => {
      const rows = ((await api(ctx, token, '/3/tasks/get.php', { fields: 'parent,order' })).json() as ApiTask[]).slice(1);
      return rows.filter((r) => r['parent'] === trip?.id).sort((x, y) => Number(x['order']) - Number(y['order'])).map((r) => r.title);
    };
    assert.deepEqual(await order(), ['Book', 'Pack', 'Go']);
    const page = await b.get('/?view=all');
    assert.doesNotMatch(page.body, /aria-label="Move “Book” up"/, 'the first cannot go up');
    assert.match(page.body, /aria-label="Move “Go” up"/);
    const go = (await apiTasks(token)).find((t) => t.title === 'Go');
    const form = formInputs(page.body, '/tasks/bulk');
    settle(ctx);
    const before = (await api(ctx, token, '/3/account/get.php')).json() as { lastedit_task: number };
    assert.match(text(await landed(b, await b.post(`/tasks/${go?.id}/move`, { ...form, dir: 'up' }))), /Moved “Go” up/);
    assert.deepEqual(await order(), ['Book', 'Go', 'Pack']);
    const changed = ((await api(ctx, token, '/3/tasks/get.php', { after: String(before.lastedit_task) })).json() as ApiTask[]).slice(1).map((t) => t.title).sort();
    assert.deepEqual(changed, ['Go', 'Pack'], 'the two that moved are edits an app fetches');
    await landed(b, await b.post(`/tasks/${go?.id}/move`, { ...form, dir: 'down' }));
    assert.deepEqual(await order(), ['Book', 'Pack', 'Go']);
    // The last going down, or a task of its own, stays where it is.
    await landed(b, await b.post(`/tasks/${go?.id}/move`, { ...form, dir: 'down' }));
    assert.deepEqual(await order(), ['Book', 'Pack', 'Go']);
    assert.match(text(await landed(b, await b.post(`/tasks/${trip?.id}/move`, { ...form, dir: 'up' }))), /Not moved: Invalid parent id: only subtasks have an order/);
  });

  it('the bulk form completes, stars, moves and deletes the selected tasks', async () => {
    const { account, token, b } = await setup();
    const work = await createOrganizer(ctx, account, 'folder', 'Work');
    await tasksCall(ctx, token, 'add', [{ title: 'One' }, { title: 'Two' }, { title: 'Three' }]);
    const ids = (await apiTasks(token)).map((t) => String(t.id));
    const form = formInputs((await b.get('/?view=all')).body, '/tasks/bulk');
    const post = (fields: Array<[string, string]>) => b.post('/tasks/bulk', [...Object.entries(form), ...fields]);
    assert.match(text(await landed(b, await post([['id', ids[0] as string], ['id', ids[1] as string], ['folder', String(work)], ['priority', '3'], ['action', 'move']]))), /2 tasks changed/);
    assert.deepEqual((await apiTasks(token)).map((t) => [t['folder'], t['priority']]), [[work, 3], [work, 3], [0, 0]]);
    await landed(b, await post([['id', ids[2] as string], ['action', 'star']]));
    assert.equal((await apiTasks(token))[2]?.['star'], 1);
    await landed(b, await post([['id', ids[0] as string], ['action', 'complete']]));
    assert.equal((await apiTasks(token, { comp: '0' })).length, 2);
    assert.match(text(await landed(b, await post([['id', ids[1] as string], ['id', ids[2] as string], ['action', 'delete']]))), /Deleted 2 tasks/);
    assert.equal((await apiTasks(token, { comp: '0' })).length, 0);
    assert.match(text(await landed(b, await post([['action', 'star']]))), /Select one or more tasks first/);
  });

  it('views, search, sort and counts', async () => {
    const { account, token, b } = await setup();
    await ctx.deps.store.transaction((tx) => tx.accounts.update(account.pk, { prefs: { ...account.prefs, showtabnums: 1, dateformat: 3 } }));
    const home = await createOrganizer(ctx, account, 'folder', 'Home');
    await tasksCall(ctx, token, 'add', [
      { title: 'Alpha', folder: home, priority: 3, tag: 'red' },
      { title: 'Bravo', note: 'a secret word', duedate: Date.UTC(2026, 2, 20, 12) / 1000 },
      { title: 'Charlie', star: 1 },
    ]);
    const all = await b.get('/?view=all');
    // By due date first (tasks without one last), then by priority.
    assert.match(text(all), /Bravo .*Alpha .*Charlie/);
    assert.match(text(all), /Due 2026-03-20/);
    assert.match(all.body, /href="\/\?view=hotlist"[^>]*>Hotlist<span class="count">2<\/span>/);
    assert.match(text(await b.get('/?view=all&sort=title&dir=desc')), /Charlie .*Bravo .*Alpha/);
    const search = text(await b.get('/?view=all&q=SECRET'));
    assert.match(search, /Bravo/);
    assert.doesNotMatch(search, /Alpha|Charlie/);
    const byFolder = text(await b.get('/?view=folder'));
    assert.match(byFolder, /Home 1 .*Alpha.*No folder 2/);
    assert.match(text(await b.get(`/?view=folder&value=${home}`)), /Folder: Home/);
    assert.match(text(await b.get('/?view=tag&value=red')), /Alpha/);
    assert.doesNotMatch(text(await b.get('/?view=starred')), /Alpha/);
  });

  it("an app's saved searches are views of their own, run by the rule engine; a search that is gone finds nothing and says so", async () => {
    const { token, b } = await setup();
    await tasksCall(ctx, token, 'add', [
      { title: 'Call the plumber', priority: 2 },
      { title: 'Call mum', priority: 0 },
      { title: 'Called already', completed: 1_767_268_800 },
      { title: 'Write the report', priority: 2 },
    ]);
    const rules = { root: [{ field: 'title', type: 'begins with', value: 'call' }], '1': [{ field: 'priority', type: 'is', value: '2' }, { field: 'checked', type: 'yes' }] };
    const [made] = (await api(ctx, token, '/3/tasks/search_add.php', { searches: JSON.stringify([{ name: 'Calls that matter', bool: 'All', search: rules }]) })).json<Array<{ id: number }>>();
    const start = await b.get('/');
    assert.match(start.body, new RegExp(`<nav class="views saved" aria-label="Saved searches"><ul><li><a href="/\\?view=search&#38;value=${made!.id}">Calls that matter</a></li></ul></nav>`));
    const page = await b.get(`/?view=search&value=${made!.id}`);
    assert.match(text(page), /Saved search: Calls that matter/);
    assert.match(page.body, /aria-current="page">Calls that matter</);
    const titles = [...page.body.matchAll(/class="title" href="\/tasks\/\d+">([^<]+)</g)].map((m) => m[1]);
    assert.deepEqual(titles.sort(), ['Call the plumber', 'Called already'], 'completed tasks too, when the search takes them');
    assert.match(page.body, new RegExp(`<input type="hidden" name="view" value="search"><input type="hidden" name="value" value="${made!.id}">`), 'a search of the words stays in the view');
    const plumber = await b.get(`/?view=search&value=${made!.id}&q=plumber`);
    assert.match(plumber.body, /<h1 id="view-title">Saved search: Calls that matter: “plumber”<\/h1>/);
    assert.match(text(plumber), /Call the plumber/);
    assert.doesNotMatch(text(plumber), /Called already/, 'the words narrow the saved search');
    await api(ctx, token, '/3/tasks/search_delete.php', { searches: JSON.stringify([made!.id]) });
    const gone = await b.get(`/?view=search&value=${made!.id}&q=plumber`);
    assert.match(gone.body, /<h1 id="view-title">Saved search: “plumber”<\/h1>/);
    assert.match(text(gone), /This saved search is gone: an app deleted it\./);
    assert.match(gone.body, /value="plumber"/, 'the words stay in the box');
    assert.doesNotMatch(gone.body, /aria-label="Saved searches"/);
  });

  it('a long list shows its first 200 rows, and Show more the next ones', async () => {
    const { token, b } = await setup();
    for (let i = 0; i < 5; i++) await tasksCall(ctx, token, 'add', Array.from({ length: i < 4 ? 50 : 10 }, (_, j) => ({ title: `Bulk ${i * 50 + j}` })));
    const first = await b.get('/?view=all&sort=title');
    assert.match(text(first), /200 tasks shown; 10 more below/);
    assert.equal((first.body.match(/<li class="task/g) ?? []).length, 200);
    const more = /href="(\/\?[^"]*show=400[^"]*)"/.exec(first.body)?.[1]?.replace(/&#38;/g, '&');
    assert.ok(more, 'a Show more link');
    const next = await b.get(more);
    assert.match(text(next), /210 tasks/);
    assert.equal((next.body.match(/<li class="task/g) ?? []).length, 210);
  });

  it('the poll endpoint answers the account\'s task stamps, which an API edit moves', async () => {
    const { token, b } = await setup();
    const first = (await b.get('/tasks/stamps.json')).json() as { stamp: string };
    settle(ctx);
    await tasksCall(ctx, token, 'add', [{ title: 'From an app' }]);
    const second = (await b.get('/tasks/stamps.json')).json() as { stamp: string };
    assert.notEqual(second.stamp, first.stamp);
    assert.match((await b.get('/')).body, new RegExp(`data-stamp="${second.stamp.replace('.', '\\.')}"`));
    assert.equal((await ctx.app.inject({ url: '/tasks/stamps.json' })).statusCode, 303);
  });

  it('posts need the CSRF token, and another person\'s task is no task', async () => {
    const { token, b } = await setup();
    const other = await setup();
    await tasksCall(ctx, token, 'add', [{ title: 'Mine' }]);
    const [mine] = await apiTasks(token);
    const bare = await b.post(`/tasks/${mine?.id}/complete`, { back: '/' });
    assert.equal(bare.statusCode, 403);
    const form = formInputs((await other.b.get('/')).body, '/tasks/bulk');
    assert.match(text(await landed(other.b, await other.b.post(`/tasks/${mine?.id}/complete`, form))), /Invalid task/);
    assert.match(text(await landed(other.b, await other.b.post(`/tasks/${mine?.id}/delete`, form))), /Nothing was deleted/);
    assert.equal((await apiTasks(token)).length, 1);
    // Where a form returns: only the list's own addresses.
    const away = await other.b.post(`/tasks/${mine?.id}/star`, { ...form, back: '//evil.example/' });
    assert.equal(away.headers['location'], '/');
  });
});
