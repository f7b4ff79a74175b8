import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newTask } from '../../../test/factories.js';
import fc from 'fast-check';
import type { TaskFilter } from '../../storage/store.js';
import { matches, parseRules, ruleMatches, ruleProblem, SEARCH_CAPS, searchPlan, TYPES, fieldNames, type Rule, type SearchedTask, type SearchRules } from './search-rules.js';

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

  it('plans a search: the database decides numbers, dates, flags and empty text; code the rest, over the columns it reads', () => {
    const plan = (bool: 'All' | 'Any', root: Rule[], groups: Rule[][] = []) => searchPlan(bool, { root, groups: groups.map((g, i) => [String(i + 1), g] as const) });
    assert.deepEqual(plan('All', []), { where: { all: [] }, exact: true, reads: [] });
    assert.deepEqual(plan('Any', []).where, { all: [] }, 'no rules: every task, whatever the join');
    assert.deepEqual(plan('All', [r('star', 'yes'), r('checked', 'no')]), {
      where: { all: [{ column: 'star', op: '<>', value: 0 }, { column: 'completed', op: '<=', value: 0 }] },
      exact: true,
      reads: ['star', 'completed'],
    });
    assert.deepEqual(plan('Any', [r('note', 'is empty')], [[r('folder', 'is', ' 5 '), r('priority', 'less than', '2')]]).where, {
      any: [{ column: 'note', empty: true }, { all: [{ column: 'folder', op: '=', value: 5 }, { column: 'priority', op: '<', value: 2 }] }],
    });
    // The day of Unix time 0 is 0 itself: only an empty date is on it.
    assert.deepEqual(plan('All', [r('duedate', 'is', '1970-01-01')]).where, { all: [{ column: 'duedate', op: '=', value: 0 }] });
    const mixed = plan('All', [r('title', 'contains', 'x'), r('priority', 'is', '3')], [[r('tag', 'is', 'home')]]);
    assert.equal(mixed.exact, false);
    assert.deepEqual(mixed.reads, ['title', 'priority', 'tag']);
    assert.deepEqual(mixed.where, { all: [{ column: 'title', folded: 'x' }, { column: 'priority', op: '=', value: 3 }, { any: [{ column: 'tag', folded: 'home' }] }] });
    // Only an ASCII value narrows; a negative rule cannot.
    assert.deepEqual(plan('All', [r('title', 'contains', 'Straße'), r('note', 'does not contain', 'x'), r('tag', 'is not', 'home')]).where, { all: [{ all: [] }, { all: [] }, { all: [] }] });
    assert.deepEqual(plan('All', [r('title', 'begins with', ' CALL ')]).where, { all: [{ column: 'title', folded: 'call' }] });
  });

  it("a plan's condition is the search where exact, and holds for every match where not (any search, any task)", () => {
    const holds = (f: TaskFilter, t: SearchedTask): boolean => {
      if ('all' in f) return f.all.every((p) => holds(p, t));
      if ('any' in f) return f.any.some((p) => holds(p, t));
      if ('ids' in f) return false;
      if ('empty' in f) return (t[f.column] === '') === f.empty;
      // Dialect.foldedHolds, as both databases write it.
      if ('folded' in f) return t[f.column].replace(/[A-Z]/g, (c) => c.toLowerCase()).replace(/\u212A/g, 'k').replace(/\u0130/g, 'i').includes(f.folded);
      const v = t[f.column];
      return { '=': v === f.value, '<>': v !== f.value, '<': v < f.value, '<=': v <= f.value, '>': v > f.value, '>=': v >= f.value }[f.op];
    };
    const day = Date.UTC(2026, 2, 10) / 1000;
    const date = fc.constantFrom(0, -1, 1, 43199, 43200, 86399, 86400, day - 1, day, day + 43200, day + 86399, day + 86400);
    const text = fc.constantFrom('', 'Laundry', 'x', 'İx', '\u212Aelvin', 'STRASSE', 'straße', 'Σίσυφος');
    const someTask = fc.record({ title: text, note: text, tag: fc.constantFrom('', 'home', ' , ', 'HOME, İş', '\u212A'), priority: fc.integer({ min: -1, max: 3 }), star: fc.constantFrom(0, 1), folder: fc.constantFrom(0, 5), duedate: date, completed: date, added: date });
    const values = ['', '0', '1', '-1', '5', '999999999999999', '2026-03-10', '1970-01-01', '1970-01-02', String(day), 'laundry', 'home', 'i', 'ix', 'kelvin', 'K', 'strasse', 'ß', 'σ', 'iş'];
    const types = [...new Set(Object.values(TYPES).flat())];
    const rule = fc.record({ field: fc.constantFrom(...fieldNames()), type: fc.constantFrom(...types), value: fc.constantFrom(...values) }).filter((x: Rule) => ruleProblem(x) === undefined);
    fc.assert(
      fc.property(fc.constantFrom('All' as const, 'Any' as const), fc.array(rule, { maxLength: 4 }), fc.array(fc.array(rule, { maxLength: 3 }), { maxLength: 2 }), someTask, (bool, root, groups, over) => {
        const rules: SearchRules = { root, groups: groups.map((g, i) => [String(i + 1), g] as const) };
        const t = newTask(1, over);
        const p = searchPlan(bool, rules);
        const m = matches(bool, rules, t);
        if (p.exact) assert.equal(holds(p.where, t), m);
        else if (m) assert.ok(holds(p.where, t));
        for (const x of [...root, ...groups.flat()]) assert.ok(p.reads.includes(x.field === 'checked' ? 'completed' : (x.field as never)));
      }),
      { numRuns: 3000, seed: 20261124 },
    );
  });

  it('JavaScript lowers no character outside ASCII into ASCII but U+0130 and U+212A (which the folded condition reads as i and k)', () => {
    const into: string[] = [];
    for (let c = 0x80; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      if (/[\x00-\x7f]/.test(String.fromCodePoint(c).toLowerCase())) into.push(c.toString(16));
    }
    assert.deepEqual(into, ['130', '212a']);
    for (let c = 0; c < 0x80; c++) assert.equal(String.fromCharCode(c).toLowerCase(), String.fromCharCode(c >= 65 && c <= 90 ? c + 32 : c));
  });
});
