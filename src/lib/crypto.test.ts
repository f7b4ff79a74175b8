import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openWith, randomHex, sealFor, sha256Hex } from './crypto.js';

describe('sealFor and openWith', () => {
  const secret = randomHex(20);
  const text = '{"a":"access","r":"refresh","é":"😀"}';

  test('the holder of the secret reads the text back', () => {
    assert.equal(openWith(secret, 'retry', sealFor(secret, 'retry', text)), text);
  });

  test('the sealed form shows nothing of the text, and differs every time', () => {
    const one = sealFor(secret, 'retry', text);
    assert.doesNotMatch(one, /access|refresh/);
    assert.notEqual(one, sealFor(secret, 'retry', text));
  });

  test('another secret, its stored hash, or another purpose opens nothing', () => {
    const sealed = sealFor(secret, 'retry', text);
    assert.equal(openWith(randomHex(20), 'retry', sealed), undefined);
    assert.equal(openWith(sha256Hex(secret), 'retry', sealed), undefined);
    assert.equal(openWith(secret, 'other', sealed), undefined);
  });

  test('an altered or malformed sealed text opens nothing (and throws nothing)', () => {
    const sealed = sealFor(secret, 'retry', text);
    const [iv, body] = sealed.split('.') as [string, string];
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] = (flipped[0] as number) ^ 1;
    for (const bad of [`${iv}.${flipped.toString('base64url')}`, `${iv}.${body}.x`, iv, '', `.${body}`, `${iv}.AAAA`]) {
      assert.equal(openWith(secret, 'retry', bad), undefined, bad);
    }
  });
});
