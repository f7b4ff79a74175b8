import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeCursor, decodePlace, encodeCursor } from './cursor.js';

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

  it("carry a first read's start while its pages are before it, and only then", () => {
    fc.assert(
      fc.property(fc.nat({ max: 1e12 }), fc.nat({ max: 1e12 }), (seq, start) => {
        const cursor = encodeCursor('td1', seq, start);
        assert.deepEqual(decodePlace('td1', cursor), { seq, needsAfter: Math.max(seq, start) });
        assert.equal((cursor.split('.')[0] as string).includes('-'), start > seq);
      }),
    );
    const good = encodeCursor('td1', 5, 9);
    const [body, tag] = good.split('.') as [string, string];
    // A start not past the position, or one changed under the same check, is no cursor.
    for (const bad of [`5-5.${tag}`, `9-5.${tag}`, `5-a.${tag}`, `${body}-1.${tag}`, `5-.${tag}`]) assert.equal(decodePlace('td1', bad), undefined, bad);
  });
});

