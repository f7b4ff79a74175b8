import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { repositoryCalls } from '../../../test/counting-repos.js';
import { testContext } from '../../../test/harness.js';
import { added, batch, json, one, setup, type Json, type Plural } from './documents.test-kit.js';

/**
 * What a batch of notes, outlines, lists or rows costs: on PostgreSQL each call of a repository is
 * a round trip or more, so a call of 50 items must call them as often as one of 5 (issue 15: a
 * constant number of round trips per write call).
 */
describe('document writes call the repositories as often for 50 records as for 5', () => {
  const env = setup(() => testContext());

  /** Runs `call`, counting the calls of every method of the documents and attachments repositories of its transactions. */
  const repositoryCallsOf = async (call: () => Promise<unknown>): Promise<Record<string, number>> =>
    Object.fromEntries(await repositoryCalls(env.ctx.deps.store, ['documents', 'attachments'], call));

  let made = 0;
  /** n new records of the kind (rows: in a new list with one text column), and the calls their add made. */
  async function make(plural: Plural, n: number): Promise<{ records: Json[]; list: string; calls: Record<string, number> }> {
    const { ctx, user } = env;
    const list = plural === 'rows' ? ((await one(batch(ctx, user, 'lists', 'add', [{ title: 'L', ref: `l${made++}`, cols: [{ title: 'Item', type: 19 }] }])))['id'] as string) : '';
    const items = Array.from({ length: n }, (_, i) => ({ title: `Record ${i}`, ref: `r${made++}`, ...(plural === 'rows' && { list, cells: { c1: `Item ${i}` } }) }));
    let records: Json[] = [];
    const calls = await repositoryCallsOf(async () => {
      records = await added(ctx, user, plural, items);
    });
    return { records, list, calls };
  }

  it('a ref holding characters that storing removes (NUL) or replaces (a lone surrogate) is refused again as the stored ref (809)', async () => {
    const { ctx, user } = env;
    const first = json(await batch(ctx, user, 'outlines', 'add', [{ title: 'N', ref: 'a\u0000b' }, { title: 'S', ref: 'x\ud800' }]));
    assert.ok(first.every((r) => typeof r['id'] === 'string'), JSON.stringify(first));
    const again = json(await batch(ctx, user, 'outlines', 'add', [{ title: 'M', ref: 'ab' }, { title: 'T', ref: 'x\ufffd' }, { title: 'U', ref: 'a\u0000b' }]));
    assert.deepEqual(
      again.map((r) => r['errorCode']),
      [809, 809, 809],
    );
  });

  for (const plural of ['notes', 'outlines', 'lists', 'rows'] as const) {
    it(`${plural}: add, edit and delete`, async () => {
      const { ctx, user } = env;
      const costs: Array<Record<string, number>> = [];
      for (const n of [5, 50]) {
        const { records, list, calls: addCalls } = await make(plural, n);
        assert.equal(records.length, n);
        const edits = records.map((r) => ({
          id: r['id'],
          ...(r['version'] !== undefined && { version: r['version'] }),
          ...(plural === 'rows' ? { cells: { c1: `Edited ${String(r['id'])}` } } : { title: `Edited ${String(r['id'])}` }),
        }));
        let edited: Json[] = [];
        const editCalls = await repositoryCallsOf(async () => {
          edited = json(await batch(ctx, user, plural, 'edit', edits));
        });
        assert.deepEqual(
          edited.map((r) => (plural === 'rows' ? (r['cells'] as Json)['c1'] : r['title'])),
          records.map((r) => `Edited ${String(r['id'])}`),
        );
        const deletes = records.map((r) => (plural === 'rows' ? { list, row: r['id'] } : r['id']));
        let deleted: Json[] = [];
        const deleteCalls = await repositoryCallsOf(async () => {
          deleted = json(await batch(ctx, user, plural, 'delete', deletes));
        });
        assert.deepEqual(
          deleted.map((r) => r['id']),
          records.map((r) => r['id']),
        );
        costs.push({
          ...Object.fromEntries(Object.entries(addCalls).map(([k, v]) => [`add ${k}`, v])),
          ...Object.fromEntries(Object.entries(editCalls).map(([k, v]) => [`edit ${k}`, v])),
          ...Object.fromEntries(Object.entries(deleteCalls).map(([k, v]) => [`delete ${k}`, v])),
        });
      }
      assert.deepEqual(costs[1], costs[0]);
      assert.ok(Object.values(costs[1] ?? {}).every((n) => n <= 2), `no method is called per item: ${JSON.stringify(costs[1])}`);
    });
  }
});
