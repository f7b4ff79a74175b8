import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { api, testContext } from '../../../test/harness.js';
import { added, batch, HEX_ID, inlineError, json, newUser, one, parseXml, read, setup, storedStamps, type Json } from './documents.test-kit.js';

const TREE = [
  { content: 'Groceries', children: [{ content: 'Milk', checked: 1 }, { content: 'Bread' }] },
  { content: 'Hardware', children: [] },
];

describe('outlines: add, get, edit, delete, deleted', () => {
  const env = setup(() => testContext());

  it('get of an account without outlines answers a literal null (XML: an empty <outlines>)', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const res = await read(ctx, user, 'outlines', 'get');
    assert.equal(res.body, 'null');
    assert.match((await read(ctx, user, 'outlines', 'get', { f: 'xml' })).body, /<outlines><\/outlines>$/);
  });

  it('add: a hexadecimal id, version 1, the tree with ids, parents and positions derived from its shape, ref echoed', async () => {
    const { ctx, user } = env;
    const now = Math.floor(ctx.clock.now() / 1000);
    const o = await one(batch(ctx, user, 'outlines', 'add', [{ title: 'Shopping', keywords: 'home, weekly', note: 'n', hidden: 1, ref: 'o1', nodes: TREE }]));
    assert.deepEqual(Object.keys(o), ['id', 'title', 'keywords', 'note', 'added', 'modified', 'hidden', 'version', 'nodes', 'ref']);
    assert.match(o['id'] as string, HEX_ID);
    assert.equal(o['version'], 1);
    assert.equal(o['ref'], 'o1');
    const nodes = o['nodes'] as { count: number; updated_at: number; children: Json[] };
    assert.equal(nodes.count, 4);
    assert.equal(nodes.updated_at, now);
    const [groceries, hardware] = nodes.children as [Json, Json];
    assert.deepEqual(Object.keys(groceries), ['id', 'parent_id', 'content', 'checked', 'position', 'children']);
    assert.equal(groceries['parent_id'], 0);
    assert.equal(groceries['position'], 1);
    assert.equal(hardware['position'], 2);
    const [milk, bread] = groceries['children'] as [Json, Json];
    assert.equal(milk['parent_id'], groceries['id']);
    assert.equal(milk['checked'], 1);
    assert.equal(bread['position'], 2);
    for (const n of [groceries, hardware, milk, bread]) assert.ok(Number.isSafeInteger(n['id']) && String(n['id']).length === 16, String(n['id']));
    const listed = json(await read(ctx, user, 'outlines', 'get'));
    assert.equal(listed.length, 1, 'no {num,total} element');
    const { ref: _ref, ...withoutRef } = o;
    assert.deepEqual(listed[0], withoutRef, 'get shows the record as add answered it, without the ref');
  });

  it('edit must carry the version it was made on: a stale one is 814 and changes nothing; a good one answers version + 1', async () => {
    const { ctx, user } = env;
    const o = await one(batch(ctx, user, 'outlines', 'add', [{ title: 'Plan', ref: 'plan', nodes: [{ content: 'a', id: 1234567890123456 }] }]));
    const id = o['id'] as string;
    ctx.clock.advance(2);
    const e1 = await one(batch(ctx, user, 'outlines', 'edit', [{ id, version: 1, title: 'Plan B' }]));
    assert.equal(e1['version'], 2);
    assert.equal(e1['title'], 'Plan B');
    assert.equal((e1['nodes'] as Json)['updated_at'], o['modified'], 'the tree did not change');
    const before = await storedStamps(ctx, user);
    ctx.clock.advance(2);
    for (const version of [1, 3, '1']) inlineError(await one(batch(ctx, user, 'outlines', 'edit', [{ id, version, title: 'Plan C' }])), 814, id);
    inlineError(await one(batch(ctx, user, 'outlines', 'edit', [{ id, title: 'Plan C' }])), 811, id);
    assert.deepEqual(await storedStamps(ctx, user), before, 'a refused edit moves nothing');
    const [, got] = [0, (json(await read(ctx, user, 'outlines', 'get', { id })))[0] as Json];
    assert.equal(got['title'], 'Plan B');
    assert.equal(got['version'], 2);
    // The same values again: no change, no new version (clients send whole copies).
    assert.equal((await one(batch(ctx, user, 'outlines', 'edit', [{ id, version: 2, title: 'Plan B' }])))['version'], 2);
    // The tree replaced: the node the client named keeps its id; updated_at moves.
    const e2 = await one(batch(ctx, user, 'outlines', 'edit', [{ id, version: '2', nodes: { children: [{ id: '1234567890123456', content: 'a!' }, { content: 'b' }] } }]));
    assert.equal(e2['version'], 3);
    const nodes = e2['nodes'] as { count: number; updated_at: number; children: Json[] };
    assert.equal(nodes.count, 2);
    assert.equal(nodes.updated_at, Math.floor(ctx.clock.now() / 1000));
    assert.equal(nodes.children[0]?.['id'], 1234567890123456);
    assert.equal((await storedStamps(ctx, user)).lastedit_outline, Math.floor(ctx.clock.now() / 1000));
  });

  it('delete moves lastedit_outline (there is no delete stamp) and deleted.php lists the id', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const [o] = await added(ctx, user, 'outlines', [{ title: 'Gone', ref: 'g' }]);
    ctx.clock.advance(3);
    const now = Math.floor(ctx.clock.now() / 1000);
    assert.deepEqual(json(await batch(ctx, user, 'outlines', 'delete', [{ id: o?.['id'] }])), [{ id: o?.['id'] }]);
    assert.equal((await storedStamps(ctx, user)).lastedit_outline, now);
    assert.deepEqual(json(await read(ctx, user, 'outlines', 'deleted', { after: String(now - 1) })), [{ num: 1 }, { id: o?.['id'], stamp: now }]);
    assert.equal((await read(ctx, user, 'outlines', 'get')).body, 'null');
    // Its ref is free again once it is gone.
    await added(ctx, user, 'outlines', [{ title: 'Back', ref: 'g' }]);
  });

  it('813 for nodes nested deeper than 32 levels', async () => {
    const { ctx, user } = env;
    const deep = { content: 'd', children: [] as unknown[] };
    let at = deep;
    for (let i = 0; i < 40; i++) at = (at.children[0] = { content: 'd', children: [] }) as typeof deep;
    inlineError(await one(batch(ctx, user, 'outlines', 'add', [{ title: 'T', ref: 'deep', nodes: [deep] }])), 813, 'deep');
  });

  it('XML: nodes nest as <children><node>…; delete answers <deleted><id>', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const res = await batch(ctx, user, 'outlines', 'add', [{ title: 'X', ref: 'x', nodes: TREE }], { f: 'xml' });
    const x = parseXml(res.body, ['node']) as { outlines: { outline: Json } };
    const nodes = x.outlines.outline['nodes'] as { count: string; children: { node: Json[] } };
    assert.equal(nodes.count, '4');
    const first = nodes.children.node[0] as { content: string; children: { node: Json[] } };
    assert.equal(first.content, 'Groceries');
    assert.equal(first.children.node[1]?.['content'], 'Bread');
    assert.equal(x.outlines.outline['ref'], 'x');
    const id = x.outlines.outline['id'] as string;
    assert.match((await batch(ctx, user, 'outlines', 'delete', [id], { f: 'xml' })).body, new RegExp(`<deleted><id>${id}</id></deleted>$`));
  });
});

