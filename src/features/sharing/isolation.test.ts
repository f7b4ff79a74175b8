import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, tasksCall, testContext, type SignedIn, type TestContext } from '../../../test/harness.js';
import { addTask, collaborate, people, rows, share } from './sharing.test-kit.js';

/**
 * The isolation tests of tasks, repeated with shares in play: an account reaches another's task
 * only through an accepted share, and then only its own copy of it (docs/decisions/0015).
 */
describe('isolation with shares in play', () => {
  let ctx: TestContext;
  let a: SignedIn, b: SignedIn, stranger: SignedIn;
  let secret: { id: number }, joint: { id: number }, copy: { id: number; [k: string]: unknown };
  let folderA: number;
  before(async () => {
    ctx = await testContext();
    [a, b, stranger] = (await people(ctx, 3)) as [SignedIn, SignedIn, SignedIn];
    await collaborate(ctx, a, b);
    // b's own tasks take ids 1 to 3, the ids a's tasks have in a's account.
    await tasksCall(ctx, b.token, 'add', [{ title: 'b1' }, { title: 'b2' }, { title: 'b3' }]);
    folderA = (await api(ctx, a.token, '/3/folders/add.php', { name: 'A only' })).json<Array<{ id: number }>>()[0]!.id;
    secret = await addTask(ctx, a, { title: 'secret of a', folder: folderA });
    joint = await addTask(ctx, a, { title: 'joint', folder: folderA, meta: 'a meta' });
    assert.equal((await share(ctx, a, joint.id, [b.account.userid])).statusCode, 200);
    copy = (await rows(ctx, b)).find((r) => r.title === 'joint')!;
  });
  after(() => ctx.close());

  it('tasks/get never shows another account’s tasks, shared or not, by id or in a list', async () => {
    for (const who of [b, stranger]) {
      const all = await rows(ctx, who);
      assert.ok(!all.some((r) => r.title === 'secret of a'));
      const [head, byId] = (await api(ctx, who.token, '/3/tasks/get.php', { id: String(secret.id) })).json<Array<Record<string, unknown>>>();
      assert.ok(byId === undefined || byId['title'] !== 'secret of a', JSON.stringify(head));
    }
    assert.equal((await rows(ctx, stranger)).length, 0);
  });

  it('a copy carries none of the owner’s own records: folder, meta, links', async () => {
    const [, mine] = (await api(ctx, b.token, '/3/tasks/get.php', { id: String(copy.id), fields: 'folder,context,goal,location,meta,attachment' })).json<Array<Record<string, unknown>>>();
    assert.deepEqual([mine!['folder'], mine!['context'], mine!['goal'], mine!['location'], mine!['meta'], mine!['attachment']], [0, 0, 0, 0, null, []]);
  });

  it('edit and delete with another account’s ids touch only the caller’s own tasks', async () => {
    // b's edit with the id of a's secret reaches b's own task of that id.
    const [edited] = (await tasksCall(ctx, b.token, 'edit', [{ id: secret.id, title: 'b1, edited' }])).json<Array<{ title: string }>>();
    assert.equal(edited!.title, 'b1, edited');
    await tasksCall(ctx, stranger.token, 'edit', [{ id: joint.id, title: 'hijacked' }]);
    await tasksCall(ctx, stranger.token, 'delete', [secret.id, joint.id]);
    const mine = await rows(ctx, a);
    assert.deepEqual(mine.map((r) => r.title).sort(), ['joint', 'secret of a']);
  });

  it('a participant cannot point a copy at the owner’s folder (607), nor share or reassign the owner’s task by its id', async () => {
    const [r] = (await tasksCall(ctx, b.token, 'edit', [{ id: copy.id, folder: folderA + 100 }])).json<Array<{ errorCode?: number }>>();
    assert.equal(r!.errorCode, 607);
    const code = async (who: SignedIn, path: string, form: Record<string, string>) => (await api(ctx, who.token, path, form)).json<{ errorCode?: number }>().errorCode;
    assert.notEqual(await code(stranger, '/3/tasks/share.php', { id: String(joint.id), share: JSON.stringify([stranger.account.userid]) }), undefined);
    assert.equal(await code(stranger, '/3/tasks/reassign.php', { id: String(secret.id), assign: stranger.account.userid }), 605);
    assert.equal(await code(b, '/3/tasks/reassign.php', { id: String(copy.id), assign: a.account.userid }), 616);
  });

  it('a saved search runs over the caller’s tasks only', async () => {
    const [s] = (await api(ctx, b.token, '/3/tasks/search_add.php', { searches: JSON.stringify([{ name: 'all', search: { root: [] } }]) })).json<Array<{ id: number }>>();
    const [head, ...found] = (await api(ctx, b.token, '/3/tasks/get.php', { search: String(s!.id) })).json<Array<Record<string, unknown>>>();
    assert.deepEqual(head, { num: 4, total: 4 });
    assert.deepEqual(found.map((t) => t['title']).sort(), ['b1, edited', 'b2', 'b3', 'joint']);
  });

  it('once the collaboration ends, the copy leaves the participant’s list and the owner keeps the task', async () => {
    assert.equal((await api(ctx, b.token, '/3/account/collaborators_end.php', { id: a.account.userid })).statusCode, 200);
    assert.equal((await rows(ctx, b)).some((r) => r.title === 'joint'), false);
    const [, ...gone] = (await api(ctx, b.token, '/3/tasks/deleted.php', { after: '0' })).json<Array<{ id: number }>>();
    assert.ok(gone.some((g) => g.id === copy.id));
    const mine = (await rows(ctx, a)).find((r) => r.title === 'joint')!;
    assert.deepEqual([mine['shared'], mine['sharedwith']], [0, []]);
    // No collaboration: sharing again is 615.
    assert.equal((await share(ctx, a, joint.id, [b.account.userid])).json<{ errorCode: number }>().errorCode, 615);
  });
});
