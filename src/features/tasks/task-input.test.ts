import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTaskInput, type InputError, type ParsedItem, type TaskPatch } from './task-input.js';
import { characters, textLength, utf8Bytes } from '../../lib/text.js';
import { normalizeTags } from './task-rules.js';

/** Midnight GMT of 21 Feb 2023; its noon is 1676980800, the float clients send as "1676980800.0". */
const D = Date.UTC(2023, 1, 21) / 1000;
const NOON = D + 43200;

type Mode = 'add' | 'edit';
type Item = Record<string, unknown>;

function ok(item: Item, mode: Mode = 'edit'): ParsedItem {
  const r = parseTaskInput(item, mode);
  if ('error' in r) assert.fail(`expected success for ${JSON.stringify(item)}, got ${r.error.code} ${r.error.desc}`);
  return r.ok;
}

function patchOf(item: Item, mode: Mode = 'edit'): TaskPatch {
  return ok(item, mode).patch;
}

function err(item: Item, mode: Mode = 'edit'): InputError {
  const r = parseTaskInput(item, mode);
  if ('ok' in r) assert.fail(`expected an error for ${JSON.stringify(item)}, got ${JSON.stringify(r.ok)}`);
  return r.error;
}

/** The one field an edit item sets (edit needs no title, so the patch holds nothing else). */
function field(key: string, value: unknown): unknown {
  const patch = patchOf({ [key]: value }) as Record<string, unknown>;
  return patch[key === 'duration' ? 'length' : key];
}

/**
 * The limit cases of a text field, as tests: an accepted value is stored as `stored` makes it and
 * `fits` its limit; a refused one is 611 naming the field.
 */
function limitCases(
  key: 'title' | 'tag' | 'note' | 'repeat',
  mode: Mode,
  cases: ReadonlyArray<readonly [name: string, value: string, accepted: boolean]>,
  expect: { stored: (sent: string) => string; fits: (stored: string) => boolean },
): void {
  for (const [name, value, accepted] of cases) {
    it(`${name}: ${accepted ? 'accepted' : '611'}`, () => {
      const r = parseTaskInput({ [key]: value }, mode);
      if (accepted) {
        assert.ok('ok' in r && typeof r.ok.patch[key] === 'string');
        const kept = r.ok.patch[key] as string;
        assert.equal(kept, expect.stored(value), 'stored whole, in its stored form');
        assert.ok(expect.fits(kept));
      } else {
        assert.ok('error' in r);
        assert.equal(r.error.code, 611);
        assert.match(r.error.desc, new RegExp(key));
      }
    });
  }
}

describe('numeric fields: lenient forms', () => {
  // Every integer field, with a value inside its range.
  const cases: Array<[string, unknown, number]> = [
    ['folder', 5, 5],
    ['folder', '5', 5],
    ['folder', 5.0, 5],
    ['folder', ' 5 ', 5],
    ['folder', '5.0', 5],
    ['context', '12', 12],
    ['goal', 7, 7],
    ['location', '3', 3],
    ['parent', 9, 9],
    ['status', '10', 10],
    ['status', 0, 0],
    ['priority', '-1', -1],
    ['priority', -1, -1],
    ['priority', 3, 3],
    ['duedatemod', '3', 3],
    ['star', 1, 1],
    ['star', '1', 1],
    ['star', true, 1],
    ['star', false, 0],
    ['star', '0', 0],
    ['length', '90', 90],
    ['length', 90.0, 90],
    ['remind', '60', 60],
    ['remind', 7, 7],
  ];
  for (const [key, value, expected] of cases) {
    it(`${key} ${JSON.stringify(value)} → ${expected}`, () => assert.equal(field(key, value), expected));
  }

  // null and "" mean "none": 0, as clients send zeroed defaults on every edit.
  for (const key of ['folder', 'context', 'goal', 'location', 'parent', 'status', 'priority', 'duedatemod', 'star', 'length', 'remind']) {
    for (const none of [null, '', 0, '0']) {
      it(`${key} ${JSON.stringify(none)} → 0`, () => assert.equal(field(key, none), 0));
    }
  }
});

