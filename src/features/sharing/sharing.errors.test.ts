import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newTask } from '../../../test/factories.js';
import { api, testContext, type SignedIn, type TestContext } from '../../../test/harness.js';
import { addTask, collaborate, people, share } from './sharing.test-kit.js';

/** The error paths of sharing that the feature tests do not reach on their way. */
describe('sharing: every error path', () => {
  let ctx: TestContext;
  let a: SignedIn, b: SignedIn, c: SignedIn;
  const code = async (who: SignedIn, path: string, form: Record<string, string>) => (await api(ctx, who.token, path, form)).json<{ errorCode?: number }>().errorCode;
  before(async () => {
    ctx = await testContext();
    [a, b, c] = (await people(ctx, 3)) as [SignedIn, SignedIn, SignedIn];
    await collaborate(ctx, a, b);
  });
  after(() => ctx.close());

  it('share.php: no id 604, no share 611, too many ids 611', async () => {
    const t = await addTask(ctx, a, { title: 't' });
    assert.equal(await code(a, '/3/tasks/share.php', { share: '[]' }), 604);
    assert.equal(await code(a, '/3/tasks/share.php', { id: String(t.id) }), 611);
    assert.equal(await code(a, '/3/tasks/share.php', { id: String(t.id), share: JSON.stringify(Array.from({ length: 51 }, (_, i) => `u${i}`)) }), 611);
    assert.equal(await code(a, '/3/tasks/share.php', { id: 'x', share: '[]' }), 605);
  });

  it('collaborators: editing a stranger 615, inviting a collaborator again 616, a missing id 615', async () => {
    assert.equal(await code(a, '/3/account/collaborators_edit.php', { id: c.account.userid, sharable: '0' }), 615);
    assert.equal(await code(a, '/3/account/collaborators_invite.php', { invite: b.account.email }), 616);
    assert.equal(await code(b, '/3/account/collaborators_invite.php', { invite: a.account.userid }), 616);
    assert.equal(await code(a, '/3/account/collaborators_accept.php', {}), 615);
    assert.equal(await code(a, '/3/account/collaborators_invite.php', {}), 615);
  });

  it('reassign.php: a task in a private folder 616; a subtask moves alone and becomes top-level', async () => {
    const priv = (await api(ctx, a.token, '/3/folders/add.php', { name: 'Private', private: '1' })).json<Array<{ id: number }>>()[0]!.id;
    const t = await addTask(ctx, a, { title: 'hidden', folder: priv });
    assert.equal(await code(a, '/3/tasks/reassign.php', { id: String(t.id), assign: b.account.userid }), 616);
    const parent = await addTask(ctx, a, { title: 'parent' });
    const child = await addTask(ctx, a, { title: 'child alone', parent: parent.id });
    assert.equal((await api(ctx, a.token, '/3/tasks/reassign.php', { id: String(child.id), assign: b.account.userid })).statusCode, 200);
    const [, ...theirs] = (await api(ctx, b.token, '/3/tasks/get.php', { fields: 'parent,addedby' })).json<Array<Record<string, unknown>>>();
    const moved = theirs.find((x) => x['title'] === 'child alone')!;
    assert.deepEqual([moved['parent'], moved['addedby']], [0, a.account.userid]);
    const [, p] = (await api(ctx, a.token, '/3/tasks/get.php', { id: String(parent.id), fields: 'children' })).json<Array<Record<string, unknown>>>();
    assert.equal(p!['children'], 0, 'the parent lost its subtask');
  });

  it('share.php and reassign.php: a collaborator whose account is full 616', async () => {
    await ctx.deps.store.transaction(async (tx) => {
      const first = await tx.accounts.allocateIds(b.account.pk, 'task', 80_000);
      await tx.tasks.insertMany(b.account.pk, Array.from({ length: 80_000 }, (_, i) => newTask(first + i)));
    });
    const t = await addTask(ctx, a, { title: 'no room' });
    assert.equal((await share(ctx, a, t.id, [b.account.userid])).json<{ errorCode: number }>().errorCode, 616);
    assert.equal(await code(a, '/3/tasks/reassign.php', { id: String(t.id), assign: b.account.userid }), 616);
  });

  it('saved searches: more than 50 in one call is 618, more than the cap per account 618 inline', async () => {
    const many = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ name: `s${i}` })));
    assert.equal(await code(c, '/3/tasks/search_add.php', { searches: many(51) }), 618);
    for (let i = 0; i < 4; i++) await api(ctx, c.token, '/3/tasks/search_add.php', { searches: many(50) });
    const [over] = (await api(ctx, c.token, '/3/tasks/search_add.php', { searches: many(1) })).json<Array<{ errorCode: number }>>();
    assert.equal(over!.errorCode, 618);
  });
});
