import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { repositoryCalls } from '../../../test/counting-repos.js';
import { api, signIn, tasksCall, testContext, type TestContext } from '../../../test/harness.js';
import type { Repos, Task } from '../../storage/store.js';

type Json = Record<string, unknown>;
type Call = { readonly method: string; readonly args: readonly unknown[] };

/**
 * What a batch costs: rows that the items of one call share (a parent, the account's task count)
 * are read or written once per call, not once per item.
 */
describe('a write call touches what its items share once', () => {
  let ctx: TestContext;
  let token: string;

  before(async () => {
    ctx = await testContext();
    ({ token } = await signIn(ctx, { pro: 1 }));
  });
  after(() => ctx.close());

  /** Runs `call` with the task repository of its transactions recording every call of `methods`. */
  async function recording(methods: ReadonlyArray<keyof Repos['tasks']>, call: () => Promise<unknown>): Promise<Call[]> {
    const store = ctx.deps.store as { transaction: (fn: (tx: Repos) => Promise<unknown>) => Promise<unknown> };
    const real = store.transaction.bind(store);
    const calls: Call[] = [];
    store.transaction = (fn) =>
      real((tx) => {
        const tasks = Object.create(tx.tasks) as Record<string, unknown>;
        for (const method of methods) {
          const original = tx.tasks[method] as (...args: unknown[]) => unknown;
          tasks[method] = (...args: unknown[]) => {
            calls.push({ method, args });
            return original.apply(tx.tasks, args);
          };
        }
        return fn({ ...tx, tasks: tasks as unknown as Repos['tasks'] });
      });
    try {
      await call();
    } finally {
      store.transaction = real;
    }
    return calls;
  }

  /** Runs `call`, counting the calls of every method of the task and sharing repositories of its transactions. */
  const repositoryCallsOf = (call: () => Promise<unknown>) => repositoryCalls(ctx.deps.store, ['tasks', 'sharing'], call);

  /** Writes of task `id` by the calls recorded: an update of it, or an updateMany holding it. */
  const rewritesOf = (calls: readonly Call[], id: unknown) =>
    calls.filter((c) => (c.method === 'update' && (c.args[1] as Task).id === id) || (c.method === 'updateMany' && (c.args[1] as Task[]).some((t) => t.id === id))).length;
  const send = async (action: 'add' | 'edit' | 'delete', tasks: unknown[], extra: Record<string, string> = {}) =>
    (await tasksCall(ctx, token, action, tasks, extra)).json() as Json[];
  const modifiedOf = async (id: unknown) => ((await api(ctx, token, '/3/tasks/get.php', { id: String(id) })).json() as Json[])[1]?.['modified'] as number;

  it('adding 50 subtasks to one parent rewrites the parent once, with the stamp of the call', async () => {
    const [parent] = await send('add', [{ title: 'Parent' }]);
    ctx.clock.advance(30);
    let added: Json[] = [];
    const calls = await recording(['update', 'updateMany'], async () => {
      added = await send('add', Array.from({ length: 50 }, (_, i) => ({ title: `Sub ${i}`, parent: parent?.['id'] })));
    });
    assert.equal(added.filter((t) => typeof t['id'] === 'number').length, 50);
    assert.equal(rewritesOf(calls, parent?.['id']), 1);
    assert.equal(await modifiedOf(parent?.['id']), added[0]?.['modified']);
  });

  it('moving subtasks between two parents, or deleting them, rewrites each parent once', async () => {
    const [p1, p2] = await send('add', [{ title: 'P1' }, { title: 'P2' }]);
    const subs = await send('add', [1, 2, 3].map((i) => ({ title: `Sub ${i}`, parent: p1?.['id'] })));
    ctx.clock.advance(30);
    const moves = await recording(['update', 'updateMany'], () => send('edit', subs.map((s) => ({ id: s['id'], parent: p2?.['id'] }))));
    assert.deepEqual([rewritesOf(moves, p1?.['id']), rewritesOf(moves, p2?.['id'])], [1, 1]);
    ctx.clock.advance(30);
    const deletes = await recording(['update', 'updateMany'], () => send('delete', subs.map((s) => s['id'])));
    assert.equal(rewritesOf(deletes, p2?.['id']), 1);
    assert.ok((await modifiedOf(p2?.['id'])) > (await modifiedOf(p1?.['id'])), 'the delete stamped P2 again');
  });

  // On PostgreSQL each call of a repository is a round trip or more: a call of 50 items must not make
  // ten times those of 5 (issue 15: a constant number of round trips per write call).
  for (const fields of ['', 'children,meta,attachment,shared']) {
    it(`adds, edits and deletes of 50 tasks call the repositories as often as of 5${fields ? ` (fields ${fields})` : ''}`, async () => {
      const costs: Array<Map<string, number>> = [];
      for (const n of [5, 50]) {
        let added: Json[] = [];
        const adds = await repositoryCallsOf(async () => {
          added = await send('add', Array.from({ length: n }, (_, i) => ({ title: `Batch ${i}`, meta: `app data ${i}` })), { fields });
        });
        const ids = added.map((t) => t['id']);
        ctx.clock.advance(1);
        let edited: Json[] = [];
        const edits = await repositoryCallsOf(async () => {
          edited = await send('edit', ids.map((id) => ({ id, title: `Edited ${String(id)}`, star: 1, meta: `edited ${String(id)}` })), { fields });
        });
        assert.deepEqual(edited.map((t) => t['title']), ids.map((id) => `Edited ${String(id)}`));
        let deleted: Json[] = [];
        const deletes = await repositoryCallsOf(async () => {
          deleted = await send('delete', ids);
        });
        assert.deepEqual(deleted.map((t) => t['id']), ids);
        costs.push(new Map([...[...adds].map(([k, v]) => [`add ${k}`, v] as const), ...[...edits].map(([k, v]) => [`edit ${k}`, v] as const), ...[...deletes].map(([k, v]) => [`delete ${k}`, v] as const)]));
      }
      assert.deepEqual(Object.fromEntries(costs[1] ?? []), Object.fromEntries(costs[0] ?? []));
      assert.ok([...(costs[1] ?? new Map<string, number>()).values()].every((n) => n <= 2), 'no method is called per item');
    });
  }

  it('a task added a moment ago has no subtasks: the children field costs no query', async () => {
    let added: Json[] = [];
    const calls = await recording(['childIds'], async () => {
      added = await send('add', [{ title: 'New' }], { fields: 'children' });
    });
    assert.equal(added[0]?.['children'], 0);
    assert.deepEqual(calls, []);
  });

  // The count comes with the account's lock (accounts.lock), so no call asks the tasks for it: the
  // 603 limit at 80,000 tasks is tested in tasks.add.test.ts.
  it("never counts the account's tasks, for added tasks or for completed copies of repeating ones", async () => {
    const adds = await recording(['count'], () => send('add', [{ title: 'a' }, { title: 'b' }, { title: 'c' }]));
    assert.equal(adds.filter((c) => c.method === 'count').length, 0);
    const due = Math.floor(ctx.clock.now() / 1000);
    const repeating = await send('add', [1, 2, 3].map((i) => ({ title: `Daily ${i}`, duedate: due, repeat: 'FREQ=DAILY' })));
    let done: Json[] = [];
    const edits = await recording(['count'], async () => {
      done = await send('edit', repeating.map((t) => ({ id: t['id'], completed: due })), { reschedule: '1' });
    });
    assert.deepEqual(done.map((t) => t['completed']), [0, 0, 0], 'each was rescheduled');
    assert.equal(edits.filter((c) => c.method === 'count').length, 0);
  });
});
