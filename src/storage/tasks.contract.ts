import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { newAccount } from '../../test/factories.js';
import type { OpenStore } from './store.contract.js';
import type { ListedTask, PublicTaskField, Repos, Store, Task, TaskFilter, TaskQuery, TaskReference } from './store.js';

/**
 * The tasks part of the storage contract. Each adapter's test file calls it with a factory for a
 * fresh, empty database; every test gets its own. Stored forms follow tasks-port.ts: dates at
 * noon GMT (0 = none), floating times in seconds after midnight (null = no time).
 */

const DAY = 86400;
/** Noon GMT of a day far from zero, so that earlier and later stamps stay positive. */
const NOON = Math.floor(1_800_000_000 / DAY) * DAY + 43200;

let seq = 0;

/** A task whose every field has a distinct, non-default value, so a swapped column shows up. */
function fullTask(id: number, over: Partial<Task> = {}): Task {
  return {
    id,
    title: `Task ${id}`,
    tag: 'home, work',
    folder: 11,
    context: 12,
    goal: 13,
    location: 14,
    parent: 0,
    ord: 0,
    duedate: NOON + 2 * DAY,
    duedatemod: 2,
    startdate: NOON + DAY,
    duetime: 34200,
    starttime: 3600,
    remind: 1440,
    repeat: 'FREQ=WEEKLY;BYDAY=MO,WE;FROMCOMP',
    repeatIndex: 4,
    status: 5,
    length: 90,
    priority: 3,
    star: 1,
    modified: NOON + 100,
    completed: NOON - DAY,
    added: NOON - 3 * DAY,
    timer: 3725,
    timeron: NOON + 50,
    note: 'line 1\nline 2',
    previous: 7,
    via: 6,
    ...over,
  };
}

/** A task as page() lists it. */
function listed(t: Task, children = 0, meta: string | null = null): ListedTask {
  return { ...t, children, meta };
}

const ALL: TaskQuery = { start: 0, num: 1000, withChildren: false };

/** Every field of a task's public record that is the task's own (no meta, sharing or attachments). */
const WRITTEN: readonly PublicTaskField[] = [
  'id', 'title', 'modified', 'completed', 'tag', 'folder', 'context', 'goal', 'location', 'parent', 'children', 'order', 'duedate',
  'duedatemod', 'startdate', 'duetime', 'starttime', 'remind', 'repeat', 'status', 'length', 'priority', 'star', 'added', 'timer',
  'timeron', 'note', 'previous', 'via',
];

/** A task for the batch updates: text XML must escape (and a CR) on odd ids, plain text on even ones; times null on some. */
function beforeUpdate(id: number): Task {
  const escaped = { title: `A & B <${id}>`, tag: 'x"y', repeat: "R&D's", note: 'one\r\ntwo' };
  return fullTask(id, { ...(id % 2 === 1 ? escaped : {}), priority: (id % 5) - 1, duetime: id % 3 === 0 ? null : 60 * id, starttime: id % 4 === 0 ? null : 0 });
}

/** `t` with every field changed: text turned plain on odd ids and escaped on even ones, null times set and others nulled. */
function changed(t: Task): Task {
  const odd = t.id % 2 === 1;
  return {
    id: t.id,
    title: odd ? `Plain ${t.id}` : `"Q" & <A> 'x' ${t.id}\r`,
    tag: odd ? 'plain' : 'a&b, <c>',
    folder: t.folder + 1,
    context: t.context + 1,
    goal: t.goal + 1,
    location: t.location + 1,
    parent: t.parent + 1,
    ord: t.ord + 1,
    duedate: t.duedate + DAY,
    duedatemod: t.duedatemod + 1,
    startdate: t.startdate + DAY,
    duetime: t.duetime === null ? 600 : null,
    starttime: t.starttime === null ? 0 : null,
    remind: t.remind + 1,
    repeat: odd ? '' : "FREQ=DAILY;X='&'",
    repeatIndex: t.repeatIndex + 1,
    status: t.status + 1,
    length: t.length + 1,
    priority: t.priority === 3 ? -1 : 3,
    star: 1 - t.star,
    modified: t.modified + 1,
    completed: t.completed === 0 ? NOON : 0,
    added: t.added - 1,
    timer: t.timer + 1,
    timeron: t.timeron + 1,
    note: odd ? '' : 'CR\r LF\n &amp; \uFFFE <![CDATA[x]]>',
    previous: t.previous + 1,
    via: t.via + 1,
  };
}

/** 1, 2, … n. */
const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

