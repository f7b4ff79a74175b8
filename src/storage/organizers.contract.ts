import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  UniqueViolation,
  type Context,
  type Folder,
  type Goal,
  type Location,
  type OrganizerKind,
  type OrganizerTypes,
  type Repos,
  type Store,
  type TaskReference,
} from './store.js';
import { newAccount, newTask } from '../../test/factories.js';
import type { OpenStore } from './store.contract.js';

/**
 * The organisers part of the storage contract (folders, contexts, goals, locations). Each
 * adapter's test file calls it with a factory for a fresh, empty database; every test gets its own.
 */

let seq = 0;

/** One record of each kind, with values that would show a swapped or truncated column. */
function samples(id: number): { [K in OrganizerKind]: OrganizerTypes[K] } {
  return {
    folder: { id, name: `Folder ${id}`, private: 1, archived: 1, ord: 7 },
    context: { id, name: `Context ${id}`, private: 1 },
    goal: { id, name: `Goal ${id}`, level: 2, contributes: 99, archived: 1, private: 1, note: 'line 1\nline 2 ✓ 😀' },
    location: { id, name: `Location ${id}`, description: 'Corner shop', lat: -33.868820123456, lon: 151.209296987654 },
  };
}

const KINDS: readonly OrganizerKind[] = ['folder', 'context', 'goal', 'location'];

function isUniqueName(err: unknown): boolean {
  assert.ok(err instanceof UniqueViolation, `expected UniqueViolation, got ${String(err)}`);
  assert.equal(err.what, 'name');
  return true;
}

