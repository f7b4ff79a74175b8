import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { newAccount, newTask } from '../../test/factories.js';
import type {
  AttachmentKind,
  DocumentId,
  DocumentKind,
  DocumentTombstone,
  DocumentTypes,
  List,
  ListRow,
  Note,
  Outline,
  Repos,
  Store,
} from './store.js';
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

// For the batch methods' tests: records numbered 1, 2, … of each kind.
const KINDS = ['note', 'outline', 'list', 'row'] as const;
const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);
/** Record number i's id: notes have integer ids, the other kinds hexadecimal text. */
const idOf = (kind: DocumentKind, i: number): DocumentId => (kind === 'note' ? i : hex(i));
const idsOf = (kind: DocumentKind, nums: readonly number[]): DocumentId[] => nums.map((i) => idOf(kind, i));
/** The two lists that hold row i (odd in L1, even in L2); no hex(i) of a test reaches their ids. */
const L1 = 'e'.repeat(24);
const L2 = 'f'.repeat(24);
const listOf = (i: number): string => (i % 2 ? L1 : L2);
/** List i's rows: i % 3 of them. */
const rowsOfList = (i: number): ListRow[] => upTo(i % 3).map((j) => row(hex(0x1000 + 4 * i + j), hex(i)));

/** Record number i of each kind, its text marked with `tag` (to tell accounts apart). */
const make: { readonly [K in DocumentKind]: (i: number, tag: string) => DocumentTypes[K] } = {
  note: (i, tag) => note(i, { title: `${tag} ${i}`, folder: i % 4 }),
  outline: (i, tag) => outline(hex(i), { title: `${tag} ${i}` }),
  list: (i, tag) => list(hex(i), { title: `${tag} ${i}` }),
  row: (i, tag) => row(hex(i), listOf(i), { cells: { c1: `${tag} ${i}`, c2: i } }),
};

const ODD = `&<>"'\r`;
/** The record with every field but its id changed, ref, list and row count too (update() keeps those as stored). */
const change: { readonly [K in DocumentKind]: (r: DocumentTypes[K]) => DocumentTypes[K] } = {
  note: (n) => ({
    id: n.id, title: `${n.title} ${ODD}`, text: `${n.id}\r\n${ODD}`, folder: n.folder + 5, private: 1 - n.private, added: n.added + 1, modified: n.modified + 1,
  }),
  outline: (o) => ({
    id: o.id, ref: `new-${o.ref}`, title: `${o.title} ${ODD}`, keywords: ODD, note: `${o.id} ${ODD}`, hidden: 1 - o.hidden,
    version: o.version + 1, added: o.added + 1, modified: o.modified + 1,
    nodes: {
      count: 1, updated_at: o.nodes.updated_at + 1,
      children: [{ id: 7, parent_id: 0, content: `${o.id} ${ODD}`, checked: 0, position: 1, children: [] }],
    },
  }),
  list: (l) => ({
    id: l.id, ref: `new-${l.ref}`, title: `${l.title} ${ODD}`, keywords: ODD, note: `${l.id} ${ODD}`,
    version: l.version + 1, added: l.added + 1, modified: l.modified + 1,
    cols: [{ id: 3, title: ODD, type: 12.4, width: 42, sort: 2, choices: [ODD, l.id] }], nextCol: l.nextCol + 1, rows: l.rows + 99,
  }),
  row: (w) => ({
    id: w.id, list: w.list === L1 ? L2 : L1, ref: `new-${w.ref}`, version: w.version + 1, added: w.added + 1, modified: w.modified + 1,
    cells: { c3: [ODD, w.id], c4: 12.75, c1: `${w.id}\r` },
  }),
};

/** What update() of `now` leaves of the stored record `was`: the add's ref, a row's list, a list's row count. */
const keep: { readonly [K in DocumentKind]: (now: DocumentTypes[K], was: DocumentTypes[K]) => DocumentTypes[K] } = {
  note: (now) => now,
  outline: (now, was) => ({ ...now, ref: was.ref }),
  list: (now, was) => ({ ...now, ref: was.ref, rows: was.rows }),
  row: (now, was) => ({ ...now, ref: was.ref, list: was.list }),
};

