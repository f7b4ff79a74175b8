import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { api, tasksCall, testContext } from '../../../test/harness.js';
import { added, batch, inlineError, json, newUser, parseXml, setup, storedStamps, type Json } from './documents.test-kit.js';

/**
 * A task's `attachment`: the notes, outlines and lists linked to it. Clients link and unlink with
 * `attach` and `detach` in tasks/add and tasks/edit items (Tickler's addition); `attachment`
 * itself stays read-only; deleting a linked record removes the link as an edit of the task.
 */
describe('task attachments', () => {
  const env = setup(() => testContext());

  async function records(user: Awaited<ReturnType<typeof newUser>>) {
    const { ctx } = env;
    const [note] = await added(ctx, user, 'notes', [{ title: 'Recipe' }]);
    const [outline] = await added(ctx, user, 'outlines', [{ title: 'Plan', ref: 'p' }]);
    const [list] = await added(ctx, user, 'lists', [{ title: 'Shopping', ref: 's' }]);
    return { note: note?.['id'] as number, outline: outline?.['id'] as string, list: list?.['id'] as string };
  }

  it('attach on add and edit shows {id, kind, name} in the order linked; the edit moves modified and lastedit_task', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const r = await records(user);
    const [task] = json(await tasksCall(ctx, user.token, 'add', [{ title: 'Cook', attach: [{ kind: 'note', id: r.note }] }], { fields: 'attachment' }));
    assert.deepEqual(task?.['attachment'], [{ id: r.note, kind: 'note', name: 'Recipe' }]);
    ctx.clock.advance(2);
    const now = Math.floor(ctx.clock.now() / 1000);
    const [edited] = json(await tasksCall(ctx, user.token, 'edit', [{ id: task?.['id'], attach: [{ kind: 'list', id: r.list.toUpperCase() }, { kind: 'outline', id: r.outline }] }], { fields: 'attachment' }));
    assert.deepEqual(edited?.['attachment'], [
      { id: r.note, kind: 'note', name: 'Recipe' },
      { id: r.list, kind: 'list', name: 'Shopping' },
      { id: r.outline, kind: 'outline', name: 'Plan' },
    ]);
    assert.equal(edited?.['modified'], now);
    assert.equal((await storedStamps(ctx, user)).lastedit_task, now);
    // The name is the linked record's title as it is now.
    await batch(ctx, user, 'notes', 'edit', [{ id: r.note, title: 'Soup' }]);
    const [, listed] = json(await api(ctx, user.token, '/3/tasks/get.php', { fields: 'attachments' }));
    assert.equal((listed?.['attachment'] as Json[])[0]?.['name'], 'Soup');
    // XML: each link is an <attachment> element inside the task's <attachment> field.
    const body = (await api(ctx, user.token, '/3/tasks/get.php', { fields: 'attachment', f: 'xml' })).body;
    assert.match(body, new RegExp(`<attachment><attachment><id>${r.note}</id><kind>note</kind><name>Soup</name></attachment><attachment><id>${r.list}</id>`));
    parseXml(body);
  });

  it('detach removes a link; linking again or detaching what is not linked changes nothing; attachment sent back is ignored', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const r = await records(user);
    const [task] = json(await tasksCall(ctx, user.token, 'add', [{ title: 'T', attach: [{ kind: 'note', id: r.note }, { kind: 'list', id: r.list }] }], { fields: 'attachment' }));
    const id = task?.['id'];
    ctx.clock.advance(2);
    const [same] = json(await tasksCall(ctx, user.token, 'edit', [{ id, attach: [{ kind: 'note', id: String(r.note) }], detach: [{ kind: 'outline', id: r.outline }], attachment: [] }], { fields: 'attachment' }));
    assert.equal(same?.['modified'], task?.['modified'], 'nothing changed');
    assert.equal((same?.['attachment'] as Json[]).length, 2, 'attachment as sent back is read-only');
    const [less] = json(await tasksCall(ctx, user.token, 'edit', [{ id, detach: [{ kind: 'note', id: r.note }] }], { fields: 'attachment' }));
    assert.deepEqual(less?.['attachment'], [{ id: r.list, kind: 'list', name: 'Shopping' }]);
    assert.equal(less?.['modified'], Math.floor(ctx.clock.now() / 1000));
  });

  it('deleting a linked note, outline or list removes the link, as an edit of the task (modified and lastedit_task move); an unlinked delete moves no task stamp', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const r = await records(user);
    const [task] = json(await tasksCall(ctx, user.token, 'add', [{ title: 'T', attach: [{ kind: 'note', id: r.note }, { kind: 'outline', id: r.outline }, { kind: 'list', id: r.list }] }]));
    for (const [plural, rid] of [['notes', r.note], ['outlines', r.outline], ['lists', r.list]] as const) {
      ctx.clock.advance(2);
      const now = Math.floor(ctx.clock.now() / 1000);
      assert.deepEqual(json(await batch(ctx, user, plural, 'delete', [rid])), [{ id: rid }]);
      const [, got] = json(await api(ctx, user.token, '/3/tasks/get.php', { id: String(task?.['id']), fields: 'attachment' }));
      assert.equal(got?.['modified'], now, plural);
      assert.ok(!(got?.['attachment'] as Json[]).some((a) => a['id'] === rid), plural);
      assert.equal((await storedStamps(ctx, user)).lastedit_task, now);
    }
    const [lone] = await added(ctx, user, 'notes', [{ title: 'Alone' }]);
    const before = (await storedStamps(ctx, user)).lastedit_task;
    ctx.clock.advance(2);
    await batch(ctx, user, 'notes', 'delete', [lone?.['id']]);
    assert.equal((await storedStamps(ctx, user)).lastedit_task, before);
    // Deleting a task takes its links with it.
    const [t2] = json(await tasksCall(ctx, user.token, 'add', [{ title: 'T2', attach: [{ kind: 'note', id: (await added(ctx, user, 'notes', [{ title: 'N' }]))[0]?.['id'] }] }]));
    await tasksCall(ctx, user.token, 'delete', [t2?.['id']]);
    assert.equal((await ctx.deps.store.read.attachments.forTasks(user.account.pk, [t2?.['id'] as number])).size, 0);
  });

  it('errors: an unknown record is the kind\'s invalid code (705, 805, 905); a bad shape is 611; other items go on', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const other = await newUser(ctx);
    const theirs = await records(other);
    const out = json(await tasksCall(ctx, user.token, 'add', [
      { title: 'a', attach: [{ kind: 'note', id: theirs.note }], ref: 'a' },
      { title: 'b', attach: [{ kind: 'outline', id: theirs.outline }], ref: 'b' },
      { title: 'c', attach: [{ kind: 'list', id: 'nope' }], ref: 'c' },
      { title: 'd', attach: [{ kind: 'file', id: 1 }], ref: 'd' },
      { title: 'e', attach: { kind: 'note', id: 1 }, ref: 'e' },
      { title: 'f', ref: 'f' },
    ]));
    inlineError(out[0] as Json, 705, 'a');
    inlineError(out[1] as Json, 805, 'b');
    inlineError(out[2] as Json, 905, 'c');
    inlineError(out[3] as Json, 611, 'd');
    inlineError(out[4] as Json, 611, 'e');
    assert.equal(out[5]?.['title'], 'f');
    const [t] = json(await tasksCall(ctx, user.token, 'edit', [{ id: out[5]?.['id'], detach: 'all' }]));
    inlineError(t as Json, 611, String(out[5]?.['id']));
    // 606 still answers an item that asks for nothing at all.
    inlineError(json(await tasksCall(ctx, user.token, 'edit', [{ id: out[5]?.['id'], attachment: [] }]))[0] as Json, 606);
  });

  it('611 past 100 links on one task', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const notes: number[] = [];
    for (let i = 0; i < 3; i++) notes.push(...(await added(ctx, user, 'notes', Array.from({ length: 34 }, (_, j) => ({ title: `n${i}-${j}` })))).map((n) => n['id'] as number));
    const attach = notes.slice(0, 100).map((id) => ({ kind: 'note', id }));
    const [t] = json(await tasksCall(ctx, user.token, 'add', [{ title: 'Many', attach }], { fields: 'attachment' }));
    assert.equal((t?.['attachment'] as Json[]).length, 100);
    inlineError(json(await tasksCall(ctx, user.token, 'edit', [{ id: t?.['id'], attach: [{ kind: 'note', id: notes[100] }] }]))[0] as Json, 611);
  });
});
