import type { Repos, Share, ShareMember, Task } from '../../storage/store.js';
import type { OtherAccounts } from './other-accounts.js';

/**
 * Joint tasks (docs/decisions/0015): every participant holds a copy in their own account, with
 * their own id, folder, context, goal, location, parent, reminder, meta and links; the fields
 * below are the task itself and are the same in every copy. An edit by anyone writes them to
 * every copy, each stamped with its own account's edit stamp, so each participant's sync (the
 * spec's recipe, unchanged) fetches it.
 */
export const JOINT_FIELDS = [
  'title', 'tag', 'duedate', 'duedatemod', 'startdate', 'duetime', 'starttime', 'repeat', 'repeatIndex',
  'status', 'length', 'priority', 'star', 'completed', 'note', 'timer', 'timeron',
] as const satisfies ReadonlyArray<keyof Task>;

type JointPart = Pick<Task, (typeof JOINT_FIELDS)[number]>;

export function jointPart(t: Task): JointPart {
  const out: Record<string, unknown> = {};
  for (const f of JOINT_FIELDS) out[f] = t[f];
  return out as unknown as JointPart;
}

export function jointChanged(a: Task, b: Task): boolean {
  return JOINT_FIELDS.some((f) => a[f] !== b[f]);
}

/** Writes the joint fields of `source` to every other copy of the share. */
export async function copyToOthers(tx: Repos, others: OtherAccounts, share: Share, from: ShareMember, source: Task): Promise<void> {
  const joint = jointPart(source);
  for (const m of share.members) {
    if (m.userPk === from.userPk) continue;
    const copy = await tx.tasks.get(m.userPk, m.taskId);
    if (!copy) continue;
    await tx.tasks.update(m.userPk, { ...copy, ...joint, modified: await others.stamp(m.userPk, 'lastedit_task') });
  }
}

/** Stamps every copy except `except`'s as edited (its shared, sharedowner or sharedwith changed). */
export async function restampCopies(tx: Repos, others: OtherAccounts, members: readonly ShareMember[], except?: number): Promise<void> {
  for (const m of members) {
    if (m.userPk === except) continue;
    const copy = await tx.tasks.get(m.userPk, m.taskId);
    if (copy) await tx.tasks.update(m.userPk, { ...copy, modified: await others.stamp(m.userPk, 'lastedit_task') });
  }
}

/**
 * Deletes a participant's copy (with the subtasks they filed under it) through their deleted-task
 * list, stamped with their own delete stamp.
 */
export async function deleteCopy(tx: Repos, others: OtherAccounts, m: ShareMember): Promise<void> {
  if (!(await tx.tasks.get(m.userPk, m.taskId))) return;
  const ids = [m.taskId, ...(await tx.tasks.childIds(m.userPk, m.taskId))];
  await tx.tasks.remove(m.userPk, ids, await others.stamp(m.userPk, 'lastdelete_task'));
}

/**
 * A copy is being deleted by its holder. The owner's deletion deletes every copy; anyone else's
 * only takes them out of the share (they cannot delete other people's tasks), and the rest see
 * their `sharedwith` change. A share left with its owner alone ends. Call before removing the
 * holder's own copy; returns nothing to do for the caller but that removal.
 */
export async function leaveOnDelete(tx: Repos, others: OtherAccounts, share: Share, holder: ShareMember): Promise<void> {
  if (holder.userPk === share.ownerPk) {
    for (const m of share.members) if (m.userPk !== holder.userPk) await deleteCopy(tx, others, m);
    return;
  }
  await tx.sharing.removeMember(holder);
  const rest = share.members.filter((m) => m.userPk !== holder.userPk);
  await endIfAlone(tx, others, share, rest);
}

/** After a membership change: stamps the remaining copies, and ends a share its owner holds alone. */
export async function endIfAlone(tx: Repos, others: OtherAccounts, share: Share, rest: readonly ShareMember[]): Promise<void> {
  if (rest.length <= 1) {
    for (const m of rest) await tx.sharing.removeMember(m);
    const owner = share.members.find((m) => m.userPk === share.ownerPk);
    if (owner) await dropShare(tx, owner);
  }
  await restampCopies(tx, others, rest);
}

/** The owner's share row goes once nobody else holds a copy (the owner's copy stays). */
async function dropShare(tx: Repos, owner: ShareMember): Promise<void> {
  await tx.sharing.dropShare(owner.userPk, owner.taskId);
}