const must = <T>(v: T | null | undefined): T => {
  assert.ok(v !== null && v !== undefined);
  return v;
};
const byStampAndId = (ts: readonly DocumentTombstone[]): DocumentTombstone[] =>
  [...ts].sort((x, y) => x.stamp - y.stamp || String(x.id).localeCompare(String(y.id)));

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

    /**
     * count() and each list's `rows` are kept by every insert and delete (migration 14): they must
     * equal the records there are for every kind, in every list (`lists` names lists that may be
     * gone), in each account given. The records are counted by page() with a range that every
     * record's stamp is in: a filtered page counts its rows (count(*)), where an unfiltered one
     * would answer the kept count itself.
     */
    async function countsKept(pks: readonly number[], lists: readonly string[] = []): Promise<void> {
      for (const pk of pks) {
        for (const kind of ['note', 'outline', 'list'] as const) {
          assert.equal(await read().documents.count(pk, kind), (await read().documents.page(pk, kind, { start: 0, num: 0, after: -1 })).total, `${kind}s of account ${pk}`);
        }
        const held = (await read().documents.page(pk, 'list', { start: 0, num: 1000 })).items;
        for (const id of new Set([...held.map((l) => l.id), ...lists])) {
          const there = (await read().documents.page(pk, 'row', { list: id, start: 0, num: 0, after: -1 })).total;
          assert.equal(await read().documents.count(pk, 'row', id), there, `rows of list ${id}, account ${pk}`);
          const l = held.find((x) => x.id === id);
          if (l) assert.equal(l.rows, there, `list ${id}'s rows`);
        }
      }
    }

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

    it('insertMany with a stamp moves it as touch() would, for every kind (rows: in a statement of its own), and keeps the counts', async () => {
      const stamps = async (pk: number) => (await read().accounts.get(pk))?.stamps;
      const before = await stamps(a);
      const beforeB = await stamps(b);
      const l = list(hex(1));
      await tx(async (r) => {
        await r.documents.insertMany(a, 'note', Array.from({ length: 71 }, (_, i) => note(i + 1)), { name: 'lastedit_note', value: 5000 });
        await r.documents.insertMany(a, 'outline', [outline(hex(2))], { name: 'lastedit_outline', value: 6000 });
        await r.documents.insertMany(a, 'list', [l], { name: 'lastedit_list', value: 7000 });
        await r.documents.insertMany(a, 'row', [row(hex(3), l.id)], { name: 'lastedit_list', value: 6500 });
      });
      assert.deepEqual(await stamps(a), { ...before, lastedit_note: 5000, lastedit_outline: 6000, lastedit_list: 7000 }, 'a row never moves it back');
      await tx((r) => r.documents.insertMany(a, 'row', [row(hex(4), l.id)], { name: 'lastedit_list', value: 8000 }));
      await tx((r) => r.documents.insertMany(a, 'note', [], { name: 'lastedit_note', value: 9000 }));
      assert.deepEqual(await stamps(a), { ...before, lastedit_note: 5000, lastedit_outline: 6000, lastedit_list: 8000 }, 'no records, no move');
      assert.deepEqual(await stamps(b), beforeB, 'the other account keeps its stamps');
      await countsKept([a, b], [l.id]);
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
      await countsKept([a, b], [l.id]);
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
      // A full page of a list's rows takes its total from the list's count the caller read with
      // the list (listRows), without reading it again: a number unlike the real one shows it is
      // the one given. A filtered page counts what matches.
      await tx(async (r) => r.documents.insert(a, 'row', row(hex(7), hex(2))));
      for (const page of [read().documents.page.bind(read().documents), read().documents.pageWritten.bind(read().documents)] as const) {
        assert.equal((await page(a, 'row', { list: hex(2), start: 0, num: 1, listRows: 40 })).total, 40);
        assert.equal((await page(a, 'row', { list: hex(2), start: 0, num: 1 })).total, 2);
        assert.equal((await page(a, 'row', { list: hex(2), start: 0, num: 1, after: 0, listRows: 40 })).total, 2);
        assert.equal((await page(a, 'row', { list: hex(2), start: 0, num: 5, listRows: 40 })).total, 2, 'a first page that holds every row counts them');
      }
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
      await countsKept([a, b], [hex(1)]);
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

    describe('batch reads and writes', () => {
      const account = async (): Promise<number> => (await tx((r) => r.accounts.create(newAccount('doc', ++seq)))).pk;

      /** Inserts the `kind` records numbered `nums` (make): rows in L1 and L2, inserted first; each list i with rowsOfList(i). */
      async function seed<K extends DocumentKind>(pk: number, kind: K, nums: readonly number[], tag: string): Promise<Array<DocumentTypes[K]>> {
        const records = nums.map((i) => make[kind](i, tag));
        await tx(async (r) => {
          if (kind === 'row') await r.documents.insertMany(pk, 'list', [list(L1), list(L2)]);
          await r.documents.insertMany(pk, kind, records);
          if (kind === 'list') await r.documents.insertMany(pk, 'row', nums.flatMap((i) => rowsOfList(i)));
        });
        return records;
      }

      /** get() of each id, as getMany must answer: String(id) → record, the ids without a record absent. */
      async function getEach<K extends DocumentKind>(pk: number, kind: K, ids: readonly DocumentId[]): Promise<Map<string, DocumentTypes[K]>> {
        const out = new Map<string, DocumentTypes[K]>();
        for (const id of ids) {
          const got = await read().documents.get(pk, kind, id);
          if (got) out.set(String(id), got);
        }
        return out;
      }

      /** isLinked() of each id, as linkedOf must answer. */
      async function linkedEach(pk: number, kind: AttachmentKind, ids: readonly DocumentId[]): Promise<Set<string>> {
        const out = new Set<string>();
        for (const id of ids) if (await read().attachments.isLinked(pk, kind, id)) out.add(String(id));
        return out;
      }

      async function getManyMixed<K extends DocumentKind>(kind: K): Promise<void> {
        await seed(a, kind, [1, 2, 3, 5], 'A');
        await seed(b, kind, [2, 7], 'B');
        // 99 is nowhere, 7 only the other account's; 1 and 5 are asked twice.
        const asked = idsOf(kind, [5, 1, 99, 7, 1, 2, 5]);
        const got = await read().documents.getMany(a, kind, asked);
        assert.deepEqual(got, await getEach(a, kind, asked));
        assert.deepEqual([...got.keys()].sort(), idsOf(kind, [1, 2, 5]).map(String));
        assert.deepEqual(await read().documents.getMany(b, kind, asked), await getEach(b, kind, asked));
        assert.deepEqual(await read().documents.getMany(a, kind, []), new Map());
        assert.deepEqual(await read().documents.getMany(a, kind, idsOf(kind, [7, 99])), new Map());
      }

      async function getManyLarge<K extends DocumentKind>(kind: K): Promise<void> {
        await seed(a, kind, upTo(150).filter((i) => i % 3 !== 0), 'A');
        await seed(b, kind, upTo(200), 'B');
        // 2, 4, … 240: in a up to 150 but the multiples of 3, in b up to 200.
        const asked = idsOf(kind, upTo(120).map((i) => 2 * i));
        for (const pk of [a, b]) assert.deepEqual(await read().documents.getMany(pk, kind, asked), await getEach(pk, kind, asked));
        assert.deepEqual([(await read().documents.getMany(a, kind, asked)).size, (await read().documents.getMany(b, kind, asked)).size], [50, 100]);
      }

      async function updateManyOf<K extends DocumentKind>(kind: K, n: number): Promise<void> {
        const c = await account();
        const nums = upTo(n + 2);
        const ids = idsOf(kind, nums);
        const all = await seed(a, kind, nums, 'same');
        for (const pk of [b, c]) await seed(pk, kind, nums, 'same');
        // The first and the last record are not in the batch.
        const batch = all.slice(1, n + 1).map((r) => change[kind](r));
        const first = new Map(Object.entries(must(all[1])));
        for (const [key, value] of Object.entries(must(batch[0]))) if (key !== 'id') assert.notDeepEqual(value, first.get(key), key);
        const [stored, theirs] = [await getEach(a, kind, ids), await getEach(c, kind, ids)];
        await tx((r) => r.documents.updateMany(a, kind, batch));
        await tx(async (r) => {
          for (const record of batch) await r.documents.update(b, kind, record);
        });
        const got = await getEach(a, kind, ids);
        assert.deepEqual(got, await getEach(b, kind, ids), 'as update() of each writes');
        const expected = new Map(stored);
        for (const record of batch) expected.set(String(record.id), keep[kind](record, must(stored.get(String(record.id)))));
        assert.deepEqual(got, expected, 'every field as written, but the ref, list and row count as stored; the rest unchanged');
        assert.deepEqual(await getEach(c, kind, ids), theirs, 'another account is untouched');
      }

      async function updateManyAbsent<K extends DocumentKind>(kind: K): Promise<void> {
        await seed(a, kind, [1, 2], 'A');
        await seed(b, kind, [2, 3], 'B');
        const ids = idsOf(kind, [1, 2, 3, 4]);
        const [stored, theirs] = [await getEach(a, kind, ids), await getEach(b, kind, ids)];
        // 1 is there; 3 is only the other account's; 4 is nowhere.
        const batch = [1, 3, 4].map((i) => change[kind](make[kind](i, 'A')));
        await tx((r) => r.documents.updateMany(a, kind, batch));
        await tx((r) => r.documents.updateMany(a, kind, []));
        const one = String(idOf(kind, 1));
        assert.deepEqual(await getEach(a, kind, ids), new Map([...stored, [one, keep[kind](must(batch[0]), must(stored.get(one)))]]));
        assert.deepEqual(await getEach(b, kind, ids), theirs);
      }

      async function removeManyOf<K extends DocumentKind>(kind: K, n: number): Promise<void> {
        const c = await account();
        for (const pk of [a, b]) {
          await seed(pk, kind, upTo(n + 2), 'A');
          await tx((r) => r.documents.remove(pk, kind, idOf(kind, n + 2), 400));
        }
        await seed(c, kind, upTo(n + 4), 'C');
        const theirs = await getEach(c, kind, idsOf(kind, upTo(n + 4)));
        // 1…n are there (1 asked twice), n + 1 stays, n + 2 was removed before, n + 3 is only the other account's, n + 5 is nowhere.
        const asked = idsOf(kind, [...upTo(n), n + 2, n + 3, n + 5, 1]);
        const removed = await tx((r) => r.documents.removeMany(a, kind, asked, 500));
        const oneByOne = new Set<string>();
        await tx(async (r) => {
          for (const id of asked) if (await r.documents.remove(b, kind, id, 500)) oneByOne.add(String(id));
        });
        assert.deepEqual(removed, oneByOne);
        assert.deepEqual(removed, new Set(idsOf(kind, upTo(n)).map(String)));
        assert.deepEqual(await getEach(a, kind, asked), new Map());
        assert.deepEqual([...(await getEach(a, kind, [idOf(kind, n + 1)])).keys()], [String(idOf(kind, n + 1))]);
        const tombstones = await read().documents.deletedAfter(a, kind, 0);
        assert.deepEqual(tombstones, await read().documents.deletedAfter(b, kind, 0), 'as remove() of each gives');
        const expected = [n + 2, ...upTo(n)].map((i) => ({ id: idOf(kind, i), list: kind === 'row' ? listOf(i) : '', stamp: i === n + 2 ? 400 : 500 }));
        assert.deepEqual(byStampAndId(tombstones), byStampAndId(expected));
        assert.deepEqual(await getEach(c, kind, idsOf(kind, upTo(n + 4))), theirs, 'another account keeps its records');
        assert.deepEqual(await read().documents.deletedAfter(c, kind, 0), []);
        if (kind === 'list') {
          // The removed lists' rows went with them, without tombstones of their own; the list left keeps its rows.
          const gone = [...upTo(n), n + 2].flatMap((i) => rowsOfList(i).map((w) => w.id));
          assert.ok(gone.length > 0);
          assert.deepEqual(await getEach(a, 'row', gone), new Map());
          assert.deepEqual(await read().documents.deletedAfter(a, 'row', 0), []);
          assert.equal(await read().documents.count(a, 'row', hex(n + 1)), (n + 1) % 3);
        }
        assert.deepEqual(await tx((r) => r.documents.removeMany(a, kind, [], 600)), new Set());
        assert.deepEqual(await read().documents.deletedAfter(a, kind, 500), []);
        await countsKept([a, b, c], [L1, L2]);
      }

      async function linkedOfMixed(kind: AttachmentKind): Promise<void> {
        await tx(async (r) => {
          for (const pk of [a, b]) for (const id of [1, 2, 3]) await r.tasks.insert(pk, newTask(id));
        });
        for (const pk of [a, b]) await seed(pk, kind, [1, 2, 3, 4, 5], 'A');
        const id = (i: number): DocumentId => idOf(kind, i);
        // 1 is linked by two tasks, 2 by one; 3 only in the other account; 4's id only as another kind's; 5 not at all; 9 is nowhere.
        await tx(async (r) => {
          await r.attachments.link(a, 1, kind, id(1));
          await r.attachments.link(a, 2, kind, id(1));
          await r.attachments.link(a, 3, kind, id(2));
          await r.attachments.link(b, 1, kind, id(3));
          await r.attachments.link(a, 1, kind === 'outline' ? 'list' : 'outline', id(4));
        });
        const asked = [1, 2, 3, 4, 5, 9, 2].map(id);
        assert.deepEqual(await read().attachments.linkedOf(a, kind, asked), new Set([id(1), id(2)].map(String)));
        for (const pk of [a, b]) assert.deepEqual(await read().attachments.linkedOf(pk, kind, asked), await linkedEach(pk, kind, asked));
        assert.deepEqual(await read().attachments.linkedOf(a, kind, []), new Set());
      }

      async function linkedOfLarge(kind: AttachmentKind): Promise<void> {
        await tx(async (r) => {
          for (const id of [1, 2, 3]) await r.tasks.insert(a, newTask(id));
        });
        await seed(a, kind, upTo(150), 'A');
        // Every third record up to 150 is linked, by one of three tasks.
        await tx(async (r) => {
          for (const i of upTo(50)) await r.attachments.link(a, 1 + (i % 3), kind, idOf(kind, 3 * i));
        });
        const asked = idsOf(kind, upTo(120).map((i) => 2 * i));
        const linked = await read().attachments.linkedOf(a, kind, asked);
        assert.deepEqual(linked, await linkedEach(a, kind, asked));
        assert.equal(linked.size, 25);
      }

      for (const kind of KINDS) {
        it(`getMany of ${kind}s equals get() of each id: known, unknown, another account's only, repeated; nothing for no ids`, () => getManyMixed(kind));
        it(`getMany of 120 ${kind} ids (more than a statement part) equals get() of each, in each account`, () => getManyLarge(kind));
        for (const n of [1, 3, 120]) {
          it(`updateMany of ${n} ${kind}(s) writes each as update() does (ref, list, row count kept); the rest and another account untouched`, () =>
            updateManyOf(kind, n));
        }
        it(`updateMany of ${kind}s leaves out records not there (unknown, another account's only): nothing created, nothing else changed`, () =>
          updateManyAbsent(kind));
        for (const n of [1, 120]) {
          it(`removeMany of ${n} ${kind}(s) among unknown, gone and another account's ids: the set of those removed, tombstones as remove() gives`, () =>
            removeManyOf(kind, n));
        }
      }

      it('updateMany keeps each row in its own list with its ref, whatever list its record names (another, or none), as update() does', async () => {
        for (const pk of [a, b]) await seed(pk, 'row', [1, 2, 3], 'A');
        // Row 1 is in L1 and names L2, row 2 the other way round; row 3 (in L1) names a list that does not exist.
        const batch = [row(hex(1), L2, { ref: 'moved-1', cells: { c1: 'x' } }), row(hex(2), L1, { ref: 'moved-2' }), row(hex(3), hex(999), { ref: 'moved-3' })];
        await tx((r) => r.documents.updateMany(a, 'row', batch));
        await tx(async (r) => {
          for (const w of batch) await r.documents.update(b, 'row', w);
        });
        const ids = idsOf('row', [1, 2, 3]);
        assert.deepEqual(await getEach(a, 'row', ids), await getEach(b, 'row', ids));
        for (const i of [1, 2, 3]) assert.equal(await read().documents.idByRef(a, 'row', `ref-${hex(i)}`, listOf(i)), hex(i));
        const inList = async (l: string): Promise<string[]> => (await read().documents.page(a, 'row', { list: l, start: 0, num: 9 })).items.map((w) => w.id);
        assert.deepEqual([await inList(L1), await inList(L2), await inList(hex(999))], [[hex(1), hex(3)], [hex(2)], []]);
        assert.deepEqual((await read().documents.get(a, 'row', hex(1)))?.cells, { c1: 'x' });
      });

      for (const kind of ['note', 'outline', 'list'] as const) {
        it(`linkedOf of ${kind}s equals isLinked() of each: linked once or twice, unlinked, unknown, linked in another account or as another kind`, () =>
          linkedOfMixed(kind));
        it(`linkedOf of 120 ${kind} ids (more than a statement part) equals isLinked() of each`, () => linkedOfLarge(kind));
      }

      it('idsByRef equals idByRef() of each ref, refs with characters storing removes or replaces included (a NUL, a lone surrogate)', async () => {
        const pk = await account();
        await tx((r) =>
          r.documents.insertMany(pk, 'outline', [outline(hex(1), { ref: 'a\u0000b' }), outline(hex(2), { ref: 'x\ud800' }), outline(hex(3), { ref: 'plain' })]),
        );
        const refs = ['a\u0000b', 'ab', 'x\ud800', 'x\ufffd', 'plain', 'none', 'plain'];
        const each = new Map<string, DocumentId>();
        for (const ref of refs) {
          const id = await read().documents.idByRef(pk, 'outline', ref);
          if (id !== null) each.set(ref, id);
        }
        assert.deepEqual(await read().documents.idsByRef(pk, 'outline', refs), each);
        assert.deepEqual([...each.keys()].sort(), ['a\u0000b', 'ab', 'plain', 'x\ud800', 'x\ufffd'].sort(), 'stored refs are found by the text they were stored as');
        assert.deepEqual(await read().documents.idsByRef(pk, 'outline', []), new Map());
      });
    });
  });
}

