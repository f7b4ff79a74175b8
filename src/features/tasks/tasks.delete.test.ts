import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, settledStamps, signIn, tasksCall, testContext, type TestContext } from '../../../test/harness.js';

type Json = Record<string, unknown>;

describe('tasks/delete and tasks/deleted', () => {
  let ctx: TestContext;
  let token: string;

  before(async () => {
    ctx = await testContext();
    ({ token } = await signIn(ctx, { pro: 1 }));
  });
  after(() => ctx.close());

  const add = async (tasks: Json[]) => ((await tasksCall(ctx, token, 'add', tasks)).json() as Json[]).map((t) => t['id'] as number);
  const stamps = () => settledStamps(ctx, token);

  it('deletes by id (numbers, strings, or {id} objects) and reports [{id}] with inline 604/605, the ref always the id as text', async () => {
    const [a, b, c] = await add([{ title: 'a' }, { title: 'b' }, { title: 'c' }]);
    const res = (await tasksCall(ctx, token, 'delete', [a, String(b), { id: c }, '', 0, 98765, 'x'])).json() as Json[];
    assert.deepEqual(res.slice(0, 3), [{ id: a }, { id: b }, { id: c }]);
    assert.deepEqual(res.slice(3).map((r) => [r['errorCode'], r['ref']]), [[604, ''], [604, '0'], [605, '98765'], [605, 'x']]);
    const again = (await tasksCall(ctx, token, 'delete', [a])).json() as Json[];
    assert.equal(again[0]?.['errorCode'], 605, 'deleting twice: the task is no longer there');
  });

  it('answers XML as <deleted><id>…</id><error id ref>…</error></deleted>', async () => {
    const [a] = await add([{ title: 'x' }]);
    const res = await tasksCall(ctx, token, 'delete', [a, 555555], { f: 'xml' });
    assert.equal(res.body, `<?xml version="1.0" encoding="UTF-8"?><deleted><id>${a}</id><error id="605" ref="555555">Invalid task</error></deleted>`);
  });

  it('moves lastdelete_task (not lastedit_task) and lists each deletion with its stamp', async () => {
    const before = await stamps();
    const [a] = await add([{ title: 'gone soon' }]);
    const afterAdd = await stamps();
    ctx.clock.advance(60);
    await tasksCall(ctx, token, 'delete', [a]);
    const afterDelete = await stamps();
    assert.ok(afterDelete['lastdelete_task'] > before['lastdelete_task']);
    assert.equal(afterDelete['lastedit_task'], afterAdd['lastedit_task']);
    const list = (await api(ctx, token, '/3/tasks/deleted.php', { after: String(afterDelete['lastdelete_task'] - 1) })).json() as Json[];
    assert.deepEqual(list, [{ num: 1 }, { id: a, stamp: afterDelete['lastdelete_task'] }]);
    const none = (await api(ctx, token, '/3/tasks/deleted.php', { after: String(afterDelete['lastdelete_task']) })).json();
    assert.deepEqual(none, [{ num: 0 }]);
  });

  it('get_deleted.php is the same list; XML root deleted with num and task elements', async () => {
    const a = (await api(ctx, token, '/3/tasks/deleted.php')).json();
    const b = (await api(ctx, token, '/3/tasks/get_deleted.php')).json();
    assert.deepEqual(a, b);
    const xml = await api(ctx, token, '/3/tasks/deleted.php', { f: 'xml' });
    assert.match(xml.body, /^<\?xml version="1.0" encoding="UTF-8"\?><deleted num="\d+">(<task><id>\d+<\/id><stamp>\d+<\/stamp><\/task>)+<\/deleted>$/);
  });

  it('deleting a parent deletes its subtasks, each in the deleted list; naming them too in the call is fine', async () => {
    const [parent] = await add([{ title: 'parent' }]);
    const kids = await add([{ title: 'k1', parent }, { title: 'k2', parent }]);
    const res = (await tasksCall(ctx, token, 'delete', [parent, kids[1]])).json();
    assert.deepEqual(res, [{ id: parent }, { id: kids[1] }]);
    const deleted = ((await api(ctx, token, '/3/tasks/deleted.php')).json() as Json[]).slice(1).map((r) => r['id']);
    for (const id of [parent, ...kids]) assert.ok(deleted.includes(id), String(id));
    const left = (await api(ctx, token, '/3/tasks/get.php', { id: String(kids[0]) })).json();
    assert.deepEqual(left, [{ num: 0, total: 0 }]);
  });

  it('deleting a subtask counts as an edit of its parent (its children count changed)', async () => {
    const [parent] = await add([{ title: 'p' }]);
    const [kid] = await add([{ title: 'k', parent }]);
    ctx.clock.advance(60);
    await tasksCall(ctx, token, 'delete', [kid]);
    const [summary, p] = (await api(ctx, token, '/3/tasks/get.php', { id: String(parent), fields: 'children' })).json() as Json[];
    assert.equal(summary?.['num'], 1);
    assert.equal(p?.['children'], 0);
    assert.equal(p?.['modified'], (await stamps())['lastedit_task']);
  });

  it('never reuses an id, deleted ones included', async () => {
    const [a] = await add([{ title: 'x' }]);
    await tasksCall(ctx, token, 'delete', [a]);
    const [b] = await add([{ title: 'y' }]);
    assert.ok((b as number) > (a as number));
  });

  it('takes at most 50 ids (602), and needs the tasks parameter to be a JSON array (611)', async () => {
    const res = (await tasksCall(ctx, token, 'delete', Array.from({ length: 51 }, (_, i) => i + 1))).json() as Json;
    assert.equal(res['errorCode'], 602);
    assert.equal(((await tasksCall(ctx, token, 'delete', { id: 1 })).json() as Json)['errorCode'], 611);
  });
});
