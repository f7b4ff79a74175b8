import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { newAccount, newTask } from '../../test/factories.js';
import type { List, ListRow, Note, Outline, Repos, Store } from './store.js';
import type { OpenStore } from './store.contract.js';

/**
 * The notes, outlines, lists, rows and task-attachments part of the storage contract. Each
 * adapter's test file calls it with a factory for a fresh, empty database.
 */

let seq = 0;

const note = (id: number, over: Partial<Note> = {}): Note => ({ id, title: `Note ${id}`, text: 'line 1\nline 2 ✓ 😀', folder: 0, private: 1, added: 100, modified: 200, ...over });
const outline = (id: string, over: Partial<Outline> = {}): Outline => ({
  id,
  ref: `ref-${id}`,
  title: 'Plan',
  keywords: 'a, b',
  note: 'n',
  hidden: 1,
  version: 3,
  added: 100,
  modified: 200,
  nodes: { count: 2, updated_at: 150, children: [{ id: 1234567890123456, parent_id: 0, content: 'a', checked: 1, position: 1, children: [{ id: 2234567890123456, parent_id: 1234567890123456, content: 'b', checked: 0, position: 1, children: [] }] }] },
  ...over,
});
const list = (id: string, over: Partial<List> = {}): List => ({
  id,
  ref: `ref-${id}`,
  title: 'Shopping',
  keywords: '',
  note: '',
  version: 1,
  added: 100,
  modified: 200,
  cols: [{ id: 1, title: 'Item', type: 19, width: 100, sort: 0 }, { id: 2, title: 'Price', type: 12.2, width: 80, sort: 1, choices: ['x'] }],
  nextCol: 3,
  rows: 0,
  ...over,
});
const row = (id: string, listId: string, over: Partial<ListRow> = {}): ListRow => ({ id, list: listId, ref: `ref-${id}`, version: 1, added: 100, modified: 200, cells: { c1: 'Milk', c2: 2.5 }, ...over });

const hex = (n: number): string => n.toString(16).padStart(24, '0');

