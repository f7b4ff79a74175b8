import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newAccount, newTask } from '../../../test/factories.js';
import { counting, type Counted } from '../../../test/counting-repos.js';
import { createApp, testContext, type TestContext } from '../../../test/harness.js';
import type { Repos } from '../../storage/store.js';
import { CallRepos } from './call-repos.js';

/**
 * CallRepos on a real store: what it answers from memory, what it holds, and that every other read
 * sees the held writes (each case counts the calls that reach the store's own repositories).
 */
describe('CallRepos: a write call reads its tasks once and writes them together', () => {
  let ctx: TestContext;
  let a: number;
  let b: number;
  before(async () => {
    ctx = await testContext();
    ({ a, b } = await ctx.deps.store.transaction(async (tx) => {
      const one = (await tx.accounts.create(newAccount('calls', 1))).pk;
      const two = (await tx.accounts.create(newAccount('calls', 2))).pk;
      await tx.tasks.insertMany(one, [1, 2, 3].map((id) => newTask(id)));
      await tx.tasks.insertMany(two, [1, 2].map((id) => newTask(id)));
      return { a: one, b: two };
    }));
  });
  after(() => ctx.close());

  /** Runs `fn` in a transaction that is rolled back, with CallRepos over repositories counting their calls. */
  async function inCall(fn: (tx: Repos, calls: CallRepos, counted: Counted) => Promise<void>): Promise<void> {
    const undo = new Error('undo');
    await assert.rejects(
      ctx.deps.store.transaction(async (inner) => {
        const counted: Counted = new Map();
        const calls = new CallRepos({ ...inner, tasks: counting('tasks', inner.tasks, counted), sharing: counting('sharing', inner.sharing, counted) }, a);
        await fn(calls.tx, calls, counted);
        throw undo;
      }),
      (err) => err === undo,
    );
  }

  it('prefetched tasks and shares are answered from memory, unknown ids included', async () => {
    await inCall(async (tx, calls, counted) => {
      await calls.prefetch([1, 2, 9]);
      assert.equal((await tx.tasks.get(a, 1))?.title, 'Task 1');
      assert.equal(await tx.tasks.get(a, 9), null);
      assert.equal(await tx.sharing.shareOf(a, 2), null);
      assert.deepEqual([counted.get('tasks.getMany'), counted.get('sharing.sharesOf'), counted.get('tasks.get'), counted.get('sharing.shareOf')], [1, 1, undefined, undefined]);
    });
  });

  it('updates of the account are held and written by one updateMany; the call sees them meanwhile', async () => {
    await inCall(async (tx, calls, counted) => {
      await calls.prefetch([1, 2]);
      await tx.tasks.update(a, newTask(1, { title: 'One' }));
      await tx.tasks.update(a, newTask(2, { title: 'Two' }));
      await tx.tasks.update(a, newTask(1, { title: 'One again' }));
      assert.equal((await tx.tasks.get(a, 1))?.title, 'One again');
      assert.equal(counted.get('tasks.updateMany'), undefined, 'nothing written yet');
      await calls.flush();
      assert.equal(counted.get('tasks.updateMany'), 1);
      const stored = await ctx.deps.store.read.tasks.getMany(a, [1, 2]);
      assert.deepEqual([stored.get(1)?.title, stored.get(2)?.title], ['Task 1', 'Task 2'], 'the reader sees nothing uncommitted');
    });
  });

  it('any other read of the tasks flushes first, so it sees the held updates', async () => {
    await inCall(async (tx, _calls, counted) => {
      await tx.tasks.get(a, 3);
      await tx.tasks.update(a, newTask(3, { title: 'Renamed' }));
      const page = await tx.tasks.page(a, { start: 0, num: 10, withChildren: false, where: { ids: [3] } });
      assert.equal(page.tasks[0]?.title, 'Renamed');
      assert.equal(counted.get('tasks.updateMany'), 1);
    });
  });

  it('a write that may change tasks forgets them: the next get reads the database', async () => {
    await inCall(async (tx, calls, counted) => {
      await calls.prefetch([1]);
      await tx.tasks.remove(a, [1], 5);
      assert.equal(await tx.tasks.get(a, 1), null);
      assert.equal(counted.get('tasks.get'), 1);
    });
  });

  it("another account's tasks, and a task not there, are neither kept nor held", async () => {
    await inCall(async (tx, calls, counted) => {
      await calls.prefetch([1, 8]);
      await tx.tasks.update(b, newTask(1, { title: 'Theirs' }));
      assert.equal((await tx.tasks.get(b, 1))?.title, 'Theirs', 'written at once');
      await tx.tasks.update(a, newTask(8, { title: 'Nowhere' }));
      await calls.flush();
      assert.equal(await tx.tasks.get(a, 8), null, 'an update of a missing task creates nothing');
      assert.equal(counted.get('tasks.get'), 2, "another account's get, and the get after the direct update, read the database");
    });
  });

  it("the app's meta is read at once, held when written, and written by one setMetas that any read of it follows", async () => {
    const app = (await createApp(ctx)).client.pk;
    await inCall(async (tx, calls, counted) => {
      await calls.prefetch([1, 2]);
      await calls.prefetchMetas(app, [1, 2]);
      assert.equal(await tx.tasks.meta(a, 1, app), null);
      await tx.tasks.setMeta(a, 1, app, 'one');
      await tx.tasks.setMeta(a, 2, app, 'two');
      await tx.tasks.setMeta(a, 2, app, '');
      assert.deepEqual([await tx.tasks.meta(a, 1, app), await tx.tasks.meta(a, 2, app)], ['one', null]);
      assert.deepEqual([counted.get('tasks.metasOf'), counted.get('tasks.meta'), counted.get('tasks.setMetas')], [1, undefined, undefined]);
      const page = await tx.tasks.page(a, { start: 0, num: 10, withChildren: false, metaFor: app, where: { ids: [1, 2] } });
      assert.deepEqual(page.tasks.map((t) => t.meta), ['one', null]);
      assert.equal(counted.get('tasks.setMetas'), 1);
    });
  });

  it('a share made during the call is seen: a sharing write forgets the shares read', async () => {
    await inCall(async (tx, calls) => {
      await calls.prefetch([2]);
      assert.equal(await tx.sharing.shareOf(a, 2), null);
      const pk = await tx.sharing.createShare(a, 2);
      assert.equal((await tx.sharing.shareOf(a, 2))?.pk, pk);
    });
  });
});
