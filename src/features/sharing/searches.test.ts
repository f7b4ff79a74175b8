import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, signIn, tasksCall, testContext, type SignedIn, type TestContext } from '../../../test/harness.js';

const EXAMPLE = {
  root: [
    { field: 'checked', type: 'no', value: '' },
    { field: 'title', type: 'contains', value: 'laundry' },
  ],
  '1': [
    { field: 'tag', type: 'is', value: 'tag' },
    { field: 'folder', type: 'is not', value: '12345' },
  ],
};

describe('saved searches: tasks/search.php, the additive writes, tasks/get search=', () => {
  let ctx: TestContext;
  let me: SignedIn;
  let other: SignedIn;
  before(async () => {
    ctx = await testContext();
    me = await signIn(ctx, { pro: 1 });
    other = await signIn(ctx, { pro: 1 });
  });
  after(() => ctx.close());

  it('adds, reads (JSON and XML), edits and deletes searches; per-item errors 618', async () => {
    const add = await api(ctx, me.token, '/3/tasks/search_add.php', {
      searches: JSON.stringify([{ name: 'MySearch', bool: 'All', search: EXAMPLE }, { name: '', search: {} }, { name: 'Bad', search: { root: [{ field: 'colour', type: 'is', value: 'x' }] } }]),
    });
    const [made, noName, badRule] = add.json<Array<Record<string, unknown>>>();
    assert.equal(noName!['errorCode'], 618);
    assert.equal(badRule!['errorCode'], 618);
    assert.match(String(badRule!['errorDesc']), /colour/);
    const id = made!['id'] as number;
    const listed = (await api(ctx, me.token, '/3/tasks/search.php')).json();
    assert.deepEqual(listed, [{ id, name: 'MySearch', bool: 'All', search: EXAMPLE }]);
    const xml = (await api(ctx, me.token, '/3/tasks/search.php', { f: 'xml' })).body;
    assert.match(
      xml,
      new RegExp(
        `<searches><search><id>${id}</id><name>MySearch</name><bool>All</bool><root><rule><field>checked</field><type>no</type><value></value></rule><rule><field>title</field><type>contains</type><value>laundry</value></rule></root><group id="1"><rule><field>tag</field>`,
      ),
    );
    // Another account sees none of them, and cannot edit or delete them.
    assert.deepEqual((await api(ctx, other.token, '/3/tasks/search.php')).json(), []);
    assert.equal((await api(ctx, other.token, '/3/tasks/search_edit.php', { searches: JSON.stringify([{ id, name: 'Mine' }]) })).json<Array<{ errorCode: number }>>()[0]!.errorCode, 618);
    assert.equal((await api(ctx, other.token, '/3/tasks/search_delete.php', { searches: JSON.stringify([id]) })).json<Array<{ errorCode: number }>>()[0]!.errorCode, 618);
    const edited = (await api(ctx, me.token, '/3/tasks/search_edit.php', { searches: JSON.stringify([{ id, bool: 'any' }]) })).json<Array<Record<string, unknown>>>();
    assert.deepEqual([edited[0]!['bool'], edited[0]!['name']], ['Any', 'MySearch']);
    const bad = await api(ctx, me.token, '/3/tasks/search_edit.php', { searches: JSON.stringify([{ id, bool: 'Some' }]), f: 'xml' });
    assert.match(bad.body, /<error id="618" ref="\d+">/);
    assert.deepEqual((await api(ctx, me.token, '/3/tasks/search_delete.php', { searches: JSON.stringify([id]) })).json(), [{ id }]);
    assert.match((await api(ctx, me.token, '/3/tasks/search_delete.php', { searches: JSON.stringify([id]), f: 'xml' })).body, /<deleted><error id="618"/);
    assert.equal((await api(ctx, me.token, '/3/tasks/search_add.php', { searches: 'nope' })).json<{ errorCode: number }>().errorCode, 611);
  });

  it('tasks/get search=<id> runs it on the server with tasks/get paging, in JSON and XML; an unknown id is 618', async () => {
    const titles = ['laundry 1', 'Laundry 2', 'dishes', 'laundry 3', 'laundry done'];
    await tasksCall(ctx, me.token, 'add', titles.map((title) => ({ title, tag: title === 'laundry 3' ? 'skip' : '', ...(title === 'laundry done' && { completed: 1700000000 }) })));
    await tasksCall(ctx, other.token, 'add', [{ title: 'laundry of someone else' }]);
    const [s] = (
      await api(ctx, me.token, '/3/tasks/search_add.php', {
        searches: JSON.stringify([{ name: 'L', bool: 'All', search: { root: [{ field: 'checked', type: 'no' }, { field: 'title', type: 'contains', value: 'laundry' }], '1': [{ field: 'tag', type: 'is empty' }] } }]),
      })
    ).json<Array<{ id: number }>>();
    const get = async (form: Record<string, string>) => (await api(ctx, me.token, '/3/tasks/get.php', { search: String(s!.id), ...form })).json<Array<Record<string, unknown>>>();
    const [head, ...found] = await get({});
    assert.deepEqual(head, { num: 2, total: 2 });
    assert.deepEqual(found.map((t) => t['title']), ['laundry 1', 'Laundry 2']);
    const [page, second] = await get({ start: '1', num: '1', fields: 'tag,shared' });
    assert.deepEqual(page, { num: 1, total: 2 });
    assert.deepEqual([second!['title'], second!['tag'], second!['shared']], ['Laundry 2', '', 0]);
    const xml = (await api(ctx, me.token, '/3/tasks/get.php', { search: String(s!.id), f: 'xml' })).body;
    assert.match(xml, /<tasks num="2" total="2"><task><id>\d+<\/id><title>laundry 1<\/title>/);
    assert.equal((await api(ctx, other.token, '/3/tasks/get.php', { search: String(s!.id) })).json<{ errorCode: number }>().errorCode, 618);
    assert.equal((await api(ctx, me.token, '/3/tasks/get.php', { search: 'x' })).json<{ errorCode: number }>().errorCode, 618);
  });
});
