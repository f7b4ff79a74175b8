import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editFields, Ledger, type ServerState, type ServerTask } from './ledger.js';

const task = (id: number, title: string, version = 0): ServerTask => ({ id, title, ...editFields(version) });
const state = (tasks: ServerTask[], folders: Array<{ id: number; name: string }> = []): ServerState => ({ tasks, organizers: { folders, contexts: [], goals: [] } });

/** A ledger holding tasks 1 and 2 (acknowledged, at edit 0) and folder "f" (id 7). */
function ledger(): Ledger {
  const l = new Ledger();
  l.addAcknowledged(['a', 'b'], [1, 2]);
  l.organizerAcknowledged('folders', 'f', 7);
  return l;
}
const claimAll = (l: Ledger) => l.claimForEdit(50, () => 0);

describe('crash loop ledger: what counts as a lost write', () => {
  it('accepts the state that was acknowledged', () => {
    assert.deepEqual(ledger().reconcile(state([task(1, 'a'), task(2, 'b')], [{ id: 7, name: 'f' }])), []);
  });

  it('an acknowledged task or organizer that is missing is lost', () => {
    const problems = ledger().reconcile(state([task(1, 'a')]));
    assert.ok(problems.some((p) => /lost: task 2/.test(p)));
    assert.ok(problems.some((p) => /lost: folders "f"/.test(p)));
  });

  it('an edit older than the acknowledged one is reported', () => {
    const l = ledger();
    l.editAcknowledged(claimAll(l));
    assert.match(l.reconcile(state([task(1, 'a', 0), task(2, 'b', 1)], [{ id: 7, name: 'f' }])).join(), /task 1 went back to edit 0; edit 1 was acknowledged/);
  });

  it('half an item (one field of an edit) is reported', () => {
    const l = ledger();
    assert.match(l.reconcile(state([{ ...task(1, 'a'), star: 1 }, task(2, 'b')], [{ id: 7, name: 'f' }])).join(), /not one whole edit/);
  });

  it('a batch in flight at the kill is whole or absent: half of one is reported', () => {
    const adds = ledger();
    adds.unacknowledged({ kind: 'add', titles: ['c', 'd'] });
    assert.match(adds.reconcile(state([task(1, 'a'), task(2, 'b'), task(3, 'c')], [{ id: 7, name: 'f' }])).join(), /partial add batch: 1 of 2/);
    const edits = ledger();
    edits.unacknowledged({ kind: 'edit', versions: claimAll(edits) });
    assert.match(edits.reconcile(state([task(1, 'a', 1), task(2, 'b', 0)], [{ id: 7, name: 'f' }])).join(), /partial edit batch: 1 of 2/);
  });

  it('writes in flight that landed whole are adopted, and checked from then on', () => {
    const l = ledger();
    l.unacknowledged({ kind: 'add', titles: ['c', 'd'] });
    l.unacknowledged({ kind: 'edit', versions: claimAll(l) });
    l.unacknowledged({ kind: 'organizer', organizer: 'folders', name: 'g' });
    const after = state([task(1, 'a', 1), task(2, 'b', 1), task(3, 'c'), task(4, 'd')], [{ id: 7, name: 'f' }, { id: 8, name: 'g' }]);
    assert.deepEqual(l.reconcile(after), []);
    assert.deepEqual(l.counts, { acknowledged: 2, acknowledgedItems: 3, unacknowledged: 3, landed: 3, notLanded: 0 });
    // Adopted: the landed add and edit are now what must stay.
    assert.match(l.reconcile(state([task(1, 'a', 0), task(2, 'b', 1), task(3, 'c')], [{ id: 7, name: 'f' }, { id: 8, name: 'g' }])).join(), /went back.*lost: task 4/s);
  });

  it('a record nobody wrote, or one written twice, is reported', () => {
    const problems = ledger().reconcile(state([task(1, 'a'), task(2, 'b'), task(5, 'b'), task(6, 'z')], [{ id: 7, name: 'f' }, { id: 9, name: 'h' }]));
    assert.ok(problems.some((p) => /"b" was written 2 times/.test(p)));
    assert.ok(problems.some((p) => /task 6 \("z"\) is there but nobody wrote it/.test(p)));
    assert.ok(problems.some((p) => /folders "h" \(id 9\) is there but nobody wrote it/.test(p)));
  });
});
