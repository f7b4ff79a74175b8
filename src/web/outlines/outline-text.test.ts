import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { OutlineNode } from '../../storage/store.js';
import { nodesOfText as parse, outlineText, writable, type SentNode, type TextProblem } from './outline-text.js';

/** The nodes of a text that must read. */
function nodesOfText(text: string, before: readonly OutlineNode[] = []): SentNode[] {
  const r = parse(text, before);
  assert.ok(Array.isArray(r), JSON.stringify(r));
  return r;
}

/** An outline's items as one text and back (outline-text.ts). */

function node(id: number, content: string, children: OutlineNode[] = [], checked = 0, position = 1, parent = 0): OutlineNode {
  return { id, parent_id: parent, content, checked, position, children };
}

/** A stored tree as the API's `nodes` items: what reading its text back must give. */
function sent(nodes: readonly OutlineNode[]): SentNode[] {
  return [...nodes].sort((a, b) => a.position - b.position).map((n) => ({ id: n.id, content: n.content, checked: n.checked, children: sent(n.children) }));
}

const TREE = [
  node(1, 'Pack', [node(2, 'Books', [], 1, 1, 1), node(3, 'Kitchen', [node(4, 'Glasses', [], 0, 1, 3)], 0, 2, 1)], 0, 1),
  node(5, 'Tell the bank', [], 0, 2),
];

