import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { classifyId } from '../../http/params.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import type { Collaboration, ListedTask, Repos, Share, ShareMember, Task } from '../../storage/store.js';
import { LIMITS, noonOf } from '../tasks/task-rules.js';
import { deleteStamp, editStamp, markParentChanged, type WriteContext } from '../tasks/task-write-context.js';
import { writeCall } from '../tasks/tasks.write.js';
import { deleteCopy, endIfAlone, jointPart, restampCopies } from './joint-tasks.js';

/**
 * tasks/share.php (docs/sharing.md, docs/decisions/0015): the owner sets who holds a copy of a
 * task. Each userid must be an accepted collaborator who lets the owner share with them (615).
 * 616: someone else's joint task (only its owner changes the sharing), a task in a private folder,
 * or a participant whose account is full. 617: below SHARING_MIN_PRO.
 */
export async function shareTask(deps: Deps, auth: AuthContext, rawId: unknown, rawWith: unknown): Promise<ListedTask> {
  const userids = readUserids(rawWith);
  return writeCall(deps, auth, async (ctx) => {
    requirePro(ctx);
    const task = await ownTask(ctx, rawId);
    const share = await ctx.tx.sharing.shareOf(ctx.account.pk, task.id);
    if (share && share.ownerPk !== ctx.account.pk) throw new ApiError(616, { desc: 'Unable to share: only the owner of a joint task changes who shares it' });
    await refuseWhenPrivate(ctx.tx, ctx.account.pk, task);
    const wanted = new Map<number, Collaboration>();
    for (const userid of userids) {
      const c = await collaboratorOf(ctx, userid);
      if (!c.otherAllowsShare) throw new ApiError(616, { desc: `Unable to share: ${userid} does not accept shared tasks from you` });
      wanted.set(c.otherPk, c);
    }
    const me: ShareMember = { userPk: ctx.account.pk, taskId: task.id };
    const current = share?.members.filter((m) => m.userPk !== me.userPk) ?? [];
    const leaving = current.filter((m) => !wanted.has(m.userPk));
    const joining = [...wanted.keys()].filter((pk) => !current.some((m) => m.userPk === pk));
    if (leaving.length === 0 && joining.length === 0) return { ...task, children: 0, meta: null, sharing: await sharingOf(ctx, task.id) };

    const sharePk = share?.pk ?? (await ctx.tx.sharing.createShare(me.userPk, me.taskId));
    for (const m of leaving) {
      await ctx.tx.sharing.removeMember(m);
      await deleteCopy(ctx.tx, ctx.others, m);
    }
    const joined: ShareMember[] = [];
    for (const pk of joining) {
      const copy = await newCopy(ctx, pk, task);
      await ctx.tx.sharing.addMember(sharePk, copy);
      joined.push(copy);
    }
    const stayed = current.filter((m) => wanted.has(m.userPk));
    const after: Share = { pk: sharePk, ownerPk: me.userPk, members: [me, ...stayed, ...joined] };
    // Everyone who stays sees sharedwith change; a share left with its owner alone ends.
    if (after.members.length <= 1) await endIfAlone(ctx.tx, ctx.others, after, after.members);
    else await restampCopies(ctx.tx, ctx.others, stayed);
    const mine = { ...task, modified: await editStamp(ctx) };
    await ctx.tx.tasks.update(me.userPk, mine);
    return { ...mine, children: 0, meta: null, sharing: await sharingOf(ctx, task.id) };
  }, { partners: true });
}

/**
 * tasks/reassign.php: hands a task, with its subtasks, to a collaborator who lets the caller
 * reassign to them. It leaves the caller's list through the deleted list and appears in theirs
 * with addedby set. A joint task cannot be reassigned (616: unshare it first).
 */
