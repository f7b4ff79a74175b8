import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { settledStamps, testContext } from '../../../test/harness.js';
import { unixSeconds } from '../../lib/clock.js';
import { STAMP_NAMES, type StampName, type Stamps } from '../../storage/store.js';
import { add, call, insertTasks, KIND_NAMES, newUser, setup, stamps } from './organizers.test-kit.js';

/** The stamps that moved between two readings. */
function moved(a: Stamps, b: Stamps): StampName[] {
  return STAMP_NAMES.filter((n) => a[n] !== b[n]);
}

describe('stamps of account/get', () => {
  const env = setup(() => testContext());

  for (const kind of KIND_NAMES) {
    it(`add, edit and delete of a ${kind} move lastedit_${kind} to the clock's second, and nothing else`, async () => {
      env.ctx.clock.advance(1);
      const s0 = await stamps(env.ctx, env.user);
      const rec = await add(env.ctx, env.user, kind, { name: `Stamped ${kind}` });
      const s1 = await stamps(env.ctx, env.user);
      assert.deepEqual(moved(s0, s1), [`lastedit_${kind}`]);
      assert.equal(s1[`lastedit_${kind}`], unixSeconds(env.ctx.clock));
      env.ctx.clock.advance(1);
      await call(env.ctx, env.user, kind, 'edit', { id: String(rec['id']), name: `Restamped ${kind}` });
      const s2 = await stamps(env.ctx, env.user);
      assert.deepEqual(moved(s1, s2), [`lastedit_${kind}`]);
      assert.equal(s2[`lastedit_${kind}`], unixSeconds(env.ctx.clock));
      env.ctx.clock.advance(1);
      await call(env.ctx, env.user, kind, 'delete', { id: String(rec['id']) });
      const s3 = await stamps(env.ctx, env.user);
      // No task pointed at it: lastedit_task stays, so clients do not refetch tasks for nothing.
      assert.deepEqual(moved(s2, s3), [`lastedit_${kind}`]);
      assert.equal(s3[`lastedit_${kind}`], unixSeconds(env.ctx.clock));
    });
  }

  it('account/get shows the moved stamp', async () => {
    env.ctx.clock.advance(100);
    await add(env.ctx, env.user, 'goal', { name: 'Seen by account/get' });
    const written = unixSeconds(env.ctx.clock);
    assert.equal(((await settledStamps(env.ctx, env.user.token))).lastedit_goal, written);
  });
});

describe('deleting an organiser clears it from tasks, as a task edit', () => {
  const env = setup(() => testContext(), false);

  for (const kind of KIND_NAMES) {
    it(`${kind}: its tasks get ${kind} 0 with modified = the new lastedit_task; other tasks are untouched`, async () => {
      const user = await newUser(env.ctx);
      const target = await add(env.ctx, user, kind, { name: 'Doomed' });
      const keeper = await add(env.ctx, user, kind, { name: 'Kept' });
      const ids = await insertTasks(env.ctx, user, [
        { [kind]: target['id'], modified: 500 },
        { [kind]: target['id'], modified: 600 },
        { [kind]: keeper['id'], modified: 700 },
        { modified: 800 },
      ]);
      env.ctx.clock.advance(60);
      const before = await stamps(env.ctx, user);
      const res = await call(env.ctx, user, kind, 'delete', { id: String(target['id']) });
      assert.equal(res.body, `{"deleted":${target['id']}}`);
      const after = await stamps(env.ctx, user);
      assert.deepEqual(moved(before, after).sort(), [`lastedit_${kind}`, 'lastedit_task'].sort());
      assert.equal(after.lastedit_task, unixSeconds(env.ctx.clock));
      const tasks = await Promise.all(ids.map((id) => env.ctx.deps.store.read.tasks.get(user.account.pk, id)));
      assert.deepEqual(
        tasks.map((t) => [t?.[kind], t?.modified]),
        [
          [0, after.lastedit_task],
          [0, after.lastedit_task],
          [keeper['id'], 700],
          [0, 800],
        ],
      );
    });
  }

  it('the task stamp never moves back: an account an older version left ahead of the clock keeps it, and so do the cleared tasks', async () => {
    const user = await newUser(env.ctx);
    const ctxRec = await add(env.ctx, user, 'context', { name: 'Busy' });
    await insertTasks(env.ctx, user, [{ context: ctxRec['id'] as number }]);
    const now = unixSeconds(env.ctx.clock);
    await env.ctx.deps.store.transaction((tx) => tx.accounts.touch(user.account.pk, ['lastedit_task'], now + 5));
    await call(env.ctx, user, 'context', 'delete', { id: String(ctxRec['id']) });
    const s = await stamps(env.ctx, user);
    assert.equal(s.lastedit_task, now + 5);
    const [task] = (await env.ctx.deps.store.read.tasks.page(user.account.pk, { start: 0, num: 10, withChildren: false })).tasks;
    assert.equal(task?.modified, now + 5);
  });

  it("deleting a goal sets contributes to 0 on the goals that contributed to it, and only those", async () => {
    const user = await newUser(env.ctx);
    const life = await add(env.ctx, user, 'goal', { name: 'Lifetime', level: '0' });
    const other = await add(env.ctx, user, 'goal', { name: 'Other lifetime', level: '0' });
    const a = await add(env.ctx, user, 'goal', { name: 'A', level: '1', contributes: String(life['id']) });
    const b = await add(env.ctx, user, 'goal', { name: 'B', level: '2', contributes: String(life['id']) });
    const c = await add(env.ctx, user, 'goal', { name: 'C', level: '2', contributes: String(other['id']) });
    assert.equal(a['contributes'], life['id']);
    await call(env.ctx, user, 'goal', 'delete', { id: String(life['id']) });
    const goals = (await call(env.ctx, user, 'goal', 'get')).json() as Array<{ id: number; contributes: number }>;
    assert.deepEqual(
      goals.map((g) => [g.id, g.contributes]),
      [
        [other['id'], 0],
        [a['id'], 0],
        [b['id'], 0],
        [c['id'], other['id']],
      ],
    );
  });

  it("another account's tasks keep their reference to their own organiser with the same id", async () => {
    const alice = await newUser(env.ctx);
    const bob = await newUser(env.ctx);
    const aFolder = await add(env.ctx, alice, 'folder', { name: 'Shared name' });
    const bFolder = await add(env.ctx, bob, 'folder', { name: 'Shared name' });
    assert.equal(aFolder['id'], bFolder['id']);
    const [bobTask] = await insertTasks(env.ctx, bob, [{ folder: bFolder['id'] as number, modified: 42 }]);
    const bobStamps = await stamps(env.ctx, bob);
    await call(env.ctx, alice, 'folder', 'delete', { id: String(aFolder['id']) });
    const task = await env.ctx.deps.store.read.tasks.get(bob.account.pk, bobTask as number);
    assert.equal(task?.folder, bFolder['id']);
    assert.equal(task?.modified, 42);
    assert.deepEqual(await stamps(env.ctx, bob), bobStamps);
  });
});
