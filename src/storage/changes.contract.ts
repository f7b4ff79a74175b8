import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { newAccount, newTask } from '../../test/factories.js';
import { CHANGE_KINDS, type ChangeKind, type LoggedChange } from './changes-port.js';
import type { ListRow, Repos, Store } from './store.js';
import type { OpenStore } from './store.contract.js';

/**
 * The change log part of the storage contract (changes-port.ts, docs/decisions/0023): whatever
 * writes a record, in whatever way, moves its account's position and leaves the record's latest
 * change at it; a transaction that rolls back leaves nothing.
 */

let seq = 0;
const EVERY: readonly ChangeKind[] = CHANGE_KINDS;
const ALL = { after: 0, upTo: Number.MAX_SAFE_INTEGER, kinds: EVERY, limit: 1000, live: false };
const hex = (n: number): string => n.toString(16).padStart(24, '0');
const row = (id: string, list: string): ListRow => ({ id, list, ref: `r-${id}`, version: 1, added: 100, modified: 200, cells: { c1: 'x' } });
const brief = (cs: readonly LoggedChange[]): string[] => cs.map((c) => `${c.kind}:${c.id}${c.gone ? ' gone' : ''}`);

export function changesContract(label: string, open: OpenStore): void {
  describe(`${label} change log contract`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let pk: number;
    let other: number;
    const write = <T>(fn: (tx: Repos) => Promise<T>): Promise<T> => store.transaction(fn);
    const log = (userPk = pk, range: Partial<typeof ALL> = {}): Promise<LoggedChange[]> => store.read.changes.since(userPk, { ...ALL, ...range });
    const position = async (userPk = pk): Promise<number> => (await store.read.changes.position(userPk))?.seq ?? -1;

    beforeEach(async () => {
      ({ store, cleanup } = await open());
      const n = ++seq;
      pk = (await store.transaction((tx) => tx.accounts.create(newAccount('log', n)))).pk;
      other = (await store.transaction((tx) => tx.accounts.create(newAccount('log-other', n)))).pk;
    });
    afterEach(() => cleanup());

    it('a new account is at position 0 with nothing logged; an unknown one has no position', async () => {
      assert.deepEqual(await store.read.changes.position(pk), { seq: 0, floor: 0 });
      assert.equal(await store.read.changes.position(999_999), null);
      assert.deepEqual(await log(), []);
    });

    it('every insert, update and delete of a task moves the position by one a row and keeps the latest change of each task', async () => {
      await write((tx) => tx.tasks.insertMany(pk, [newTask(1), newTask(2), newTask(3)]));
      assert.equal(await position(), 3);
      assert.deepEqual(brief(await log()), ['task:1', 'task:2', 'task:3']);
      await write((tx) => tx.tasks.update(pk, newTask(1, { title: 'again' })));
      assert.deepEqual(brief(await log()), ['task:2', 'task:3', 'task:1'], 'the edited task moves to the end, once');
      await write((tx) => tx.tasks.remove(pk, [2], 500));
      const changes = await log();
      assert.deepEqual(brief(changes), ['task:3', 'task:1', 'task:2 gone']);
      assert.deepEqual(changes.map((c) => c.seq), [3, 4, 5]);
      assert.deepEqual(brief(await log(pk, { live: true })), ['task:3', 'task:1'], 'live: deletions left out');
      assert.deepEqual(brief(await log(pk, { after: 3 })), ['task:1', 'task:2 gone'], 'after is exclusive');
      assert.deepEqual(brief(await log(pk, { upTo: 4 })), ['task:3', 'task:1'], 'upTo is inclusive');
      assert.deepEqual(brief(await log(pk, { limit: 1 })), ['task:3']);
      assert.deepEqual(await log(other), [], 'another account sees none of it');
      assert.equal(await position(other), 0);
    });

    it('updateMany, clearReference and setting a task in another folder each log the tasks they change', async () => {
      await write((tx) => tx.tasks.insertMany(pk, [newTask(1, { folder: 7 }), newTask(2, { folder: 7 }), newTask(3)]));
      await write((tx) => tx.tasks.updateMany(pk, [newTask(3, { star: 1 })]));
      assert.deepEqual(brief(await log()).slice(-1), ['task:3']);
      const before = await position();
      await write((tx) => tx.tasks.clearReference(pk, 'folder', 7, 600));
      assert.equal(await position(), before + 2);
      assert.deepEqual(brief(await log(pk, { after: before })).sort(), ['task:1', 'task:2']);
    });

    it('folders, contexts, goals and locations are logged by kind, their deletes as gone', async () => {
      await write(async (tx) => {
        await tx.organizers.insert(pk, 'folder', { id: 1, name: 'Work', private: 0, archived: 0, ord: 1 });
        await tx.organizers.insert(pk, 'context', { id: 1, name: 'Home', private: 0 });
        await tx.organizers.insert(pk, 'goal', { id: 1, name: 'Run', level: 0, contributes: 0, archived: 0, private: 0, note: '' });
        await tx.organizers.insert(pk, 'location', { id: 1, name: 'Office', description: '', lat: 0, lon: 0 });
      });
      await write((tx) => tx.organizers.update(pk, 'folder', { id: 1, name: 'Job', private: 0, archived: 1, ord: 1 }));
      await write((tx) => tx.organizers.remove(pk, 'context', 1));
      assert.deepEqual(brief(await log()), ['goal:1', 'location:1', 'folder:1', 'context:1 gone']);
    });

    it('notes, outlines, lists and rows are logged, and a list deleted takes its rows with it, each as gone', async () => {
      const listId = hex(1);
      await write(async (tx) => {
        await tx.documents.insert(pk, 'note', { id: 1, title: 'n', text: '', folder: 0, private: 0, added: 1, modified: 1 });
        await tx.documents.insert(pk, 'list', { id: listId, ref: 'l', title: 'L', keywords: '', note: '', version: 1, added: 1, modified: 1, cols: [], nextCol: 1, rows: 0 });
        await tx.documents.insertMany(pk, 'row', [row(hex(2), listId), row(hex(3), listId)]);
        await tx.documents.insert(pk, 'outline', {
          id: hex(4), ref: 'o', title: 'O', keywords: '', note: '', hidden: 0, version: 1, added: 1, modified: 1, nodes: { count: 0, updated_at: 0, children: [] },
        });
      });
      // Adding rows changes their list's count of rows (its `rows`): the list comes after them.
      assert.deepEqual(brief(await log()), ['note:1', `row:${hex(2)}`, `row:${hex(3)}`, `list:${listId}`, `outline:${hex(4)}`]);
      const before = await position();
      await write((tx) => tx.documents.remove(pk, 'list', listId, 700));
      assert.deepEqual(brief(await log(pk, { after: before })).sort(), [`list:${listId} gone`, `row:${hex(2)} gone`, `row:${hex(3)} gone`].sort());
      assert.deepEqual(brief(await log(pk, { kinds: ['note', 'outline'] })), ['note:1', `outline:${hex(4)}`], 'kinds filter');
    });

    it('a transaction that fails leaves the position and the log as they were', async () => {
      await write((tx) => tx.tasks.insertMany(pk, [newTask(1)]));
      await assert.rejects(
        write(async (tx) => {
          await tx.tasks.insertMany(pk, [newTask(2), newTask(3)]);
          throw new Error('no');
        }),
      );
      assert.equal(await position(), 1);
      assert.deepEqual(brief(await log()), ['task:1']);
      await write((tx) => tx.tasks.insertMany(pk, [newTask(4)]));
      assert.deepEqual((await log()).map((c) => c.seq), [1, 2], 'positions are not skipped');
    });

    it('a folder calendar sees the tasks in it that changed and the tasks that left it, moved or deleted', async () => {
      await write((tx) => tx.tasks.insertMany(pk, [newTask(1, { folder: 5 }), newTask(2, { folder: 5 }), newTask(3, { folder: 6 }), newTask(4)]));
      const start = await position();
      const since = (folder: number, after = start): ReturnType<Repos['changes']['folderSince']> => store.read.changes.folderSince(pk, folder, after, Number.MAX_SAFE_INTEGER);
      assert.deepEqual((await since(5, 0)).members.map((m) => m.id), [1, 2]);
      assert.deepEqual((await since(0, 0)).members.map((m) => m.id), [4], 'folder 0: the tasks without a folder');
      await write((tx) => tx.tasks.update(pk, newTask(1, { folder: 6 })));
      await write((tx) => tx.tasks.remove(pk, [2], 800));
      await write((tx) => tx.tasks.update(pk, newTask(3, { folder: 6, title: 'edited' })));
      const five = await since(5);
      assert.deepEqual(five.members, []);
      assert.deepEqual(five.left.map((m) => m.id), [1, 2]);
      const six = await since(6);
      assert.deepEqual(six.members.map((m) => m.id), [1, 3]);
      assert.deepEqual(six.left, []);
      // Back where it was: a member again, not a task that left.
      await write((tx) => tx.tasks.update(pk, newTask(1, { folder: 5 })));
      const back = await since(5);
      assert.deepEqual(back.members.map((m) => m.id), [1]);
      assert.deepEqual(back.left.map((m) => m.id), [2]);
    });

    it('prune forgets old deletions and exits, raises the floor past them, and keeps every record that exists', async () => {
      await write((tx) => tx.tasks.insertMany(pk, [newTask(1, { folder: 3 }), newTask(2)]));
      await write((tx) => tx.tasks.remove(pk, [1], 900));
      const gonePosition = await position();
      // The log's times are the database's clock: a cut-off an hour ahead takes everything recorded so far.
      const later = Math.floor(Date.now() / 1000) + 3600;
      assert.equal(await store.transaction((tx) => tx.changes.prune(Math.floor(Date.now() / 1000) - 3600)), 0, 'nothing is that old');
      assert.equal(await store.transaction((tx) => tx.changes.prune(later)), 2, 'the deletion and the folder exit');
      assert.deepEqual(await store.read.changes.position(pk), { seq: gonePosition, floor: gonePosition });
      assert.deepEqual(brief(await log()), ['task:2']);
      assert.deepEqual((await store.read.changes.folderSince(pk, 3, 0, Number.MAX_SAFE_INTEGER)).left, []);
      assert.deepEqual(await store.read.changes.position(other), { seq: 0, floor: 0 }, 'other accounts keep their floor');
    });

    it('notices tell a listener of the commits of its account, and not of other accounts', async () => {
      let mine = 0;
      let theirs = 0;
      const stopMine = store.notices.subscribe(pk, () => mine++);
      const stopTheirs = store.notices.subscribe(other, () => theirs++);
      // PostgreSQL listens on a connection of its own: the first notice may wait for it.
      const until = async (done: () => boolean): Promise<void> => {
        for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 25));
      };
      // Both told once (by a first write of each, or by the listening connection's start) before counting.
      await write((tx) => tx.tasks.insertMany(pk, [newTask(10)]));
      await write((tx) => tx.tasks.insertMany(other, [newTask(10)]));
      await until(() => mine > 0 && theirs > 0);
      await new Promise((r) => setTimeout(r, 50));
      const [mineBefore, theirsBefore] = [mine, theirs];
      await write((tx) => tx.tasks.insertMany(pk, [newTask(1)]));
      await until(() => mine > mineBefore);
      assert.ok(mine > mineBefore, 'the account that changed was told');
      // A write of the other account after it: once that is told, the first has been too.
      await write((tx) => tx.tasks.insertMany(other, [newTask(1)]));
      await until(() => theirs > theirsBefore);
      assert.ok(theirs > theirsBefore);
      const told = mine;
      stopMine();
      await write((tx) => tx.tasks.insertMany(pk, [newTask(2)]));
      await write((tx) => tx.tasks.insertMany(other, [newTask(2)]));
      await until(() => theirs > theirsBefore + 1);
      assert.equal(mine, told, 'a listener that stopped hears nothing more');
      stopTheirs();
    });

    it('deleting an account deletes its log and leaves the others', async () => {
      await write((tx) => tx.tasks.insertMany(pk, [newTask(1)]));
      await write((tx) => tx.tasks.insertMany(other, [newTask(1)]));
      await write((tx) => tx.accounts.delete(pk));
      assert.equal(await store.read.changes.position(pk), null);
      assert.deepEqual(await log(pk), []);
      assert.deepEqual(brief(await log(other)), ['task:1']);
    });
  });
}
