import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, settle, signIn, tasksCall, testContext, type SignedIn, type TestContext } from '../../../test/harness.js';
import { addTask, collaborate, people, rows, share, type Row } from './sharing.test-kit.js';

describe('collaborators', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await testContext();
  });
  after(() => ctx.close());

  it('invite by e-mail or user id, accept, and account/collaborators.php in JSON and XML', async () => {
    const [a, b, c] = await people(ctx, 3);
    await collaborate(ctx, a!, b!, { reassignable: 0 });
    const inv = await api(ctx, a!.token, '/3/account/collaborators_invite.php', { invite: c!.account.userid, sharable: '0' });
    assert.equal(inv.json<Record<string, unknown>>()['state'], 'sent');
    // Not accepted yet: not a collaborator.
    const list = (await api(ctx, a!.token, '/3/account/collaborators.php')).json<unknown[]>();
    assert.deepEqual(list, [{ id: b!.account.userid, name: b!.account.alias, reassignable: 0, sharable: 1 }]);
    // b sees a with what a lets b do (a allowed everything by default).
    assert.deepEqual((await api(ctx, b!.token, '/3/account/collaborators.php')).json(), [{ id: a!.account.userid, name: a!.account.alias, reassignable: 1, sharable: 1 }]);
    const xml = (await api(ctx, a!.token, '/3/account/collaborators.php', { f: 'xml' })).body;
    assert.match(xml, new RegExp(`<users><user><id>${b!.account.userid}</id><name>Tester</name><reassignable>0</reassignable><sharable>1</sharable></user></users>`));
    const pending = (await api(ctx, c!.token, '/3/account/invitations.php')).json<Array<Record<string, unknown>>>();
    assert.deepEqual(pending.map((p) => [p['id'], p['state'], p['sharable']]), [[a!.account.userid, 'received', 0]]);
    // Declining removes both sides.
    assert.equal((await api(ctx, c!.token, '/3/account/collaborators_end.php', { id: a!.account.userid })).statusCode, 200);
    assert.deepEqual((await api(ctx, a!.token, '/3/account/invitations.php')).json<unknown[]>().length, 1);
  });

  it('errors: unknown account or oneself 615, twice 616, accepting nothing 615, the scope share', async () => {
    const [a, b] = await people(ctx, 2);
    const code = async (who: SignedIn, path: string, form: Record<string, string>) => (await api(ctx, who.token, path, form)).json<{ errorCode: number }>().errorCode;
    assert.equal(await code(a!, '/3/account/collaborators_invite.php', { invite: 'nobody@example.org' }), 615);
    assert.equal(await code(a!, '/3/account/collaborators_invite.php', { invite: a!.account.userid }), 615);
    assert.equal(await code(a!, '/3/account/collaborators_accept.php', { id: b!.account.userid }), 615);
    assert.equal(await code(a!, '/3/account/collaborators_end.php', { id: b!.account.userid }), 615);
    await api(ctx, a!.token, '/3/account/collaborators_invite.php', { invite: b!.account.userid });
    assert.equal(await code(a!, '/3/account/collaborators_invite.php', { invite: b!.account.userid }), 616);
    assert.equal(await code(a!, '/3/account/collaborators_edit.php', { id: b!.account.userid, sharable: '2' }), 611);
    // b inviting a back accepts a's invitation.
    assert.equal((await api(ctx, b!.token, '/3/account/collaborators_invite.php', { invite: a!.account.email })).json<Record<string, unknown>>()['state'], 'accepted');
    const basic = await signIn(ctx, { account: a!.account, scope: 'basic tasks' });
    assert.equal((await api(ctx, basic.token, '/3/account/collaborators.php')).statusCode, 401);
    const xml = await api(ctx, a!.token, '/3/account/collaborators_invite.php', { invite: 'x', f: 'xml' });
    assert.match(xml.body, /<error id="615">/);
  });
});

