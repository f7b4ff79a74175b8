import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { characters, nameKey, storableText, textLength, utf8Bytes } from './text.js';

test('storableText removes every U+0000 and leaves other text as it is', () => {
  assert.equal(storableText('a\u0000b\u0000'), 'ab');
  assert.equal(storableText('\u0000'), '');
  const plain = 'Pay rent 🇩🇪 \u0001\t\n';
  assert.equal(storableText(plain), plain);
});

test('storableText replaces lone surrogates with U+FFFD and keeps pairs', () => {
  assert.equal(storableText('a\uD83Db'), 'a\uFFFDb');
  assert.equal(storableText('\uDE00x\uD83D'), '\uFFFDx\uFFFD');
  assert.equal(storableText('\uDE00\uD83D\uDE00'), '\uFFFD😀', 'a low half alone, then a pair');
  assert.equal(storableText('😀'), '😀');
});

describe('characters: Unicode code points', () => {
  const cases: Array<[string, string, number]> = [
    ['empty', '', 0],
    ['ascii', 'abc', 3],
    ['an emoji is one', '😀', 1],
    ['emoji between letters', 'a😀b', 3],
    ['many emoji', '😀'.repeat(255), 255],
    ['a combining mark counts as its own code point', 'e\u0301', 2],
    ['precomposed é is one', '\u00e9', 1],
    ['a flag is two regional indicators', '🇩🇪', 2],
    ['CJK', '日本語', 3],
    ['a lone high surrogate is one', '\uD83D', 1],
    ['a lone low surrogate is one', '\uDE00', 1],
    ['low then high is not a pair: two', '\uDE00\uD83D', 2],
    ['lone surrogate before a pair', '\uD83D\uD83D\uDE00', 2],
    ['NUL is a character', '\u0000', 1],
  ];
  for (const [name, s, expected] of cases) {
    it(`${name}: ${expected}`, () => {
      assert.equal(characters(s), expected);
    });
  }

  it('agrees with iterating by code point for every case', () => {
    for (const [, s] of cases) assert.equal(characters(s), [...s].length, JSON.stringify(s));
  });
});

describe('utf8Bytes', () => {
  const cases: Array<[string, number]> = [
    ['', 0],
    ['abc', 3],
    ['é', 2],
    ['€', 3],
    ['😀', 4],
    ['日本語', 9],
    ['e\u0301', 3],
    // A lone surrogate is written as U+FFFD, three bytes.
    ['\uD83D', 3],
  ];
  for (const [s, expected] of cases) {
    it(`${JSON.stringify(s)} → ${expected}`, () => assert.equal(utf8Bytes(s), expected));
  }
});

describe('textLength and nameKey', () => {
  it('textLength counts code points of the NFC form, so an emoji or a combined accent is one', () => {
    assert.equal(textLength('e\u0301'), 1);
    assert.equal(textLength('😀'), 1);
    assert.equal(textLength('abc'), 3);
  });

  it('the key is trimmed, NFC-normalised and lower-cased', () => {
    assert.equal(nameKey('  Work \t'), 'work');
    // "é" as e + combining acute and as one code point are the same name.
    assert.equal(nameKey('Cafe\u0301'), nameKey('CAFÉ'));
    assert.equal(nameKey('ÄRGER'), 'ärger');
  });
});