/**
 * Migration 14 counts what an account already holds: `store` is migrated, and `rewind` runs SQL
 * on its database (each adapter's test passes its own), with which the step is undone as a file
 * or schema of an older version would be, then applied again by a second migrate().
 */
export async function keptCountsBackfilled(store: Store, rewind: (sql: string) => Promise<void>): Promise<void> {
  const pk = (await store.transaction((tx) => tx.accounts.create(newAccount('backfill', ++seq)))).pk;
  const other = (await store.transaction((tx) => tx.accounts.create(newAccount('backfill', ++seq)))).pk;
  await store.transaction(async (tx) => {
    await tx.documents.insertMany(pk, 'note', [note(1), note(2), note(3)]);
    await tx.documents.insertMany(pk, 'outline', [outline(hex(1)), outline(hex(2), { ref: 'o2' })]);
    await tx.documents.insertMany(pk, 'list', [list(hex(3)), list(hex(4), { ref: 'l4' }), list(hex(5), { ref: 'l5' })]);
    await tx.documents.insertMany(pk, 'row', [row(hex(6), hex(3)), row(hex(7), hex(3)), row(hex(8), hex(3)), row(hex(9), hex(4))]);
    await tx.documents.insertMany(other, 'note', [note(1)]);
  });
  for (const sql of [
    'ALTER TABLE accounts DROP COLUMN note_count',
    'ALTER TABLE accounts DROP COLUMN outline_count',
    'ALTER TABLE accounts DROP COLUMN list_count',
    'ALTER TABLE lists DROP COLUMN row_count',
    'DELETE FROM schema_migrations WHERE version = 14',
  ]) {
    await rewind(sql);
  }
  assert.deepEqual((await store.migrate()).applied, [14]);
  const counts = async (account: number) => [
    await store.read.documents.count(account, 'note'),
    await store.read.documents.count(account, 'outline'),
    await store.read.documents.count(account, 'list'),
    ...(await Promise.all([hex(3), hex(4), hex(5)].map(async (l) => (await store.read.documents.get(account, 'list', l))?.rows ?? null))),
  ];
  assert.deepEqual(await counts(pk), [3, 2, 3, 3, 1, 0]);
  assert.deepEqual(await counts(other), [1, 0, 0, null, null, null]);
}

