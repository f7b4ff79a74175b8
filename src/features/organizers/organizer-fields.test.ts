import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../errors.js';
import { Failures, readField, readId, readName, type FieldSpec } from './organizer-fields.js';

const fail = new Failures({ noName: 501, nameTaken: 502, max: 503, emptyId: 504, invalid: 505, nothingEdited: 506, malformed: 511 }, 'location');

function errorOf(fn: () => unknown): { code: number; ref: unknown; desc: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return { code: err.code, ref: err.ref, desc: err.desc };
  }
  assert.fail('expected an error');
}

describe('names', () => {
  it('readName trims, requires a non-blank name when asked ("no name"), and refuses long ones as malformed, naming the field', () => {
    assert.equal(readName('  Home ', true, 64, fail), 'Home');
    assert.equal(readName(undefined, false, 64, fail), undefined);
    assert.equal(errorOf(() => readName(undefined, true, 64, fail)).code, 501);
    assert.equal(errorOf(() => readName(' ', false, 64, fail)).code, 501);
    assert.equal(readName('😀'.repeat(64), true, 64, fail), '😀'.repeat(64));
    const long = errorOf(() => readName('a'.repeat(65), true, 64, fail));
    assert.equal(long.code, 511);
    assert.match(long.desc, /^Malformed request: the location name is too long: at most 64 characters.*has 65/);
  });
});

describe('readId', () => {
  const cases: Array<[string | undefined, number, unknown]> = [
    [undefined, 504, undefined],
    ['', 504, undefined],
    ['  ', 504, undefined],
    ['0', 504, '0'],
    ['0.0', 504, '0'],
    ['x1', 505, 'x1'],
    ['-2', 505, '-2'],
  ];
  for (const [raw, code, ref] of cases) {
    it(`${JSON.stringify(raw)} → ${code} with ref ${String(ref)}`, () => {
      const e = errorOf(() => readId(raw, fail));
      assert.equal(e.code, code);
      assert.equal(e.ref, ref);
    });
  }
  it('lenient numbers are ids', () => {
    assert.equal(readId('7', fail), 7);
    assert.equal(readId(' 7.0 ', fail), 7);
    assert.equal(readId('2147483647', fail), 2147483647);
  });

  it('fractions, booleans, exponents and ids past 2147483647 are not ids (x05), never another record', () => {
    for (const text of ['7.9', 'true', '1e3', '2147483648', '3000000000', '-7']) {
      assert.throws(() => readId(text, fail), (e: ApiError) => e.code === 505 && e.ref === text, text);
    }
  });
});

describe('readField', () => {
  const lat: FieldSpec = { name: 'lat', type: { type: 'coordinate', limit: 90 }, initial: 0, onAdd: true };
  const flag: FieldSpec = { name: 'private', type: { type: 'flag' }, initial: 0, onAdd: true };
  const note: FieldSpec = { name: 'note', type: { type: 'text', maxBytes: 4 }, initial: '', onAdd: true };

  it('coordinates: lenient numbers within the range, the ends included', () => {
    assert.equal(readField(lat, '90', fail), 90);
    assert.equal(readField(lat, '-90.0', fail), -90);
    assert.equal(readField(lat, ' 51.5074 ', fail), 51.5074);
    assert.equal(Object.is(readField(lat, '-0', fail), 0), true, '-0 is stored as 0');
    assert.equal(readField(lat, '', fail), undefined);
    for (const bad of ['90.0001', '-91', 'north', 'NaN', 'Infinity', '1e3']) {
      const e = errorOf(() => readField(lat, bad, fail));
      assert.equal(e.code, 511, bad);
      assert.equal(e.desc, 'Malformed request: lat must be a number from -90 to 90');
    }
  });

  it('flags: 0 and 1 in any lenient form, true/false, nothing else', () => {
    for (const [raw, v] of [['1', 1], ['0', 0], ['1.0', 1], ['TRUE', 1], ['false', 0]] as const) assert.equal(readField(flag, raw, fail), v);
    for (const bad of ['2', '-1', 'yes', 'constructor']) assert.equal(errorOf(() => readField(flag, bad, fail)).code, 511, bad);
  });

  it('text is kept exactly and measured in UTF-8 bytes', () => {
    assert.equal(readField(note, ' é ', fail), ' é ');
    assert.equal(readField(note, '', fail), '');
    assert.equal(errorOf(() => readField(note, 'ééé', fail)).code, 511);
  });
});
