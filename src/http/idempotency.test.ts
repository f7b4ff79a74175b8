import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.js';
import { fingerprintOf, idempotencyKey } from './idempotency.js';
import { Params } from './params.js';

const refused = (header: string | string[] | undefined) =>
  assert.throws(
    () => idempotencyKey(header),
    (e: unknown) => e instanceof ApiError && e.code === 1105 && e.status === 400,
    JSON.stringify(header),
  );

describe('idempotencyKey', () => {
  it('takes 1 to 255 visible ASCII characters as sent', () => {
    for (const key of ['a', '8e03978e-40d5-43e8-bc93-6894a57f9324', '"quoted"', '~!@#$%^&*()_+{}|:<>?', 'x'.repeat(255)]) assert.equal(idempotencyKey(key), key);
  });

  it('refuses an empty or absent key, a longer one, white space, control and non-ASCII characters, and two keys', () => {
    for (const bad of [undefined, '', 'x'.repeat(256), 'a b', 'a\tb', 'a\u0000', 'a\u007f', 'café', 'ключ', '😀', 'a, b']) refused(bad);
    refused(['a', 'b']);
  });
});

describe('fingerprintOf', () => {
  const of = (query: Record<string, unknown>, body: unknown, path = '/3/tasks/add.php', format = 'json') =>
    fingerprintOf(path, format, [query, body], Params.from(query, body));
  const base = of({}, { tasks: '[{"title":"a"}]', fields: 'note' });

  it('is the same whatever the order or place of the parameters, and whatever access token is sent', () => {
    assert.equal(of({}, { fields: 'note', tasks: '[{"title":"a"}]' }), base);
    assert.equal(of({ fields: 'note' }, { tasks: '[{"title":"a"}]' }), base);
    assert.equal(of({ access_token: 'one' }, { tasks: '[{"title":"a"}]', fields: 'note', access_token: 'two' }), base);
    // Where both carry a name the body's value is the one read, and so the one compared.
    assert.equal(of({ fields: 'title' }, { tasks: '[{"title":"a"}]', fields: 'note' }), base);
    // A JSON body carrying the array itself is read as the same text.
    assert.equal(of({}, { tasks: [{ title: 'a' }], fields: 'note' }), base);
  });

  it('differs with any value, a parameter more or less, the path and the format', () => {
    const others = [
      of({}, { tasks: '[{"title":"b"}]', fields: 'note' }),
      of({}, { tasks: '[{"title":"a"}]' }),
      of({}, { tasks: '[{"title":"a"}]', fields: 'note', reschedule: '1' }),
      // JSON is compared as sent: the API reads a parameter's text, and a retry repeats it.
      of({}, { tasks: '[{"title": "a"}]', fields: 'note' }),
      of({}, { tasks: '[{"title":"a"}]', fields: 'note' }, '/3/tasks/edit.php'),
      of({}, { tasks: '[{"title":"a"}]', fields: 'note' }, '/3/tasks/add.php', 'xml'),
      of({}, { tasks: '[{"title":"a"}]', fields: 'note', extra: '' }),
    ];
    assert.equal(new Set([base, ...others]).size, others.length + 1);
  });

  it('leaves `f` to the format as read', () => {
    assert.equal(of({ f: 'json' }, { tasks: '[{"title":"a"}]', fields: 'note' }), base);
    assert.equal(of({ f: 'XML' }, {}, '/3/tasks/get.php', 'xml'), of({}, { f: 'xml' }, '/3/tasks/get.php', 'xml'));
  });
});