/**
 * Migration 16 rewrites the columns of lists stored before it, with their keys in the order
 * lists/get answers them, each value's text as it was: `store` is migrated, and `rewind` runs SQL
 * on its database, with which a list is stored in the old order and the step undone.
 */
export async function listColumnsReordered(store: Store, rewind: (sql: string) => Promise<void>): Promise<void> {
  const pk = (await store.transaction((tx) => tx.accounts.create(newAccount('reorder', ++seq)))).pk;
  const hostile = `"quoted" \\ back\u0001slash ${ODD} é 😀 \u2028`;
  const cols = [
    { id: 1, title: 'Plain', type: 19, width: 100, sort: 0 },
    { id: 2, title: hostile, type: 12.4, width: 42, sort: -2, choices: [hostile, 'b'] },
    { id: 7, title: '', type: 1, width: 0, sort: 1000, choices: [] },
  ];
  await store.transaction((tx) =>
    tx.documents.insertMany(pk, 'list', [list(hex(0x31), { cols }), list(hex(0x32), { ref: 'no-cols', cols: [] }), list(hex(0x33), { ref: 'incomplete', cols })]),
  );
  const stored = async (id: string): Promise<string> => JSON.stringify((await store.read.documents.get(pk, 'list', id))?.cols);
  // As every list was stored before step 16: id, title, type, width, sort, then its choices.
  const before = JSON.stringify(cols.map((c) => ({ id: c.id, title: c.title, type: c.type, width: c.width, sort: c.sort, ...(c.choices && { choices: c.choices }) })));
  // A column no code writes: without a width. Its list is left as it is, whole.
  const incomplete = JSON.stringify([{ id: 1, title: 'Plain', type: 19, width: 100, sort: 0 }, { id: 2, title: 'No width', type: 19, sort: 0 }]);
  const rewrite = (id: string, text: string) => rewind(`UPDATE lists SET cols = '${text.replace(/'/g, "''")}' WHERE user_pk = ${pk} AND id = '${id}'`);
  await rewrite(hex(0x31), before);
  await rewrite(hex(0x33), incomplete);
  assert.equal(await stored(hex(0x31)), before, 'stored in the old order');
  await rewind('DELETE FROM schema_migrations WHERE version = 16');
  assert.deepEqual((await store.migrate()).applied, [16]);
  const ordered = JSON.stringify(cols.map((c) => ({ title: c.title, type: c.type, id: c.id, sort: c.sort, width: c.width, ...(c.choices && { choices: c.choices }) })));
  assert.equal(await stored(hex(0x31)), ordered, 'the answer\'s order, each value as it was');
  assert.equal(await stored(hex(0x32)), '[]');
  assert.equal(await stored(hex(0x33)), incomplete, 'a list with a column lacking a key is left whole');
  const written = (await store.read.documents.pageWritten(pk, 'list', { start: 0, num: 10 })).rows;
  assert.equal(written.length, 3);
  assert.ok(written.some((r) => r.includes(`"cols":${ordered},`)), `the columns in the answer's order, as they were: ${written.join('\n')}`);
  assert.ok(written.some((r) => r.includes('"cols":[],')));
  assert.deepEqual((await store.read.documents.get(pk, 'list', hex(0x31)))?.cols, cols);
}
