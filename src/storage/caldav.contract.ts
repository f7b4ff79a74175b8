import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { newAccount, newTask } from '../../test/factories.js';
import type { CalendarObject, Repos, Store } from './store.js';
import type { OpenStore } from './store.contract.js';

/** The CalDAV part of the storage contract (caldav-port.ts), with the ETag positions and folder listings it reads from the log. */

let seq = 0;
const object = (taskId: number, over: Partial<CalendarObject> = {}): CalendarObject => ({ taskId, name: `n-${taskId}.ics`, uid: `u-${taskId}`, kept: '', ...over });

export function caldavContract(label: string, open: OpenStore): void {
  describe(`${label} CalDAV storage contract`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let pk: number;
    let other: number;
    const write = <T>(fn: (tx: Repos) => Promise<T>): Promise<T> => store.transaction(fn);

    beforeEach(async () => {
      ({ store, cleanup } = await open());
      const n = ++seq;
      pk = (await write((tx) => tx.accounts.create(newAccount('dav', n)))).pk;
      other = (await write((tx) => tx.accounts.create(newAccount('dav-other', n)))).pk;
      await write((tx) => tx.tasks.insertMany(pk, [newTask(1, { folder: 4 }), newTask(2, { folder: 4 }), newTask(3)]));
    });
    afterEach(() => cleanup());

    it('keeps a name and UID per task, found by either, and by task', async () => {
      await write((tx) => tx.caldav.put(pk, object(1, { kept: '{"props":[]}' })));
      assert.deepEqual(await store.read.caldav.byName(pk, 'n-1.ics'), object(1, { kept: '{"props":[]}' }));
      assert.deepEqual(await store.read.caldav.byUid(pk, 'u-1'), object(1, { kept: '{"props":[]}' }));
      assert.equal(await store.read.caldav.byName(other, 'n-1.ics'), null, 'another account has none of it');
      assert.equal(await store.read.caldav.byName(pk, 'bad\u0000'), null);
      await write((tx) => tx.caldav.put(pk, object(1, { name: 'renamed.ics', uid: 'u-1b' })));
      assert.deepEqual([...(await store.read.caldav.objectsOf(pk, [1, 2])).values()], [object(1, { name: 'renamed.ics', uid: 'u-1b' })]);
    });

    it('refuses a second live task with a name or UID taken; a deleted task gives its up', async () => {
      await write((tx) => tx.caldav.put(pk, object(1)));
      await assert.rejects(write((tx) => tx.caldav.put(pk, object(2, { name: 'n-1.ics' }))));
      await assert.rejects(write((tx) => tx.caldav.put(pk, object(2, { uid: 'u-1' }))));
      await write((tx) => tx.tasks.remove(pk, [1], 100));
      assert.ok(await store.read.caldav.byName(pk, 'n-1.ics'), 'kept after its task, for the calendars to report it gone');
      await write((tx) => tx.caldav.put(pk, object(2, { name: 'n-1.ics', uid: 'u-1' })));
      assert.equal((await store.read.caldav.byUid(pk, 'u-1'))?.taskId, 2);
    });

    it('a kept object changed is a change of its task: its position moves', async () => {
      const before = (await store.read.changes.taskPositions(pk, [1, 2])).get(1) as number;
      await write((tx) => tx.caldav.put(pk, object(1)));
      const after = (await store.read.changes.taskPositions(pk, [1])).get(1) as number;
      assert.ok(after > before);
      await write((tx) => tx.caldav.put(pk, object(1, { kept: 'x' })));
      assert.ok(((await store.read.changes.taskPositions(pk, [1])).get(1) as number) > after);
    });

    it('lists a folder\'s tasks with their positions', async () => {
      const members = await store.read.changes.folderMembers(pk, 4);
      assert.deepEqual(members.map((m) => m.id), [1, 2]);
      const positions = await store.read.changes.taskPositions(pk, [1, 2, 3, 99]);
      assert.deepEqual(members.map((m) => m.seq), [positions.get(1), positions.get(2)]);
      assert.equal(positions.has(99), false);
      assert.deepEqual((await store.read.changes.folderMembers(pk, 0)).map((m) => m.id), [3]);
    });

    it('prune forgets objects of deleted tasks once their exits are forgotten', async () => {
      await write(async (tx) => {
        await tx.caldav.put(pk, object(1));
        await tx.caldav.put(pk, object(2));
      });
      await write((tx) => tx.tasks.remove(pk, [1], 100));
      assert.equal(await write((tx) => tx.caldav.prune()), 0, 'the exit is still logged');
      await write((tx) => tx.changes.prune(Math.floor(Date.now() / 1000) + 3600));
      assert.equal(await write((tx) => tx.caldav.prune()), 1);
      assert.deepEqual([...(await store.read.caldav.objectsOf(pk, [1, 2])).keys()], [2]);
    });

    it('keeps properties per calendar, and forgets them when set to none', async () => {
      await write((tx) => tx.caldav.setCalendarProps(pk, 4, { '{http://apple.com/ns/ical/}calendar-color': '#FF0000FF' }));
      await write((tx) => tx.caldav.setCalendarProps(pk, 0, { a: '<x/>' }));
      assert.deepEqual(await store.read.caldav.calendarProps(pk), new Map([[0, { a: '<x/>' }], [4, { '{http://apple.com/ns/ical/}calendar-color': '#FF0000FF' }]]));
      await write((tx) => tx.caldav.setCalendarProps(pk, 0, {}));
      assert.deepEqual([...(await store.read.caldav.calendarProps(pk)).keys()], [4]);
      assert.equal((await store.read.caldav.calendarProps(other)).size, 0);
    });
  });
}