describe('tasks/share.php: joint tasks', () => {
  let ctx: TestContext;
  let a: SignedIn, b: SignedIn, c: SignedIn;
  before(async () => {
    ctx = await testContext();
    [a, b, c] = (await people(ctx, 3)) as [SignedIn, SignedIn, SignedIn];
    await collaborate(ctx, a, b);
    await collaborate(ctx, a, c);
  });
  after(() => ctx.close());

  it('a joint task is in every participant’s tasks/get with shared, sharedowner and sharedwith (JSON and XML)', async () => {
    const folder = (await api(ctx, a.token, '/3/folders/add.php', { name: 'Home' })).json<Array<{ id: number }>>()[0]!.id;
    const t = await addTask(ctx, a, { title: 'Paint the fence', folder, note: 'white' });
    const res = await share(ctx, a, t.id, [b.account.userid, c.account.userid]);
    assert.equal(res.statusCode, 200, res.body);
    const [shown] = res.json<Row[]>();
    assert.deepEqual([shown!['shared'], shown!['sharedowner'], shown!['sharedwith']], [1, a.account.userid, [b.account.userid, c.account.userid].sort(byPk(b, c))]);
    const mine = (await rows(ctx, a)).find((r) => r.id === t.id)!;
    assert.equal(mine['folder'], folder);
    for (const other of [b, c]) {
      const copy = (await rows(ctx, other)).find((r) => r.title === 'Paint the fence')!;
      assert.ok(copy, 'the copy is on their list');
      assert.equal(copy['shared'], 1);
      assert.equal(copy['sharedowner'], a.account.userid);
      assert.deepEqual(copy['sharedwith'], [other === b ? c.account.userid : b.account.userid]);
      // Their own folder: none, never a's.
      assert.equal(copy['folder'], 0);
      assert.equal(copy['note'], 'white');
      const xml = (await api(ctx, other.token, '/3/tasks/get.php', { fields: 'shared,sharedowner,sharedwith', f: 'xml', id: String(copy.id) })).body;
      assert.match(xml, new RegExp(`<shared>1</shared><sharedowner>${a.account.userid}</sharedowner><sharedwith><id>${(other === b ? c : b).account.userid}</id></sharedwith>`));
    }
    // An unshared task still says 0 and [].
    const plain = await addTask(ctx, a, { title: 'Alone' });
    const p = (await rows(ctx, a)).find((r) => r.id === plain.id)!;
    assert.deepEqual([p['shared'], p['sharedowner'], p['sharedwith'], p['addedby']], [0, 0, [], 0]);
  });

  it('any participant edits; every participant’s sync fetches it; only personal fields stay personal', async () => {
    const t = await addTask(ctx, a, { title: 'Joint' });
    await share(ctx, a, t.id, [b.account.userid]);
    settle(ctx);
    const before = (await api(ctx, a.token, '/3/account/get.php')).json<Record<string, number>>()['lastedit_task']!;
    const copy = (await rows(ctx, b)).find((r) => r.title === 'Joint')!;
    const folderB = (await api(ctx, b.token, '/3/folders/add.php', { name: 'Mine' })).json<Array<{ id: number }>>()[0]!.id;
    const edited = await tasksCall(ctx, b.token, 'edit', [{ id: copy.id, title: 'Joint, edited by b', folder: folderB }]);
    assert.equal(edited.statusCode, 200, edited.body);
    settle(ctx);
    const stamp = (await api(ctx, a.token, '/3/account/get.php')).json<Record<string, number>>()['lastedit_task']!;
    assert.ok(stamp > before, 'a’s edit stamp moved');
    const changed = await rows(ctx, a, { after: String(before) });
    assert.deepEqual(changed.map((r) => [r.id, r.title, r['folder']]), [[t.id, 'Joint, edited by b', 0]], 'a’s sync fetches the edit, with a’s own folder');
    assert.equal((await rows(ctx, b)).find((r) => r.id === copy.id)!['folder'], folderB);
  });

  it('the owner’s deletion reaches every copy through their deleted lists; a participant’s deletion only takes them out', async () => {
    const t = await addTask(ctx, a, { title: 'Doomed' });
    await share(ctx, a, t.id, [b.account.userid, c.account.userid]);
    const copyC = (await rows(ctx, c)).find((r) => r.title === 'Doomed')!;
    settle(ctx);
    // c leaves: a and b keep it, and see sharedwith change.
    await tasksCall(ctx, c.token, 'delete', [copyC.id]);
    const mine = (await rows(ctx, a)).find((r) => r.id === t.id)!;
    assert.deepEqual(mine['sharedwith'], [b.account.userid]);
    const copyB = (await rows(ctx, b)).find((r) => r.title === 'Doomed')!;
    assert.deepEqual(copyB['sharedwith'], []);
    settle(ctx);
    const lastDelete = (await api(ctx, b.token, '/3/account/get.php')).json<Record<string, number>>()['lastdelete_task']!;
    await tasksCall(ctx, a.token, 'delete', [t.id]);
    settle(ctx);
    assert.ok((await api(ctx, b.token, '/3/account/get.php')).json<Record<string, number>>()['lastdelete_task']! > lastDelete);
    const [, ...gone] = (await api(ctx, b.token, '/3/tasks/deleted.php', { after: String(lastDelete) })).json<Array<{ id: number }>>();
    assert.deepEqual(gone.map((g) => g.id), [copyB.id]);
    assert.equal((await rows(ctx, b)).find((r) => r.title === 'Doomed'), undefined);
  });

  it('only the owner changes the sharing (616); unsharing removes the copy; private folders 616; 615; 617', async () => {
    const t = await addTask(ctx, a, { title: 'Rules' });
    await share(ctx, a, t.id, [b.account.userid]);
    const copy = (await rows(ctx, b)).find((r) => r.title === 'Rules')!;
    const err = async (res: Promise<{ json: <T>() => T }>) => (await res).json<{ errorCode: number }>().errorCode;
    assert.equal(await err(share(ctx, b, copy.id, [])), 616);
    assert.equal(await err(share(ctx, a, t.id, ['nobody'])), 615);
    const [stranger] = await people(ctx, 1);
    assert.equal(await err(share(ctx, a, t.id, [stranger!.account.userid])), 615);
    assert.equal(await err(share(ctx, a, 999999, [b.account.userid])), 605);
    assert.equal((await api(ctx, a.token, '/3/tasks/share.php', { id: String(t.id), share: '[{"x":1}]' })).json<{ errorCode: number }>().errorCode, 611);
    const priv = (await api(ctx, a.token, '/3/folders/add.php', { name: 'Secret', private: '1' })).json<Array<{ id: number }>>()[0]!.id;
    const hidden = await addTask(ctx, a, { title: 'Hidden', folder: priv });
    assert.equal(await err(share(ctx, a, hidden.id, [b.account.userid])), 616);
    const xml = await api(ctx, a.token, '/3/tasks/share.php', { id: String(hidden.id), share: JSON.stringify([b.account.userid]), f: 'xml' });
    assert.match(xml.body, /<error id="616">/);
    // Unsharing: b's copy leaves b's list.
    const res = await share(ctx, a, t.id, []);
    assert.deepEqual(res.json<Row[]>()[0]!['shared'], 0);
    assert.equal((await rows(ctx, b)).find((r) => r.id === copy.id), undefined);
    // b does not accept shares from c.
    await api(ctx, b.token, '/3/account/collaborators_invite.php', { invite: c.account.userid, sharable: '0' });
    await api(ctx, c.token, '/3/account/collaborators_accept.php', { id: b.account.userid });
    const ct = await addTask(ctx, c, { title: 'From c' });
    assert.equal(await err(share(ctx, c, ct.id, [b.account.userid])), 616);
    // Below the subscription level: 617 to share, and to edit someone else's joint task.
    const [free1, free2] = await people(ctx, 2, 0);
    await collaborate(ctx, free1!, a);
    const ft = await addTask(ctx, free1!, { title: 'Free' });
    assert.equal(await err(share(ctx, free1!, ft.id, [a.account.userid])), 617);
    const at = await addTask(ctx, a, { title: 'To free' });
    assert.equal((await share(ctx, a, at.id, [free1!.account.userid])).statusCode, 200);
    const freeCopy = (await rows(ctx, free1!)).find((r) => r.title === 'To free')!;
    const edit = await tasksCall(ctx, free1!.token, 'edit', [{ id: freeCopy.id, title: 'x' }]);
    assert.equal(edit.json<Array<{ errorCode: number }>>()[0]!.errorCode, 617);
    void free2;
  });
});

