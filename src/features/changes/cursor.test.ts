import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeCursor, encodeCursor } from './cursor.js';

describe('change feed cursors', () => {
  it('name the position they were made for, for the account they were made for only', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.nat({ max: Number.MAX_SAFE_INTEGER }), (a, b, seq) => {
        const cursor = encodeCursor(a, seq);
        assert.equal(decodeCursor(a, cursor), seq);
        if (a !== b) assert.equal(decodeCursor(b, cursor), undefined);
      }),
    );
  });

  it('refuse anything garbled: another position with the same check, padding, other shapes', () => {
    const good = encodeCursor('td1', 42);
    const [pos, tag] = good.split('.') as [string, string];
    for (const bad of ['', '42', `${pos}.`, `.${tag}`, `0${pos}.${tag}`, `${(43).toString(36)}.${tag}`, `${good}x`, ` ${good}`, good.toUpperCase(), 'zzzzzzzzzzzz.aaaaaaaaaa']) {
      assert.equal(decodeCursor('td1', bad), undefined, JSON.stringify(bad));
    }
  });
});