describe('outline text', () => {
  it('writes one item a line, two spaces a level, [x] before a checked one', () => {
    assert.equal(outlineText(TREE), 'Pack\n  [x] Books\n  Kitchen\n    Glasses\nTell the bank');
  });

  it('reads it back as the same tree, every item keeping its id', () => {
    assert.deepEqual(nodesOfText(outlineText(TREE), TREE), sent(TREE));
  });

  it('nests by indent (any deeper indent, tabs as two spaces), skips blank lines, reads CRLF', () => {
    const nodes = nodesOfText('A\r\n\tB\r\n      C\r\n   \r\n  D\r\n[X] E\r\n[ ]\r\n');
    assert.deepEqual(nodes, [
      { content: 'A', checked: 0, children: [{ content: 'B', checked: 0, children: [{ content: 'C', checked: 0, children: [] }] }, { content: 'D', checked: 0, children: [] }] },
      { content: 'E', checked: 1, children: [] },
      { content: '', checked: 0, children: [] },
    ]);
  });

  it('a changed, added or moved item: ids follow the text, not the place', () => {
    const nodes = nodesOfText('Tell the bank\nPack\n  Books\n  Kitchen!\n  New', TREE);
    assert.deepEqual(nodes, [
      { id: 5, content: 'Tell the bank', checked: 0, children: [] },
      {
        id: 1,
        content: 'Pack',
        checked: 0,
        children: [
          { id: 2, content: 'Books', checked: 0, children: [] },
          { content: 'Kitchen!', checked: 0, children: [] },
          { content: 'New', checked: 0, children: [] },
        ],
      },
    ]);
    // Two items of the same text keep their ids in their order; moved past another, each keeps
    // its id with its flag and children.
    const twice = [node(7, 'x', [], 0, 1), node(8, 'x', [], 0, 2)];
    assert.deepEqual(nodesOfText('x\nx', twice).map((n) => n.id), [7, 8]);
    const three = [node(1, 'x', [node(4, 'sub', [], 0, 1, 1)], 1, 1), node(2, 'y', [], 0, 2), node(3, 'x', [], 0, 3)];
    assert.deepEqual(nodesOfText('y\n[x] x\n  sub\nx', three), [
      { id: 2, content: 'y', checked: 0, children: [] },
      { id: 1, content: 'x', checked: 1, children: [{ id: 4, content: 'sub', checked: 0, children: [] }] },
      { id: 3, content: 'x', checked: 0, children: [] },
    ]);
  });

  it('items whose text a line could misread are written after [ ]; one holding a line break is not writable', () => {
    const odd = [node(1, '  spaced', [], 0, 1), node(2, '[x] not done', [], 0, 2), node(3, '', [], 0, 3), node(4, '[ ]', [], 1, 4), node(5, '- dash', [], 0, 5)];
    assert.equal(outlineText(odd), '[ ]   spaced\n[ ] [x] not done\n[ ] \n[x] [ ]\n- dash');
    assert.deepEqual(nodesOfText(outlineText(odd), odd), sent(odd));
    assert.equal(writable(odd), true);
    assert.equal(writable([node(1, 'a', [node(2, 'two\nlines', [], 0, 1, 1)])]), false);
  });

  it('refuses, naming the line, what the API would refuse: too many items, one too long, nesting too deep', () => {
    assert.deepEqual(parse('a\n\nb\nc', [], 2), { code: 808, message: 'Max nodes reached: an outline holds at most 2 items (line 4 is item 3)' });
    assert.deepEqual(parse(`a\n  ${'é'.repeat(151)}`), { code: 811, message: 'Line 2 is longer than 150 characters, the most an item holds' });
    assert.ok(Array.isArray(parse(`[x] ${'é'.repeat(150)}`)), '150 characters after the marker is an item');
    const deep = Array.from({ length: 33 }, (_, i) => `${' '.repeat(i)}level`).join('\n');
    assert.deepEqual(parse(deep), { code: 813, message: 'Line 33 is nested deeper than 32 levels, the most an outline holds' });
    assert.ok(Array.isArray(parse(deep.split('\n').slice(0, 32).join('\n'))));
    // A megabyte of lines is refused at the limit, not read whole.
    const r = parse('x\n'.repeat(500_000), [], 1000) as TextProblem;
    assert.equal(r.code, 808);
  });

  it('property: whatever is typed over a tree, ids stay unique and each kept id keeps its text', () => {
    const word = fc.constantFrom('a', 'b', 'b', 'c', '[x] a', ' b');
    const stored: fc.Arbitrary<OutlineNode[]> = fc.array(fc.record({ content: word, checked: fc.constantFrom(0, 1) }), { maxLength: 8 }).map((xs) => xs.map((x, i) => node(i + 1, x.content, [], x.checked, i + 1)));
    const line = fc.tuple(fc.nat({ max: 6 }), fc.constantFrom('', '[x] ', '[ ] '), word).map(([indent, marker, text]) => `${' '.repeat(indent)}${marker}${text}`);
    fc.assert(
      fc.property(stored, fc.array(line, { maxLength: 10 }), (before, lines) => {
        const all = (ns: readonly SentNode[]): SentNode[] => ns.flatMap((n) => [n, ...all(n.children)]);
        const got = all(nodesOfText(lines.join('\n'), before));
        const ids = got.flatMap((n) => (n.id === undefined ? [] : [n.id]));
        assert.equal(new Set(ids).size, ids.length);
        for (const n of got) if (n.id !== undefined) assert.equal(before.find((b) => b.id === n.id)?.content, n.content);
      }),
      { numRuns: 300 },
    );
  });

  it('property: any tree of writable items reads back as itself, ids and all', () => {
    const content = fc.oneof(
      fc.constantFrom('', ' ', '[x]', '[ ] a', '[X]b', '  lead', 'trail  ', '\t tab', '\u00a0nbsp', '\ufeffbom', 'same', 'same'),
      fc.string({ maxLength: 12, unit: 'binary' }).filter((s) => !/[\r\n]/.test(s)),
    );
    let next = 1;
    const tree: fc.Arbitrary<OutlineNode[]> = fc.letrec<{ nodes: OutlineNode[] }>((tie) => ({
      nodes: fc.array(fc.record({ content, checked: fc.constantFrom(0, 1), children: fc.oneof({ depthSize: 'small' }, fc.constant([]), tie('nodes')) }), { maxLength: 4 }).map((items) =>
        items.map((x, i) => ({ id: next++, parent_id: 0, position: i + 1, content: x.content, checked: x.checked, children: x.children as OutlineNode[] })),
      ),
    })).nodes;
    fc.assert(
      fc.property(tree, (nodes) => {
        assert.deepEqual(nodesOfText(outlineText(nodes), nodes), sent(nodes));
      }),
      { numRuns: 300 },
    );
  });
});