export function organizersContract(label: string, open: OpenStore): void {
  describe(`organizers storage contract: ${label}`, () => {
    let store: Store;
    let cleanup: (() => Promise<void>) | undefined;
    let a: number;
    let b: number;

    const tx = <T>(fn: (r: Repos) => Promise<T>): Promise<T> => store.transaction(fn);
    const read = (): Repos => store.read;

    async function createAccount(): Promise<number> {
      return (await tx((r) => r.accounts.create(newAccount('org', ++seq)))).pk;
    }

    /** Inserts the record, under another name when one is given. */
    function insert<K extends OrganizerKind>(pk: number, kind: K, record: OrganizerTypes[K], name = record.name): Promise<void> {
      return tx((r) => r.organizers.insert(pk, kind, { ...record, name }));
    }

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

    for (const kind of KINDS) {
      describe(kind, () => {
        it('insert then get round-trips every field exactly; get of an unknown id is null', async () => {
          const record = samples(3)[kind];
          await insert(a, kind, record);
          assert.deepEqual(await read().organizers.get(a, kind, 3), record);
          assert.equal(await read().organizers.get(a, kind, 4), null);
        });

        it('list returns the account\'s records in id order (folders: by ord), and [] for none', async () => {
          assert.deepEqual(await read().organizers.list(a, kind), []);
          const [r5, r2, r9] = [samples(5)[kind], samples(2)[kind], samples(9)[kind]];
          const rows = kind === 'folder' ? [{ ...r5, ord: 1 }, { ...r2, ord: 3 }, { ...r9, ord: 2 }] : [r5, r2, r9];
          for (const r of rows) await insert(a, kind, r as OrganizerTypes[typeof kind]);
          const ids = (await read().organizers.list(a, kind)).map((r) => r.id);
          assert.deepEqual(ids, kind === 'folder' ? [5, 9, 2] : [2, 5, 9]);
        });

        it('exists, count and names see only the account\'s own records', async () => {
          await insert(a, kind, samples(1)[kind], 'shared key');
          await insert(a, kind, samples(2)[kind]);
          assert.equal(await read().organizers.exists(a, kind, 1), true);
          assert.equal(await read().organizers.exists(a, kind, 3), false);
          assert.equal(await read().organizers.exists(b, kind, 1), false);
          await assert.rejects(insert(a, kind, samples(3)[kind], 'shared key'), isUniqueName);
          assert.equal(await read().organizers.count(a, kind), 2);
          assert.equal(await read().organizers.count(b, kind), 0);
          assert.deepEqual(await read().organizers.list(b, kind), []);
          assert.equal(await read().organizers.get(b, kind, 1), null);
          // The name is taken in its own account only.
          await insert(b, kind, samples(1)[kind], 'shared key');
        });

        it('a taken name throws UniqueViolation("name") and writes nothing; other accounts and kinds may use it', async () => {
          await insert(a, kind, samples(1)[kind], 'work');
          await assert.rejects(insert(a, kind, samples(2)[kind], 'work'), isUniqueName);
          assert.equal(await read().organizers.exists(a, kind, 2), false);
          await insert(b, kind, samples(1)[kind], 'work');
          const otherKind = KINDS.find((k) => k !== kind) as OrganizerKind;
          await insert(a, otherKind, samples(1)[otherKind], 'work');
        });

        it('the key is derived from the name: case, surrounding white space and Unicode normal form make no new name', async () => {
          await insert(a, kind, samples(1)[kind], 'Café');
          for (const same of ['café', ' CAFÉ\t', 'Cafe\u0301', 'CAFE\u0301 ']) {
            await assert.rejects(insert(a, kind, samples(2)[kind], same), isUniqueName, JSON.stringify(same));
          }
          await insert(a, kind, samples(2)[kind], 'Cafe');
          // update derives the key from the new name too.
          await assert.rejects(tx((r) => r.organizers.update(a, kind, { ...samples(2)[kind], name: 'CAFE\u0301' })), isUniqueName);
          assert.equal((await read().organizers.get(a, kind, 1))?.name, 'Café', 'the name itself is stored as given');
        });

        it('update writes every field and the name\'s key; a name taken by another record throws UniqueViolation("name")', async () => {
          await insert(a, kind, samples(1)[kind], 'one');
          await insert(a, kind, samples(2)[kind], 'two');
          const changed = { ...samples(1)[kind], name: 'Renamed' };
          await tx((r) => r.organizers.update(a, kind, changed));
          assert.deepEqual(await read().organizers.get(a, kind, 1), changed);
          await assert.rejects(insert(a, kind, samples(3)[kind], 'renamed'), isUniqueName, 'the new name is taken');
          await insert(a, kind, samples(3)[kind], 'one'); // the old name is free
          await assert.rejects(tx((r) => r.organizers.update(a, kind, { ...changed, name: 'TWO' })), isUniqueName);
          await assert.rejects(insert(a, kind, samples(4)[kind], 'renamed'), isUniqueName, 'a refused update keeps the name');
          assert.deepEqual(await read().organizers.get(a, kind, 1), changed);
          // Updating another account's id touches nothing of this one.
          await tx((r) => r.organizers.update(b, kind, { ...changed, name: 'Not mine' }));
          assert.deepEqual(await read().organizers.get(a, kind, 1), changed);
        });

        it('remove deletes once and only in its own account; the name key is free again', async () => {
          await insert(a, kind, samples(1)[kind], 'gone');
          await insert(b, kind, samples(1)[kind], 'gone');
          assert.equal(await tx((r) => r.organizers.remove(a, kind, 1)), true);
          assert.equal(await tx((r) => r.organizers.remove(a, kind, 1)), false);
          assert.equal(await read().organizers.exists(a, kind, 1), false);
          assert.equal(await read().organizers.exists(b, kind, 1), true);
          await insert(a, kind, samples(2)[kind], 'gone');
        });

        it('a rolled-back transaction leaves nothing behind', async () => {
          await assert.rejects(
            tx(async (r) => {
              await r.organizers.insert(a, kind, samples(1)[kind]);
              throw new Error('abort');
            }),
            /abort/,
          );
          assert.equal(await read().organizers.count(a, kind), 0);
        });
      });
    }

    it('archived folders and goals still exist (they stay valid task targets)', async () => {
      const folder: Folder = { id: 1, name: 'Old', private: 0, archived: 1, ord: 1 };
      const goal: Goal = { id: 1, name: 'Old', level: 0, contributes: 0, archived: 1, private: 0, note: '' };
      await insert(a, 'folder', folder);
      await insert(a, 'goal', goal);
      assert.equal(await read().organizers.exists(a, 'folder', 1), true);
      assert.equal(await read().organizers.exists(a, 'goal', 1), true);
    });

    it('nextFolderOrd: 1 for none, then one after the highest, per account', async () => {
      assert.equal(await read().organizers.nextFolderOrd(a), 1);
      await insert(a, 'folder', { id: 1, name: 'One', private: 0, archived: 0, ord: 1 });
      await insert(a, 'folder', { id: 2, name: 'Two', private: 0, archived: 0, ord: 5 });
      assert.equal(await read().organizers.nextFolderOrd(a), 6);
      assert.equal(await read().organizers.nextFolderOrd(b), 1);
      await tx((r) => r.organizers.remove(a, 'folder', 2));
      assert.equal(await read().organizers.nextFolderOrd(a), 2);
    });

    it('clearContributions sets contributes to 0 on the goals that named the goal, in that account only', async () => {
      const goal = (id: number, contributes: number): Goal => ({ id, name: `G${id}`, level: 2, contributes, archived: 0, private: 0, note: '' });
      for (const g of [goal(1, 0), goal(2, 1), goal(3, 1), goal(4, 9)]) await insert(a, 'goal', g);
      await insert(b, 'goal', goal(2, 1));
      assert.equal(await tx((r) => r.organizers.clearContributions(a, 1)), 2);
      assert.deepEqual((await read().organizers.list(a, 'goal')).map((g) => g.contributes), [0, 0, 0, 9]);
      assert.equal((await read().organizers.get(b, 'goal', 2))?.contributes, 1);
      assert.equal(await tx((r) => r.organizers.clearContributions(a, 1)), 0);
    });

    describe('tasks.hasReference (what an organiser delete checks before moving lastedit_task)', () => {
      for (const field of KINDS) {
        it(`${field}: true only while a task of that account points at the id through that field`, async () => {
          // Task 1 points at 5 through every other field: only `field` may match.
          const crossed = Object.fromEntries(KINDS.filter((k) => k !== field).map((k) => [k, 5]));
          await tx(async (r) => {
            await r.tasks.insert(a, newTask(1, crossed));
            await r.tasks.insert(a, newTask(2, { [field]: 6 }));
            await r.tasks.insert(b, newTask(1, { [field]: 5 }));
          });
          assert.equal(await read().tasks.hasReference(a, field, 5), false);
          assert.equal(await read().tasks.hasReference(a, field, 6), true);
          assert.equal(await read().tasks.hasReference(b, field, 5), true);
          assert.equal(await read().tasks.hasReference(b, field, 6), false, 'the other account is not looked at');
          await tx((r) => r.tasks.clearReference(a, field, 6, 2000));
          assert.equal(await read().tasks.hasReference(a, field, 6), false);
        });
      }

      it('refuses a field that is not a task reference', async () => {
        for (const bad of ['parent', 'id', 'folder = folder OR 1 = 1 OR folder']) {
          await assert.rejects(read().tasks.hasReference(a, bad as TaskReference, 5), /not a task reference/, bad);
        }
      });
    });

    it('clearContributions with a level clears only the contributors whose level is at most that number', async () => {
      const goal = (id: number, level: number, contributes: number): Goal => ({ id, name: `G${id}`, level, contributes, archived: 0, private: 0, note: '' });
      for (const g of [goal(1, 1, 0), goal(2, 1, 1), goal(3, 2, 1), goal(4, 0, 1), goal(5, 1, 9)]) await insert(a, 'goal', g);
      await insert(b, 'goal', goal(2, 1, 1));
      assert.equal(await tx((r) => r.organizers.clearContributions(a, 1, 1)), 2);
      assert.deepEqual((await read().organizers.list(a, 'goal')).map((g) => g.contributes), [0, 0, 1, 0, 9]);
      assert.equal((await read().organizers.get(b, 'goal', 2))?.contributes, 1, 'the other account is untouched');
      assert.equal(await tx((r) => r.organizers.clearContributions(a, 1, 2)), 1, 'a higher bound reaches the rest');
    });

    it('coordinates keep full double precision, negative values and zero', async () => {
      const locations: Location[] = [
        { id: 1, name: 'Tiny', description: '', lat: 0.1 + 0.2, lon: -1e-9 },
        { id: 2, name: 'Edges', description: '', lat: -90, lon: 180 },
        { id: 3, name: 'Zero', description: '', lat: 0, lon: 0 },
      ];
      for (const l of locations) await insert(a, 'location', l);
      assert.deepEqual(await read().organizers.list(a, 'location'), locations);
    });

    it('names keep their unicode exactly', async () => {
      const contexts: Context[] = ['🏠 Home', 'Cafe\u0301', 'עבודה'].map((name, i) => ({ id: i + 1, name, private: 0 }));
      for (const c of contexts) await insert(a, 'context', c);
      assert.deepEqual(await read().organizers.list(a, 'context'), contexts);
    });
  });
}
