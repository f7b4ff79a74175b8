import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { api, testContext } from '../../../test/harness.js';
import { added, batch, HEX_ID, inlineError, json, newUser, one, parseXml, read, setup, storedStamps, type Json } from './documents.test-kit.js';

const COLS = [
  { title: 'Item', type: 19, width: 200, sort: 1 },
  { title: 'Qty', type: 13 },
  { title: 'Aisle', type: 10, choices: ['Dairy', 'Bakery'] },
];

describe('lists: add, get, edit, delete, deleted', () => {
  const env = setup(() => testContext());

  it('get of an account without lists answers a literal null, as the hosted service does', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    assert.equal((await read(ctx, user, 'lists', 'get')).body, 'null');
    assert.match((await read(ctx, user, 'lists', 'get', { f: 'xml' })).body, /<lists><\/lists>$/);
  });

  it('add: keys in the order of the hosted example, columns get ids 1, 2, 3 (pick columns keep their choices), rows 0', async () => {
    const { ctx, user } = env;
    const now = Math.floor(ctx.clock.now() / 1000);
    const l = await one(batch(ctx, user, 'lists', 'add', [{ title: 'Groceries', note: 'My Note', keywords: 'keyword1, keyword2', cols: COLS, ref: 'l1' }]));
    assert.deepEqual(Object.keys(l), ['id', 'added', 'modified', 'title', 'cols', 'version', 'note', 'keywords', 'rows', 'ref']);
    assert.match(l['id'] as string, HEX_ID);
    assert.deepEqual(l['cols'], [
      { title: 'Item', type: 19, id: 1, sort: 1, width: 200 },
      { title: 'Qty', type: 13, id: 2, sort: 0, width: 100 },
      { title: 'Aisle', type: 10, id: 3, sort: 0, width: 100, choices: ['Dairy', 'Bakery'] },
    ]);
    assert.deepEqual([l['added'], l['modified'], l['version'], l['rows']], [now, now, 1, 0]);
    assert.deepEqual(json(await read(ctx, user, 'lists', 'get')).map((x) => x['title']), ['Groceries']);
    // Number codes with decimals are JSON numbers (12.1–12.4).
    const d = await one(batch(ctx, user, 'lists', 'add', [{ title: 'Decimals', ref: 'd', cols: [{ title: 'Price', type: 12.2 }] }]));
    assert.equal((d['cols'] as Json[])[0]?.['type'], 12.2);
  });

  it('edit replaces the columns: a column named by id keeps it and its cells, new ones get new ids (never reused), left-out ones go with their cells', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const l = await one(batch(ctx, user, 'lists', 'add', [{ title: 'L', ref: 'l', cols: COLS }]));
    const list = l['id'] as string;
    const [row] = await added(ctx, user, 'rows', [{ list, ref: 'r', cells: { c1: 'Milk', c2: 2, c3: 'Dairy' } }]);
    ctx.clock.advance(2);
    const now = Math.floor(ctx.clock.now() / 1000);
    const e = await one(batch(ctx, user, 'lists', 'edit', [{ id: list, version: 1, cols: [{ id: 1, title: 'Item', type: 19 }, { id: 3, title: 'Aisle', type: 10, choices: ['Bakery'] }, { title: 'Note', type: 18 }] }]));
    assert.equal(e['version'], 2);
    assert.deepEqual((e['cols'] as Json[]).map((c) => c['id']), [1, 3, 4]);
    // Column 2 went, and "Dairy" is no longer a choice of column 3: the row lost both cells, as an edit of it.
    const [r] = json(await read(ctx, user, 'rows', 'get', { list }));
    assert.deepEqual(r?.['cells'], { c1: 'Milk' });
    assert.equal(r?.['version'], 2);
    assert.equal(r?.['modified'], now);
    assert.equal(row?.['version'], 1);
    // A column id the list does not have is 907; a new column never takes a removed one's id.
    inlineError(await one(batch(ctx, user, 'lists', 'edit', [{ id: list, version: 2, cols: [{ id: 2, title: 'Qty', type: 13 }] }])), 907, list);
    const again = await one(batch(ctx, user, 'lists', 'edit', [{ id: list, version: 2, cols: [{ title: 'Again', type: 13 }] }]));
    assert.deepEqual((again['cols'] as Json[]).map((c) => c['id']), [5]);
  });

  it('rows change the list: its row count, and its modified (not its version); deleting the list takes its rows', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const l = await one(batch(ctx, user, 'lists', 'add', [{ title: 'L', ref: 'l', cols: [{ title: 'A', type: 19 }] }]));
    const list = l['id'] as string;
    ctx.clock.advance(2);
    const [rowA] = await added(ctx, user, 'rows', [{ list, ref: 'a' }, { list, ref: 'b' }]);
    const [got] = json(await read(ctx, user, 'lists', 'get', { id: list }));
    assert.equal(got?.['rows'], 2);
    assert.equal(got?.['version'], 1);
    assert.equal(got?.['modified'], (l['modified'] as number) + 2);
    // An edit of a row moves its list's modified too, so that lists/get after= names the lists to fetch rows of.
    ctx.clock.advance(2);
    await batch(ctx, user, 'rows', 'edit', [{ id: rowA?.['id'], version: 1, cells: { c1: 'x' } }]);
    const [touched] = json(await read(ctx, user, 'lists', 'get', { id: list }));
    assert.deepEqual([touched?.['modified'], touched?.['version']], [(l['modified'] as number) + 4, 1]);
    ctx.clock.advance(2);
    const now = Math.floor(ctx.clock.now() / 1000);
    assert.deepEqual(json(await batch(ctx, user, 'lists', 'delete', [list])), [{ id: list }]);
    assert.equal((await storedStamps(ctx, user)).lastedit_list, now);
    assert.deepEqual(json(await read(ctx, user, 'lists', 'deleted', { after: String(now - 1) })), [{ num: 1 }, { id: list, stamp: now }]);
    inlineError(json<Json>(await read(ctx, user, 'rows', 'get', { list })), 1007);
    assert.equal(await ctx.deps.store.read.documents.count(user.account.pk, 'row', list), 0);
  });

  it('XML: columns as <cols><col>…, choices as <choices><choice>…', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    await added(ctx, user, 'lists', [{ title: 'X', ref: 'x', cols: COLS }]);
    const x = parseXml((await read(ctx, user, 'lists', 'get', { f: 'xml' })).body, ['list', 'col', 'choice']) as { lists: { list: Array<{ cols: { col: Json[] } }> } };
    const cols = x.lists.list[0]?.cols.col ?? [];
    assert.deepEqual(Object.keys(cols[0] ?? {}), ['title', 'type', 'id', 'sort', 'width']);
    assert.deepEqual(cols[2]?.['choices'], { choice: ['Dairy', 'Bakery'] });
  });
});

