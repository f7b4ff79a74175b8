import type { Deps } from '../../deps.js';
import type { Row } from '../../features/organizers/organizer-fields.js';
import type { Usage, WebKind } from './organize-kinds.js';

/**
 * What points at each record of a kind, counted in a few grouped reads (not one per record): the
 * tasks (tasks.countByReference), for folders the notes filed in them, for goals the goals that
 * contribute to them. The list page shows the task counts; the delete and archive pages say what
 * the change will touch before it is made.
 */
export async function usageOf(deps: Deps, userPk: number, kind: WebKind, rows: readonly Row[]): Promise<(id: number) => Usage> {
  const read = deps.store.read;
  const [tasks, notes] = await Promise.all([
    read.tasks.countByReference(userPk, kind.spec.kind),
    kind.spec.kind === 'folder' ? read.documents.countByFolder(userPk) : Promise.resolve(new Map<number, number>()),
  ]);
  const contributors = new Map<number, number>();
  if (kind.spec.kind === 'goal') {
    for (const row of rows) {
      const target = row['contributes'];
      if (typeof target === 'number' && target !== 0) contributors.set(target, (contributors.get(target) ?? 0) + 1);
    }
  }
  return (id) => ({ tasks: tasks.get(id) ?? 0, notes: notes.get(id) ?? 0, contributors: contributors.get(id) ?? 0 });
}
