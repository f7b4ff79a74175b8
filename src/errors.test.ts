import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError, ERRORS, httpStatusOf, itemError, type ErrorCode } from './errors.js';

const codes = Object.keys(ERRORS).map(Number) as ErrorCode[];

describe('httpStatusOf', () => {
  const special: Array<[ErrorCode, number]> = [
    [1, 401],
    [2, 401],
    [3, 429],
    [103, 429],
    [4, 503],
    [104, 400],
    [1100, 400],
    [1101, 400],
    [1102, 410],
    [1103, 422],
    [1104, 409],
    [1105, 400],
    [1107, 429],
  ];
  for (const [code, status] of special) {
    test(`${code} → ${status}`, () => assert.equal(httpStatusOf(code), status));
  }

  // Clients of the hosted service read every other error from a 200 response body.
  test('every other code → 200', () => {
    const specialCodes = new Set<number>(special.map(([c]) => c));
    const others = codes.filter((c) => !specialCodes.has(c));
    // The whole table is covered, including the transport code 0 and the last task code.
    assert.equal(others.length, codes.length - special.length);
    assert.ok(others.includes(0) && others.includes(102) && others.includes(617));
    for (const code of others) assert.equal(httpStatusOf(code), 200, `code ${code}`);
  });
});

describe('ApiError', () => {
  test('defaults come from the table', () => {
    const e = new ApiError(605);
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'ApiError');
    assert.equal(e.code, 605);
    assert.equal(e.desc, 'Invalid task');
    assert.equal(e.status, 200);
    assert.equal(e.ref, undefined);
    assert.equal(e.retryAfter, undefined);
    assert.equal(e.headers, undefined);
    assert.equal(e.message, 'API error 605: Invalid task');
  });

  test('the status follows the code', () => {
    const cases: Array<[ErrorCode, number]> = [
      [2, 401],
      [3, 429],
      [4, 503],
      [102, 200],
    ];
    for (const [code, status] of cases) assert.equal(new ApiError(code).status, status, `code ${code}`);
  });

  test('options are kept as given', () => {
    const headers = { 'www-authenticate': 'Bearer error="invalid_token"' };
    const e = new ApiError(3, { desc: 'Slow down', ref: 'r1', status: 418, retryAfter: 120, headers });
    assert.equal(e.code, 3);
    assert.equal(e.desc, 'Slow down');
    assert.equal(e.ref, 'r1');
    assert.equal(e.status, 418);
    assert.equal(e.retryAfter, 120);
    assert.deepEqual(e.headers, headers);
    assert.equal(e.message, 'API error 3: Slow down');
  });

  test('numeric and zero refs, and a zero retry-after, are not lost', () => {
    assert.equal(new ApiError(605, { ref: 0 }).ref, 0);
    assert.equal(new ApiError(605, { ref: 12345 }).ref, 12345);
    assert.equal(new ApiError(3, { retryAfter: 0 }).retryAfter, 0);
  });

  test('an empty description override is kept (the code stays the identifier)', () => {
    assert.equal(new ApiError(611, { desc: '' }).desc, '');
  });

  test('code 0 takes a transport status when given one', () => {
    const e = new ApiError(0, { status: 413, desc: 'Body too large' });
    assert.equal(e.status, 413);
    assert.equal(e.code, 0);
    assert.equal(new ApiError(0).status, 200);
  });
});

describe('itemError', () => {
  const cases: Array<[string, ReturnType<typeof itemError>, { errorCode: number; errorDesc: string; ref: string | number }]> = [
    ['table description', itemError(601, 'ref-1'), { errorCode: 601, errorDesc: 'Your task must have a title', ref: 'ref-1' }],
    ['numeric id', itemError(605, 42), { errorCode: 605, errorDesc: 'Invalid task', ref: 42 }],
    ['specific description', itemError(613, 7, 'Bad duedate'), { errorCode: 613, errorDesc: 'Bad duedate', ref: 7 }],
    ['empty ref kept', itemError(604, ''), { errorCode: 604, errorDesc: 'Empty id', ref: '' }],
  ];
  for (const [name, actual, expected] of cases) {
    test(name, () => assert.deepEqual(actual, expected));
  }
});