describe('lists errors 901–914', () => {
  const env = setup(() => testContext({ MAX_LISTS: '2', MAX_LIST_COLUMNS: '2' }));

  it('901, 909, 911, 912, 913 and 908 on add', async () => {
    const { ctx, user } = env;
    await added(ctx, user, 'lists', [{ title: 'One', ref: 'one' }]);
    const out = json(await batch(ctx, user, 'lists', 'add', [
      { ref: 'a', cols: [] },
      { title: 'Dup', ref: 'one' },
      { title: 'x', ref: 'b', keywords: 'k'.repeat(201) },
      { title: 'x' },
      { title: 'x', ref: 'c', cols: { title: 'A' } },
      { title: 'x', ref: 'd', cols: [{ title: 'A', type: 7 }] },
      { title: 'x', ref: 'e', cols: [{ title: 'A', type: 10 }] },
      { title: 'x', ref: 'f', cols: [{ title: 'A', type: 9, choices: ['a', 'a'] }] },
      { title: 'x', ref: 'g', cols: [{ title: 'A', type: 19 }, { title: 'B', type: 19 }, { title: 'C', type: 19 }] },
      { title: 'x', ref: 'h', cols: [{ title: 'A', type: 19, width: -1 }] },
    ]));
    inlineError(out[0] as Json, 901, 'a');
    inlineError(out[1] as Json, 909, 'one');
    inlineError(out[2] as Json, 911, 'b');
    inlineError(out[3] as Json, 912, '');
    for (const r of out.slice(4, 8)) inlineError(r, 913);
    inlineError(out[8] as Json, 908, 'g');
    inlineError(out[9] as Json, 913, 'h');
  });

  it('904, 905, 906, 914 on edit and delete; 903 past MAX_LISTS; 902 more than 50', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const [a] = await added(ctx, user, 'lists', [{ title: 'A', ref: 'a' }, { title: 'B', ref: 'b' }]);
    inlineError(await one(batch(ctx, user, 'lists', 'add', [{ title: 'C', ref: 'c' }])), 903, 'c');
    const id = a?.['id'] as string;
    const edits = json(await batch(ctx, user, 'lists', 'edit', [{ version: 1 }, { id: 'q', version: 1 }, { id, version: 1 }, { id, version: 0, title: 'A2' }, { id, version: 'one', title: 'A2' }]));
    inlineError(edits[0] as Json, 904, '');
    inlineError(edits[1] as Json, 905, 'q');
    inlineError(edits[2] as Json, 906, id);
    inlineError(edits[3] as Json, 914, id);
    inlineError(edits[4] as Json, 911, id);
    inlineError((await one(batch(ctx, user, 'lists', 'delete', ['']))), 904, '');
    inlineError((await one(batch(ctx, user, 'lists', 'delete', ['b'.repeat(24)]))), 905, 'b'.repeat(24));
    const many = Array.from({ length: 51 }, () => id);
    assert.equal(json<Json>(await batch(ctx, user, 'lists', 'delete', many))['errorCode'], 902);
    assert.equal(json<Json>(await api(ctx, user.token, '/3/lists/get.php', { start: 'x' }))['errorCode'], 911);
  });
});
