import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, settledStamps, signIn, tasksCall, testContext, type TestApp, type TestContext } from '../../../test/harness.js';
import type { Account, Repos } from '../../storage/store.js';

type Json = Record<string, unknown>;

describe('tasks/edit', () => {
  let ctx: TestContext;
  let account: Account;
  let app: TestApp;
  let token: string;

  before(async () => {
    ctx = await testContext();
    ({ account, app, token } = await signIn(ctx, { pro: 1 }));
  });
  after(() => ctx.close());

  const add = async (task: Json = {}) => ((await tasksCall(ctx, token, 'add', [{ title: 'T', ...task }])).json() as Json[])[0] as Json;
  const edit = async (tasks: unknown[], extra: Record<string, string> = {}) => (await tasksCall(ctx, token, 'edit', tasks, extra)).json() as Json[];
  const accountStamps = () => settledStamps(ctx, token);

  it('changes only the fields sent; modified and lastedit_task move; requested fields come back', async () => {
    const t = await add({ title: 'Original', priority: 2, note: 'keep me' });
    ctx.clock.advance(30);
    const [r] = await edit([{ id: t['id'], title: 'Renamed', star: 1 }], { fields: 'priority,star,note' });
    assert.deepEqual(Object.keys(r ?? {}), ['id', 'title', 'modified', 'completed', 'priority', 'star', 'note']);
    assert.equal(r?.['title'], 'Renamed');
    assert.equal(r?.['priority'], 2);
    assert.equal(r?.['note'], 'keep me');
    assert.ok((r?.['modified'] as number) > (t['modified'] as number));
    assert.equal((await accountStamps())['lastedit_task'], r?.['modified']);
  });

  it('ids arrive as numbers or strings; empty is 604, unknown 605, each with the attempted id as ref', async () => {
    const t = await add();
    const { token: other } = await signIn(ctx, { app });
    const [theirs] = (await tasksCall(ctx, other, 'add', [{ title: 'theirs' }])).json() as Json[];
    const results = await edit([
      { id: String(t['id']), title: 'by string' },
      { title: 'no id' },
      { id: '', title: 'empty' },
      { id: 0, title: 'zero' },
      { id: 424242, title: 'unknown' },
      { id: 'abc', title: 'garbage' },
      { id: (theirs?.['id'] as number) + 1000, title: 'not mine' },
    ]);
    assert.equal(results[0]?.['title'], 'by string');
    assert.deepEqual(results.slice(1, 4).map((r) => [r['errorCode'], r['ref']]), [[604, ''], [604, ''], [604, '0']]);
    assert.deepEqual(results.slice(4).map((r) => r['errorCode']), [605, 605, 605]);
    // Every ref is the id as text, however it was sent (the hosted docs show "ref":"5678"): one
    // array never mixes numbers and strings.
    assert.equal(results[4]?.['ref'], '424242');
    assert.equal(results[5]?.['ref'], 'abc');
    assert.equal(results[6]?.['ref'], String((theirs?.['id'] as number) + 1000));
  });

  it('a value that is not a whole id (true, 2.9, 1e3, past 2147483647) is 605 and touches no task', async () => {
    const { token: own } = await signIn(ctx, { app });
    const added = (await tasksCall(ctx, own, 'add', [{ title: 'one' }, { title: 'two' }, { title: 'three' }])).json() as Json[];
    assert.deepEqual(added.map((t) => t['id']), [1, 2, 3]);
    const sent = [true, '2.9', 2.9, '1e3', 1e3 + 0.5, 3_000_000_000, '3000000000', -1, [1], { id: 1 }];
    const results = (await tasksCall(ctx, own, 'edit', sent.map((id) => ({ id, title: 'hijacked' })))).json() as Json[];
    assert.deepEqual(results.map((r) => r['errorCode']), sent.map(() => 605));
    assert.deepEqual(results[5]?.['ref'], '3000000000');
    assert.deepEqual(results.map((r) => typeof r['ref']), sent.map(() => 'string'));
    // Deletion takes bare ids ({id} objects are its other form, so that one is left out here).
    const deleted = (await tasksCall(ctx, own, 'delete', sent.slice(0, 9))).json() as Json[];
    assert.deepEqual(deleted.map((r) => r['errorCode']), sent.slice(0, 9).map(() => 605));
    const after = (await api(ctx, own, '/3/tasks/get.php')).json() as Json[];
    assert.deepEqual(after.slice(1).map((t) => t['title']), ['one', 'two', 'three'], 'no task was edited or deleted');
    const [whole] = (await tasksCall(ctx, own, 'edit', [{ id: '2.0', title: 'two, edited' }])).json() as Json[];
    assert.equal(whole?.['title'], 'two, edited', '"2.0" is the whole number 2');
  });

  it("cannot touch another account's task with the same id", async () => {
    const { token: otherToken } = await signIn(ctx, { app });
    const [theirs] = (await tasksCall(ctx, otherToken, 'add', [{ title: 'Their first task' }])).json() as Json[];
    assert.equal(theirs?.['id'], 1);
    await edit([{ id: 1, title: 'Mine, edited' }]);
    const check = (await api(ctx, otherToken, '/3/tasks/get.php', { id: '1' })).json() as Json[];
    assert.equal(check[1]?.['title'], 'Their first task');
  });

  it('an edit with nothing changeable is 606; read-only fields alone count as nothing', async () => {
    const t = await add();
    const [a, b] = await edit([{ id: t['id'] }, { id: t['id'], via: 1, children: 3, modified: 5 }]);
    assert.equal(a?.['errorCode'], 606);
    assert.equal(b?.['errorCode'], 606);
    assert.equal(b?.['ref'], String(t['id']));
  });

  it('sending the values a task already has is no change: modified and lastedit_task stay', async () => {
    const t = await add({ priority: 1 });
    const before = (await accountStamps())['lastedit_task'];
    ctx.clock.advance(30);
    const [r] = await edit([{ id: t['id'], title: 'T', priority: '1', via: 3 }]);
    assert.equal(r?.['modified'], t['modified']);
    assert.equal((await accountStamps())['lastedit_task'], before);
  });

  it('a bad value fails that item only (611 naming the field) and leaves the task as it was', async () => {
    const t = await add({ priority: 1 });
    const u = await add();
    ctx.clock.advance(30);
    // The good field beside the bad one must not be stored either.
    const [bad, good] = await edit([{ id: t['id'], priority: 2, status: 42 }, { id: u['id'], title: 'fine' }], { fields: 'priority' });
    assert.equal(bad?.['errorCode'], 611);
    assert.match(bad?.['errorDesc'] as string, /status/);
    assert.equal(good?.['title'], 'fine');
    const [, stored] = (await api(ctx, token, '/3/tasks/get.php', { id: String(t['id']), fields: 'priority,status' })).json() as Json[];
    assert.deepEqual([stored?.['priority'], stored?.['status'], stored?.['modified']], [1, 0, t['modified']]);
  });

  it('completing and un-completing; reschedule without a repeat rule just completes', async () => {
    const t = await add({ duedate: 1676980800 });
    const day = Math.floor(ctx.clock.now() / 1000);
    const [done] = await edit([{ id: t['id'], completed: day, reschedule: 1 }], { fields: 'duedate' });
    assert.equal(done?.['completed'], Math.floor(day / 86400) * 86400 + 43200);
    assert.equal(done?.['duedate'], 1676980800);
    const [open] = await edit([{ id: t['id'], completed: 0 }]);
    assert.equal(open?.['completed'], 0);
  });

  describe('moving subtasks', () => {
    it('to another parent (order after its new siblings, both parents count as edited), or to the top level', async () => {
      const p1 = await add();
      const p2 = await add();
      const child = await add({ parent: p1['id'] });
      await add({ parent: p2['id'] });
      ctx.clock.advance(30);
      const [moved] = await edit([{ id: child['id'], parent: p2['id'] }], { fields: 'parent,order' });
      assert.deepEqual([moved?.['parent'], moved?.['order']], [p2['id'], 2]);
      const parents = (await api(ctx, token, '/3/tasks/get.php', { after: String((moved?.['modified'] as number) - 1), fields: 'children' })).json() as Json[];
      const byId = new Map(parents.slice(1).map((r) => [r['id'], r['children']]));
      assert.equal(byId.get(p1['id']), 0);
      assert.equal(byId.get(p2['id']), 2);
      const [top] = await edit([{ id: child['id'], parent: 0 }], { fields: 'parent,order' });
      assert.deepEqual([top?.['parent'], top?.['order']], [0, 0]);
    });

    it('refuses a task as its own parent, and a task with subtasks as a subtask (612)', async () => {
      const p = await add();
      await add({ parent: p['id'] });
      const q = await add();
      const [self, withChildren] = await edit([{ id: q['id'], parent: q['id'] }, { id: p['id'], parent: q['id'] }]);
      assert.equal(self?.['errorCode'], 612);
      assert.equal(withChildren?.['errorCode'], 612);
    });
  });

  it('concurrent edits of different fields by two apps of one account both land', async () => {
    const t = await add();
    const { token: other } = await signIn(ctx, { account });
    await Promise.all([
      tasksCall(ctx, token, 'edit', [{ id: t['id'], priority: 3 }]),
      tasksCall(ctx, other, 'edit', [{ id: t['id'], note: 'from the other app' }]),
      tasksCall(ctx, token, 'edit', [{ id: t['id'], star: 1 }]),
    ]);
    const [, got] = (await api(ctx, token, '/3/tasks/get.php', { id: String(t['id']), fields: 'priority,note,star' })).json() as Json[];
    assert.deepEqual([got?.['priority'], got?.['note'], got?.['star']], [3, 'from the other app', 1]);
  });
});