describe('tasks/reassign.php', () => {
  let ctx: TestContext;
  let a: SignedIn, b: SignedIn;
  before(async () => {
    ctx = await testContext();
    [a, b] = (await people(ctx, 2)) as [SignedIn, SignedIn];
    await collaborate(ctx, a, b);
  });
  after(() => ctx.close());

  it('moves a task with its subtasks: out of the owner’s list through the deleted list, into the collaborator’s with addedby', async () => {
    const parent = await addTask(ctx, a, { title: 'Move house', note: 'boxes' });
    const child = await addTask(ctx, a, { title: 'Pack books', parent: parent.id });
    settle(ctx);
    const stampsA = (await api(ctx, a.token, '/3/account/get.php')).json<Record<string, number>>();
    const stampsB = (await api(ctx, b.token, '/3/account/get.php')).json<Record<string, number>>();
    const res = await api(ctx, a.token, '/3/tasks/reassign.php', { id: String(parent.id), assign: b.account.userid });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), [{ id: parent.id, assigned: b.account.userid }]);
    settle(ctx);
    const [, ...gone] = (await api(ctx, a.token, '/3/tasks/deleted.php', { after: String(stampsA['lastdelete_task']) })).json<Array<{ id: number }>>();
    assert.deepEqual(gone.map((g) => g.id).sort(), [parent.id, child.id].sort());
    const theirs = await rows(ctx, b, { after: String(stampsB['lastedit_task']), fields: 'addedby,parent,note' });
    assert.equal(theirs.length, 2);
    const p = theirs.find((r) => r.title === 'Move house')!;
    assert.equal(p['addedby'], a.account.userid);
    assert.equal(p['note'], 'boxes');
    assert.equal(theirs.find((r) => r.title === 'Pack books')!['parent'], p.id);
    const xml = (await api(ctx, b.token, '/3/tasks/get.php', { fields: 'addedby', f: 'xml', id: String(p.id) })).body;
    assert.match(xml, new RegExp(`<addedby>${a.account.userid}</addedby>`));
    assert.equal((await rows(ctx, a)).length, 0);
  });

  it('errors: 615 not a collaborator, 616 not allowed, joint or private, 605, 617; XML', async () => {
    const err = async (who: SignedIn, form: Record<string, string>) => (await api(ctx, who.token, '/3/tasks/reassign.php', form)).json<{ errorCode: number }>().errorCode;
    const t = await addTask(ctx, a, { title: 'Give' });
    assert.equal(await err(a, { id: String(t.id), assign: 'nobody' }), 615);
    assert.equal(await err(a, { id: String(t.id) }), 615);
    assert.equal(await err(a, { id: '99999', assign: b.account.userid }), 605);
    await api(ctx, b.token, '/3/account/collaborators_edit.php', { id: a.account.userid, reassignable: '0' });
    assert.equal(await err(a, { id: String(t.id), assign: b.account.userid }), 616);
    await api(ctx, b.token, '/3/account/collaborators_edit.php', { id: a.account.userid, reassignable: '1' });
    await share(ctx, a, t.id, [b.account.userid]);
    assert.equal(await err(a, { id: String(t.id), assign: b.account.userid }), 616);
    const [free] = await people(ctx, 1, 0);
    await collaborate(ctx, free!, a);
    const ft = await addTask(ctx, free!, { title: 'f' });
    assert.equal(await err(free!, { id: String(ft.id), assign: a.account.userid }), 617);
    const xml = await api(ctx, a.token, '/3/tasks/reassign.php', { id: String(t.id), assign: 'nobody', f: 'xml' });
    assert.match(xml.body, /<error id="615">/);
  });
});

/** Sorts user ids in the order of their accounts (the order sharedwith lists them). */
function byPk(x: SignedIn, y: SignedIn): (p: string, q: string) => number {
  const order = new Map([[x.account.userid, x.account.pk], [y.account.userid, y.account.pk]]);
  return (p, q) => (order.get(p) ?? 0) - (order.get(q) ?? 0);
}
