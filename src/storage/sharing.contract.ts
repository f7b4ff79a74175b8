import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { newAccount, newTask } from '../../test/factories.js';
import type { Account, Share, Store } from './store.js';
import type { OpenStore } from './store.contract.js';

/**
 * Collaborations, joint tasks, addedby and saved searches (sharing-port.ts) on every database.
 * Each adapter's test file calls it with a factory for a fresh, empty database.
 */
export function sharingContract(name: string, open: OpenStore): void {
  describe(`${name}: sharing`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let a: Account;
    let b: Account;
    let c: Account;

    beforeEach(async () => {
      ({ store, cleanup } = await open());
      await store.migrate();
      [a, b, c] = await store.transaction(async (tx) => [
        await tx.accounts.create(newAccount('sh', 1)),
        await tx.accounts.create(newAccount('sh', 2)),
        await tx.accounts.create(newAccount('sh', 3)),
      ]);
    });
    afterEach(async () => cleanup());

    it('an invitation has two sides; accepting, flags and ending', async () => {
      await store.transaction((tx) => tx.sharing.invite(a.pk, b.pk, { reassign: true, share: false }, 100));
      const sent = await store.read.sharing.collaboration(a.pk, b.pk);
      assert.deepEqual(sent, {
        otherPk: b.pk, otherUserid: b.userid, otherAlias: b.alias, state: 'sent',
        allowReassign: true, allowShare: false, otherAllowsReassign: false, otherAllowsShare: false,
      });
      assert.equal((await store.read.sharing.collaboration(b.pk, a.pk))?.state, 'received');
      assert.equal(await store.transaction((tx) => tx.sharing.accept(a.pk, b.pk, { reassign: true, share: true })), false, 'the inviter cannot accept');
      assert.equal(await store.transaction((tx) => tx.sharing.accept(b.pk, a.pk, { reassign: false, share: true })), true);
      const seen = await store.read.sharing.collaboration(a.pk, b.pk);
      assert.deepEqual([seen?.state, seen?.otherAllowsReassign, seen?.otherAllowsShare], ['accepted', false, true]);
      assert.equal(await store.transaction((tx) => tx.sharing.setAllowed(b.pk, a.pk, { reassign: true, share: true })), true);
      assert.equal((await store.read.sharing.collaboration(a.pk, b.pk))?.otherAllowsReassign, true);
      assert.deepEqual((await store.read.sharing.collaborations(c.pk)).length, 0);
      await assert.rejects(store.transaction((tx) => tx.sharing.invite(a.pk, b.pk, { reassign: true, share: true }, 1)), 'one collaboration per pair');
      assert.equal(await store.transaction((tx) => tx.sharing.end(b.pk, a.pk)), true);
      assert.equal(await store.read.sharing.collaboration(a.pk, b.pk), null);
      assert.equal(await store.read.sharing.collaboration(b.pk, a.pk), null);
      assert.equal(await store.transaction((tx) => tx.sharing.end(b.pk, a.pk)), false);
    });

    it('a share holds every copy; forTasks reads owner, others and addedby per viewer; deleting copies and the owner task', async () => {
      await store.transaction(async (tx) => {
        await tx.tasks.insert(a.pk, newTask(1));
        await tx.tasks.insert(b.pk, newTask(7));
        await tx.tasks.insert(c.pk, newTask(9));
        await tx.tasks.insert(c.pk, newTask(10));
        const pk = await tx.sharing.createShare(a.pk, 1);
        await tx.sharing.addMember(pk, { userPk: b.pk, taskId: 7 });
        await tx.sharing.addMember(pk, { userPk: c.pk, taskId: 9 });
        await tx.sharing.setAddedBy(c.pk, 10, a.pk);
      });
      const share = await store.read.sharing.shareOf(b.pk, 7);
      assert.equal(share?.ownerPk, a.pk);
      assert.deepEqual(share?.members, [{ userPk: a.pk, taskId: 1 }, { userPk: b.pk, taskId: 7 }, { userPk: c.pk, taskId: 9 }]);
      assert.deepEqual((await store.read.sharing.shareOf(a.pk, 1))?.pk, share?.pk);
      assert.equal(await store.read.sharing.shareOf(a.pk, 7), null, 'ids belong to one account');
      assert.deepEqual((await store.read.sharing.forTasks(a.pk, [1])).get(1), { owner: a.userid, with: [b.userid, c.userid] });
      assert.deepEqual((await store.read.sharing.forTasks(b.pk, [7])).get(7), { owner: a.userid, with: [c.userid] });
      const forC = await store.read.sharing.forTasks(c.pk, [9, 10, 11]);
      assert.deepEqual(forC.get(9), { owner: a.userid, with: [b.userid] });
      assert.deepEqual(forC.get(10), { addedby: a.userid });
      assert.equal(forC.has(11), false);
      // A dense page is read by a range of ids: 9 and 10 lie inside it but are not on the page.
      const page = [1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14];
      assert.equal((await store.read.sharing.forTasks(c.pk, page)).size, 0);
      assert.deepEqual([...(await store.read.sharing.forTasks(c.pk, [...page, 10])).keys()], [10]);
      assert.equal((await store.read.sharing.sharesBetween(a.pk, c.pk)).length, 1);
      assert.equal((await store.read.sharing.sharesBetween(b.pk, c.pk)).length, 0);
      // A copy's deletion takes it out of the share; the owner's task's deletion ends the share.
      await store.transaction((tx) => tx.tasks.remove(c.pk, [9], 5));
      assert.deepEqual((await store.read.sharing.shareOf(a.pk, 1))?.members.length, 2);
      await store.transaction((tx) => tx.tasks.remove(a.pk, [1], 6));
      assert.equal(await store.read.sharing.shareOf(b.pk, 7), null);
      assert.ok(await store.read.tasks.get(b.pk, 7), 'the copy itself stays');
      await store.transaction(async (tx) => {
        await tx.tasks.insert(a.pk, newTask(2));
        const pk = await tx.sharing.createShare(a.pk, 2);
        await tx.sharing.addMember(pk, { userPk: b.pk, taskId: 7 });
        await tx.sharing.removeMember({ userPk: b.pk, taskId: 7 });
        await tx.sharing.dropShare(a.pk, 2);
      });
      assert.equal(await store.read.sharing.shareOf(a.pk, 2), null);
    });

    it('sharesOf equals shareOf() of each task: owner and member copies; unshared tasks, unknown ids and other accounts\' ids absent', async () => {
      await store.transaction(async (tx) => {
        await tx.tasks.insertMany(a.pk, [newTask(1), newTask(2), newTask(3)]);
        await tx.tasks.insertMany(b.pk, [newTask(1), newTask(7), newTask(8)]);
        await tx.tasks.insertMany(c.pk, [newTask(9), newTask(10)]);
        const one = await tx.sharing.createShare(a.pk, 1);
        await tx.sharing.addMember(one, { userPk: b.pk, taskId: 7 });
        await tx.sharing.addMember(one, { userPk: c.pk, taskId: 9 });
        const two = await tx.sharing.createShare(a.pk, 2);
        await tx.sharing.addMember(two, { userPk: b.pk, taskId: 8 });
        await tx.sharing.setAddedBy(c.pk, 10, a.pk);
      });
      const shareOfEach = async (userPk: number, ids: readonly number[]): Promise<Map<number, Share>> => {
        const out = new Map<number, Share>();
        for (const id of ids) {
          const share = await store.read.sharing.shareOf(userPk, id);
          if (share) out.set(id, share);
        }
        return out;
      };
      // The last list is dense (a range around it holds 7, not asked).
      const lists = [[1, 2, 3, 7, 8, 9, 10, 99, 1], [], [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12]];
      for (const account of [a, b, c]) {
        for (const ids of lists) {
          assert.deepEqual(await store.read.sharing.sharesOf(account.pk, ids), await shareOfEach(account.pk, ids), `${account.userid}: ${String(ids)}`);
        }
      }
      const ofB = await store.read.sharing.sharesOf(b.pk, lists[0] as number[]);
      assert.deepEqual([...ofB.keys()].sort((x, y) => x - y), [7, 8], 'task 1 of b is not a\'s task 1');
      assert.deepEqual(ofB.get(7)?.members, [{ userPk: a.pk, taskId: 1 }, { userPk: b.pk, taskId: 7 }, { userPk: c.pk, taskId: 9 }]);
      assert.deepEqual(ofB.get(8)?.members, [{ userPk: a.pk, taskId: 2 }, { userPk: b.pk, taskId: 8 }]);
      assert.deepEqual([...(await store.read.sharing.sharesOf(a.pk, lists[0] as number[])).keys()].sort((x, y) => x - y), [1, 2]);
      assert.deepEqual([...(await store.read.sharing.sharesOf(b.pk, lists[2] as number[])).keys()], [8]);
    });

    it('saved searches per account', async () => {
      const id = await store.transaction((tx) => tx.sharing.addSearch(a.pk, { name: 'S', bool: 'All', rules: '{"root":[]}', modified: 3 }));
      assert.deepEqual(await store.read.sharing.searches(a.pk), [{ id, name: 'S', bool: 'All', rules: '{"root":[]}', modified: 3 }]);
      assert.equal(await store.read.sharing.search(b.pk, id), null);
      assert.equal(await store.transaction((tx) => tx.sharing.updateSearch(b.pk, { id, name: 'X', bool: 'Any', rules: '{}', modified: 4 })), false);
      assert.equal(await store.transaction((tx) => tx.sharing.updateSearch(a.pk, { id, name: 'X', bool: 'Any', rules: '{}', modified: 4 })), true);
      assert.equal((await store.read.sharing.search(a.pk, id))?.bool, 'Any');
      assert.equal(await store.read.sharing.countSearches(a.pk), 1);
      assert.equal(await store.transaction((tx) => tx.sharing.deleteSearch(b.pk, id)), false);
      assert.equal(await store.transaction((tx) => tx.sharing.deleteSearch(a.pk, id)), true);
      assert.equal(await store.read.sharing.countSearches(a.pk), 0);
    });
  });
}
