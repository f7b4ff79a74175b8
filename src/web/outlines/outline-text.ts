import { MAX_CONTENT_CHARS, MAX_DEPTH } from '../../features/documents/outline-nodes.js';
import { storedLines } from '../forms.js';
import { textLength } from '../../lib/text.js';
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
 * The ids of a stored tree, handed out by text: each item typed takes the id of the first stored
 * item not yet taken with the same text and checked flag, else with the same text, else none (a
 * new item). Two items of the same text that swap places keep their ids and flags; an item
 * edited is new. Each stored item is looked at a bounded number of times: linear in the items.
 */
class IdsByText {
  /** Ids in the tree's order, and how many of them have been looked at (a queue that only advances). */
  private readonly exact = new Map<string, { ids: number[]; at: number }>();
  private readonly byText = new Map<string, { ids: number[]; at: number }>();
  private readonly taken = new Set<number>();

  constructor(before: readonly OutlineNode[]) {
    for (const n of flat(before)) {
      this.queue(this.exact, `${n.checked}\u0000${n.content}`).ids.push(n.id);
      this.queue(this.byText, n.content).ids.push(n.id);
    }
  }

  private queue(map: Map<string, { ids: number[]; at: number }>, key: string): { ids: number[]; at: number } {
    let q = map.get(key);
    if (!q) map.set(key, (q = { ids: [], at: 0 }));
    return q;
  }

  /** The first id of a queue not yet taken, taken. */
  private take(q: { ids: number[]; at: number } | undefined): number | undefined {
    while (q && q.at < q.ids.length) {
      const id = q.ids[q.at++] as number;
      if (!this.taken.has(id)) {
        this.taken.add(id);
        return id;
      }
    }
    return undefined;
  }

  idFor(content: string, checked: number): number | undefined {
    return this.take(this.exact.get(`${checked}\u0000${content}`)) ?? this.take(this.byText.get(content));
  }
}

/** Why a text is not an outline, with the line it is about (counted from 1): the API's codes and limits. */
export interface TextProblem {
  readonly code: number;
  readonly message: string;
}

/**
 * The nodes of a typed text: blank lines (only spaces) left out, each line a child of the nearest
 * line above it that is less indented (a tab counts as two spaces); ids from `before` (IdsByText).
 * Refused, naming the line, as the API would refuse the nodes (outline-nodes.ts): more than
 * `most` items (808), an item longer than its limit (811), deeper than its levels (813). Reading
 * stops at the first: a post of megabytes of lines costs one pass, not a tree of them.
 */
export function nodesOfText(text: string, before: readonly OutlineNode[] = [], most = Number.MAX_SAFE_INTEGER): SentNode[] | TextProblem {
  const ids = new IdsByText(before);
  const top: SentNode[] = [];
  // The open items, deepest last, each with its indent.
  const open: Array<{ indent: number; node: SentNode }> = [];
  let count = 0;
  let line = 0;
  for (const raw of storedLines(text).split('\n')) {
    line++;
    if (raw.trim() === '') continue;
    if (++count > most) return { code: 808, message: `Max nodes reached: an outline holds at most ${most} items (line ${line} is item ${count})` };
    const lead = /^[ \t]*/.exec(raw)?.[0] ?? '';
    const indent = lead.replace(/\t/g, INDENT).length;
    let rest = raw.slice(lead.length);
    let checked = 0;
    const marker = MARKER.exec(rest);
    if (marker) {
      checked = marker[1] === ' ' ? 0 : 1;
      rest = rest.slice(marker[0].length);
    }
    if (textLength(rest) > MAX_CONTENT_CHARS) return { code: 811, message: `Line ${line} is longer than ${MAX_CONTENT_CHARS} characters, the most an item holds` };
    const id = ids.idFor(rest, checked);
    const node: SentNode = { ...(id !== undefined && { id }), content: rest, checked, children: [] };
    while (open.length > 0 && (open[open.length - 1]?.indent ?? 0) >= indent) open.pop();
    if (open.length >= MAX_DEPTH) return { code: 813, message: `Line ${line} is nested deeper than ${MAX_DEPTH} levels, the most an outline holds` };
    const parent = open[open.length - 1];
    (parent ? parent.node.children : top).push(node);
    open.push({ indent, node });
  }
  return top;
}

/** Two trees of items alike in everything but their ids. */
export function sameItems(a: readonly SentNode[], b: readonly SentNode[]): boolean {
  const bare = (nodes: readonly SentNode[]): unknown[] => nodes.map((n) => [n.content, n.checked, bare(n.children)]);
  return JSON.stringify(bare(a)) === JSON.stringify(bare(b));
}

/** A stored tree as the items outlines/add and edit take (ids kept). */
export function sentNodes(nodes: readonly OutlineNode[]): SentNode[] {
  return byPosition(nodes).map((n) => ({ id: n.id, content: n.content, checked: n.checked, children: sentNodes(n.children) }));
}