describe('numeric fields: refused values (611, naming the field)', () => {
  const cases: Array<[string, unknown]> = [
    ['status', 11],
    ['status', -1],
    ['status', '11'],
    ['priority', 4],
    ['priority', -2],
    ['priority', '-2'],
    ['duedatemod', 4],
    ['duedatemod', -1],
    ['star', 2],
    ['star', -1],
    ['star', '2'],
    ['folder', -1],
    ['context', '-3'],
    ['goal', -1],
    ['location', -7],
    ['parent', -1],
    ['length', -1],
    ['duration', -5],
    ['folder', 'abc'],
    ['folder', '5abc'],
    ['folder', '0x10'],
    ['folder', {}],
    ['folder', []],
    ['folder', [5]],
    ['status', 'Next Action'],
    ['priority', NaN],
    ['priority', Infinity],
    ['remind', 'soon'],
    ['duedate', -1],
    ['duedate', 'tomorrow'],
    ['startdate', -86400],
    ['duetime', -1],
    ['starttime', 'noon'],
    ['completed', -1],
    ['completed', {}],
    // Beyond 2^53 a number is no longer an exact integer: no id or stamp is that large.
    ['duedate', 1e20],
    ['folder', 2_147_483_648],
    // References are whole ids: truncating would point at another record.
    ['parent', 2.9],
    ['parent', '2.9'],
    ['goal', true],
    ['context', '1e3'],
    ['location', 0.5],
  ];
  for (const [key, value] of cases) {
    it(`${key} ${JSON.stringify(value) ?? String(value)} → 611 naming ${key}`, () => {
      const e = err({ [key]: value });
      assert.equal(e.code, 611);
      assert.match(e.desc, new RegExp(`\\b${key}\\b`));
    });
  }

  it('611 on add as well, even with a valid title', () => {
    const e = err({ title: 'x', status: 42 }, 'add');
    assert.equal(e.code, 611);
    assert.match(e.desc, /status/);
  });
});

describe('dates: normalised to noon GMT of their UTC day', () => {
  const inputs: Array<[string, unknown, number]> = [
    ['midnight', D, NOON],
    ['noon', NOON, NOON],
    ['23:59:59', D + 86399, NOON],
    ['float text', '1676980800.0', NOON],
    ['float number', 1676980800.0, NOON],
    ['text', String(D + 5), NOON],
    ['fractional seconds are cut, not rounded into the next day', D + 86399.9, NOON],
    ['0 means no date', 0, 0],
    ['"0" means no date', '0', 0],
    ['null means no date', null, 0],
    ['"" means no date', '', 0],
    ['a calendar date YYYY-MM-DD (a real client sends them)', '2023-02-21', NOON],
    ['a calendar date with spaces around it', ' 2023-02-21 ', NOON],
    ['the first calendar day', '1970-01-01', 43200],
    ['a leap day', '2024-02-29', Date.UTC(2024, 1, 29, 12) / 1000],
  ];
  for (const key of ['duedate', 'startdate', 'completed']) {
    for (const [name, value, expected] of inputs) {
      it(`${key} ${name}: ${JSON.stringify(value)} → ${expected}`, () => assert.equal(field(key, value), expected));
    }
  }
});

