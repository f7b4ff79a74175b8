import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { newAccount } from '../../test/factories.js';
import type { Store } from './store.js';
import type { OpenStore } from './store.contract.js';

/**
 * The import id map and progress (imports-port.ts) on every database. Each adapter's test file
 * calls it with a factory for a fresh, empty database.
 */
export function importsContract(name: string, open: OpenStore): void {
  describe(`${name}: import map and progress`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let a: number;
    let b: number;
    const SRC = 'https://source.example.org';

    beforeEach(async () => {
      ({ store, cleanup } = await open());
      await store.migrate();
      a = (await store.transaction((tx) => tx.accounts.create(newAccount('im', 1)))).pk;
      b = (await store.transaction((tx) => tx.accounts.create(newAccount('im', 2)))).pk;
    });
    afterEach(async () => cleanup());

    it('maps source ids to local ids per account, source and kind; replaces; unmaps', async () => {
      await store.transaction(async (tx) => {
        await tx.imports.setMapped(a, SRC, 'task', [
          { sourceId: '7', localId: '1', stamp: 1700000000, pending: null },
          { sourceId: '8', localId: '2', stamp: 1700000001, pending: '{"parent":"9"}' },
        ]);
        await tx.imports.setMapped(a, SRC, 'note', [{ sourceId: '7', localId: '40', stamp: 5, pending: null }]);
        await tx.imports.setMapped(b, SRC, 'task', [{ sourceId: '7', localId: '99', stamp: 0, pending: null }]);
        await tx.imports.setMapped(a, 'json:other', 'task', [{ sourceId: '7', localId: '77', stamp: 0, pending: null }]);
      });
      const got = await store.read.imports.mapped(a, SRC, 'task', ['7', '8', '404']);
      assert.deepEqual([...got.keys()].sort(), ['7', '8']);
      assert.deepEqual(got.get('8'), { sourceId: '8', localId: '2', stamp: 1700000001, pending: '{"parent":"9"}' });
      assert.equal((await store.read.imports.mapped(a, SRC, 'note', ['7'])).get('7')?.localId, '40');
      assert.equal((await store.read.imports.mapped(b, SRC, 'task', ['7'])).get('7')?.localId, '99');
      assert.equal((await store.read.imports.mapped(a, 'json:other', 'task', ['7'])).get('7')?.localId, '77');
      assert.deepEqual((await store.read.imports.pending(a, SRC, 'task')).map((e) => e.sourceId), ['8']);

      await store.transaction(async (tx) => {
        await tx.imports.setMapped(a, SRC, 'task', [{ sourceId: '8', localId: '2', stamp: 1700000009, pending: null }]);
        await tx.imports.unmap(a, SRC, 'task', ['7']);
      });
      assert.deepEqual(await store.read.imports.allMapped(a, SRC, 'task'), [{ sourceId: '8', localId: '2', stamp: 1700000009, pending: null }]);
      assert.deepEqual(await store.read.imports.pending(a, SRC, 'task'), []);
    });

    it('looks up and writes more ids than one statement takes', async () => {
      const entries = Array.from({ length: 1234 }, (_, i) => ({ sourceId: String(i + 1), localId: `L${i + 1}`, stamp: i, pending: null }));
      await store.transaction((tx) => tx.imports.setMapped(a, SRC, 'row', entries));
      const got = await store.read.imports.mapped(a, SRC, 'row', entries.map((e) => e.sourceId));
      assert.equal(got.size, 1234);
      assert.equal(got.get('1234')?.localId, 'L1234');
      await store.transaction((tx) => tx.imports.unmap(a, SRC, 'row', entries.slice(0, 1000).map((e) => e.sourceId)));
      assert.equal((await store.read.imports.allMapped(a, SRC, 'row')).length, 234);
    });

    it('keeps one progress record per account and source', async () => {
      assert.equal(await store.read.imports.run(a, SRC), null);
      await store.transaction((tx) => tx.imports.setRun(a, SRC, '{"done":1}', 100));
      await store.transaction((tx) => tx.imports.setRun(a, SRC, '{"done":2}', 200));
      await store.transaction((tx) => tx.imports.setRun(b, SRC, '{"done":3}', 200));
      assert.equal(await store.read.imports.run(a, SRC), '{"done":2}');
      assert.equal(await store.read.imports.run(b, SRC), '{"done":3}');
      assert.equal(await store.read.imports.run(a, 'elsewhere'), null);
    });
  });
}