export function tasksContract(label: string, open: OpenStore): void {
  describe(`tasks storage contract: ${label}`, () => {
    let store: Store;
    let cleanup: (() => Promise<void>) | undefined;
    /** Two accounts: whatever one does must never show in the other. */
    let a: number;
    let b: number;

    const tx = <T>(fn: (r: Repos) => Promise<T>): Promise<T> => store.transaction(fn);
    const read = (): Repos => store.read;

    async function createAccount(): Promise<number> {
      const account = await tx((r) => r.accounts.create(newAccount('tk', ++seq, { pro: 1 })));
      return account.pk;
    }

    async function createClient(): Promise<number> {
      const n = ++seq;
      const client = await tx((r) =>
        r.clients.create({ clientId: `tkapp${n}`, secretHash: `s${n}`, name: `App ${n}`, redirectUris: [`https://app${n}.example.org/cb`], createdAt: 1000 }),
      );
      return client.pk;
    }

    async function insert(pk: number, ...tasks: Task[]): Promise<void> {
      await tx(async (r) => {
        for (const t of tasks) await r.tasks.insert(pk, t);
      });
    }

    const ids = (tasks: readonly { id: number }[]): number[] => tasks.map((t) => t.id);

    /** get() of each id, as getMany must answer: id → task, the ids without a task absent. */
    async function getEach(pk: number, asked: readonly number[]): Promise<Map<number, Task>> {
      const out = new Map<number, Task>();
      for (const id of asked) {
        const t = await read().tasks.get(pk, id);
        if (t) out.set(id, t);
      }
      return out;
    }

    /** The account's tasks as the database writes them (pageWritten), every own field, in one form. */
    const written = async (pk: number, form: 'json' | 'xml', q: Partial<TaskQuery> = {}): Promise<readonly string[]> =>
      (await read().tasks.pageWritten(pk, { ...ALL, ...q }, WRITTEN, form)).rows;

    beforeEach(async () => {
      const opened = await open();
      store = opened.store;
      cleanup = opened.cleanup;
      await store.migrate();
      a = await createAccount();
      b = await createAccount();
    });

    afterEach(async () => {
      await cleanup?.();
      cleanup = undefined;
    });

    describe('insert, get, update, count', () => {
      it('insert then get round-trips every field exactly', async () => {
        const t = fullTask(1);
        await insert(a, t);
        assert.deepEqual(await read().tasks.get(a, 1), t);
      });

      const edgeCases: Array<[string, Partial<Task>]> = [
        ['no due or start time (null), no dates', { duetime: null, starttime: null, duedate: 0, startdate: 0, completed: 0 }],
        // Midnight is a real time of day: 0 must come back as 0, not as "no time".
        ['times at midnight (0) are not null', { duetime: 0, starttime: 0 }],
        ['last second of the day', { duetime: DAY - 1, starttime: DAY - 1 }],
        ['negative priority', { priority: -1 }],
        ['every number at 0 and every text empty', {
          tag: '', folder: 0, context: 0, goal: 0, location: 0, duedatemod: 0, remind: 0, repeat: '', repeatIndex: 1,
          status: 0, length: 0, priority: 0, star: 0, timer: 0, timeron: 0, note: '', previous: 0, via: 0,
        }],
        ['unicode text', { title: '😀 Café\u0301 עבודה 日本語 🇩🇪', tag: 'über, 日本, 😀', note: 'zero\u200bwidth, tab\t, CR\r\nLF\n', repeat: 'PARENT' }],
        // 10,666 three-byte characters and two ASCII ones: exactly the 32,000-byte limit.
        ['a 32,000-byte note of multi-byte characters', { note: `${'€'.repeat(10666)}\n.` }],
        ['a 255-character title of 4-byte characters', { title: '😀'.repeat(255) }],
        ['a subtask with an order', { parent: 3, ord: 2 }],
        ['large values', { timer: 2_147_483_647, length: 2_147_483_647, remind: 43200, modified: 4_102_444_800, previous: 2_147_483_647 }],
      ];
      for (const [name, over] of edgeCases) {
        it(`round-trips ${name}`, async () => {
          const t = fullTask(2, over);
          await insert(a, t);
          assert.deepEqual(await read().tasks.get(a, 2), t);
          // And through page(): the listing reads the same columns.
          assert.deepEqual((await read().tasks.page(a, ALL)).tasks, [listed(t)]);
        });
      }

      it('insertMany writes every task exactly as insert would, for batches of every size', async () => {
        // 327 = 256 + 50 + 16 + 4 + 1: one statement of each size; then one row, then none.
        const batch = Array.from({ length: 327 }, (_, i) => fullTask(i + 1, { title: `T${i + 1}`, priority: (i % 5) - 1, duetime: i % 2 ? null : i }));
        await tx((r) => r.tasks.insertMany(a, batch));
        await tx((r) => r.tasks.insertMany(a, [fullTask(328)]));
        await tx((r) => r.tasks.insertMany(a, []));
        assert.equal(await read().tasks.count(a), 328);
        assert.equal(await read().tasks.count(b), 0, 'the other account gets none');
        for (const t of [batch[0], batch[255], batch[256], batch[305], batch[326]] as Task[]) assert.deepEqual(await read().tasks.get(a, t.id), t);
        const page = await read().tasks.page(a, { ...ALL, num: 1000 });
        assert.deepEqual(page.tasks.slice(0, 327), batch.map((t) => listed(t)));
      });

      it('insertMany with a stamp moves lastedit_task as touch() would, in batches of every size, and counts the tasks', async () => {
        const stamps = async () => (await read().accounts.get(a))?.stamps;
        const before = await stamps();
        await tx((r) => r.tasks.insertMany(a, Array.from({ length: 71 }, (_, i) => fullTask(i + 1)), 5000));
        assert.deepEqual(await stamps(), { ...before, lastedit_task: 5000 }, 'to the stamp, and no other stamp moves');
        await tx((r) => r.tasks.insertMany(a, [fullTask(72)], 4000));
        assert.equal((await stamps())?.lastedit_task, 5000, 'never back');
        await tx((r) => r.tasks.insertMany(a, [], 9000));
        assert.equal((await stamps())?.lastedit_task, 5000, 'no tasks, no move');
        await tx((r) => r.tasks.insertMany(a, [fullTask(73)]));
        assert.equal((await stamps())?.lastedit_task, 5000, 'no stamp given, none moves');
        await tx((r) => r.tasks.insertMany(a, [fullTask(74)], 6000));
        assert.equal((await stamps())?.lastedit_task, 6000);
        assert.equal(await read().tasks.count(a), 74);
        assert.equal((await read().accounts.get(b))?.stamps.lastedit_task, before?.lastedit_task, 'the other account keeps its stamp');
      });

      it('insertMany of a taken id writes none of the batch (one transaction)', async () => {
        await insert(a, fullTask(3));
        await assert.rejects(tx((r) => r.tasks.insertMany(a, [fullTask(1), fullTask(2), fullTask(3)])));
        assert.equal(await read().tasks.count(a), 1);
      });

      it('get of an unknown id is null; so is an id of another account', async () => {
        await insert(a, fullTask(1));
        assert.equal(await read().tasks.get(a, 2), null);
        assert.equal(await read().tasks.get(b, 1), null);
      });

      it('ids are per account: both may have task 1, each sees its own', async () => {
        const mine = fullTask(1, { title: 'Mine', note: 'a' });
        const theirs = fullTask(1, { title: 'Theirs', note: 'b', priority: -1 });
        await insert(a, mine);
        await insert(b, theirs);
        assert.deepEqual(await read().tasks.get(a, 1), mine);
        assert.deepEqual(await read().tasks.get(b, 1), theirs);
        assert.deepEqual((await read().tasks.page(a, ALL)).tasks, [listed(mine)]);
        assert.deepEqual((await read().tasks.page(b, ALL)).tasks, [listed(theirs)]);
      });

      it('update writes every field, of that task only', async () => {
        const before = fullTask(1);
        const neighbour = fullTask(2);
        const other = fullTask(1, { title: 'Other account' });
        await insert(a, before, neighbour);
        await insert(b, other);
        const after: Task = {
          id: 1,
          title: 'Changed ✓',
          tag: 'x',
          folder: 21,
          context: 22,
          goal: 23,
          location: 24,
          parent: 2,
          ord: 5,
          duedate: NOON + 9 * DAY,
          duedatemod: 3,
          startdate: NOON + 8 * DAY,
          duetime: null,
          starttime: null,
          remind: 15,
          repeat: '',
          repeatIndex: 9,
          status: 10,
          length: 5,
          priority: -1,
          star: 0,
          modified: NOON + 999,
          completed: 0,
          added: NOON - 4 * DAY,
          timer: 0,
          timeron: 0,
          note: '',
          previous: 0,
          via: 3,
        };
        // Every field really differs, so an update that skipped one would show.
        for (const key of Object.keys(after) as (keyof Task)[]) {
          if (key !== 'id') assert.notDeepEqual(after[key], before[key], key);
        }
        await tx((r) => r.tasks.update(a, after));
        assert.deepEqual(await read().tasks.get(a, 1), after);
        assert.deepEqual(await read().tasks.get(a, 2), neighbour);
        assert.deepEqual(await read().tasks.get(b, 1), other);
        // And back from null to a time.
        await tx((r) => r.tasks.update(a, before));
        assert.deepEqual(await read().tasks.get(a, 1), before);
      });

      it('update of an unknown id creates nothing', async () => {
        await insert(a, fullTask(1));
        await tx((r) => r.tasks.update(a, fullTask(2)));
        await tx((r) => r.tasks.update(b, fullTask(1)));
        assert.equal(await read().tasks.get(a, 2), null);
        assert.equal(await read().tasks.get(b, 1), null);
        assert.equal(await read().tasks.count(a), 1);
        assert.equal(await read().tasks.count(b), 0);
      });

      it('count is per account', async () => {
        assert.equal(await read().tasks.count(a), 0);
        await insert(a, fullTask(1), fullTask(2), fullTask(3));
        await insert(b, fullTask(1));
        assert.equal(await read().tasks.count(a), 3);
        assert.equal(await read().tasks.count(b), 1);
      });

      it('a write is visible to reads in the same transaction', async () => {
        const seen = await tx(async (r) => {
          await r.tasks.insert(a, fullTask(1));
          return [await r.tasks.get(a, 1), await r.tasks.count(a)] as const;
        });
        assert.deepEqual(seen, [fullTask(1), 1]);
      });

      it('a rolled-back transaction leaves nothing: no task, no meta, no tombstone', async () => {
        const app = await createClient();
        await insert(a, fullTask(1));
        await assert.rejects(
          tx(async (r) => {
            await r.tasks.insert(a, fullTask(2));
            await r.tasks.setMeta(a, 2, app, 'meta');
            await r.tasks.update(a, fullTask(1, { title: 'changed' }));
            await r.tasks.remove(a, [1], NOON);
            throw new Error('abort');
          }),
          /abort/,
        );
        assert.equal(await read().tasks.count(a), 1);
        assert.equal(await read().tasks.get(a, 2), null);
        assert.equal(await read().tasks.meta(a, 2, app), null);
        assert.deepEqual(await read().tasks.get(a, 1), fullTask(1));
        assert.equal(await read().tasks.isDeleted(a, 1), false);
        assert.deepEqual(await read().tasks.deletedAfter(a, 0), []);
        // The store still works after the rollback.
        await insert(a, fullTask(2));
        assert.equal(await read().tasks.count(a), 2);
      });
    });

    describe('page', () => {
      /**
       * Ten tasks whose modification order differs from their id order; odd ids completed.
       * Inserted out of id order, so that insertion order cannot pass for id order.
       */
      const fixture: Task[] = [7, 2, 9, 4, 1, 10, 5, 3, 8, 6].map((id) =>
        fullTask(id, { modified: NOON + ((id * 7) % 10) * 10, completed: id % 2 === 1 ? NOON - id * DAY : 0 }),
      );
      const byId = [...fixture].sort((x, y) => x.id - y.id);

      /** What page() must return for a filter, computed here from the fixture. */
      function expected(q: TaskQuery): { total: number; ids: number[] } {
        const hits = byId.filter(
          (t) =>
            (q.id === undefined || t.id === q.id) &&
            (q.after === undefined || t.modified > q.after) &&
            (q.before === undefined || t.modified < q.before) &&
            (q.comp === undefined || (q.comp === 0 ? t.completed === 0 : t.completed > 0)),
        );
        return { total: hits.length, ids: ids(hits.slice(q.start, q.start + q.num)) };
      }

      beforeEach(async () => {
        await insert(a, ...fixture);
        // The other account has the same ids, modified in the same range: none of it may leak in.
        await insert(b, ...fixture.map((t) => ({ ...t, title: 'other' })), fullTask(11, { modified: NOON + 35 }));
      });

      it('lists every task ordered by id, with every field, and the total', async () => {
        const page = await read().tasks.page(a, ALL);
        assert.equal(page.total, 10);
        assert.deepEqual(page.tasks, byId.map((t) => listed(t)));
      });

      const M = (k: number): number => NOON + k * 10;
      const filters: Array<[string, Partial<TaskQuery>]> = [
        ['no filter', {}],
        ['after (exclusive)', { after: M(4) }],
        ['after before every task', { after: M(0) - 1 }],
        ['after the last task', { after: M(9) }],
        ['before (exclusive)', { before: M(4) }],
        ['before the first task', { before: M(0) }],
        ['after and before', { after: M(2), before: M(7) }],
        ['after and before with nothing between', { after: M(3), before: M(4) }],
        ['comp 0: uncompleted only', { comp: 0 }],
        ['comp 1: completed only', { comp: 1 }],
        ['id', { id: 4 }],
        ['unknown id', { id: 11 }],
        ['id that another account has only', { id: 11, comp: 0 }],
        ['id with a comp that excludes it', { id: 4, comp: 1 }],
        ['id with a comp that includes it', { id: 3, comp: 1 }],
        ['id with after excluding it', { id: 1, after: M(7) }],
        ['after and comp 0', { after: M(3), comp: 0 }],
        ['after, before and comp 1', { after: M(1), before: M(9), comp: 1 }],
        ['before and comp 0', { before: M(6), comp: 0 }],
      ];
      for (const [name, filter] of filters) {
        it(`filter: ${name}`, async () => {
          const q: TaskQuery = { ...ALL, ...filter };
          const want = expected(q);
          const page = await read().tasks.page(a, q);
          assert.deepEqual({ total: page.total, ids: ids(page.tasks) }, want);
          for (const t of page.tasks) assert.notEqual(t.title, 'other', 'a task of the other account');
        });
      }

      it('the filters really filter (the table above is not trivially satisfied)', () => {
        assert.deepEqual(expected({ ...ALL, after: M(4) }).ids.length, 5);
        assert.deepEqual(expected({ ...ALL, comp: 0 }).ids, [2, 4, 6, 8, 10]);
        assert.deepEqual(expected({ ...ALL, after: M(2), before: M(7) }).ids.length, 4);
      });

      for (const num of [1, 3, 4, 10, 11]) {
        it(`paging by ${num} visits every task once, in id order, with the total on every page`, async () => {
          const seen: number[] = [];
          for (let start = 0; start < 12; start += num) {
            const page = await read().tasks.page(a, { ...ALL, start, num });
            assert.equal(page.total, 10, `total at start ${start}`);
            assert.ok(page.tasks.length <= num);
            seen.push(...ids(page.tasks));
          }
          assert.deepEqual(seen, ids(byId));
        });
      }

      it('paging with a filter pages over the filtered tasks, the total staying the filtered count', async () => {
        const q = { ...ALL, after: M(2), comp: 0 as const };
        const want = expected(q);
        const seen: number[] = [];
        for (let start = 0; start < want.total + 2; start += 2) {
          const page = await read().tasks.page(a, { ...q, start, num: 2 });
          assert.equal(page.total, want.total);
          seen.push(...ids(page.tasks));
        }
        assert.deepEqual(seen, want.ids);
      });

      it('the total of a page follows removes, unknown ids left out, with and without a filter', async () => {
        await tx((r) => r.tasks.remove(a, [2, 3, 99], NOON));
        for (const q of [{}, { comp: 0 as const }]) {
          const want = byId.filter((t) => t.id !== 2 && t.id !== 3 && (q.comp === undefined || t.completed === 0));
          for (const start of [0, 1]) assert.deepEqual((await read().tasks.page(a, { ...ALL, ...q, start, num: 1 })).total, want.length);
        }
      });

      it('a start at or past the total gives no tasks but still the total', async () => {
        for (const start of [10, 11, 1000]) {
          const page = await read().tasks.page(a, { ...ALL, start, num: 5 });
          assert.deepEqual(page, { total: 10, tasks: [] }, `start ${start}`);
        }
      });

      it('num 0 gives no tasks but the total', async () => {
        assert.deepEqual(await read().tasks.page(a, { ...ALL, num: 0 }), { total: 10, tasks: [] });
        assert.deepEqual(await read().tasks.page(a, { ...ALL, num: 0, comp: 1 }), { total: 5, tasks: [] });
      });

      it('an account without tasks: total 0', async () => {
        const c = await createAccount();
        assert.deepEqual(await read().tasks.page(c, ALL), { total: 0, tasks: [] });
      });

      const conditions: Array<[string, TaskFilter, (t: Task) => boolean]> = [
        ...(['=', '<>', '<', '<=', '>', '>='] as const).map((op): [string, TaskFilter, (t: Task) => boolean] => [
          `id ${op} 4`,
          { column: 'id', op, value: 4 },
          (t) => ({ '=': t.id === 4, '<>': t.id !== 4, '<': t.id < 4, '<=': t.id <= 4, '>': t.id > 4, '>=': t.id >= 4 })[op],
        ]),
        ['all of nothing: every task', { all: [] }, () => true],
        ['any of nothing: no task', { any: [] }, () => false],
        ['all: between two ids', { all: [{ column: 'id', op: '>', value: 2 }, { column: 'id', op: '<', value: 5 }] }, (t) => t.id > 2 && t.id < 5],
        ['any, nested', { any: [{ column: 'id', op: '=', value: 2 }, { all: [{ column: 'completed', op: '>', value: 0 }, { column: 'id', op: '>=', value: 9 }] }] }, (t) => t.id === 2 || (t.completed > 0 && t.id >= 9)],
        ['a number past INTEGER, on an INTEGER column', { column: 'priority', op: '<', value: 999_999_999_999_999 }, () => true],
        ['the same, equal', { column: 'priority', op: '=', value: 999_999_999_999_999 }, () => false],
        ['ids, one of them unknown', { ids: [3, 5, 42] }, (t) => t.id === 3 || t.id === 5],
        ['no ids', { ids: [] }, () => false],
        ['text empty', { column: 'title', empty: true }, (t) => t.title === ''],
        ['text not empty', { column: 'title', empty: false }, (t) => t.title !== ''],
      ];
      for (const [name, where, holds] of conditions) {
        it(`where: ${name}, counted, paged and with the other filters`, async () => {
          const hits = ids(byId.filter(holds));
          assert.deepEqual(ids((await read().tasks.page(a, { ...ALL, where })).tasks), hits);
          assert.deepEqual(await read().tasks.page(a, { ...ALL, where, start: 1, num: 1 }).then((p) => ({ total: p.total, ids: ids(p.tasks) })), { total: hits.length, ids: hits.slice(1, 2) });
          const narrowed = byId.filter((t) => holds(t) && t.completed === 0 && t.modified > M(2));
          assert.deepEqual(ids((await read().tasks.page(a, { ...ALL, where, comp: 0, after: M(2) })).tasks), ids(narrowed));
        });
      }

      it('where: the conditions really select (the table above is not trivially satisfied)', () => {
        const counts = conditions.map(([, , holds]) => byId.filter(holds).length);
        assert.ok(counts.some((n) => n > 0 && n < 10) && counts.includes(0) && counts.includes(10), String(counts));
      });

      it('where folded: the text with ASCII capitals lowered, K (U+212A) as k and İ as i, holds the value; nothing else is folded', async () => {
        const c = await createAccount();
        const titles = ['Call Mom', 'İstanbul', '\u212Aelvin', 'ÉCOLE', 'ıi', 'nothing', 'ISTANBUL', '100% A_B \\ K', '100x AxB'];
        await insert(c, ...titles.map((title, i) => fullTask(i + 1, { title })));
        const found = async (folded: string): Promise<number[]> => ids((await read().tasks.page(c, { ...ALL, where: { column: 'title', folded } })).tasks);
        assert.deepEqual(await found('call mom'), [1]);
        assert.deepEqual(await found('istanbul'), [2, 7], 'I lowered to i, as in JavaScript, in any locale');
        assert.deepEqual(await found('kelvin'), [3]);
        assert.deepEqual(await found('cole'), [4]);
        assert.deepEqual(await found('école'), [], 'É is not folded');
        assert.deepEqual(await found('ii'), [], 'ı stays ı');
        assert.deepEqual(await found('CALL'), [], 'the value is compared as it is');
        assert.deepEqual(await found(''), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
        // Characters that patterns give a meaning to are themselves.
        assert.deepEqual(await found('0% a'), [8]);
        assert.deepEqual(await found('a_b'), [8]);
        assert.deepEqual(await found('\\ k'), [8]);
        assert.deepEqual(await found('0%'), [8]);
        assert.deepEqual(await found('%'), [8]);
        assert.deepEqual(await found('_'), [8]);
      });

      it('scan: only the columns asked for, with the id, of the matching tasks of that account, by id, a part at a time', async () => {
        const all = { afterId: 0, limit: 100 };
        const rows = await read().tasks.scan(a, { comp: 0, where: { column: 'id', op: '>', value: 4 } }, ['title', 'modified'], all);
        assert.deepEqual(rows, byId.filter((t) => t.completed === 0 && t.id > 4).map((t) => ({ id: t.id, title: t.title, modified: t.modified })));
        assert.deepEqual(await read().tasks.scan(a, { after: M(4), before: M(8) }, [], all), byId.filter((t) => t.modified > M(4) && t.modified < M(8)).map((t) => ({ id: t.id })));
        const parts: number[][] = [];
        for (let afterId = 0, n = 0; n < 5; n++) {
          const part = await read().tasks.scan(a, {}, [], { afterId, limit: 3 });
          parts.push(ids(part));
          afterId = part[part.length - 1]?.id ?? afterId;
        }
        assert.deepEqual(parts, [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10], []]);
        const c = await createAccount();
        assert.deepEqual(await read().tasks.scan(c, {}, ['tag'], all), []);
      });
    });

    describe('page: children and meta', () => {
      it('withChildren counts the subtasks of each task, in that account only', async () => {
        await insert(
          a,
          fullTask(1),
          fullTask(2),
          fullTask(3, { parent: 1, ord: 1 }),
          fullTask(4, { parent: 1, ord: 2 }),
          fullTask(5, { parent: 2, ord: 1 }),
          fullTask(6),
        );
        // The other account's subtasks of "its" task 6 must not count for this account's task 6.
        await insert(b, fullTask(6), fullTask(7, { parent: 6, ord: 1 }), fullTask(8, { parent: 6, ord: 2 }));
        const page = await read().tasks.page(a, { ...ALL, withChildren: true });
        assert.deepEqual(
          page.tasks.map((t) => [t.id, t.children]),
          [[1, 2], [2, 1], [3, 0], [4, 0], [5, 0], [6, 0]],
        );
        const other = await read().tasks.page(b, { ...ALL, withChildren: true });
        assert.deepEqual(other.tasks.map((t) => [t.id, t.children]), [[6, 2], [7, 0], [8, 0]]);
        // Counting follows the filter's page, not the whole account.
        const one = await read().tasks.page(a, { ...ALL, id: 1, withChildren: true });
        assert.deepEqual(one.tasks, [listed(fullTask(1), 2)]);
      });

      it('metaFor gives that app\'s meta only, null when it has none', async () => {
        const [app1, app2, app3] = [await createClient(), await createClient(), await createClient()];
        await insert(a, fullTask(1), fullTask(2), fullTask(3));
        await insert(b, fullTask(3));
        await tx(async (r) => {
          await r.tasks.setMeta(a, 1, app1, 'one for app 1');
          await r.tasks.setMeta(a, 1, app2, 'one for app 2');
          await r.tasks.setMeta(a, 2, app2, 'two for app 2');
          await r.tasks.setMeta(b, 3, app1, 'other account');
        });
        const metas = async (app: number): Promise<Array<[number, string | null]>> =>
          (await read().tasks.page(a, { ...ALL, metaFor: app })).tasks.map((t) => [t.id, t.meta]);
        assert.deepEqual(await metas(app1), [[1, 'one for app 1'], [2, null], [3, null]]);
        assert.deepEqual(await metas(app2), [[1, 'one for app 2'], [2, 'two for app 2'], [3, null]]);
        assert.deepEqual(await metas(app3), [[1, null], [2, null], [3, null]]);
        // Several apps' meta on one task must not turn one task into several rows.
        const page = await read().tasks.page(a, { ...ALL, metaFor: app1, withChildren: true });
        assert.equal(page.total, 3);
        assert.deepEqual(page.tasks[0], listed(fullTask(1), 0, 'one for app 1'));
        // Without metaFor no app's meta is shown.
        for (const t of (await read().tasks.page(a, ALL)).tasks) assert.equal(t.meta, null);
      });
    });

    describe('setMetas', () => {
      it('setMetas equals setMeta() of each task (set, replaced, removed by null or empty), for 300 tasks, that app only; metasOf equals meta() of each', async () => {
        const [app, other] = [await createClient(), await createClient()];
        const c = await createAccount();
        const ids = Array.from({ length: 300 }, (_, i) => i + 1);
        await insert(a, ...ids.map((id) => fullTask(id)));
        await insert(c, ...ids.map((id) => fullTask(id)));
        const first = ids.map((id) => ({ taskId: id, meta: id % 3 === 0 ? null : `meta ${id} &<>"'\r` }));
        const second = ids.map((id) => ({ taskId: id, meta: id % 4 === 0 ? '' : id % 5 === 0 ? null : `second ${id}` }));
        await tx(async (r) => {
          await r.tasks.setMeta(a, 7, other, 'the other app');
          await r.tasks.setMeta(c, 7, other, 'the other app');
        });
        for (const metas of [first, second]) {
          await tx((r) => r.tasks.setMetas(a, app, metas));
          await tx(async (r) => {
            for (const m of metas) await r.tasks.setMeta(c, m.taskId, app, m.meta);
          });
          for (const id of ids) assert.equal(await read().tasks.meta(a, id, app), await read().tasks.meta(c, id, app), `task ${id}`);
        }
        assert.equal(await read().tasks.meta(a, 2, app), 'second 2');
        assert.equal(await read().tasks.meta(a, 8, app), null, 'removed by an empty meta');
        assert.equal(await read().tasks.meta(a, 7, other), 'the other app');
        await tx((r) => r.tasks.setMetas(a, app, []));
        // metasOf: meta() of each, that app's, that account's; tasks without one absent.
        const asked = [...ids, 7, 9999, 0];
        const each = new Map<number, string>();
        for (const id of asked) {
          const meta = await read().tasks.meta(a, id, app);
          if (meta !== null) each.set(id, meta);
        }
        assert.deepEqual(await read().tasks.metasOf(a, app, asked), each);
        assert.ok(each.size > 100 && each.size < 300, 'some tasks have a meta and some do not');
        assert.deepEqual(await read().tasks.metasOf(a, other, [7, 8]), new Map([[7, 'the other app']]));
        assert.deepEqual(await read().tasks.metasOf(b, app, ids), new Map());
        assert.deepEqual(await read().tasks.metasOf(a, app, []), new Map());
      });
    });

    describe('remove and tombstones', () => {
      it('remove deletes the rows and their meta, and records a tombstone with the stamp', async () => {
        const app = await createClient();
        await insert(a, fullTask(1), fullTask(2), fullTask(3));
        await insert(b, fullTask(1), fullTask(2));
        await tx(async (r) => {
          await r.tasks.setMeta(a, 1, app, 'gone with the task');
          await r.tasks.setMeta(a, 3, app, 'stays');
          await r.tasks.setMeta(b, 1, app, 'other account stays');
        });
        await tx((r) => r.tasks.remove(a, [1, 2], NOON + 500));
        assert.equal(await read().tasks.get(a, 1), null);
        assert.equal(await read().tasks.get(a, 2), null);
        assert.deepEqual(await read().tasks.get(a, 3), fullTask(3));
        assert.equal(await read().tasks.count(a), 1);
        assert.equal(await read().tasks.meta(a, 1, app), null);
        assert.equal(await read().tasks.meta(a, 3, app), 'stays');
        assert.deepEqual(await read().tasks.deletedAfter(a, 0), [
          { id: 1, stamp: NOON + 500 },
          { id: 2, stamp: NOON + 500 },
        ]);
        // The other account's tasks with the same ids are untouched.
        assert.equal(await read().tasks.count(b), 2);
        assert.deepEqual(await read().tasks.get(b, 1), fullTask(1));
        assert.equal(await read().tasks.meta(b, 1, app), 'other account stays');
        assert.deepEqual(await read().tasks.deletedAfter(b, 0), []);
        assert.equal(await read().tasks.isDeleted(b, 1), false);
      });

      it('isDeleted: false before and for never-existing ids, true after remove', async () => {
        await insert(a, fullTask(1), fullTask(2));
        assert.equal(await read().tasks.isDeleted(a, 1), false);
        await tx((r) => r.tasks.remove(a, [1], NOON));
        assert.equal(await read().tasks.isDeleted(a, 1), true);
        assert.equal(await read().tasks.isDeleted(a, 2), false);
        assert.equal(await read().tasks.isDeleted(a, 99), false);
      });

      it('deletedAfter is exclusive, ordered by stamp then id, per account', async () => {
        await insert(a, ...[1, 2, 3, 4, 5, 6].map((id) => fullTask(id)));
        await insert(b, fullTask(1), fullTask(7));
        await tx((r) => r.tasks.remove(a, [5, 3], NOON + 200));
        await tx((r) => r.tasks.remove(a, [4, 1], NOON + 100));
        await tx((r) => r.tasks.remove(a, [2], NOON + 300));
        await tx((r) => r.tasks.remove(b, [1, 7], NOON + 150));
        assert.deepEqual(await read().tasks.deletedAfter(a, 0), [
          { id: 1, stamp: NOON + 100 },
          { id: 4, stamp: NOON + 100 },
          { id: 3, stamp: NOON + 200 },
          { id: 5, stamp: NOON + 200 },
          { id: 2, stamp: NOON + 300 },
        ]);
        assert.deepEqual(ids(await read().tasks.deletedAfter(a, NOON + 100)), [3, 5, 2]);
        assert.deepEqual(ids(await read().tasks.deletedAfter(a, NOON + 99)), [1, 4, 3, 5, 2]);
        assert.deepEqual(ids(await read().tasks.deletedAfter(a, NOON + 299)), [2]);
        assert.deepEqual(await read().tasks.deletedAfter(a, NOON + 300), []);
        assert.deepEqual(await read().tasks.deletedAfter(b, 0), [
          { id: 1, stamp: NOON + 150 },
          { id: 7, stamp: NOON + 150 },
        ]);
        assert.equal(await read().tasks.count(a), 1);
      });
    });

    describe('subtasks', () => {
      it('childIds lists a parent\'s subtasks by order then id, per account', async () => {
        await insert(
          a,
          fullTask(1),
          fullTask(2, { parent: 1, ord: 3 }),
          fullTask(3, { parent: 1, ord: 1 }),
          fullTask(4, { parent: 1, ord: 3 }),
          fullTask(5, { parent: 1, ord: 2 }),
          fullTask(6),
          fullTask(7, { parent: 6, ord: 1 }),
        );
        await insert(b, fullTask(1), fullTask(9, { parent: 1, ord: 0 }));
        assert.deepEqual(await read().tasks.childIds(a, 1), [3, 5, 2, 4]);
        assert.deepEqual(await read().tasks.childIds(a, 6), [7]);
        assert.deepEqual(await read().tasks.childIds(a, 3), []);
        assert.deepEqual(await read().tasks.childIds(a, 99), []);
        assert.deepEqual(await read().tasks.childIds(b, 1), [9]);
        // Top-level tasks are nobody's children.
        assert.deepEqual(await read().tasks.childIds(a, 0), []);
      });

      it('nextOrder: 1 for the first subtask, then one after the highest sibling, per parent and account', async () => {
        await insert(a, fullTask(1), fullTask(2));
        await insert(b, fullTask(1), fullTask(5, { parent: 1, ord: 8 }));
        assert.equal(await read().tasks.nextOrder(a, 1), 1);
        await insert(a, fullTask(3, { parent: 1, ord: 1 }));
        assert.equal(await read().tasks.nextOrder(a, 1), 2);
        await insert(a, fullTask(4, { parent: 1, ord: 5 }));
        assert.equal(await read().tasks.nextOrder(a, 1), 6);
        assert.equal(await read().tasks.nextOrder(a, 2), 1);
        assert.equal(await read().tasks.nextOrder(b, 1), 9);
        await tx((r) => r.tasks.remove(a, [4], NOON));
        assert.equal(await read().tasks.nextOrder(a, 1), 2, 'after the highest remaining sibling');
      });
    });

    describe('batch reads and writes', () => {
      it('getMany equals get() of each id: known, unknown, another account\'s only, repeated; nothing for no ids', async () => {
        await insert(a, fullTask(1), fullTask(2, { duetime: null, starttime: 0, priority: -1 }), fullTask(5, { note: 'a & b\r\n' }));
        await insert(b, fullTask(1, { title: 'other' }), fullTask(7));
        const asked = [5, 1, 99, 7, 1, 2, 5, 0];
        const got = await read().tasks.getMany(a, asked);
        assert.deepEqual(got, await getEach(a, asked));
        assert.deepEqual([...got.keys()].sort((x, y) => x - y), [1, 2, 5]);
        assert.deepEqual(await read().tasks.getMany(b, asked), await getEach(b, asked));
        assert.deepEqual(await read().tasks.getMany(a, []), new Map());
        assert.deepEqual(await read().tasks.getMany(a, [3]), new Map());
      });

      it('getMany of 300 ids and more, dense or scattered, equals get() of each: only the ids asked, of that account', async () => {
        await tx((r) => r.tasks.insertMany(a, upTo(600).map((id) => fullTask(id, { title: `A${id}`, duetime: id % 3 ? id : null }))));
        await tx((r) => r.tasks.insertMany(b, upTo(700).map((id) => fullTask(id, { title: `B${id}` }))));
        // The odd ids: a range around them holds the even ones too. Then ids up to 2100 and 3000: most not in a, some in b only.
        for (const asked of [upTo(300).map((i) => 2 * i - 1), upTo(300).map((i) => 7 * i), upTo(600).map((i) => 5 * i)]) {
          const got = await read().tasks.getMany(a, asked);
          assert.deepEqual(got, await getEach(a, asked));
          assert.equal(got.size, asked.filter((id) => id <= 600).length);
        }
      });

      for (const n of [1, 3, 50, 300]) {
        it(`updateMany of ${n} task(s) writes each as update() would, the rest and another account untouched; written JSON and XML alike`, async () => {
          const [c, fresh] = [await createAccount(), await createAccount()];
          const all = upTo(n + 2).map(beforeUpdate);
          // The first and the last task are not in the batch.
          const batch = all.slice(1, n + 1).map(changed);
          const after = [all[0] as Task, ...batch, all[n + 1] as Task];
          for (const [key, value] of Object.entries(batch[0] as Task)) if (key !== 'id') assert.notDeepEqual(value, all[1]?.[key as keyof Task], key);
          for (const pk of [a, b, c]) await tx((r) => r.tasks.insertMany(pk, all));
          // update() may itself be updateMany() of one: the tasks inserted as they end up are written independently of either.
          await tx((r) => r.tasks.insertMany(fresh, after));
          const untouched = await written(a, 'xml');
          await tx((r) => r.tasks.updateMany(a, batch));
          await tx(async (r) => {
            for (const t of batch) await r.tasks.update(b, t);
          });
          assert.deepEqual(await getEach(a, ids(all)), await getEach(b, ids(all)));
          assert.deepEqual((await read().tasks.page(a, ALL)).tasks, after.map((t) => listed(t)));
          assert.deepEqual((await read().tasks.page(c, ALL)).tasks, all.map((t) => listed(t)), 'another account is untouched');
          assert.equal(await read().tasks.count(a), n + 2);
          assert.notDeepEqual(await written(b, 'xml'), untouched, 'the updates change the records');
          for (const form of ['xml', 'json'] as const) {
            assert.deepEqual(await written(a, form), await written(b, form), `${form}: as update() writes`);
            assert.deepEqual(await written(a, form), await written(fresh, form), `${form}: as the tasks inserted so`);
          }
        });
      }

      it('updateMany leaves out ids with no task in that account: nothing created, no count change, no XML kept for them', async () => {
        await insert(a, fullTask(1));
        await insert(b, fullTask(2));
        const batch = [changed(fullTask(1)), changed(fullTask(2)), changed(fullTask(4))];
        await tx((r) => r.tasks.updateMany(a, batch));
        await tx((r) => r.tasks.updateMany(a, []));
        assert.deepEqual(await getEach(a, [1, 2, 4]), new Map([[1, batch[0]]]));
        assert.equal(await read().tasks.count(a), 1);
        assert.deepEqual(await getEach(b, [1, 2, 4]), new Map([[2, fullTask(2)]]));
        assert.equal(await read().tasks.count(b), 1);
        // Had the XML of task 4's escaped text been kept, a plain task 4 inserted now would be written with it.
        await insert(a, fullTask(4));
        await insert(b, fullTask(4));
        assert.deepEqual(await written(a, 'xml', { id: 4 }), await written(b, 'xml', { id: 4 }));
      });

      it('remove of 300 ids: this account\'s tasks with them go, with meta and kept XML; a tombstone for each; count drops by those removed', async () => {
        const app = await createClient();
        const escaped = (id: number): Task => fullTask(id, { title: `<${id}> & "x"` });
        await tx((r) => r.tasks.insertMany(a, upTo(300).map(escaped)));
        await tx((r) => r.tasks.insertMany(b, upTo(400).map(escaped)));
        await tx(async (r) => {
          await r.tasks.setMeta(a, 60, app, 'goes');
          await r.tasks.setMeta(a, 10, app, 'stays');
          await r.tasks.setMeta(b, 60, app, 'other account');
        });
        // 51 is gone already (its tombstone moves to the new stamp); 52–300 are there; 301–350 are only the other account's.
        await tx((r) => r.tasks.remove(a, [51], NOON + 1));
        assert.equal(await read().tasks.count(a), 299);
        const gone = upTo(300).map((i) => 50 + i);
        await tx((r) => r.tasks.remove(a, [...gone].reverse(), NOON + 500));
        assert.deepEqual(ids((await read().tasks.page(a, ALL)).tasks), upTo(50));
        assert.equal(await read().tasks.count(a), 50);
        assert.deepEqual(await read().tasks.deletedAfter(a, 0), gone.map((id) => ({ id, stamp: NOON + 500 })));
        assert.equal(await read().tasks.meta(a, 60, app), null);
        assert.equal(await read().tasks.meta(a, 10, app), 'stays');
        assert.deepEqual((await read().tasks.page(b, ALL)).tasks, upTo(400).map((id) => listed(escaped(id))));
        assert.equal(await read().tasks.count(b), 400);
        assert.equal(await read().tasks.meta(b, 60, app), 'other account');
        assert.deepEqual(await read().tasks.deletedAfter(b, 0), []);
        // A plain task given a removed id is written without the removed task's XML.
        const c = await createAccount();
        await insert(a, fullTask(60));
        await insert(c, fullTask(60));
        assert.deepEqual(await written(a, 'xml', { id: 60 }), await written(c, 'xml', { id: 60 }));
      });

      it('childIdsOf equals childIds() of each parent, in order; parents without subtasks, unknown ones and 0 absent', async () => {
        await insert(
          a,
          fullTask(1),
          fullTask(2, { parent: 1, ord: 3 }),
          fullTask(3, { parent: 1, ord: 1 }),
          fullTask(4, { parent: 1, ord: 3 }),
          fullTask(5, { parent: 1, ord: 2 }),
          fullTask(6),
          fullTask(7, { parent: 6, ord: 2 }),
          fullTask(8, { parent: 6, ord: 1 }),
          fullTask(9),
        );
        await insert(b, fullTask(1), fullTask(20, { parent: 1, ord: 0 }), fullTask(10), fullTask(21, { parent: 10, ord: 1 }));
        const childIdsEach = async (pk: number, parents: readonly number[]): Promise<Map<number, number[]>> => {
          const out = new Map<number, number[]>();
          for (const p of parents) {
            const children = await read().tasks.childIds(pk, p);
            if (children.length > 0) out.set(p, children);
          }
          return out;
        };
        // The second list is dense (a range around it holds 6, not asked) and starts at 0, the top-level tasks' parent.
        for (const parents of [[1, 6, 9, 99, 0, 10, 1], [0, 1, 2, 3, 4, 5, 7, 8, 9, 10], []]) {
          assert.deepEqual(await read().tasks.childIdsOf(a, parents), await childIdsEach(a, parents), String(parents));
          assert.deepEqual(await read().tasks.childIdsOf(b, parents), await childIdsEach(b, parents), String(parents));
        }
        assert.deepEqual(await read().tasks.childIdsOf(a, [1, 6, 9, 99, 0, 10, 1]), new Map([[1, [3, 5, 2, 4]], [6, [8, 7]]]));
        assert.deepEqual(await read().tasks.childIdsOf(b, [0, 1, 6, 10]), new Map([[1, [20]], [10, [21]]]));
      });
    });

    describe('meta', () => {
      it('set, replace, and remove with null and with ""', async () => {
        const app = await createClient();
        await insert(a, fullTask(1));
        assert.equal(await read().tasks.meta(a, 1, app), null);
        await tx((r) => r.tasks.setMeta(a, 1, app, '{"v":1}'));
        assert.equal(await read().tasks.meta(a, 1, app), '{"v":1}');
        await tx((r) => r.tasks.setMeta(a, 1, app, 'replaced 😀'));
        assert.equal(await read().tasks.meta(a, 1, app), 'replaced 😀');
        await tx((r) => r.tasks.setMeta(a, 1, app, null));
        assert.equal(await read().tasks.meta(a, 1, app), null);
        await tx((r) => r.tasks.setMeta(a, 1, app, 'again'));
        await tx((r) => r.tasks.setMeta(a, 1, app, ''));
        assert.equal(await read().tasks.meta(a, 1, app), null, '"" removes, it is not stored as ""');
        // Removing what is not there is fine.
        await tx((r) => r.tasks.setMeta(a, 1, app, null));
        assert.equal(await read().tasks.meta(a, 1, app), null);
      });

      it('is per app, per task and per account', async () => {
        const [app1, app2] = [await createClient(), await createClient()];
        await insert(a, fullTask(1), fullTask(2));
        await insert(b, fullTask(1));
        await tx(async (r) => {
          await r.tasks.setMeta(a, 1, app1, 'a1/app1');
          await r.tasks.setMeta(a, 1, app2, 'a1/app2');
          await r.tasks.setMeta(a, 2, app1, 'a2/app1');
          await r.tasks.setMeta(b, 1, app1, 'b1/app1');
        });
        const all = async (): Promise<Array<string | null>> => [
          await read().tasks.meta(a, 1, app1),
          await read().tasks.meta(a, 1, app2),
          await read().tasks.meta(a, 2, app1),
          await read().tasks.meta(a, 2, app2),
          await read().tasks.meta(b, 1, app1),
          await read().tasks.meta(b, 1, app2),
        ];
        assert.deepEqual(await all(), ['a1/app1', 'a1/app2', 'a2/app1', null, 'b1/app1', null]);
        await tx((r) => r.tasks.setMeta(a, 1, app1, null));
        assert.deepEqual(await all(), [null, 'a1/app2', 'a2/app1', null, 'b1/app1', null]);
        await tx((r) => r.tasks.setMeta(a, 1, app2, 'replaced'));
        assert.deepEqual(await all(), [null, 'replaced', 'a2/app1', null, 'b1/app1', null]);
      });

      it('keeps 1024 bytes of multi-byte text exactly', async () => {
        const app = await createClient();
        await insert(a, fullTask(1));
        const meta = '😀'.repeat(256);
        await tx((r) => r.tasks.setMeta(a, 1, app, meta));
        assert.equal(await read().tasks.meta(a, 1, app), meta);
      });
    });

    describe('countByReference', () => {
      for (const field of ['folder', 'context', 'goal', 'location'] as const) {
        it(`${field}: tasks of that account per record, completed ones included, 0 left out`, async () => {
          const point = (id: number, to: number, completed = 0): Task => fullTask(id, { folder: 0, context: 0, goal: 0, location: 0, [field]: to, completed });
          await insert(a, point(1, 5), point(2, 6), point(3, 5, NOON), point(4, 0), fullTask(5, { folder: 7, context: 7, goal: 7, location: 7, [field]: 0 }));
          await insert(b, point(1, 5), point(2, 8));
          assert.deepEqual(await read().tasks.countByReference(a, field), new Map([[5, 2], [6, 1]]));
          assert.deepEqual(await read().tasks.countByReference(b, field), new Map([[5, 1], [8, 1]]));
        });
      }

      it('refuses a field that is not a reference', async () => {
        await assert.rejects(read().tasks.countByReference(a, 'parent' as TaskReference));
      });
    });

    describe('clearReference', () => {
      const FIELDS: readonly TaskReference[] = ['folder', 'context', 'goal', 'location'];
      for (const field of FIELDS) {
        it(`${field}: only the matching tasks of that account change, to 0 and stamped`, async () => {
          const point = (id: number, to: number): Task => fullTask(id, { folder: 0, context: 0, goal: 0, location: 0, [field]: to });
          // Task 4 points at 5 through every other field: only `field` may match.
          const crossed = fullTask(4, { folder: 5, context: 5, goal: 5, location: 5, [field]: 0 });
          await insert(a, point(1, 5), point(2, 6), point(3, 5), crossed);
          await insert(b, point(1, 5));
          const stamp = NOON + 777;
          assert.equal(await tx((r) => r.tasks.clearReference(a, field, 5, stamp)), 2);
          assert.deepEqual(await read().tasks.get(a, 1), { ...point(1, 5), [field]: 0, modified: stamp });
          assert.deepEqual(await read().tasks.get(a, 3), { ...point(3, 5), [field]: 0, modified: stamp });
          assert.deepEqual(await read().tasks.get(a, 2), point(2, 6));
          assert.deepEqual(await read().tasks.get(a, 4), crossed);
          assert.deepEqual(await read().tasks.get(b, 1), point(1, 5), 'the other account is untouched');
          assert.equal(await tx((r) => r.tasks.clearReference(a, field, 5, stamp + 1)), 0, 'nothing left to clear');
          assert.equal((await read().tasks.get(a, 1))?.modified, stamp);
        });
      }

      for (const bad of ['parent', 'title', 'id', 'folder = 0, title', 'folder; DROP TABLE tasks; --']) {
        it(`refuses the field ${JSON.stringify(bad)} and changes nothing`, async () => {
          await insert(a, fullTask(1, { parent: 5, folder: 5 }));
          await assert.rejects(tx((r) => r.tasks.clearReference(a, bad as TaskReference, 5, NOON + 1)));
          assert.deepEqual(await read().tasks.get(a, 1), fullTask(1, { parent: 5, folder: 5 }));
          assert.equal(await read().tasks.count(a), 1);
        });
      }
    });
  });
}
