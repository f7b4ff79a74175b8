import type { AccountExport } from '../src/features/moving/export.service.js';

/**
 * An export document without what differs by nature between two accounts holding the same data:
 * ids (each becomes its order of appearance in its kind, so that references compare too), change
 * stamps, the export's time, the account itself. Two accounts with equal data give equal results.
 */
export function comparableExport(doc: AccountExport): unknown {
  const seen = new Map<string, number>();
  const id = (kind: string, v: unknown): unknown => {
    if (v === 0 || v === '0' || v === undefined) return v;
    const key = `${kind}:${String(v)}`;
    if (!seen.has(key)) seen.set(key, seen.size + 1);
    return seen.get(key);
  };
  const drop = ({ modified: _m, exported: _e, ...r }: Record<string, unknown>) => r;
  // Outlines, lists and rows have random ids, so an export lists them in no meaningful order: they
  // are put in the order of their contents first (ids and stamps aside).
  const byContent = <T extends Record<string, unknown>>(records: readonly T[]): T[] =>
    [...records].sort((x, y) => {
      const [a, b] = [x, y].map(({ id: _i, modified: _m, ...rest }) => JSON.stringify(rest));
      return (a as string) < (b as string) ? -1 : a === b ? 0 : 1;
    });
  const outlines = byContent(doc.outlines).map((r) => drop({ ...r, id: id('outline', r['id']), nodes: { ...(r['nodes'] as object), updated_at: 0 } }));
  const lists = byContent(doc.lists).map((r) => drop({ ...r, id: id('list', r['id']) }));
  const rows = byContent(doc.rows.map((r): Record<string, unknown> => ({ ...r, list: id('list', r['list']) }))).map((r) => drop({ ...r, id: id('row', r['id']) }));
  return {
    folders: doc.folders.map((r) => ({ ...r, id: id('folder', r['id']) })),
    goals: doc.goals.map((r) => ({ ...r, id: id('goal', r['id']), contributes: id('goal', r['contributes']) })),
    contexts: doc.contexts.map((r) => ({ ...r, id: id('context', r['id']) })),
    locations: doc.locations.map((r) => ({ ...r, id: id('location', r['id']) })),
    notes: doc.notes.map((r) => drop({ ...r, id: id('note', r['id']), folder: id('folder', r['folder']) })),
    outlines,
    lists,
    rows,
    tasks: doc.tasks.map((r) =>
      drop({
        ...r,
        id: id('task', r['id']),
        parent: id('task', r['parent']),
        previous: id('task', r['previous']),
        folder: id('folder', r['folder']),
        context: id('context', r['context']),
        goal: id('goal', r['goal']),
        location: id('location', r['location']),
        attachment: ((r['attachment'] as Array<{ id: unknown; kind: string }> | undefined) ?? []).map((a) => ({ ...a, id: id(a.kind, a.id) })),
      }),
    ),
  };
}
