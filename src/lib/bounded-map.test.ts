import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BoundedMap } from './bounded-map.js';

describe('BoundedMap', () => {
  test('a new key past the bound drops the oldest entry, and only that one', () => {
    const m = new BoundedMap<string, number>(3);
    for (const [i, k] of ['a', 'b', 'c', 'd'].entries()) m.set(k, i);
    assert.deepEqual([...m.keys()], ['b', 'c', 'd']);
    m.set('e', 4);
    assert.deepEqual([...m.entries()], [['c', 2], ['d', 3], ['e', 4]]);
  });

  test('replacing the value of a held key drops nothing', () => {
    const m = new BoundedMap<string, number>(2);
    m.set('a', 1).set('b', 2).set('a', 3);
    assert.deepEqual([...m.entries()], [['a', 3], ['b', 2]]);
  });

  test('a deleted entry frees its place', () => {
    const m = new BoundedMap<number, string>(2);
    m.set(1, 'x').set(2, 'y');
    m.delete(1);
    m.set(3, 'z');
    assert.deepEqual([...m.keys()], [2, 3]);
  });
});
