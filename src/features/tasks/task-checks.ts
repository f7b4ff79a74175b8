import type { ErrorCode } from '../../errors.js';
import type { Account, OrganizerKind, Repos, Task, TaskReference } from '../../storage/store.js';
import type { InputError, TaskPatch } from './task-input.js';

const REFERENCES: ReadonlyArray<readonly [TaskReference, OrganizerKind, ErrorCode]> = [
  ['folder', 'folder', 607],
  ['context', 'context', 608],
  ['goal', 'goal', 609],
  ['location', 'location', 610],
];

/**
 * Rules that need the database, checked inside the writing transaction so that nothing can change
 * between the check and the write. `current` is the task being edited (null on add). A reference
 * left as it was is not checked again. 0 always means "none" and is always valid.
 */
export async function checkReferences(
  tx: Repos,
  account: Account,
  patch: TaskPatch,
  current: Task | null,
): Promise<InputError | undefined> {
  for (const [field, kind, code] of REFERENCES) {
    const id = patch[field];
    if (id === undefined || id === 0 || current?.[field] === id) continue;
    // Archived folders and goals stay valid targets: archiving hides, it does not delete.
    if (!(await tx.organizers.exists(account.pk, kind, id))) return { code, desc: `Invalid ${field} id: ${id}` };
  }
  const parentProblem = await checkParent(tx, account, patch.parent, current);
  if (parentProblem) return parentProblem;
  if (patch.addedby !== undefined && patch.addedby !== account.userid) {
    // addedby is read-only in effect: a task reaches another account through tasks/reassign.php,
    // with that account's consent (docs/sharing.md). Another real account is 616, anything else 615.
    const other = await tx.accounts.pkByUserid(patch.addedby);
    return other === null
      ? { code: 615, desc: 'Invalid collaborator' }
      : { code: 616, desc: 'Unable to reassign or share task: use tasks/reassign.php to give a task to a collaborator' };
  }
  return undefined;
}

async function checkParent(tx: Repos, account: Account, parentId: number | undefined, current: Task | null): Promise<InputError | undefined> {
  if (parentId === undefined || parentId === 0 || current?.parent === parentId) return undefined;
  if (account.pro < 1) return { code: 617, desc: 'This feature requires a subscription: subtasks need pro 1 or 2' };
  if (current && parentId === current.id) return { code: 612, desc: 'Invalid parent id: a task cannot be its own parent' };
  if (await tx.tasks.isDeleted(account.pk, parentId)) return { code: 614, desc: `Parent was deleted: ${parentId}` };
  const parent = await tx.tasks.get(account.pk, parentId);
  if (!parent) return { code: 612, desc: `Invalid parent id: ${parentId}` };
  if (parent.parent !== 0) return { code: 612, desc: 'Invalid parent id: the parent is itself a subtask (one level of subtasks only)' };
  if (current && (await tx.tasks.childIds(account.pk, current.id)).length > 0) {
    return { code: 612, desc: 'Invalid parent id: a task with subtasks cannot become a subtask' };
  }
  return undefined;
}
