import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHUNK, idFilters, padded } from './id-filter.js';

describe('idFilters: how a read names a page of task ids', () => {
  it('a dense set is one range; a sparse or small set is IN lists of a few padded lengths', () => {
    assert.deepEqual(idFilters('t', []), []);
    const dense = Array.from({ length: 1000 }, (_, i) => 5 + i * 2);
    assert.deepEqual(idFilters('t', dense), [{ where: 't BETWEEN ? AND ?', params: [5, 2003] }]);
    assert.deepEqual(idFilters('t', [9, 3, 7]), [{ where: 't IN (?, ?, ?, ?, ?, ?, ?, ?)', params: [9, 3, 7, 7, 7, 7, 7, 7] }]);
    const sparse = Array.from({ length: 600 }, (_, i) => 1 + i * 100);
    const lists = idFilters('t', sparse);
    assert.equal(lists.length, 2);
    assert.equal(lists[0]?.params.length, CHUNK);
    assert.deepEqual(lists.flatMap((f) => f.params).filter((id, i, all) => all.indexOf(id) === i), sparse, 'every id, once padding is set aside');
  });

  it('a range never spans more than four ids per id of the set, whatever the order', () => {
    const ids = [40, 1, 20, 10, 30, 2, 3, 4, 5, 6];
    assert.deepEqual(idFilters('t', ids), [{ where: 't BETWEEN ? AND ?', params: [1, 40] }]);
    assert.equal(idFilters('t', [...ids.slice(0, 9), 41])[0]?.where.startsWith('t IN'), true);
  });

  it('padded repeats the last id up to 1, 8, 64 or 512 ids', () => {
    assert.deepEqual(padded([4]), [4]);
    assert.equal(padded([1, 2]).length, 8);
    assert.equal(padded(Array.from({ length: 65 }, (_, i) => i)).length, CHUNK);
  });
});