describe('a call is one transaction', () => {
  it('a failure in the middle of a batch leaves none of its items, and no stamp moved', async () => {
    const ctx = await testContext();
    try {
      const { account, token } = await signIn(ctx);
      const store = ctx.deps.store as { transaction: (fn: (tx: Repos) => Promise<unknown>) => Promise<unknown> };
      const real = store.transaction.bind(store);
      // The next call's insert writes two of its three tasks, then fails, as a full disk or a
      // crash would.
      store.transaction = (fn) =>
        real((tx) => {
          const tasks = Object.create(tx.tasks) as Repos['tasks'];
          tasks.insertMany = async (userPk, batch) => {
            await tx.tasks.insertMany(userPk, batch.slice(0, 2));
            throw new Error('disk full');
          };
          return fn({ ...tx, tasks });
        });
      const res = await tasksCall(ctx, token, 'add', [{ title: 'a' }, { title: 'b' }, { title: 'c' }]);
      assert.equal(res.statusCode, 500);
      store.transaction = real;
      assert.equal(await ctx.deps.store.read.tasks.count(account.pk), 0);
      const stamps = (await api(ctx, token, '/3/account/get.php')).json() as Record<string, number>;
      assert.equal(stamps['lastedit_task'], 0);
      // Ids of the failed call were never handed out either.
      const [t] = (await tasksCall(ctx, token, 'add', [{ title: 'after' }])).json() as Json[];
      assert.equal(t?.['id'], 1);
    } finally {
      await ctx.close();
    }
  });
});
