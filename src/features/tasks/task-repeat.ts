import type { ItemError } from '../../errors.js';
import { nextOccurrence, parseRepeat } from '../../repeat/index.js';
import type { Task } from '../../storage/store.js';
import { editStamp, markParentChanged, reserveTask, type WriteContext } from './task-write-context.js';

/**
 * Completion of a repeating task with `reschedule` (spec 3, 4.3; docs/repeat.md):
 * - the task keeps its id and stays open, its due date moved to the next occurrence of its rule
 *   (its start date keeps the same distance; floating times keep their clock time);
 * - a completed copy is added with a new id and `previous` = the task's id; the copy does not
 *   repeat (it is history, and completing it again must not start a second series);
 * - subtasks whose repeat is PARENT reopen and move by the same distance;
 * - without a due date, a rule the engine understands, or a next occurrence (COUNT, UNTIL), the
 *   completion just completes.
 * Returns the task to store, or an item error (decided before anything is written) that fails
 * just this item.
 */
export async function repeatCompletion(ctx: WriteContext, before: Task, after: Task, reschedule: boolean): Promise<Task | ItemError> {
  if (!reschedule || after.duedate === 0) return after;
  const spec = parseRepeat(after.repeat);
  if (spec.kind !== 'rule') return after;
  const next = nextOccurrence(spec, { due: after.duedate, completed: after.completed, now: ctx.now, occurrence: after.repeatIndex });
  if (next.kind !== 'next') return after;

  const { pk } = ctx.account;
  // The completed copy is a new task: past the account's limit the item fails and nothing changes.
  const full = await reserveTask(ctx);
  if (full) return full;
  const modified = await editStamp(ctx);
  const copyId = await ctx.tx.accounts.allocateIds(pk, 'task', 1);
  const copy: Task = {
    ...after,
    id: copyId,
    repeat: '',
    repeatIndex: 1,
    // After every sibling, and after the task itself when this same edit moved it to the parent.
    ord: after.parent === 0 ? 0 : Math.max(await ctx.tx.tasks.nextOrder(pk, after.parent), after.ord + 1),
    previous: before.id,
    modified,
  };
  await ctx.tx.tasks.insert(pk, copy);
  // A completed subtask copy is one more child: its parent's `children` count changed.
  await markParentChanged(ctx, copy.parent);

  const shift = next.due - after.duedate;
  await moveParentSubtasks(ctx, before.id, shift, modified);
  return {
    ...after,
    duedate: next.due,
    startdate: after.startdate === 0 ? 0 : after.startdate + shift,
    completed: 0,
    repeatIndex: next.occurrence,
  };
}

/** Subtasks that repeat with their parent (`PARENT`) reopen and move as the parent moved. */
async function moveParentSubtasks(ctx: WriteContext, parentId: number, shift: number, modified: number): Promise<void> {
  const { pk } = ctx.account;
  for (const id of await ctx.tx.tasks.childIds(pk, parentId)) {
    const sub = await ctx.tx.tasks.get(pk, id);
    if (!sub || parseRepeat(sub.repeat).kind !== 'parent') continue;
    const moved = {
      completed: 0,
      duedate: sub.duedate === 0 ? 0 : sub.duedate + shift,
      startdate: sub.startdate === 0 ? 0 : sub.startdate + shift,
    };
    // Unchanged subtasks keep their stamp: a needless change would make every client fetch them.
    if (moved.completed === sub.completed && moved.duedate === sub.duedate && moved.startdate === sub.startdate) continue;
    await ctx.tx.tasks.update(pk, { ...sub, ...moved, modified });
  }
}
