import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testContext } from '../../../test/harness.js';
import { added, batch, HEX_ID, inlineError, json, newUser, one, parseXml, read, setup, storedStamps, type Json } from './documents.test-kit.js';

/** One column of every type of the hosted service's documentation, in code order (ids 1…21). */
const TYPES = [1, 2, 3, 4, 5, 6, 8, 9, 10, 12.1, 12.2, 12.3, 12.4, 13, 14, 15, 16, 17, 18, 19, 21, 22];
const COLS = TYPES.map((type) => ({ title: `T${type}`, type, ...(type === 9 || type === 10 ? { choices: ['red', 'green', 'blue'] } : {}) }));
const key = (type: number): string => `c${TYPES.indexOf(type) + 1}`;

/** [type, value sent, value stored] for values a column takes, and [type, value] for values it refuses. */
const GOOD: Array<[number, unknown, unknown]> = [
  [1, 1, 1], [1, 'true', 1], [1, '0', 0],
  [2, '12.345', 12.35], [2, 7, 7],
  [3, 1768478400 + 5000, 1768478400], [3, '2026-01-15', 1768478400],
  [4, 1768480000, 1768480000], [4, '1768480000.9', 1768480000],
  [5, 'ann@example.org', 'ann@example.org'],
  [6, 12, 12],
  [8, '90', 90],
  [9, ['blue', 'red', 'blue'], ['red', 'blue']], [9, 'green,red', ['red', 'green']],
  [10, 'green', 'green'],
  [12.1, 1.25, 1.3], [12.3, '3.14159', 3.142], [12.4, 2, 2],
  [13, -42, -42], [13, '7.0', 7],
  [14, 150.5, 150.5],
  [15, '+1 (555) 010-9999 x12', '+1 (555) 010-9999 x12'],
  [16, 5, 5], [16, 0, 0],
  [17, true, 1],
  [18, 'line 1\nline 2', 'line 1\nline 2'],
  [19, '  Milk  ', 'Milk'], [19, 42, '42'],
  [21, 'https://example.org/a?b=c', 'https://example.org/a?b=c'],
  [22, 2026, 2026],
];
const BAD: Array<[number, unknown]> = [
  [1, 2], [1, 'yes'],
  [2, 'ten'], [2, [1]],
  [3, '2026-02-30'], [3, -5], [3, 'soon'],
  [4, 'now'],
  [5, 'not an address'], [5, 'a@b'],
  [6, 1000], [6, 1.5],
  [8, -1],
  [9, ['purple']], [9, { red: 1 }],
  [10, 'purple'], [10, ['red']],
  [12.2, 'x'],
  [13, 1.5], [13, 'seven'],
  [14, 'lots'],
  [15, 'call me'],
  [16, 6], [16, -1], [16, 2.5],
  [17, 3],
  [18, 'x'.repeat(10_001)],
  [19, 'x'.repeat(256)], [19, { a: 1 }],
  [21, 'example.org'],
  [22, 0], [22, 10_000],
];

