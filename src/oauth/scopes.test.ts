import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeScope, grantedScopes, KNOWN_SCOPES, MAX_SCOPE_LENGTH, missingScope, parseScope, type RequiredScope } from './scopes.js';

describe('parseScope', () => {
  const good: Array<[string, string[]]> = [
    ['basic', ['basic']],
    ['basic tasks write', ['basic', 'tasks', 'write']],
    ['  basic\ttasks \t write  ', ['basic', 'tasks', 'write']],
    // Unknown and repeated words are kept: the scope is echoed back to the client as sent.
    ['basic folders basic', ['basic', 'folders', 'basic']],
    ['Basic', ['Basic']],
    // Every printable ASCII character except " and \ may appear in a word.
    ['a!#$%&\'()*+,-./:;<=>?@[]^_`{|}~z', ['a!#$%&\'()*+,-./:;<=>?@[]^_`{|}~z']],
    ['x'.repeat(MAX_SCOPE_LENGTH), ['x'.repeat(MAX_SCOPE_LENGTH)]],
  ];
  for (const [raw, words] of good) {
    test(`${JSON.stringify(raw.slice(0, 40))} → ${words.length} word(s)`, () => assert.deepEqual(parseScope(raw), words));
  }

  const bad: Array<[string, string | undefined]> = [
    ['absent', undefined],
    ['empty', ''],
    ['only spaces', '   '],
    ['only tabs', '\t\t'],
    ['over-long', 'x'.repeat(MAX_SCOPE_LENGTH + 1)],
    ['over-long made of valid words', 'basic '.repeat(200)],
    ['double quote', 'basic "tasks"'],
    ['backslash', 'basic\\tasks'],
    ['non-ASCII letter', 'básic'],
    ['emoji', 'basic 😀'],
    ['newline between words', 'basic\ntasks'],
    ['carriage return', 'basic\rtasks'],
    ['NUL', 'basic\u0000'],
    ['DEL', 'basic\u007F'],
    ['non-breaking space', 'basic\u00A0tasks'],
    ['other control character', 'basic\u001Btasks'],
  ];
  for (const [name, raw] of bad) {
    test(`refuses ${name}`, () => assert.equal(parseScope(raw), undefined));
  }
});

describe('grantedScopes', () => {
  const cases: Array<[string[], string[]]> = [
    [['basic', 'tasks', 'write'], ['basic', 'tasks', 'write']],
    [['basic', 'folders', 'tasks'], ['basic', 'tasks']],
    // Matching is exact: a client cannot gain a scope by changing its case.
    [['BASIC', 'Tasks', 'write '], []],
    [['__proto__', 'constructor', 'toString', 'length'], []],
    [[...KNOWN_SCOPES], [...KNOWN_SCOPES]],
    [['tasks', 'tasks'], ['tasks']],
    [[], []],
  ];
  for (const [words, granted] of cases) {
    test(`${JSON.stringify(words)} grants ${JSON.stringify(granted)}`, () => {
      assert.deepEqual([...grantedScopes(words)].sort(), [...granted].sort());
    });
  }
});

describe('missingScope', () => {
  const cases: Array<[string[], RequiredScope, string | undefined]> = [
    [['basic'], 'basic', undefined],
    [[], 'basic', 'basic'],
    [['tasks', 'write'], 'basic', 'basic'],
    [['tasks'], 'tasks', undefined],
    [['basic'], 'tasks', 'tasks'],
    [['write'], 'tasks', 'tasks'],
    [['tasks', 'write'], 'write', undefined],
    // write alone is not enough: it means changing tasks, so tasks is needed too.
    [['write'], 'write', 'tasks'],
    [['basic', 'write'], 'write', 'tasks'],
    [['tasks'], 'write', 'write'],
    [['basic', 'tasks', 'notes', 'outlines', 'lists', 'share'], 'write', 'write'],
    [[], 'write', 'tasks'],
    // Notes, outlines and lists: their own scope to read, plus write to change.
    [['notes'], 'notes', undefined],
    [['tasks', 'write'], 'notes', 'notes'],
    [['notes'], 'notes write', 'write'],
    [['notes', 'write'], 'notes write', undefined],
    [['tasks', 'write'], 'notes write', 'notes'],
    [['outlines', 'write'], 'outlines write', undefined],
    [['notes', 'write'], 'outlines write', 'outlines'],
    [['lists'], 'lists', undefined],
    [['lists', 'notes', 'outlines'], 'lists write', 'write'],
    [['notes', 'outlines', 'lists', 'write'], 'write', 'tasks'],
    // Sharing: share to read collaborators; share with tasks write to share and reassign tasks.
    [['share'], 'share', undefined],
    [['basic', 'tasks', 'write'], 'share', 'share'],
    [['share', 'tasks', 'write'], 'share write', undefined],
    [['tasks', 'write'], 'share write', 'share'],
    [['share', 'write'], 'share write', 'tasks'],
    [['share', 'tasks'], 'share write', 'write'],
  ];
  for (const [granted, need, missing] of cases) {
    test(`${JSON.stringify(granted)} for ${need} → ${missing ?? 'nothing missing'}`, () => {
      assert.equal(missingScope(new Set(granted), need), missing);
    });
  }
});

describe('describeScope', () => {
  for (const word of KNOWN_SCOPES) {
    test(`${word} is described as known, in plain text`, () => {
      const d = describeScope(word);
      assert.equal(d.known, true);
      assert.ok(d.text.length > 0);
      assert.doesNotMatch(d.text, /[<>&]/);
    });
  }

  const unknown = ['folders', 'BASIC', '', '__proto__', 'toString', '<script>alert(1)</script>', '&amp;'];
  for (const word of unknown) {
    test(`${JSON.stringify(word)} is described as not known`, () => {
      const d = describeScope(word);
      assert.equal(d.known, false);
      // The word is quoted as plain text, neither turned into markup nor escaped in advance
      // (the page escapes it once; escaping here too would show &lt; to the user).
      assert.ok(d.text.includes(`“${word}”`), d.text);
      assert.doesNotMatch(d.text.replace(word, ''), /[<>&]/);
    });
  }
});
