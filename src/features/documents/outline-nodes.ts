import { randomInt } from 'node:crypto';
import type { OutlineNode } from '../../storage/store.js';
import { isItem, problem, readFlag, readText, type Read } from './document-fields.js';

/**
 * An outline's tree as a client sends it: an array of top-level nodes, or the `nodes` object of a
 * get answer (`{count, updated_at, children}`, of which only `children` is read). Each node has
 * `content` (≤ 150 characters), `checked` (0/1), optionally its `id`, and `children`. The tree's
 * shape is the truth: `parent_id` and `position` are derived from it, whatever the client sent.
 */

export const MAX_CONTENT_CHARS = 150;
/** Nesting deeper than this is refused (813): no outline needs it, and reading it must stay cheap. */
export const MAX_DEPTH = 32;
/** Node ids are positive whole numbers of up to 16 digits that JSON numbers hold exactly. */
const MAX_NODE_ID = Number.MAX_SAFE_INTEGER;
const NEW_ID_MIN = 1_000_000_000_000_000;

export interface NodeTree {
  readonly count: number;
  readonly children: readonly OutlineNode[];
}

type Raw = Readonly<Record<string, unknown>>;

export function readNodes(v: unknown, maxNodes: number): Read<NodeTree> {
  const top = isItem(v) ? v['children'] ?? [] : v;
  if (!Array.isArray(top)) return problem(813, 'Invalid outline format: nodes must be an array of nodes (or an object with children)');
  // First pass: shape, content and the ids the client chose; second pass: ids for new nodes.
  const used = new Set<number>();
  let count = 0;
  const check = (nodes: unknown[], depth: number): Read<null> => {
    if (depth > MAX_DEPTH) return problem(813, `Invalid outline format: nodes nest deeper than ${MAX_DEPTH} levels`);
    for (const node of nodes) {
      if (!isItem(node)) return problem(813, 'Invalid outline format: each node must be a JSON object');
      if (++count > maxNodes) return problem(808, `Max nodes reached: an outline holds at most ${maxNodes} nodes`);
      const id = node['id'];
      if (id !== undefined && id !== null && id !== 0 && id !== '') {
        const n = typeof id === 'number' ? id : typeof id === 'string' && /^\s*\d+\s*$/.test(id) ? Number(id) : NaN;
        if (!Number.isInteger(n) || n < 1 || n > MAX_NODE_ID) return problem(807, `Invalid node id: ${JSON.stringify(id)} is not a whole number from 1 to ${MAX_NODE_ID}`);
        if (used.has(n)) return problem(807, `Invalid node id: ${n} appears twice in the outline`);
        used.add(n);
      }
      const content = readText(node['content'], 'node content', { chars: MAX_CONTENT_CHARS }, 811);
      if ('problem' in content) return content;
      const checked = readFlag(node['checked'] ?? 0, 'node checked', 811);
      if ('problem' in checked) return checked;
      const children = node['children'] ?? [];
      if (!Array.isArray(children)) return problem(813, 'Invalid outline format: a node\'s children must be an array');
      const inner = check(children, depth + 1);
      if ('problem' in inner) return inner;
    }
    return { value: null };
  };
  const checked = check(top, 1);
  if ('problem' in checked) return checked;
  const newId = (): number => {
    let id: number;
    // 16 digits: 10^15 plus up to 2^48 (randomInt's range) times 28, all below 2^53.
    do id = NEW_ID_MIN + randomInt(2 ** 48 - 1) * 28 + randomInt(28);
    while (used.has(id));
    used.add(id);
    return id;
  };
  const build = (nodes: readonly Raw[], parent: number): OutlineNode[] =>
    nodes.map((node, i) => {
      const sent = node['id'];
      const id = sent === undefined || sent === null || sent === 0 || sent === '' ? newId() : Number(sent);
      return {
        id,
        parent_id: parent,
        content: (readText(node['content'], '', {}, 811) as { value: string }).value,
        checked: (readFlag(node['checked'] ?? 0, '', 811) as { value: number }).value,
        position: i + 1,
        children: build((node['children'] ?? []) as Raw[], id),
      };
    });
  return { value: { count, children: build(top as Raw[], 0) } };
}