describe('rows: add, get, edit, delete, deleted, and the cells of every column type', () => {
  const env = setup(() => testContext());
  let list = '';

  it('a cell of each type takes the values its type allows, in stored form', async () => {
    const { ctx, user } = env;
    list = (await one(batch(ctx, user, 'lists', 'add', [{ title: 'Every type', ref: 'all', cols: COLS }])))['id'] as string;
    for (const [i, [type, sent, stored]] of GOOD.entries()) {
      const row = await one(batch(ctx, user, 'rows', 'add', [{ list, ref: `g${i}`, cells: { [key(type)]: sent } }]));
      assert.deepEqual(row['cells'], { [key(type)]: stored }, `type ${type}, ${JSON.stringify(sent)}: ${JSON.stringify(row)}`);
    }
  });

  it('1013: a value its column does not allow, or a key that names no column, refuses the row', async () => {
    const { ctx, user } = env;
    for (const [i, [type, sent]] of BAD.entries()) {
      const r = await one(batch(ctx, user, 'rows', 'add', [{ list, ref: `b${i}`, cells: { [key(type)]: sent } }]));
      inlineError(r, 1013, `b${i}`);
      assert.match(r['errorDesc'] as string, new RegExp(`^Invalid cell: ${key(type)} `), JSON.stringify(r));
    }
    for (const cells of [{ c99: 'x' }, { title: 'x' }, { 1: 'x' }]) inlineError(await one(batch(ctx, user, 'rows', 'add', [{ list, ref: 'k', cells }])), 1013, 'k');
  });

  it('add answers id, added, modified, version, cells (+ ref); get lists a list\'s rows, by after too; a null or "" cell is empty', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const l = (await one(batch(ctx, user, 'lists', 'add', [{ title: 'L', ref: 'l', cols: [{ title: 'Item', type: 19 }, { title: 'Qty', type: 13 }] }])))['id'] as string;
    const r = await one(batch(ctx, user, 'rows', 'add', [{ list: l, ref: 'r1', cells: { c1: 'Milk', c2: null } }]));
    assert.deepEqual(Object.keys(r), ['id', 'added', 'modified', 'version', 'cells', 'ref']);
    assert.match(r['id'] as string, HEX_ID);
    assert.deepEqual(r['cells'], { c1: 'Milk' });
    assert.equal(r['version'], 1);
    ctx.clock.advance(2);
    const id = r['id'] as string;
    const e = await one(batch(ctx, user, 'rows', 'edit', [{ id, version: 1, cells: { c2: '3' } }]));
    assert.deepEqual(e['cells'], { c1: 'Milk', c2: 3 }, 'only the cells sent change');
    assert.equal(e['version'], 2);
    const cleared = await one(batch(ctx, user, 'rows', 'edit', [{ id, version: 2, cells: { c1: '' } }]));
    assert.deepEqual(cleared['cells'], { c2: 3 });
    assert.deepEqual(json(await read(ctx, user, 'rows', 'get', { list: l, after: String(r['modified']) })).map((x) => x['id']), [id]);
    assert.equal((await read(ctx, user, 'rows', 'get', { list: l, after: String(cleared['modified']) })).body, 'null');
    assert.equal((await storedStamps(ctx, user)).lastedit_list, cleared['modified'], 'rows move lastedit_list');
  });

  it('delete takes {list,row} pairs, answers {id,list}; deleted.php lists {id,list,stamp}, all or of one list', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const [l1, l2] = (await added(ctx, user, 'lists', [{ title: 'A', ref: 'a' }, { title: 'B', ref: 'b' }])).map((l) => l['id'] as string) as [string, string];
    const [r1] = await added(ctx, user, 'rows', [{ list: l1, ref: 'x' }]);
    const [r2] = await added(ctx, user, 'rows', [{ list: l2, ref: 'x' }]);
    ctx.clock.advance(2);
    const now = Math.floor(ctx.clock.now() / 1000);
    const out = json(await batch(ctx, user, 'rows', 'delete', [{ list: l1, row: r1?.['id'] }, { list: l1, row: r2?.['id'] }, { list: l2, id: r2?.['id'] }, { row: r1?.['id'] }, r1?.['id']]));
    assert.deepEqual(out[0], { id: r1?.['id'], list: l1 });
    inlineError(out[1] as Json, 1005, r2?.['id'] as string);
    assert.deepEqual(out[2], { id: r2?.['id'], list: l2 });
    inlineError(out[3] as Json, 1005, r1?.['id'] as string);
    inlineError(out[4] as Json, 1011);
    // Tombstones come oldest first, then by id (random here).
    const [head, ...gone] = json(await read(ctx, user, 'rows', 'deleted', { after: '0' }));
    assert.deepEqual(head, { num: 2 });
    const byId = (x: Json, y: Json) => String(x['id']).localeCompare(String(y['id']));
    assert.deepEqual(gone, [{ id: r1?.['id'], list: l1, stamp: now }, { id: r2?.['id'], list: l2, stamp: now }].sort(byId));
    assert.deepEqual(json(await read(ctx, user, 'rows', 'deleted', { after: '0', list: l2 })), [{ num: 1 }, { id: r2?.['id'], list: l2, stamp: now }]);
    assert.deepEqual(json(await read(ctx, user, 'rows', 'deleted', { list: 'x' })), [{ num: 0 }]);
    const xml = (await batch(ctx, user, 'rows', 'delete', [{ list: l1, row: r1?.['id'] }], { f: 'xml' })).body;
    assert.match(xml, /<deleted><error id="1005" ref="[0-9a-f]{24}">Invalid row<\/error><\/deleted>$/);
  });

  it('XML: cells as <cells><c1>…; several picks as <value> elements', async () => {
    const { ctx, user } = env;
    const res = await batch(ctx, user, 'rows', 'add', [{ list, ref: 'xml', cells: { [key(19)]: 'Milk', [key(9)]: ['red', 'blue'] } }], { f: 'xml' });
    const x = parseXml(res.body, ['value']) as { rows: { row: { cells: Json } } };
    assert.equal(x.rows.row.cells[key(19)], 'Milk');
    assert.deepEqual(x.rows.row.cells[key(9)], { value: ['red', 'blue'] });
  });
});