describe('dates at the edge of the accepted range', () => {
  // Whatever is accepted must normalise to an exact integer: storage and JSON output rely on it.
  // Past year 9999 nothing is accepted, so the largest exact integers never get that far.
  it('timestamps past year 9999, up to the largest exact integer, are refused (611 naming the field)', () => {
    const year10000 = Date.UTC(10000, 0, 1) / 1000;
    for (const key of ['duedate', 'startdate', 'completed']) {
      for (const value of [year10000, Number.MAX_SAFE_INTEGER, String(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER - 1000]) {
        const e = err({ [key]: value });
        assert.equal(e.code, 611, `${key} ${value}`);
        assert.match(e.desc, new RegExp(`\\b${key}\\b`));
      }
    }
  });

  it('calendar dates that do not exist, or before 1970, are refused (611 naming the field)', () => {
    for (const key of ['duedate', 'startdate', 'completed']) {
      for (const value of ['2023-02-30', '2023-13-01', '2023-00-10', '2023-02-00', '1969-12-31', '2023-2-21', '21-02-2023', '2023-02-21T10:00']) {
        const e = err({ [key]: value });
        assert.equal(e.code, 611, `${key} ${value}`);
        assert.match(e.desc, new RegExp(`\\b${key}\\b`));
      }
    }
  });

  it('a date in the year 9999 is accepted and moved to its noon', () => {
    const endOf9999 = Date.UTC(9999, 11, 31, 23, 59, 59) / 1000;
    assert.equal(field('duedate', endOf9999), Date.UTC(9999, 11, 31, 12) / 1000);
  });
});

describe('duetime and starttime: floating seconds after midnight', () => {
  const inputs: Array<[string, unknown, number | null]> = [
    ['09:30 on a date', D + 34200, 34200],
    ['09:30 on 1 Jan 1970 (no date)', 34200, 34200],
    ['float text', `${D + 34200}.0`, 34200],
    ['midnight of a date is a time', D, 0],
    ['23:59:59', D + 86399, 86399],
    ['0 means no time', 0, null],
    ['"0" means no time', '0', null],
    ['null means no time', null, null],
    ['"" means no time', '', null],
  ];
  for (const key of ['duetime', 'starttime']) {
    for (const [name, value, expected] of inputs) {
      it(`${key} ${name}: ${JSON.stringify(value)} → ${String(expected)}`, () => {
        const patch = patchOf({ [key]: value }) as Record<string, unknown>;
        assert.ok(Object.hasOwn(patch, key), 'the key is set even when it clears the time');
        assert.equal(patch[key], expected);
      });
    }
  }
});

describe('duration and length', () => {
  it('duration is stored as length', () => {
    const patch = patchOf({ duration: '45' });
    assert.equal(patch.length, 45);
    assert.ok(!Object.hasOwn(patch, 'duration'));
  });

  it('length wins when both are sent, whatever their order in the item', () => {
    assert.equal(patchOf({ duration: 10, length: 20 }).length, 20);
    assert.equal(patchOf({ length: 20, duration: 10 }).length, 20);
    assert.equal(patchOf({ length: 0, duration: 10 }).length, 0);
  });

  it('a bad length is refused even when duration is fine', () => {
    assert.equal(err({ length: -1, duration: 10 }).code, 611);
  });
});

describe('title', () => {
  const missing: Array<[string, Item]> = [
    ['absent', {}],
    ['empty', { title: '' }],
    ['blank', { title: '   ' }],
    ['tabs and newlines', { title: '\t\n ' }],
    ['no-break space', { title: '\u00a0' }],
    ['null', { title: null }],
  ];
  for (const [name, item] of missing) {
    it(`add with a title ${name} → 601`, () => assert.equal(err(item, 'add').code, 601));
  }

  it('edit with a title "" or blank → 601', () => {
    assert.equal(err({ title: '' }).code, 601);
    assert.equal(err({ title: '  ' }).code, 601);
  });

  it('edit without a title is fine: only changed fields are sent', () => {
    assert.deepEqual(patchOf({ star: 1 }), { star: 1 });
    assert.deepEqual(patchOf({}), {});
  });

  it('is trimmed on add and edit', () => {
    assert.equal(patchOf({ title: '  Buy milk \t' }, 'add').title, 'Buy milk');
    assert.equal(patchOf({ title: '\nBuy milk ' }).title, 'Buy milk');
    assert.equal(patchOf({ title: 'a  b' }).title, 'a  b', 'inner spaces stay');
  });

  it('a number is taken as its text', () => {
    assert.equal(patchOf({ title: 42 }, 'add').title, '42');
  });

  const limits: Array<[string, string, boolean]> = [
    ['255 letters', 'a'.repeat(255), true],
    ['256 letters', 'a'.repeat(256), false],
    ['255 emoji (510 UTF-16 units)', '😀'.repeat(255), true],
    ['256 emoji', '😀'.repeat(256), false],
    ['255 letters inside spaces (counted after trimming)', `  ${'a'.repeat(255)}  `, true],
    ['255 CJK characters (765 bytes)', '語'.repeat(255), true],
  ];
  limitCases('title', 'add', limits, { stored: (t) => t.trim(), fits: (t) => textLength(t) <= 255 });
});

describe('tag', () => {
  // Stored through normalizeTags, whose cases are in task-rules.test.ts; null is this reader's own.
  const cases: Array<[unknown, string]> = [
    [' a , ,b ', 'a, b'],
    [null, ''],
  ];
  for (const [value, expected] of cases) {
    it(`${JSON.stringify(value)} → ${JSON.stringify(expected)}`, () => assert.equal(field('tag', value), expected));
  }

  const limits: Array<[string, string, boolean]> = [
    ['250 characters', 'a'.repeat(250), true],
    ['251 characters', 'a'.repeat(251), false],
    ['250 emoji', '😀'.repeat(250), true],
    ['251 emoji', '😀'.repeat(251), false],
    ['250 after trimming outer spaces', `   ${'a'.repeat(250)}   `, true],
    ['250 after dropping empty entries', `${'a'.repeat(124)},,, ,${'b'.repeat(124)}`, true],
    // "x…,y…" of 250 raw characters becomes "x…, y…" of 251: the stored form is what counts.
    ['250 raw, 251 after the space is added', `${'a'.repeat(124)},${'b'.repeat(125)}`, false],
  ];
  limitCases('tag', 'edit', limits, { stored: normalizeTags, fits: (t) => [...t].length <= 250 });
});

describe('note', () => {
  const limits: Array<[string, string, boolean]> = [
    ['32,000 ASCII bytes', 'n'.repeat(32000), true],
    ['32,001 ASCII bytes', 'n'.repeat(32001), false],
    // 10,666 × 3 + 2 = 32,000 bytes but only 10,668 characters: bytes count, not characters.
    ['32,000 bytes of three-byte characters', `${'€'.repeat(10666)}nn`, true],
    ['32,001 bytes of three-byte characters', `${'€'.repeat(10666)}nnn`, false],
    ['8,000 emoji (32,000 bytes)', '😀'.repeat(8000), true],
    ['8,001 emoji', '😀'.repeat(8001), false],
    ['10,667 euro signs (32,001 bytes, far fewer characters than 32,000)', '€'.repeat(10667), false],
  ];
  // Kept unchanged.
  limitCases('note', 'edit', limits, { stored: (n) => n, fits: (n) => utf8Bytes(n) <= 32000 });

  it('keeps content as sent: not trimmed, newlines and the two characters \\n alike', () => {
    assert.equal(field('note', '  line 1\\nline 2\n '), '  line 1\\nline 2\n ');
  });

  it('null clears it', () => assert.equal(field('note', null), ''));
});

describe('repeat', () => {
  const limits: Array<[string, string, boolean]> = [
    ['1000 characters', 'R'.repeat(1000), true],
    ['1001 characters', 'R'.repeat(1001), false],
    ['1000 emoji', '😀'.repeat(1000), true],
  ];
  limitCases('repeat', 'edit', limits, { stored: (t) => t, fits: (t) => characters(t) <= 1000 });

  it('"" stops repeating and null is taken as ""', () => {
    assert.equal(field('repeat', ''), '');
    assert.equal(field('repeat', null), '');
  });
});

describe('meta', () => {
  it('kept as sent, up to 1024 bytes', () => {
    assert.equal(field('meta', '{"k":1}'), '{"k":1}');
    assert.equal(field('meta', 'm'.repeat(1024)), 'm'.repeat(1024));
    assert.equal(field('meta', '😀'.repeat(256)), '😀'.repeat(256));
  });

  it('one byte over is 611 naming meta', () => {
    for (const meta of ['m'.repeat(1025), `${'😀'.repeat(256)}m`, '€'.repeat(342)]) {
      const e = err({ meta });
      assert.equal(e.code, 611);
      assert.match(e.desc, /meta/);
    }
  });

  it('null is allowed and kept as null (it removes the value); "" is kept as ""', () => {
    const patch = patchOf({ meta: null });
    assert.ok(Object.hasOwn(patch, 'meta'));
    assert.equal(patch.meta, null);
    assert.equal(patchOf({ meta: '' }).meta, '');
  });

  it('absent leaves it alone', () => assert.ok(!Object.hasOwn(patchOf({ star: 1 }), 'meta')));

  for (const meta of [5, true, {}, [], ['x'], { a: 'b' }]) {
    it(`a non-string ${JSON.stringify(meta)} is 611 naming meta`, () => {
      const e = err({ meta });
      assert.equal(e.code, 611);
      assert.match(e.desc, /meta/);
    });
  }
});

describe('text fields refuse objects and arrays', () => {
  for (const key of ['title', 'tag', 'note', 'repeat']) {
    for (const value of [{}, [], ['a'], { toString: 'x' }]) {
      it(`${key} ${JSON.stringify(value)} → 611 naming ${key}`, () => {
        const e = err({ title: 'x', [key]: value }, 'add');
        assert.equal(e.code, 611);
        assert.match(e.desc, new RegExp(key));
      });
    }
  }
});

describe('unknown and read-only keys are ignored', () => {
  const ignored: Item = {
    via: 5,
    timer: 100,
    timeron: 1676980800,
    children: 3,
    order: 2,
    shared: 1,
    sharedowner: 77,
    sharedwith: [1, 2],
    attachment: [{ id: 1, kind: 'file', name: 'x' }],
    attachments: [],
    previous: 4,
    added: 1676980800,
    modified: 1676980800,
    ref: 'abc',
    colour: 'red',
    repeatfrom: 1,
    ord: 3,
    repeatIndex: 2,
  };

  for (const mode of ['add', 'edit'] as const) {
    it(`${mode}: they change nothing in the patch and cause no error, even with odd values`, () => {
      const base = mode === 'add' ? { title: 'T' } : {};
      assert.deepEqual(patchOf({ ...base, ...ignored }, mode), mode === 'add' ? { title: 'T' } : {});
      assert.deepEqual(patchOf({ ...base, via: {}, timer: 'x', children: -1, order: null }, mode), mode === 'add' ? { title: 'T' } : {});
    });
  }

  it('id on add is ignored (the server chooses the id)', () => {
    assert.deepEqual(patchOf({ title: 'T', id: 99 }, 'add'), { title: 'T' });
    assert.deepEqual(patchOf({ title: 'T', id: 'garbage' }, 'add'), { title: 'T' });
  });

  it('a key named __proto__ (as JSON.parse makes it) neither pollutes nor sets fields', () => {
    const item = JSON.parse('{"title":"T","__proto__":{"addedby":"7","reschedule":1,"star":1}}') as Item;
    const parsed = ok(item, 'add');
    assert.deepEqual(parsed.patch, { title: 'T' });
    assert.equal(parsed.reschedule, false);
    assert.equal(({} as Record<string, unknown>)['addedby'], undefined);
  });

  it('inherited keys are not read as sent fields', () => {
    const item = Object.create({ star: 1, title: 'inherited' }) as Item;
    assert.deepEqual(patchOf(item), {});
  });
});

describe('addedby', () => {
  for (const none of [0, '0', '', null, undefined]) {
    it(`${JSON.stringify(none) ?? 'undefined'} is ignored`, () => {
      assert.ok(!Object.hasOwn(patchOf({ addedby: none }), 'addedby'));
    });
  }

  const kept: Array<[unknown, string]> = [
    ['12345', '12345'],
    [12345, '12345'],
    ['td5f8a', 'td5f8a'],
  ];
  for (const [value, expected] of kept) {
    it(`${JSON.stringify(value)} is kept as text ${JSON.stringify(expected)}`, () => {
      assert.equal(patchOf({ addedby: value }).addedby, expected);
    });
  }
});

describe('addedby of the wrong shape', () => {
  // A user id is text or a number; an object would otherwise travel on as "[object Object]".
  it('an object or array is 611 naming addedby', () => {
    for (const value of [{}, { id: 5 }, [], ['12345']]) {
      const e = err({ addedby: value });
      assert.equal(e.code, 611, JSON.stringify(value));
      assert.match(e.desc, /addedby/);
    }
  });
});

describe('reschedule inside the item', () => {
  const cases: Array<[unknown, boolean]> = [
    [1, true],
    ['1', true],
    [1.0, true],
    ['1.0', true],
    [true, true],
    [0, false],
    ['0', false],
    [undefined, false],
    [null, false],
    ['', false],
    ['yes', false],
    ['true', true],
    [' TRUE ', true],
    [false, false],
    [2, false],
  ];
  for (const [value, expected] of cases) {
    it(`${JSON.stringify(value) ?? 'absent'} → ${expected}`, () => {
      const item: Item = value === undefined ? {} : { reschedule: value };
      assert.equal(ok(item).reschedule, expected);
    });
  }

  it('is not a patch field', () => assert.deepEqual(patchOf({ reschedule: 1 }), {}));
});

describe('a whole item', () => {
  it('every accepted field comes out in stored form', () => {
    const parsed = ok(
      {
        title: ' Pay rent ',
        tag: 'home,money',
        folder: '1',
        context: 2,
        goal: '3.0',
        location: 4,
        parent: 0,
        duedate: D,
        duedatemod: '1',
        startdate: '1676980800.0',
        duetime: D + 3600,
        starttime: 0,
        remind: '15',
        repeat: 'FREQ=MONTHLY',
        status: 2,
        duration: 30,
        priority: '-1',
        star: true,
        completed: 0,
        note: 'ref 42',
        meta: 'm',
        addedby: '0',
        reschedule: '1',
      },
      'add',
    );
    assert.deepEqual(parsed, {
      patch: {
        title: 'Pay rent',
        tag: 'home, money',
        folder: 1,
        context: 2,
        goal: 3,
        location: 4,
        parent: 0,
        duedate: NOON,
        duedatemod: 1,
        startdate: NOON,
        duetime: 3600,
        starttime: null,
        remind: 15,
        repeat: 'FREQ=MONTHLY',
        status: 2,
        length: 30,
        priority: -1,
        star: 1,
        completed: 0,
        note: 'ref 42',
        meta: 'm',
      },
      reschedule: true,
    });
  });

  it('stops at the first bad field: one error, naming that field, and no partial patch', () => {
    const r = parseTaskInput({ title: 'x', star: 1, folder: -1, priority: 9 }, 'add');
    assert.deepEqual(Object.keys(r), ['error'], 'an error and nothing else');
    assert.ok('error' in r);
    assert.equal(r.error.code, 611);
    assert.match(r.error.desc, /\bfolder\b/);
    assert.doesNotMatch(r.error.desc, /priority/);
  });
});
