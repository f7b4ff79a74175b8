import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../errors.js';
import { ALWAYS_FIELDS, OPTIONAL_FIELDS, parseFields } from './task-fields.js';

/** The error parseFields throws, checked to be a 613 ApiError. */
function refused(text: string): ApiError {
  try {
    const out = parseFields(text);
    assert.fail(`expected 613 for ${JSON.stringify(text)}, got ${JSON.stringify(out)}`);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    assert.equal(err.code, 613, err.desc);
    return err;
  }
}

/** The optional names of spec 4.2, as clients may send them. */
const SPEC_OPTIONAL = [
  'folder', 'context', 'goal', 'location', 'tag', 'startdate', 'duedate', 'duedatemod', 'starttime', 'duetime',
  'remind', 'repeat', 'status', 'star', 'priority', 'length', 'timer', 'added', 'note', 'parent', 'children',
  'order', 'meta', 'previous', 'attachment', 'shared', 'addedby', 'via', 'attachments',
];

describe('parseFields', () => {
  const cases: Array<[string, string | undefined, string[]]> = [
    ['absent', undefined, []],
    ['empty', '', []],
    ['only separators and spaces', ' , ,, ', []],
    ['one name', 'tag', ['tag']],
    ['spaces around names', ' tag ,  folder ', ['tag', 'folder']],
    ['case is ignored', 'TAG,Folder,dueDate', ['tag', 'folder', 'duedate']],
    ['empty entries skipped', 'tag,,folder,', ['tag', 'folder']],
    ['request order does not matter', 'note,priority,tag', ['tag', 'priority', 'note']],
    ['reverse order', 'attachment,via,meta,length,tag', ['tag', 'length', 'meta', 'via', 'attachment']],
    ['duplicates collapse', 'tag,tag,TAG, tag', ['tag']],
    ['attachments is attachment', 'attachments', ['attachment']],
    ['both spellings give one attachment', 'attachment,attachments', ['attachment']],
    ['duration is length', 'duration', ['length']],
    ['duration and length give one length', 'length,duration', ['length']],
    ['alias in upper case', 'DURATION,Attachments', ['length', 'attachment']],
  ];
  for (const [name, text, expected] of cases) {
    it(`${name}: ${JSON.stringify(text) ?? 'undefined'} → [${expected.join(', ')}]`, () => {
      assert.deepEqual([...parseFields(text)], expected);
    });
  }

  it('a list sent again is read once and answered alike, unchangeable; a list in error is refused every time', () => {
    const first = parseFields('note,tag');
    assert.equal(parseFields('note,tag'), first, 'the same reading');
    assert.ok(Object.isFrozen(first));
    assert.deepEqual([...parseFields('note, tag')], ['tag', 'note'], 'another text of the same list');
    for (let i = 0; i < 2; i++) assert.throws(() => parseFields('tag,bogus'), (e: unknown) => e instanceof ApiError && e.code === 613);
    // More lists than are kept, and texts too long to keep: each still read right.
    for (let i = 0; i < 200; i++) assert.deepEqual([...parseFields(`${' '.repeat(i)}tag`)], ['tag']);
    const long = `tag${','.repeat(100_000)}`;
    assert.deepEqual([...parseFields(long)], ['tag']);
    assert.notEqual(parseFields(long), parseFields(long), 'a long text is read each time, not kept');
    assert.deepEqual([...parseFields('note,tag')], ['tag', 'note']);
  });

  it('every name in OPTIONAL_FIELDS is accepted and asking for all gives OPTIONAL_FIELDS order', () => {
    for (const name of OPTIONAL_FIELDS) assert.deepEqual([...parseFields(name)], [name]);
    const shuffled = [...OPTIONAL_FIELDS].reverse().join(',');
    assert.deepEqual([...parseFields(shuffled)], [...OPTIONAL_FIELDS]);
  });

  it('every optional name of spec 4.2 is accepted', () => {
    for (const name of SPEC_OPTIONAL) {
      assert.doesNotThrow(() => parseFields(name), name);
      assert.equal(parseFields(name).length, 1, name);
    }
    assert.equal(parseFields(SPEC_OPTIONAL.join(',')).length, SPEC_OPTIONAL.length - 1, 'attachments and attachment are one');
  });

  it('the output order follows spec 2.1: tag before folder, meta after note, attachment last', () => {
    const order = [...OPTIONAL_FIELDS];
    assert.ok(order.indexOf('tag') < order.indexOf('folder'));
    assert.ok(order.indexOf('note') < order.indexOf('meta'));
    assert.equal(order[order.length - 1], 'attachment');
    assert.equal(new Set(order).size, order.length);
    // Every row of spec 2.1's table, in its order, but the four always returned and the
    // request-only ref and reschedule.
    assert.deepEqual(order, [
      'tag', 'folder', 'context', 'goal', 'location', 'parent', 'children', 'order', 'duedate', 'duedatemod',
      'startdate', 'duetime', 'starttime', 'remind', 'repeat', 'status', 'length', 'priority', 'star', 'added',
      'timer', 'timeron', 'note', 'meta', 'previous', 'shared', 'sharedowner', 'sharedwith', 'addedby', 'via',
      'attachment',
    ]);
  });

  it('the always-returned names are exactly id, title, modified, completed', () => {
    assert.deepEqual([...ALWAYS_FIELDS], ['id', 'title', 'modified', 'completed']);
  });

  for (const name of ALWAYS_FIELDS) {
    for (const spelled of [name, name.toUpperCase(), ` ${name} `]) {
      it(`always-returned ${JSON.stringify(spelled)} → 613 naming it`, () => {
        assert.match(refused(spelled).desc, new RegExp(name));
        // Even among valid names: the whole request is refused.
        refused(`tag,${spelled},note`);
      });
    }
  }

  const unknown = [
    'foo',
    'tags',
    'ref',
    'reschedule',
    'ord',
    'tag;folder',
    'tag folder',
    'folder.id',
    '*',
    'tagé',
    '😀',
    // Names of properties every plain object has: a lookup table built from an object literal
    // would find them and let them through.
    'constructor',
    '__proto__',
    'hasownproperty',
    'tostring',
  ];
  for (const name of unknown) {
    it(`unknown ${JSON.stringify(name)} → 613`, () => {
      assert.match(refused(name).desc, /unknown|field/i);
      refused(`tag,${name}`);
    });
  }

  it('613 carries the "incorrect field parameters" wording and is an ordinary 200 error', () => {
    const e = refused('bogus');
    assert.match(e.desc, /Incorrect field parameters/);
    assert.match(e.desc, /bogus/);
    assert.equal(e.status, 200);
  });
});
