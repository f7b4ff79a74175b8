import type { OutlineNode } from '../../storage/store.js';

/**
 * An outline's items as text a person edits in one text area, and back: one item a line, two
 * spaces deeper for each level, `[x] ` before a checked item. Pure. The text is turned into the
 * `nodes` of an outlines/add or edit item, whose reader (outline-nodes.ts) judges it; an item
 * whose text is unchanged keeps its id, so apps see an edit of the items changed only.
 *
 * Written so that reading it back gives the same tree: an unchecked item whose text begins with
 * a space or a marker, or is empty, is written after `[ ] `, which reading takes off; everything
 * after a marker is the item's text as it is.
 */

/** Spaces per level when written; when read, any deeper indent than the line above nests. */
const INDENT = '  ';
const MARKER = /^\[([ xX])\](?: |$)/;

/** The item as a line's text after its indent. */
function lineOf(n: OutlineNode): string {
  if (n.checked === 1) return `[x] ${n.content}`;
  const plain = n.content !== '' && !/^\s/.test(n.content) && !MARKER.test(n.content);
  return plain ? n.content : `[ ] ${n.content}`;
}

const byPosition = (nodes: readonly OutlineNode[]): OutlineNode[] => [...nodes].sort((a, b) => a.position - b.position);

/** Whether every item can be written on a line of its own (an app may have put a line break in one). */
export function writable(nodes: readonly OutlineNode[]): boolean {
  return nodes.every((n) => !/[\r\n]/.test(n.content) && writable(n.children));
}

/** The tree as text, items in their places. */
export function outlineText(nodes: readonly OutlineNode[]): string {
  const lines: string[] = [];
  const walk = (level: readonly OutlineNode[], depth: number): void => {
    for (const n of byPosition(level)) {
      lines.push(INDENT.repeat(depth) + lineOf(n));
      walk(n.children, depth + 1);
    }
  };
  walk(nodes, 0);
  return lines.join('\n');
}

/** A node as outlines/add and edit take it. */
export interface SentNode {
  id?: number;
  content: string;
  checked: number;
  children: SentNode[];
}

/** Every node of a tree, in the order the text lists them. */
function flat(nodes: readonly OutlineNode[]): OutlineNode[] {
  return byPosition(nodes).flatMap((n) => [n, ...flat(n.children)]);
}

/**
 * The nodes of a typed text: blank lines (only spaces) left out, each line a child of the nearest
 * line above it that is less indented (a tab counts as two spaces). Each item takes the id of an
 * item of `before` with the same text, the next one not yet taken after the last one matched
 * (then any one not yet taken), so that items edited, moved or added get an id of their own and
 * the others keep theirs.
 */
export function nodesOfText(text: string, before: readonly OutlineNode[] = []): SentNode[] {
  const old = flat(before);
  const taken = new Set<number>();
  let after = 0;
  const idFor = (content: string): number | undefined => {
    const find = (from: number, to: number): number => {
      for (let i = from; i < to; i++) if (!taken.has(i) && old[i]?.content === content) return i;
      return -1;
    };
    let at = find(after, old.length);
    if (at < 0) at = find(0, after);
    if (at < 0) return undefined;
    taken.add(at);
    after = at + 1;
    return old[at]?.id;
  };
  const top: SentNode[] = [];
  // The open items, deepest last, each with its indent.
  const open: Array<{ indent: number; node: SentNode }> = [];
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (raw.trim() === '') continue;
    const lead = /^[ \t]*/.exec(raw)?.[0] ?? '';
    const indent = lead.replace(/\t/g, INDENT).length;
    let rest = raw.slice(lead.length);
    let checked = 0;
    const marker = MARKER.exec(rest);
    if (marker) {
      checked = marker[1] === ' ' ? 0 : 1;
      rest = rest.slice(marker[0].length);
    }
    const id = idFor(rest);
    const node: SentNode = { ...(id !== undefined && { id }), content: rest, checked, children: [] };
    while (open.length > 0 && (open[open.length - 1]?.indent ?? 0) >= indent) open.pop();
    const parent = open[open.length - 1];
    (parent ? parent.node.children : top).push(node);
    open.push({ indent, node });
  }
  return top;
}