describe('rows errors 1001–1014', () => {
  const env = setup(() => testContext({ MAX_LIST_ROWS: '2' }));

  it('1001 no list, 1007 not a list of the account, 1012 no ref, 1009 a ref the list has, 1011 malformed, 1003 past MAX_LIST_ROWS', async () => {
    const { ctx, user } = env;
    const list = (await one(batch(ctx, user, 'lists', 'add', [{ title: 'L', ref: 'l', cols: [{ title: 'A', type: 19 }] }])))['id'] as string;
    const other = await newUser(ctx);
    const foreign = (await one(batch(ctx, other, 'lists', 'add', [{ title: 'Theirs', ref: 'l' }])))['id'] as string;
    await added(ctx, user, 'rows', [{ list, ref: 'r1' }]);
    const out = json(await batch(ctx, user, 'rows', 'add', [
      { ref: 'a' },
      { list: foreign, ref: 'b' },
      { list: 'nope', ref: 'c' },
      { list },
      { list, ref: 'r1' },
      { list, ref: 'd', cells: 'Milk' },
      { list, ref: 'e' },
      { list, ref: 'f' },
    ]));
    inlineError(out[0] as Json, 1001, 'a');
    inlineError(out[1] as Json, 1007, 'b');
    inlineError(out[2] as Json, 1007, 'c');
    inlineError(out[3] as Json, 1012, '');
    inlineError(out[4] as Json, 1009, 'r1');
    inlineError(out[5] as Json, 1011, 'd');
    assert.match(out[6]?.['id'] as string, HEX_ID);
    inlineError(out[7] as Json, 1003, 'f');
    // A ref is unique within its list only.
    const l2 = (await one(batch(ctx, user, 'lists', 'add', [{ title: 'L2', ref: 'l2' }])))['id'] as string;
    await added(ctx, user, 'rows', [{ list: l2, ref: 'r1' }]);
    for (const params of [{}, { list: 'nope' }, { list: foreign }] as Array<Record<string, string>>) {
      const whole = json<Json>(await read(ctx, user, 'rows', 'get', params));
      assert.equal(whole['errorCode'], 'list' in params ? 1007 : 1001, JSON.stringify(whole));
    }
  });

  it('1004, 1005, 1006, 1014 on edit; 1002 more than 50', async () => {
    const { ctx, user } = env;
    const list = (await one(batch(ctx, user, 'lists', 'add', [{ title: 'M', ref: 'm', cols: [{ title: 'A', type: 19 }] }])))['id'] as string;
    const [r] = await added(ctx, user, 'rows', [{ list, ref: 'x', cells: { c1: 'a' } }]);
    const id = r?.['id'] as string;
    const edits = json(await batch(ctx, user, 'rows', 'edit', [{ version: 1 }, { id: 'nope', version: 1 }, { id, version: 1 }, { id, version: 4, cells: { c1: 'b' } }, { id, version: 1, cells: { c1: 'a' } }]));
    inlineError(edits[0] as Json, 1004, '');
    inlineError(edits[1] as Json, 1005, 'nope');
    inlineError(edits[2] as Json, 1006, id);
    inlineError(edits[3] as Json, 1014, id);
    assert.equal(edits[4]?.['version'], 1, 'the stored values again: no new version');
    const many = Array.from({ length: 51 }, (_, i) => ({ list, ref: `m${i}` }));
    assert.equal(json<Json>(await batch(ctx, user, 'rows', 'add', many))['errorCode'], 1002);
  });
});