export function documentsContract(label: string, open: OpenStore): void {
  describe(`documents storage contract: ${label}`, () => {
    let store: Store;
    let cleanup: (() => Promise<void>) | undefined;
    let a: number;
    let b: number;

    const tx = <T>(fn: (r: Repos) => Promise<T>): Promise<T> => store.transaction(fn);
    const read = (): Repos => store.read;

    beforeEach(async () => {
      const opened = await open();
      store = opened.store;
      cleanup = opened.cleanup;
      await store.migrate();
      a = (await tx((r) => r.accounts.create(newAccount('doc', ++seq)))).pk;
      b = (await tx((r) => r.accounts.create(newAccount('doc', ++seq)))).pk;
    });

    afterEach(async () => {
      await cleanup?.();
      cleanup = undefined;
    });

    it('each kind round-trips every field exactly (trees, columns, cells as values); get of an unknown id or another account is null', async () => {
      const l = list(hex(1));
      await tx(async (r) => {
        await r.documents.insert(a, 'note', note(4));
        await r.documents.insert(a, 'outline', outline(hex(2)));
        await r.documents.insert(a, 'list', l);
        await r.documents.insert(a, 'row', row(hex(3), l.id));
      });
      assert.deepEqual(await read().documents.get(a, 'note', 4), note(4));
      assert.deepEqual(await read().documents.get(a, 'outline', hex(2)), outline(hex(2)));
      assert.deepEqual(await read().documents.get(a, 'list', hex(1)), { ...l, rows: 1 });
      assert.deepEqual(await read().documents.get(a, 'row', hex(3)), row(hex(3), l.id));
      assert.equal(await read().documents.get(a, 'note', 5), null);
      assert.equal(await read().documents.get(b, 'note', 4), null);
      assert.equal(await read().documents.get(b, 'list', hex(1)), null);
    });

    it('insertMany stores each record as insert does, in statements of any size (0, 1, 71 records), for every kind', async () => {
      const l = list(hex(1));
      const notes = Array.from({ length: 71 }, (_, i) => note(i + 1, { title: `N${i}`, folder: i % 3 }));
      const rows = Array.from({ length: 71 }, (_, i) => row(hex(100 + i), l.id, { ref: `r${i}`, cells: { c1: `item ${i}` } }));
      const outlines = [outline(hex(2)), outline(hex(3), { ref: 'other', nodes: { count: 0, updated_at: 0, children: [] } })];
      await tx(async (r) => {
        await r.documents.insertMany(a, 'note', []);
        await r.documents.insertMany(a, 'list', [l]);
        await r.documents.insertMany(a, 'note', notes);
        await r.documents.insertMany(a, 'outline', outlines);
        await r.documents.insertMany(a, 'row', rows);
        await r.documents.insertMany(b, 'note', [note(1, { title: 'B' })]);
      });
      assert.deepEqual((await read().documents.page(a, 'note', { start: 0, num: 1000 })).items, notes);
      assert.deepEqual((await read().documents.page(a, 'outline', { start: 0, num: 1000 })).items, outlines);
      assert.deepEqual((await read().documents.page(a, 'row', { list: l.id, start: 0, num: 1000 })).items, rows);
      assert.equal((await read().documents.get(a, 'list', l.id))?.rows, 71);
      assert.deepEqual(await read().documents.get(b, 'note', 1), note(1, { title: 'B' }));
      // A duplicate id fails the insert, and its transaction leaves nothing of the block behind.
      await assert.rejects(tx((r) => r.documents.insertMany(a, 'note', [note(200), note(201), note(5)])));
      assert.equal(await read().documents.get(a, 'note', 200), null);
    });

    it('note ids come from the account counter, per account', async () => {
      assert.equal(await tx((r) => r.accounts.allocateIds(a, 'note', 2)), 1);
      assert.equal(await tx((r) => r.accounts.allocateIds(a, 'note', 1)), 3);
      assert.equal(await tx((r) => r.accounts.allocateIds(b, 'note', 1)), 1);
      assert.equal(await tx((r) => r.accounts.allocateIds(a, 'task', 1)), 1, 'tasks count apart');
    });

    it('page: ordered by id, with the total, filtered by id, after, before, start/num; rows by list only', async () => {
      await tx(async (r) => {
        for (const id of [3, 1, 2]) await r.documents.insert(a, 'note', note(id, { modified: id * 100 }));
        await r.documents.insert(b, 'note', note(9));
        await r.documents.insert(a, 'list', list(hex(1)));
        await r.documents.insert(a, 'list', list(hex(2), { ref: 'other' }));
        await r.documents.insert(a, 'row', row(hex(5), hex(1)));
        await r.documents.insert(a, 'row', row(hex(6), hex(2)));
      });
      const ids = async (q: Partial<Parameters<Repos['documents']['page']>[2]>) => {
        const p = await read().documents.page(a, 'note', { start: 0, num: 1000, ...q });
        return [p.total, p.items.map((n) => n.id)];
      };
      assert.deepEqual(await ids({}), [3, [1, 2, 3]]);
      assert.deepEqual(await ids({ after: 100 }), [2, [2, 3]]);
      assert.deepEqual(await ids({ before: 300 }), [2, [1, 2]]);
      assert.deepEqual(await ids({ id: 2 }), [1, [2]]);
      assert.deepEqual(await ids({ start: 1, num: 1 }), [3, [2]]);
      assert.deepEqual(await ids({ num: 0 }), [3, []]);
      const rows = await read().documents.page(a, 'row', { list: hex(2), start: 0, num: 10 });
      assert.deepEqual(rows.items.map((w) => w.id), [hex(6)]);
      assert.equal(await read().documents.count(a, 'row', hex(1)), 1);
      assert.equal(await read().documents.count(a, 'note'), 3);
    });

    it('idByRef finds the record added with a ref (rows within their list); update keeps ref and list', async () => {
      await tx(async (r) => {
        await r.documents.insert(a, 'outline', outline(hex(7), { ref: 'mine' }));
        await r.documents.insert(a, 'list', list(hex(1)));
        await r.documents.insert(a, 'row', row(hex(8), hex(1), { ref: 'r' }));
      });
      assert.equal(await read().documents.idByRef(a, 'outline', 'mine'), hex(7));
      assert.equal(await read().documents.idByRef(b, 'outline', 'mine'), null);
      assert.equal(await read().documents.idByRef(a, 'row', 'r', hex(1)), hex(8));
      assert.equal(await read().documents.idByRef(a, 'row', 'r', hex(2)), null);
      await tx((r) => r.documents.update(a, 'outline', outline(hex(7), { ref: 'changed', title: 'New', version: 4 })));
      const o = await read().documents.get(a, 'outline', hex(7));
      assert.deepEqual([o?.ref, o?.title, o?.version], ['mine', 'New', 4]);
      await tx((r) => r.documents.update(a, 'row', row(hex(8), hex(9), { cells: { c1: 'Eggs' } })));
      const w = await read().documents.get(a, 'row', hex(8));
      assert.deepEqual([w?.list, w?.cells], [hex(1), { c1: 'Eggs' }]);
    });

    it('remove leaves a tombstone (rows with their list); a list takes its rows, without tombstones of their own', async () => {
      await tx(async (r) => {
        await r.documents.insert(a, 'note', note(1));
        await r.documents.insert(a, 'list', list(hex(1)));
        await r.documents.insert(a, 'row', row(hex(2), hex(1)));
        await r.documents.insert(a, 'row', row(hex(3), hex(1), { ref: 'x' }));
      });
      assert.equal(await tx((r) => r.documents.remove(a, 'note', 1, 500)), true);
      assert.equal(await tx((r) => r.documents.remove(a, 'note', 1, 600)), false);
      assert.deepEqual(await read().documents.deletedAfter(a, 'note', 0), [{ id: 1, list: '', stamp: 500 }]);
      assert.deepEqual(await read().documents.deletedAfter(a, 'note', 500), []);
      await tx((r) => r.documents.remove(a, 'row', hex(2), 700));
      assert.deepEqual(await read().documents.deletedAfter(a, 'row', 0, hex(1)), [{ id: hex(2), list: hex(1), stamp: 700 }]);
      await tx((r) => r.documents.remove(a, 'list', hex(1), 800));
      assert.equal(await read().documents.get(a, 'row', hex(3)), null);
      assert.deepEqual((await read().documents.deletedAfter(a, 'row', 0)).map((t) => t.id), [hex(2)]);
      assert.deepEqual(await read().documents.deletedAfter(a, 'list', 0), [{ id: hex(1), list: '', stamp: 800 }]);
      assert.deepEqual(await read().documents.deletedAfter(b, 'note', 0), []);
    });

    it('touchList moves a list\'s modified only; clearFolder files a folder\'s notes under none at a stamp', async () => {
      await tx(async (r) => {
        await r.documents.insert(a, 'list', list(hex(1)));
        for (const id of [1, 2, 3]) await r.documents.insert(a, 'note', note(id, { folder: id === 3 ? 8 : 7 }));
        await r.documents.insert(b, 'note', note(1, { folder: 7 }));
      });
      await tx((r) => r.documents.touchList(a, hex(1), 999));
      const l = await read().documents.get(a, 'list', hex(1));
      assert.deepEqual([l?.modified, l?.version], [999, 1]);
      assert.equal(await read().documents.hasFolder(a, 7), true);
      assert.equal(await read().documents.hasFolder(a, 9), false);
      assert.deepEqual(await read().documents.countByFolder(a), new Map([[7, 2], [8, 1]]));
      assert.deepEqual(await read().documents.countByFolder(b), new Map([[7, 1]]));
      assert.equal(await tx((r) => r.documents.clearFolder(a, 7, 1234)), 2);
      assert.deepEqual(await read().documents.countByFolder(a), new Map([[8, 1]]));
      assert.deepEqual((await read().documents.page(a, 'note', { start: 0, num: 9 })).items.map((n) => [n.folder, n.modified]), [[0, 1234], [0, 1234], [8, 200]]);
      assert.equal((await read().documents.get(b, 'note', 1))?.folder, 7);
    });

    it('attachments: links in order with the records\' titles; link twice is one; unlink; removeTarget stamps the tasks; a task takes its links', async () => {
      await tx(async (r) => {
        for (const id of [1, 2]) await r.tasks.insert(a, newTask(id));
        await r.documents.insert(a, 'note', note(5, { title: 'N' }));
        await r.documents.insert(a, 'list', list(hex(1), { title: 'L' }));
      });
      assert.equal(await tx((r) => r.attachments.link(a, 1, 'list', hex(1))), true);
      assert.equal(await tx((r) => r.attachments.link(a, 1, 'note', 5)), true);
      assert.equal(await tx((r) => r.attachments.link(a, 1, 'note', 5)), false);
      await tx((r) => r.attachments.link(a, 2, 'note', 5));
      const links = await read().attachments.forTasks(a, [1, 2, 3]);
      assert.deepEqual(links.get(1), [{ kind: 'list', id: hex(1), name: 'L' }, { kind: 'note', id: 5, name: 'N' }]);
      assert.equal(links.has(3), false);
      assert.equal(await read().attachments.count(a, 1), 2);
      assert.equal((await read().attachments.forTasks(b, [1])).size, 0);
      assert.equal(await tx((r) => r.attachments.unlink(a, 1, 'list', hex(1))), true);
      assert.equal(await tx((r) => r.attachments.unlink(a, 1, 'list', hex(1))), false);
      assert.equal(await read().attachments.isLinked(a, 'note', 5), true);
      assert.equal(await tx((r) => r.attachments.removeTarget(a, 'note', 5, 4321)), 2);
      assert.equal(await read().attachments.isLinked(a, 'note', 5), false);
      assert.deepEqual([(await read().tasks.get(a, 1))?.modified, (await read().tasks.get(a, 2))?.modified], [4321, 4321]);
      await tx((r) => r.attachments.link(a, 2, 'list', hex(1)));
      await tx((r) => r.tasks.remove(a, [2], 5000));
      assert.equal(await read().attachments.isLinked(a, 'list', hex(1)), false);
      // A dense page is read by a range of ids: links of tasks between them but not on the page stay out.
      await tx(async (r) => {
        for (let id = 10; id < 40; id++) await r.tasks.insert(a, newTask(id));
        for (let id = 10; id < 40; id++) await r.attachments.link(a, id, 'list', hex(1));
      });
      const evens = Array.from({ length: 15 }, (_, i) => 10 + 2 * i);
      assert.deepEqual([...(await read().attachments.forTasks(a, evens)).keys()].sort((x, y) => x - y), evens);
    });
  });
}
