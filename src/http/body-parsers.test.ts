import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseForm } from './body-parsers.js';

describe('url-encoded forms (parseForm)', () => {
  it('decodes names and values: percent-escapes, + as a space, UTF-8', () => {
    assert.deepEqual({ ...parseForm('tasks=%5B%7B%22title%22%3A%22a+b%C3%BC%22%7D%5D&f=xml') }, { tasks: '[{"title":"a bü"}]', f: 'xml' });
  });

  it('gives a name sent more than once as its values in order, and a lone name as empty', () => {
    assert.deepEqual({ ...parseForm('id=1&x&id=2&id=3') }, { id: ['1', '2', '3'], x: '' });
  });

  it('keeps a broken escape as it was sent, and bytes that are not UTF-8 as U+FFFD', () => {
    assert.deepEqual({ ...parseForm('a=100%&b=%zz&c=%FF') }, { a: '100%', b: '%zz', c: '\uFFFD' });
  });

  it('takes __proto__ and constructor as ordinary names, on an object without a prototype', () => {
    const form = parseForm('__proto__=x&constructor=y');
    assert.equal(Object.getPrototypeOf(form), null);
    assert.equal(Object.hasOwn(form, '__proto__') && form['__proto__'], 'x');
    assert.equal(form['constructor'], 'y');
    assert.equal(({} as Record<string, unknown>)['x'], undefined);
  });
});