describe('outlines errors 801–814', () => {
  const env = setup(() => testContext({ MAX_OUTLINES: '2', MAX_OUTLINE_NODES: '3' }));

  it('801 no title, 812 no ref, 809 a ref already added (also twice in one call), 811 malformed values', async () => {
    const { ctx, user } = env;
    const [o] = await added(ctx, user, 'outlines', [{ title: 'One', ref: 'r1' }]);
    const out = json(await batch(ctx, user, 'outlines', 'add', [
      { ref: 'a' },
      { title: 'No ref' },
      { title: 'Dup', ref: 'r1' },
      { title: 'x'.repeat(101), ref: 'b' },
      { title: 'x', ref: 'c', hidden: 3 },
      { title: 'x', ref: 'd', note: 'n'.repeat(2001) },
      { title: 'x', ref: { a: 1 } },
    ]));
    inlineError(out[0] as Json, 801, 'a');
    inlineError(out[1] as Json, 812, '');
    inlineError(out[2] as Json, 809, 'r1');
    assert.match(out[2]?.['errorDesc'] as string, new RegExp(o?.['id'] as string), 'names the outline that has the ref');
    for (const r of out.slice(3)) inlineError(r, 811);
    const twice = json(await batch(ctx, user, 'outlines', 'add', [{ title: 'T', ref: 'twice' }, { title: 'T', ref: 'twice' }]));
    assert.match(twice[0]?.['id'] as string, HEX_ID);
    inlineError(twice[1] as Json, 809, 'twice');
  });

  it('807 a bad or repeated node id, 808 more nodes than MAX_OUTLINE_NODES, 813 a tree that is not one, 811 content over 150 characters', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const cases: Array<[unknown, number]> = [
      [[{ content: 'a', id: -4 }], 807],
      [[{ content: 'a', id: 5 }, { content: 'b', children: [{ content: 'c', id: 5 }] }], 807],
      [[{ content: 'a', id: 2 ** 60 }], 807],
      [[{ content: 'a' }, { content: 'b' }, { content: 'c' }, { content: 'd' }], 808],
      ['a tree', 813],
      [[{ content: 'a', children: 'b' }], 813],
      [[5], 813],
      [[{ content: 'x'.repeat(151) }], 811],
    ];
    for (const [nodes, code] of cases) inlineError(await one(batch(ctx, user, 'outlines', 'add', [{ title: 'T', ref: `r${code}`, nodes }])), code, `r${code}`);
    // Exactly at the limit is fine.
    await added(ctx, user, 'outlines', [{ title: 'T', ref: 'three', nodes: [{ content: 'a' }, { content: 'b' }, { content: 'c' }] }]);
  });

  it('804 empty id, 805 unknown or malformed id, 806 nothing to edit, 803 past MAX_OUTLINES, 802 more than 50', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const [a] = await added(ctx, user, 'outlines', [{ title: 'A', ref: 'a' }, { title: 'B', ref: 'b' }]);
    inlineError(await one(batch(ctx, user, 'outlines', 'add', [{ title: 'C', ref: 'c' }])), 803, 'c');
    const id = a?.['id'] as string;
    const edits = json(await batch(ctx, user, 'outlines', 'edit', [{ id: '', version: 1 }, { id: 'zz', version: 1 }, { id: 'a'.repeat(24), version: 1 }, { id, version: 1 }, { id: id.toUpperCase(), version: 1, title: 'A2' }]));
    inlineError(edits[0] as Json, 804, '');
    inlineError(edits[1] as Json, 805, 'zz');
    inlineError(edits[2] as Json, 805, 'a'.repeat(24));
    inlineError(edits[3] as Json, 806, id);
    assert.equal(edits[4]?.['title'], 'A2', 'hex ids are matched without regard to case');
    const del = json(await batch(ctx, user, 'outlines', 'delete', [0, 'nope']));
    inlineError(del[0] as Json, 804, '0');
    inlineError(del[1] as Json, 805, 'nope');
    const many = Array.from({ length: 51 }, (_, i) => ({ title: 't', ref: `m${i}` }));
    assert.equal(json<Json>(await batch(ctx, user, 'outlines', 'add', many))['errorCode'], 802);
    assert.equal(json<Json>(await api(ctx, user.token, '/3/outlines/edit.php', { outlines: 'nope' }))['errorCode'], 811);
  });
});
