import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newTask } from '../../../test/factories.js';
import { matches, parseRules, ruleMatches, ruleProblem, SEARCH_CAPS, TYPES, fieldNames, type Rule, type SearchRules } from './search-rules.js';

const NOON_2026_03_10 = Date.UTC(2026, 2, 10, 12) / 1000;
const task = newTask(1, {
  title: 'Buy Laundry soap',
  note: 'the blue one',
  tag: 'home, Errands',
  folder: 12345,
  priority: 2,
  star: 1,
  duedate: NOON_2026_03_10,
  completed: 0,
});

const r = (field: string, type: string, value = ''): Rule => ({ field, type, value });

describe('saved search rules', () => {
  it('every type of every kind of field, as a table', () => {
    const table: Array<[Rule, boolean]> = [
      [r('title', 'contains', 'laundry'), true],
      [r('title', 'does not contain', 'laundry'), false],
      [r('title', 'is', 'buy laundry soap'), true],
      [r('title', 'is not', 'buy'), true],
      [r('title', 'begins with', 'BUY'), true],
      [r('title', 'ends with', 'soap'), true],
      [r('title', 'is empty'), false],
      [r('note', 'is not empty'), true],
      [r('tag', 'is', 'errands'), true],
      [r('tag', 'is', 'errand'), false],
      [r('tag', 'contains', 'errand'), true],
      [r('tag', 'is not', 'home'), false],
      [r('tag', 'does not contain', 'work'), true],
      [r('tag', 'is empty'), false],
      [r('folder', 'is', '12345'), true],
      [r('folder', 'is not', '12345'), false],
      [r('context', 'is', '0'), true],
      [r('priority', 'greater than', '1'), true],
      [r('priority', 'less than', '2'), false],
      [r('priority', 'is', '2'), true],
      [r('status', 'is not', '0'), false],
      [r('star', 'yes'), true],
      [r('checked', 'no'), true],
      [r('checked', 'yes'), false],
      [r('duedate', 'is', '2026-03-10'), true],
      [r('duedate', 'is', String(NOON_2026_03_10 + 3600)), true],
      [r('duedate', 'before', '2026-03-11'), true],
      [r('duedate', 'before', '2026-03-10'), false],
      [r('duedate', 'after', '2026-03-09'), true],
      [r('duedate', 'after', '2026-03-10'), false],
      [r('startdate', 'is empty'), true],
      [r('startdate', 'before', '2030-01-01'), false],
      [r('duedate', 'is not empty'), true],
      [r('repeat', 'is empty'), true],
    ];
    for (const [rule, expected] of table) {
      assert.equal(ruleProblem(rule), undefined, JSON.stringify(rule));
      assert.equal(ruleMatches(rule, task), expected, JSON.stringify(rule));
    }
    // Every field and type is covered by the documentation's table.
    assert.ok(fieldNames().length >= 19);
    assert.ok(Object.values(TYPES).every((t) => t.length > 0));
  });

  it('All joins the root with AND and each group with OR; Any the other way round (the documented example)', () => {
    const rules: SearchRules = {
      root: [r('checked', 'no'), r('title', 'contains', 'laundry')],
      groups: [['1', [r('tag', 'is', 'tag'), r('folder', 'is not', '12345')]]],
    };
    assert.equal(matches('All', rules, task), false, 'the group fails: neither tag "tag" nor another folder');
    assert.equal(matches('All', rules, { ...task, folder: 1 }), true);
    assert.equal(matches('Any', rules, task), true, 'any root rule is enough');
    const any: SearchRules = { root: [r('checked', 'yes')], groups: [['1', [r('star', 'yes'), r('priority', 'is', '2')]]] };
    assert.equal(matches('Any', any, task), true, 'the group holds as a whole (AND)');
    assert.equal(matches('Any', any, { ...task, priority: 0 }), false);
    assert.equal(matches('All', { root: [], groups: [] }, task), true, 'no rules: every task');
    assert.equal(matches('Any', { root: [], groups: [['1', []]] }, task), true);
  });

  it('parses the documented shape, orders groups by number, and refuses what it cannot run (capped)', () => {
    const parsed = parseRules({ '2': [{ field: 'Star', type: 'yes', value: '' }], root: [{ field: 'title', type: 'contains', value: 'x' }], '1': [] });
    assert.deepEqual(parsed, { root: [r('title', 'contains', 'x')], groups: [['1', []], ['2', [r('star', 'yes')]]] });
    assert.deepEqual(parseRules({ root: [{ field: 'priority', type: 'is', value: 3 }] }), { root: [r('priority', 'is', '3')], groups: [] });
    const bad: unknown[] = [
      null,
      [],
      { root: {} },
      { x: [] },
      { root: [{ field: 'colour', type: 'is', value: 'red' }] },
      { root: [{ field: 'title', type: 'greater than', value: '1' }] },
      { root: [{ field: 'folder', type: 'is', value: 'home' }] },
      { root: [{ field: 'duedate', type: 'before', value: 'tomorrow' }] },
      { root: [{ field: 'title', type: 'is', value: 'x'.repeat(SEARCH_CAPS.value + 1) }] },
      { root: Array.from({ length: SEARCH_CAPS.rules + 1 }, () => ({ field: 'star', type: 'yes', value: '' })) },
      Object.fromEntries(Array.from({ length: SEARCH_CAPS.groups + 2 }, (_, i) => [String(i + 1), []])),
      { root: [{ field: 'constructor', type: 'is', value: '1' }] },
      { root: ['title'] },
    ];
    for (const b of bad) assert.ok('problem' in (parseRules(b) as object), JSON.stringify(b)?.slice(0, 80));
  });
});
