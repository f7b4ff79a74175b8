import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KeyBatcher } from './key-batcher.js';

/** A batcher over a fake store of squares, recording each fetch's keys. */
function squares(max: number, fail?: (keys: number[]) => boolean) {
  const calls: number[][] = [];
  const batcher = new KeyBatcher<number, number>(async (keys) => {
    calls.push(keys);
    if (fail?.(keys)) throw new Error(`failed: ${keys.join(',')}`);
    return new Map(keys.filter((k) => k >= 0).map((k) => [k, k * k]));
  }, max);
  return { batcher, calls };
}

describe('KeyBatcher', () => {
  test('keys asked for in one turn are fetched together, each once, and each caller gets its own value', async () => {
    const { batcher, calls } = squares(100);
    const got = await Promise.all([3, 1, 3, -2, 7].map((k) => batcher.get(k)));
    assert.deepEqual(got, [9, 1, 9, undefined, 49], 'a key without a value answers undefined');
    assert.deepEqual(calls, [[3, 1, -2, 7]]);
  });

  test('keys of a later turn make a batch of their own', async () => {
    const { batcher, calls } = squares(100);
    const first = batcher.get(1);
    await new Promise((resolve) => setImmediate(resolve));
    const second = batcher.get(2);
    assert.deepEqual(await Promise.all([first, second]), [1, 4]);
    assert.deepEqual(calls, [[1], [2]]);
  });

  test('a batch is fetched in parts of at most max keys', async () => {
    const { batcher, calls } = squares(2);
    assert.deepEqual(await Promise.all([1, 2, 3, 4, 5].map((k) => batcher.get(k))), [1, 4, 9, 16, 25]);
    assert.deepEqual(calls, [[1, 2], [3, 4], [5]]);
  });

  test('a failed fetch rejects the callers of its keys only, and later calls fetch again', async () => {
    const { batcher, calls } = squares(2, (keys) => keys.includes(3));
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map((k) => batcher.get(k)));
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      [1, 4, 'failed: 3,4', 'failed: 3,4', 25],
    );
    assert.equal(await batcher.get(1), 1);
    assert.equal(calls.length, 4);
  });

  test('a fetch that throws at once rejects its callers, as one that fails later does', async () => {
    const batcher = new KeyBatcher<number, number>((keys) => {
      throw new Error(`no: ${keys.join(',')}`);
    }, 10);
    await assert.rejects(Promise.all([batcher.get(1), batcher.get(2)]), /no: 1,2/);
  });

  test('max must be at least 1', () => {
    assert.throws(() => new KeyBatcher(async () => new Map(), 0), RangeError);
  });
});
