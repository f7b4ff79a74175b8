import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { withQuery } from './authorize.service.js';

describe('withQuery', () => {
  const cases: Array<[string, string, Array<[string, string | undefined]>, string]> = [
    ['no query yet', 'https://a.example/cb', [['code', 'abc']], 'https://a.example/cb?code=abc'],
    ['existing query kept', 'https://a.example/cb?x=1', [['code', 'abc']], 'https://a.example/cb?x=1&code=abc'],
    ['base ending in ?', 'https://a.example/cb?', [['code', 'abc']], 'https://a.example/cb?code=abc'],
    ['base ending in &', 'https://a.example/cb?x=1&', [['code', 'abc']], 'https://a.example/cb?x=1&code=abc'],
    [
      'several values in order',
      'https://a.example/cb',
      [
        ['code', 'c'],
        ['state', 's'],
      ],
      'https://a.example/cb?code=c&state=s',
    ],
    [
      'reserved characters are encoded',
      'https://a.example/cb',
      [['state', 'a b&c=d#e?f/g+h%i']],
      'https://a.example/cb?state=a%20b%26c%3Dd%23e%3Ff%2Fg%2Bh%25i',
    ],
    ['keys are encoded too', 'https://a.example/cb', [['a&b=c', 'v']], 'https://a.example/cb?a%26b%3Dc=v'],
    ['unicode as UTF-8', 'https://a.example/cb', [['state', 'é😀ש']], 'https://a.example/cb?state=%C3%A9%F0%9F%98%80%D7%A9'],
    ['an empty value is still sent', 'https://a.example/cb', [['state', '']], 'https://a.example/cb?state='],
    [
      'undefined values are skipped',
      'https://a.example/cb',
      [
        ['error', 'invalid_request'],
        ['state', undefined],
      ],
      'https://a.example/cb?error=invalid_request',
    ],
    ['nothing to add leaves the base as is', 'https://a.example/cb', [['state', undefined]], 'https://a.example/cb'],
    ['nothing at all', 'https://a.example/cb?', [], 'https://a.example/cb?'],
    ['custom scheme kept as is', 'com.example.app:/oauth', [['code', 'c']], 'com.example.app:/oauth?code=c'],
    ['custom scheme with //', 'myapp://callback', [['code', 'c']], 'myapp://callback?code=c'],
    ['loopback with port', 'http://127.0.0.1:8000/cb?a=%20', [['code', 'c']], 'http://127.0.0.1:8000/cb?a=%20&code=c'],
  ];
  for (const [name, base, params, out] of cases) {
    test(name, () => assert.equal(withQuery(base, params), out));
  }

  test('every added value reads back unchanged', () => {
    const state = `x&y=z #? é😀 +%20"'<>`;
    const url = new URL(withQuery('https://a.example/cb?keep=1', [['code', 'c0de'], ['state', state]]));
    assert.equal(url.searchParams.get('keep'), '1');
    assert.equal(url.searchParams.get('code'), 'c0de');
    assert.equal(url.searchParams.get('state'), state);
    assert.equal(url.hash, '');
  });

  test('a lone surrogate in a value becomes U+FFFD instead of an exception', () => {
    const url = withQuery('https://app.example.org/cb', [['state', 'a\uD800b']]);
    assert.equal(new URL(url).searchParams.get('state'), 'a\uFFFDb');
  });
});
