import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storableText } from './text.js';

test('storableText removes every U+0000 and leaves other text as it is', () => {
  assert.equal(storableText('a\u0000b\u0000'), 'ab');
  assert.equal(storableText('\u0000'), '');
  const plain = 'Pay rent 🇩🇪 \u0001\t\n';
  assert.equal(storableText(plain), plain);
});
