import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyId, lenientFloat, lenientId, lenientInt, MAX_ID, Params } from './params.js';

/** A readable test name for any value (JSON.stringify loses NaN, undefined, bigint and symbols). */
function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'symbol' || typeof v === 'number' || v === undefined) return String(v);
  return `${typeof v} ${JSON.stringify(v)}`;
}

describe('Params.from', () => {
  test('a later source wins over an earlier one (body over query)', () => {
    const p = Params.from({ a: 'query', b: 'query only' }, { a: 'body', c: 'body only' });
    assert.equal(p.get('a'), 'body');
    assert.equal(p.get('b'), 'query only');
    assert.equal(p.get('c'), 'body only');
  });

  // [name, source, parameter, expected text]
  const values: Array<[string, Record<string, unknown>, string, string | undefined]> = [
    ['repeated values: the last wins', { a: ['1', '2', '3'] }, 'a', '3'],
    ['a single repeated value', { a: ['only'] }, 'a', 'only'],
    ['number', { n: 5 }, 'n', '5'],
    ['zero is a value, not absent', { n: 0 }, 'n', '0'],
    ['fraction', { n: 1.5 }, 'n', '1.5'],
    ['true', { b: true }, 'b', 'true'],
    ['false is a value, not absent', { b: false }, 'b', 'false'],
    ['Buffer as UTF-8', { f: Buffer.from('héllo 😀', 'utf8') }, 'f', 'héllo 😀'],
    ['last Buffer of several', { f: [Buffer.from('x'), Buffer.from('y')] }, 'f', 'y'],
    ['nested object as JSON text', { o: { id: 1, title: 'A' } }, 'o', '{"id":1,"title":"A"}'],
    // Only arrays of plain values are repeated form fields; an array holding structure is JSON data, passed whole.
    ['array holding an array is JSON data, passed whole', { a: ['x', ['y', 1]] }, 'a', '["x",["y",1]]'],
    ['empty string is kept by get()', { e: '' }, 'e', ''],
    ['white space kept by get()', { s: '  x  ' }, 's', '  x  '],
    ['null skipped', { z: null }, 'z', undefined],
    ['undefined skipped', { z: undefined }, 'z', undefined],
  ];
  for (const [name, source, key, expected] of values) {
    test(name, () => {
      const p = Params.from(source);
      assert.equal(p.get(key), expected);
      assert.equal(p.has(key), expected !== undefined);
    });
  }

  test('a JSON body may carry tasks as a real array: it reaches the API as the whole JSON array', () => {
    // Clients that post JSON send `tasks` as an array of objects rather than JSON text in a form
    // field; taking only the last element would silently drop every task but one.
    const tasks = [
      { title: 'one', folder: 1 },
      { title: 'two', folder: 2 },
    ];
    assert.equal(Params.from({}, { tasks }).get('tasks'), JSON.stringify(tasks));
  });

  test('repeatedAmong names the first of the names sent more than once in one source, or in both with different values', () => {
    const cases: Array<[string, unknown[], string | undefined]> = [
      ['once in the query', [{ code: 'x' }], undefined],
      ['once in the body', [{}, { code: 'x' }], undefined],
      ['twice in the query', [{ code: ['x', 'x'] }], 'code'],
      ['twice in the body', [{}, { code: ['x', 'y'] }], 'code'],
      ['the same value in the query and in the body counts once', [{ code: 'x' }, { code: 'x' }], undefined],
      ['different values in the query and in the body', [{ code: 'x' }, { code: 'y' }], 'code'],
      ['an empty value and a value are different', [{ code: '' }, { code: 'x' }], 'code'],
      ['the same value in both, but twice in the body', [{ code: 'x' }, { code: ['x', 'x'] }], 'code'],
      ['the same value in both, but twice in the query', [{ code: ['x', 'x'] }, { code: 'x' }], 'code'],
      ['values are compared as text, exactly', [{ code: 'x' }, { code: ' x' }], 'code'],
      ['a number in a JSON body and the same digits in the query', [{ code: '5' }, { code: 5 }], undefined],
      ['an empty value counts: it was sent', [{ code: ['', 'x'] }], 'code'],
      ['a single repeated value is sent once', [{ code: ['x'] }], undefined],
      ['null is not a value', [{ code: 'x' }, { code: null }], undefined],
      ['a name not asked about may repeat', [{ other: ['1', '2'], code: 'x' }], undefined],
      ['the first asked-about name that repeats', [{ state: ['a', 'b'], code: ['x', 'y'] }], 'code'],
      ['a JSON array of records is one value', [{}, { code: [{ a: 1 }, { b: 2 }] }], undefined],
    ];
    for (const [name, sources, expected] of cases) {
      assert.equal(Params.from(...sources).repeatedAmong(['code', 'state']), expected, name);
    }
  });

  test('null or undefined in a later source does not erase an earlier value', () => {
    const p = Params.from({ a: 'q', b: 'q' }, { a: null, b: undefined });
    assert.equal(p.get('a'), 'q');
    assert.equal(p.get('b'), 'q');
  });

  test('sources that are not plain objects are ignored', () => {
    const p = Params.from(undefined, null, 'a=1', 5, true, ['a', 'b'], { a: 'kept' });
    assert.equal(p.get('a'), 'kept');
    assert.equal(p.has('0'), false);
    assert.equal(p.has('1'), false);
  });

  test('property names of plain objects are ordinary parameters', () => {
    const p = Params.from(JSON.parse('{"__proto__":"x","constructor":"y"}'));
    assert.equal(p.get('__proto__'), 'x');
    assert.equal(p.get('constructor'), 'y');
    // Absent names are absent, even when they name something built in.
    const empty = Params.from({});
    for (const name of ['toString', 'hasOwnProperty', '__proto__', 'constructor']) {
      assert.equal(empty.get(name), undefined, name);
      assert.equal(empty.has(name), false, name);
    }
  });

  test('names are matched exactly', () => {
    const p = Params.from({ Access_Token: 'x' });
    assert.equal(p.get('access_token'), undefined);
    assert.equal(p.get('Access_Token'), 'x');
  });
});

