import type { Deps } from '../../deps.js';
import { itemError, type ItemError } from '../../errors.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import type { Task } from '../../storage/store.js';
import { editStamp } from './task-write-context.js';
import { writeCall } from './tasks.write.js';

/**
 * Moves a subtask one place up or down among its siblings (the `order` tasks/get reports). The
 * API has no way to write `order`; the web pages reorder through this service, so the rule lives
 * here with the other task rules. The siblings are numbered 1…n again in their new order, and
 * every one whose position changed is an edit (a new stamp), so apps fetch them on their next sync.
 */
export async function moveSubtask(deps: Deps, auth: AuthContext, id: number, direction: 'up' | 'down'): Promise<{ task: Task } | ItemError> {
  return writeCall(deps, auth, async (ctx) => {
    const { tx, account } = ctx;
    const task = await tx.tasks.get(account.pk, id);
    if (!task) return itemError(605, String(id));
    if (task.parent === 0) return itemError(612, String(id), 'Invalid parent id: only subtasks have an order');
    const siblings: Task[] = [];
    for (const sibling of await tx.tasks.childIds(account.pk, task.parent)) {
      const t = await tx.tasks.get(account.pk, sibling);
      if (t) siblings.push(t);
    }
    siblings.sort((a, b) => a.ord - b.ord || a.id - b.id);
    const at = siblings.findIndex((t) => t.id === id);
    const to = direction === 'up' ? at - 1 : at + 1;
    if (to < 0 || to >= siblings.length) return { task };
    [siblings[at], siblings[to]] = [siblings[to] as Task, siblings[at] as Task];
    let moved = task;
    for (const [i, t] of siblings.entries()) {
      if (t.ord === i + 1) continue;
      const next = { ...t, ord: i + 1, modified: await editStamp(ctx) };
      await tx.tasks.update(account.pk, next);
      if (next.id === id) moved = next;
    }
    return { task: moved };
  });
}
