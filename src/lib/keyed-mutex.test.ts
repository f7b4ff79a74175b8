import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KeyedMutex } from './keyed-mutex.js';

/** A promise and its resolver, to hold a caller inside its turn. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('KeyedMutex', () => {
  test('callers of one key run one at a time, in arrival order; another key does not wait', async () => {
    const m = new KeyedMutex();
    const order: string[] = [];
    const first = gate();
    const a1 = m.run('a', async () => {
      order.push('a1 in');
      await first.opened;
      order.push('a1 out');
    });
    const a2 = m.run('a', async () => void order.push('a2'));
    await m.run('b', async () => void order.push('b'));
    assert.deepEqual(order, ['a1 in', 'b'], 'b ran while a1 held a; a2 waits');
    first.open();
    await Promise.all([a1, a2]);
    assert.deepEqual(order, ['a1 in', 'b', 'a1 out', 'a2']);
    assert.equal(m.size, 0, 'no key is held once its callers have ended');
  });

  test('a caller that throws passes its turn on, and its error to its own caller', async () => {
    const m = new KeyedMutex();
    await assert.rejects(m.run('k', async () => Promise.reject(new Error('boom'))), /boom/);
    assert.equal(await m.run('k', async () => 7), 7);
    assert.equal(m.size, 0);
  });

  test('runAll holds every key: a caller of any of them waits', async () => {
    const m = new KeyedMutex();
    const held = gate();
    const order: string[] = [];
    const both = m.runAll(['x', 'y'], async () => {
      order.push('both in');
      await held.opened;
      order.push('both out');
    });
    await new Promise((resolve) => setImmediate(resolve));
    const y = m.run('y', async () => void order.push('y'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['both in']);
    held.open();
    await Promise.all([both, y]);
    assert.deepEqual(order, ['both in', 'both out', 'y']);
    assert.equal(m.size, 0);
  });
});