describe('Params.text', () => {
  const cases: Array<[unknown, string | undefined]> = [
    ['abc', 'abc'],
    ['  abc\t\n', 'abc'],
    ['a b', 'a b'],
    ['', undefined],
    ['   ', undefined],
    ['\u00A0', undefined],
    [0, '0'],
    [undefined, undefined],
  ];
  for (const [value, expected] of cases) {
    test(`${show(value)} → ${show(expected)}`, () => {
      assert.equal(Params.from({ v: value }).text('v'), expected);
    });
  }
  test('absent parameter', () => assert.equal(Params.from({}).text('v'), undefined));
});

describe('lenientInt', () => {
  const good: Array<[unknown, number]> = [
    [5, 5],
    ['5', 5],
    [5.0, 5],
    ['5.0', 5],
    ['1676980800.0', 1676980800],
    [' 7 ', 7],
    ['\t7\n', 7],
    ['-3', -3],
    ['+4', 4],
    ['1e3', 1000],
    ['1E3', 1000],
    ['2.5e1', 25],
    ['5.', 5],
    ['007', 7],
    [2.9, 2],
    [-2.9, -2],
    ['2.9', 2],
    ['-2.9', -2],
    [0, 0],
    ['0', 0],
    [true, 1],
    [false, 0],
  ];
  for (const [value, n] of good) {
    test(`${show(value)} → ${n}`, () => assert.equal(lenientInt(value), n));
  }

  const bad: unknown[] = [
    '',
    '   ',
    'abc',
    '5abc',
    'abc5',
    '5 5',
    '--5',
    '+-5',
    '.',
    'e3',
    '1e',
    '0x10',
    '0b1',
    '1_000',
    '1,000',
    'NaN',
    'Infinity',
    '-Infinity',
    '1e400',
    '١٢',
    NaN,
    Infinity,
    -Infinity,
    null,
    undefined,
    {},
    [],
    [5],
    10n,
    Symbol('5'),
  ];
  for (const value of bad) {
    test(`${show(value)} is refused`, () => {
      assert.equal(lenientInt(value), undefined);
    });
  }
});

describe('lenientInt edge cases found in review', () => {
  test('minus zero reads as 0', () => {
    assert.ok(Object.is(lenientInt('-0'), 0));
    assert.ok(Object.is(lenientInt(-0.4), 0));
  });
  test('integers beyond 2^53 are refused rather than silently rounded', () => {
    assert.equal(lenientInt('99999999999999999999'), undefined);
    assert.equal(lenientInt(2 ** 60), undefined);
    assert.equal(lenientInt(String(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER);
  });
});

describe('lenientId', () => {
  const ids: Array<[unknown, number]> = [
    [5, 5],
    ['5', 5],
    [5.0, 5],
    [' 5.00 ', 5],
    [MAX_ID, MAX_ID],
    [String(MAX_ID), MAX_ID],
  ];
  for (const [v, expected] of ids) test(`${show(v)} is id ${expected}`, () => assert.equal(lenientId(v), expected));

  // Each of these, read leniently as an integer, would name another record.
  const notIds: unknown[] = [0, '0', -1, '-1', 2.9, '2.9', true, 'true', false, '1e3', 1e3 + 0.5, MAX_ID + 1, '3000000000', 2 ** 32 + 1, '0x10', '', ' ', null, undefined, [1], { id: 1 }, NaN, Infinity];
  for (const v of notIds) test(`${show(v)} is not an id`, () => assert.equal(lenientId(v), undefined));
});

describe('classifyId: one reading of ids for every endpoint', () => {
  const cases: Array<[unknown, number | 'none' | 'invalid']> = [
    [undefined, 'none'],
    [null, 'none'],
    ['', 'none'],
    ['  ', 'none'],
    [0, 'none'],
    ['0', 'none'],
    ['0.0', 'none'],
    [false, 'none'],
    [7, 7],
    [' 7.0 ', 7],
    ['7.5', 'invalid'],
    [true, 'invalid'],
    ['abc', 'invalid'],
    [-1, 'invalid'],
    [MAX_ID + 1, 'invalid'],
    [{ id: 7 }, 'invalid'],
  ];
  for (const [v, expected] of cases) test(`${show(v)} → ${String(expected)}`, () => assert.equal(classifyId(v), expected));
});

describe('lenientFloat', () => {
  test('accepts what lenientInt accepts, without truncating', () => {
    assert.equal(lenientFloat('1676980800.5'), 1676980800.5);
    assert.equal(lenientFloat('.5'), 0.5);
    assert.equal(lenientFloat('5.'), 5);
    assert.equal(lenientFloat('0x10'), undefined);
    assert.equal(lenientFloat(''), undefined);
  });
});
