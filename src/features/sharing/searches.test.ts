import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { newTask } from '../../../test/factories.js';
import { api, signIn, tasksCall, testContext, type SignedIn, type TestContext } from '../../../test/harness.js';
import { signedInBrowser, text } from '../../../test/web-pages.js';
import type { Task } from '../../storage/store.js';
import { fieldNames, matches, parseRules, ruleProblem, searchPlan, TYPES, type Rule } from './search-rules.js';

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

  it('the database decides what it can of a search as the rules do: any search, both databases, paged', async () => {
    // Values on either side of every edge the conditions have: a day's first and last second, a
    // date of 0 and of Unix time 0's day, numbers past INTEGER's range, text whose case differs.
    const day = Date.UTC(2026, 2, 10) / 1000;
    const dates = [0, -1, 1, 43200, 86399, 86400, day - 1, day, day + 1, day + 43200, day + 86399, day + 86400];
    const task = fc.record({
      title: fc.constantFrom('', 'Laundry', 'laundry soap', 'LAUNDRY', 'Straße', 'x', 'İx laundry', '\u212Aelvin', 'ÉCOLE'),
      note: fc.constantFrom('', 'the blue one', 'BLUE'),
      repeat: fc.constantFrom('', 'FREQ=DAILY'),
      tag: fc.constantFrom('', 'home, Errands', ' , ', 'work', 'İş, HOME'),
      folder: fc.constantFrom(0, 5, 12345),
      context: fc.constantFrom(0, 5),
      goal: fc.constantFrom(0, 5),
      location: fc.constantFrom(0, 5),
      parent: fc.constantFrom(0, 5),
      priority: fc.integer({ min: -1, max: 3 }),
      status: fc.constantFrom(0, 1, 10),
      length: fc.constantFrom(0, 30, 2147483647),
      star: fc.constantFrom(0, 1),
      duedate: fc.constantFrom(...dates),
      startdate: fc.constantFrom(...dates),
      completed: fc.constantFrom(...dates),
      added: fc.constantFrom(...dates),
      modified: fc.constantFrom(...dates),
    });
    const tasks: Task[] = fc.sample(task, { numRuns: 120, seed: 20261124 }).map((t, i) => newTask(i + 1, t));
    const mine = await signIn(ctx, { pro: 1 });
    await ctx.deps.store.transaction(async (tx) => {
      await tx.accounts.allocateIds(mine.account.pk, 'task', tasks.length);
      await tx.tasks.insertMany(mine.account.pk, tasks);
    });
    const values = ['', '0', '1', '2', '-1', '5', '30', '12345', '999999999999999', '2026-03-10', '2026-03-09', '1970-01-01', '1970-01-02', String(day + 43200), 'laundry', 'LAUNDRY', 'blue', 'errands', 'straße', 'home', 'i', 'ix', 'kelvin', 'école', 'cole', 'iş'];
    const types = [...new Set(Object.values(TYPES).flat())];
    const rule = fc
      .record({ field: fc.constantFrom(...fieldNames()), type: fc.constantFrom(...types), value: fc.constantFrom(...values) })
      .filter((r: Rule) => ruleProblem(r) === undefined);
    const search = fc.record({
      bool: fc.constantFrom('All' as const, 'Any' as const),
      root: fc.array(rule, { maxLength: 4 }),
      groups: fc.array(fc.array(rule, { maxLength: 3 }), { maxLength: 2 }),
      start: fc.constantFrom(0, 1, 7),
      num: fc.constantFrom(1, 3, 1000),
      // tasks/get's own filters, which narrow a search as they narrow a listing.
      id: fc.option(fc.constantFrom(1, 2, 60, 500), { freq: 4 }),
      after: fc.option(fc.constantFrom(...dates), { freq: 3 }),
      before: fc.option(fc.constantFrom(...dates), { freq: 3 }),
      comp: fc.constantFrom(undefined, 0, 1),
    });
    const ran = { exact: 0, mixed: 0 };
    await fc.assert(
      fc.asyncProperty(search, async ({ bool, root, groups, start, num, id, after, before, comp }) => {
        const raw = { root, ...Object.fromEntries(groups.map((g, i) => [String(i + 1), g])) };
        const rules = parseRules(raw);
        assert.ok(!('problem' in rules));
        ran[searchPlan(bool, rules).exact ? 'exact' : 'mixed']++;
        const [made] = (await api(ctx, mine.token, '/3/tasks/search_add.php', { searches: JSON.stringify([{ name: 'P', bool, search: raw }]) })).json<Array<{ id: number }>>();
        const filters = { ...(id !== null && { id: String(id) }), ...(after !== null && { after: String(after) }), ...(before !== null && { before: String(before) }), ...(comp !== undefined && { comp: String(comp) }) };
        const [head, ...found] = (await api(ctx, mine.token, '/3/tasks/get.php', { search: String(made!.id), start: String(start), num: String(num), ...filters })).json<Array<Record<string, number>>>();
        await api(ctx, mine.token, '/3/tasks/search_delete.php', { searches: JSON.stringify([made!.id]) });
        const narrowed = tasks.filter(
          (t) =>
            (id === null || t.id === id) &&
            (after === null || t.modified > after) &&
            (before === null || t.modified < before) &&
            (comp === undefined || (comp === 0 ? t.completed === 0 : t.completed > 0)),
        );
        const expected = narrowed.filter((t) => matches(bool, rules, t)).map((t) => t.id);
        assert.deepEqual(head, { num: Math.min(num, Math.max(0, expected.length - start)), total: expected.length });
        assert.deepEqual(found.map((t) => t['id']), expected.slice(start, start + num));
      }),
      { numRuns: 200, seed: 20261124 },
    );
    // Both ways of running a search were taken, many times.
    assert.ok(ran.exact > 20 && ran.mixed > 20, JSON.stringify(ran));
  });

  it('a search decided in code reads a large account a part at a time, and finds the matches of every part', async () => {
    const big = await signIn(ctx, { pro: 1 });
    const tasks = Array.from({ length: 9_100 }, (_, i) => newTask(i + 1, { title: i % 3 === 0 ? `Call ${i + 1}` : `write ${i + 1}`, star: i % 2 }));
    await ctx.deps.store.transaction(async (tx) => {
      await tx.accounts.allocateIds(big.account.pk, 'task', tasks.length);
      await tx.tasks.insertMany(big.account.pk, tasks);
    });
    const search = { root: [{ field: 'title', type: 'begins with', value: 'CALL' }, { field: 'star', type: 'no', value: '' }] };
    const [made] = (await api(ctx, big.token, '/3/tasks/search_add.php', { searches: JSON.stringify([{ name: 'Calls', bool: 'All', search }]) })).json<Array<{ id: number }>>();
    const expected = tasks.filter((t) => t.title.startsWith('Call') && t.star === 0).map((t) => t.id);
    // More than two parts of the scan (SCAN_PART, 4000), with matches in each.
    assert.ok(expected.some((id) => id > 8000) && expected.length > 1000);
    for (const start of [0, 1000]) {
      const [head, ...found] = (await api(ctx, big.token, '/3/tasks/get.php', { search: String(made!.id), start: String(start) })).json<Array<Record<string, number>>>();
      assert.deepEqual(head, { num: Math.min(1000, expected.length - start), total: expected.length });
      assert.deepEqual(found.map((t) => t['id']), expected.slice(start, start + 1000));
    }
  });

  it('a stored search whose rules the engine cannot read is listed with none and finds nothing, in the API and on the task list', async () => {
    const someone = await signIn(ctx, { pro: 1 });
    await tasksCall(ctx, someone.token, 'add', [{ title: 'Anything' }]);
    const ids = await ctx.deps.store.transaction(async (tx) => [
      await tx.sharing.addSearch(someone.account.pk, { name: 'Not JSON', bool: 'All', rules: '{oops', modified: 1 }),
      await tx.sharing.addSearch(someone.account.pk, { name: 'Old rule', bool: 'Any', rules: JSON.stringify({ root: [{ field: 'colour', type: 'is', value: 'red' }] }), modified: 1 }),
    ]);
    const listed = (await api(ctx, someone.token, '/3/tasks/search.php')).json<Array<Record<string, unknown>>>();
    assert.deepEqual(listed.map((x) => [x['name'], x['search']]), [['Not JSON', { root: [] }], ['Old rule', { root: [] }]]);
    const b = await signedInBrowser(ctx, someone.account);
    for (const id of ids) {
      assert.deepEqual((await api(ctx, someone.token, '/3/tasks/get.php', { search: String(id) })).json()[0], { num: 0, total: 0 });
      const page = text(await b.get(`/?view=search&value=${id}`));
      assert.match(page, /No task matches this saved search\./);
      assert.doesNotMatch(page, /Anything/);
    }
  });
});
