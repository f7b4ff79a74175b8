import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { joinedBytes } from './joined-bytes.js';

describe('joinedBytes', () => {
  it("equals each string's UTF-8, joined, whatever the text (growing where it must)", () => {
    // Strings of every kind: ASCII, two- and three-byte characters, astral pairs, lone surrogates
    // (U+FFFD, as Buffer.from writes them: each string is encoded alone, so that two halves of a
    // pair in neighbouring strings stay two), many or none.
    const text = fc.string({ unit: fc.oneof(fc.constantFrom('a', ',', 'é', '日', '😀', '\uD800', '\uDFFF'), fc.string({ unit: 'grapheme', maxLength: 3 })), maxLength: 40 });
    fc.assert(
      fc.property(text, fc.array(text, { maxLength: 30 }), fc.constantFrom('', ',', '\n'), text, (open, items, separator, close) => {
        const joined = joinedBytes(open, items, separator, close);
        const pieces = [open, ...items.flatMap((item, i) => (i > 0 ? [separator, item] : [item])), close];
        assert.ok(joined.equals(Buffer.concat(pieces.map((p) => Buffer.from(p)))));
      }),
      { numRuns: 500 },
    );
  });

  it('an answer of many long non-ASCII items grows its buffer and stays whole', () => {
    const items = Array.from({ length: 200 }, (_, i) => `${'日本語のメモ'.repeat(50)} ${i}`);
    assert.ok(joinedBytes('[', items, ',', ']').equals(Buffer.from(`[${items.join(',')}]`)));
  });
});