export async function reassignTask(deps: Deps, auth: AuthContext, rawId: unknown, rawTo: unknown): Promise<{ id: number; assigned: string }> {
  if (typeof rawTo !== 'string' || rawTo.trim() === '') throw new ApiError(615, { desc: 'Invalid collaborator: assign must be a user id' });
  return writeCall(deps, auth, async (ctx) => {
    requirePro(ctx);
    const task = await ownTask(ctx, rawId);
    const c = await collaboratorOf(ctx, rawTo.trim());
    if (!c.otherAllowsReassign) throw new ApiError(616, { desc: `Unable to reassign: ${c.otherUserid} does not accept reassigned tasks from you` });
    await refuseWhenPrivate(ctx.tx, ctx.account.pk, task);
    const childIds = task.parent === 0 ? await ctx.tx.tasks.childIds(ctx.account.pk, task.id) : [];
    const moving: Task[] = [task];
    for (const id of childIds) moving.push((await ctx.tx.tasks.get(ctx.account.pk, id)) as Task);
    for (const t of moving) {
      if (await ctx.tx.sharing.shareOf(ctx.account.pk, t.id)) throw new ApiError(616, { desc: 'Unable to reassign a joint task (or one with a joint subtask): end the sharing first' });
    }
    await ctx.others.lock(c.otherPk);
    if ((await ctx.tx.tasks.count(c.otherPk)) + moving.length > LIMITS.tasksPerAccount) throw new ApiError(616, { desc: "Unable to reassign: the collaborator's account is full" });

    // Their copies: new ids in their account, none of the caller's folders, contexts, goals,
    // locations, meta or links (records they cannot see); subtasks stay under the moved parent.
    const first = await ctx.tx.accounts.allocateIds(c.otherPk, 'task', moving.length);
    const stamp = await ctx.others.stamp(c.otherPk, 'lastedit_task');
    const idMap = new Map(moving.map((t, i) => [t.id, first + i]));
    const copies = moving.map((t) => ({
      ...personalReset(t),
      id: idMap.get(t.id) as number,
      parent: t.id === task.id ? 0 : (idMap.get(t.parent) ?? 0),
      ord: t.id === task.id ? 0 : t.ord,
      modified: stamp,
    }));
    await ctx.tx.tasks.insertMany(c.otherPk, copies);
    for (const copy of copies) await ctx.tx.sharing.setAddedBy(c.otherPk, copy.id, ctx.account.pk);

    await ctx.tx.tasks.remove(ctx.account.pk, moving.map((t) => t.id), await deleteStamp(ctx));
    if (task.parent !== 0) await markParentChanged(ctx, task.parent);
    return { id: task.id, assigned: c.otherUserid };
  }, { partners: true });
}

function requirePro(ctx: WriteContext): void {
  if (ctx.account.pro < ctx.sharingMinPro) {
    throw new ApiError(617, { desc: `This feature requires a subscription: sharing and reassigning need pro ${ctx.sharingMinPro}` });
  }
}

async function ownTask(ctx: WriteContext, rawId: unknown): Promise<Task> {
  const id = classifyId(rawId);
  if (typeof id !== 'number') throw new ApiError(id === 'none' ? 604 : 605);
  const task = await ctx.tx.tasks.get(ctx.account.pk, id);
  if (!task) throw new ApiError(605, { desc: `Invalid task id: ${id}` });
  return task;
}

/** An accepted collaborator by user id (615 otherwise, the same answer for an unknown account). */
async function collaboratorOf(ctx: WriteContext, userid: string): Promise<Collaboration> {
  const pk = await ctx.tx.accounts.pkByUserid(userid);
  const c = pk === null || pk === ctx.account.pk ? null : await ctx.tx.sharing.collaboration(ctx.account.pk, pk);
  if (!c || c.state !== 'accepted') throw new ApiError(615, { desc: `Invalid collaborator: ${userid}` });
  return c;
}

async function refuseWhenPrivate(tx: Repos, userPk: number, task: Task): Promise<void> {
  if (task.folder === 0) return;
  const folder = await tx.organizers.get(userPk, 'folder', task.folder);
  if (folder && folder.private === 1) throw new ApiError(616, { desc: 'Unable to reassign or share a task in a private folder' });
}

/** The list of userids of share.php: a JSON array (or one id), text or numbers; 611 otherwise. */
function readUserids(raw: unknown): string[] {
  let value = raw;
  if (typeof raw === 'string') {
    const text = raw.trim();
    if (text.startsWith('[')) {
      try {
        value = JSON.parse(text) as unknown;
      } catch {
        throw new ApiError(611, { desc: 'Malformed request: share must be a JSON array of user ids' });
      }
    } else value = text === '' ? [] : [text];
  } else if (raw === undefined) throw new ApiError(611, { desc: 'Malformed request: share is missing' });
  if (!Array.isArray(value) || value.length > 50 || !value.every((v) => typeof v === 'string' || typeof v === 'number')) {
    throw new ApiError(611, { desc: 'Malformed request: share must be a JSON array of at most 50 user ids' });
  }
  return [...new Set(value.map((v) => String(v).trim()))];
}

/** A task as another account receives it: the joint part, none of the giver's own records. */
function personalReset(t: Task): Task {
  return { ...t, folder: 0, context: 0, goal: 0, location: 0, previous: 0, remind: 0 };
}

async function newCopy(ctx: WriteContext, userPk: number, task: Task): Promise<ShareMember> {
  await ctx.others.lock(userPk);
  if ((await ctx.tx.tasks.count(userPk)) >= LIMITS.tasksPerAccount) throw new ApiError(616, { desc: "Unable to share: a collaborator's account is full" });
  const id = await ctx.tx.accounts.allocateIds(userPk, 'task', 1);
  const copy: Task = {
    ...personalReset(task),
    ...jointPart(task),
    id,
    parent: 0,
    ord: 0,
    added: noonOf(ctx.now),
    modified: await ctx.others.stamp(userPk, 'lastedit_task'),
  };
  await ctx.tx.tasks.insert(userPk, copy);
  return { userPk, taskId: id };
}

async function sharingOf(ctx: WriteContext, taskId: number) {
  return (await ctx.tx.sharing.forTasks(ctx.account.pk, [taskId])).get(taskId);
}
