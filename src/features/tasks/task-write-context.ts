import { itemError, type ItemError } from '../../errors.js';
import type { OtherAccounts } from '../sharing/other-accounts.js';
import type { Account, Repos } from '../../storage/store.js';
import { nextStamp } from '../../lib/clock.js';
import { useTakenIds, type TakenIds } from '../account/account.service.js';
import { LIMITS } from './task-rules.js';

/**
 * State shared by the items of one write call, inside its transaction. The writers (tasks.write.ts)
 * and the completion of repeating tasks (task-repeat.ts) both use it, so it lives apart from both.
 */
export interface WriteContext {
  /** The call's repositories (CallRepos): reads of the tasks prefetched answered from memory, task updates held until needed. */
  readonly tx: Repos;
  /**
   * Reads the tasks and shares of `ids` in one statement each, and the calling app's meta of
   * `metaIds` in one more (CallRepos.prefetch, prefetchMetas), where `tx` keeps them.
   */
  readonly prefetch?: (ids: readonly number[], metaIds?: readonly number[]) => Promise<void>;
  readonly account: Account;
  /** The task ids the call took with its lock (writeCall's `ids`). */
  readonly ids?: TakenIds;
  readonly clientPk: number;
  readonly now: number;
  /** lastedit_task stamp of this call, taken at its first change: every change of the call carries it. */
  editStamp?: number;
  deleteStamp?: number;
  /** Parents already given this call's edit stamp: stamping one again would write the same row. */
  readonly stampedParents: Set<number>;
  /**
   * Tasks the account holds, as its lock read them, kept up to date by reserveTask. Only add and
   * edit calls add tasks (edit: the completed copy of a repeating task).
   */
  taskCount: number;
  /** Stamps of the other participants of joint tasks this call changes (docs/decisions/0015). */
  readonly others: OtherAccounts;
  /** The pro level editing someone else's joint task needs (SHARING_MIN_PRO, error 617). */
  readonly sharingMinPro: number;
}

/** The call's edit stamp, taken at its first change: every change of the call carries it. */
export async function editStamp(ctx: WriteContext): Promise<number> {
  ctx.editStamp ??= (await ctx.tx.accounts.touch(ctx.account.pk, ['lastedit_task'], ctx.now)).lastedit_task as number;
  return ctx.editStamp;
}

/**
 * The stamp and the first id of `count` new tasks, and whether their insert must move the stamp.
 * In a call whose lock took its ids (WriteContext.ids), the ids are that block, whose unused tail
 * goes back, and the insert moves the stamp if the call has not yet (tasks.insertMany's
 * `editStamp`: no statement of its own; the account cache counts on such a lock, see
 * storage/account-cache.ts); the stamp is the one touch() would give, from the account as its
 * lock read it (only a holder of the lock moves it). Otherwise, touch() and a block taken now.
 */
export async function stampAndIdsForAdd(ctx: WriteContext, count: number): Promise<{ stamp: number; first: number; moveStamp: boolean }> {
  if (!ctx.ids) return { stamp: await editStamp(ctx), first: await ctx.tx.accounts.allocateIds(ctx.account.pk, 'task', count), moveStamp: false };
  const moveStamp = ctx.editStamp === undefined;
  const stamp = (ctx.editStamp ??= nextStamp(ctx.account.stamps.lastedit_task, ctx.now));
  return { stamp, first: await useTakenIds(ctx.tx, ctx.account.pk, ctx.ids, count), moveStamp };
}

export async function deleteStamp(ctx: WriteContext): Promise<number> {
  ctx.deleteStamp ??= (await ctx.tx.accounts.touch(ctx.account.pk, ['lastdelete_task'], ctx.now)).lastdelete_task as number;
  return ctx.deleteStamp;
}

/** A parent's `children` count changed: the parent counts as edited, so clients fetch it again. */
export async function markParentChanged(ctx: WriteContext, parentId: number): Promise<void> {
  // Every change of a call carries the same stamp: a parent stamped once in this call is done.
  if (parentId === 0 || ctx.stampedParents.has(parentId)) return;
  const parent = await ctx.tx.tasks.get(ctx.account.pk, parentId);
  if (!parent) return;
  await ctx.tx.tasks.update(ctx.account.pk, { ...parent, modified: await editStamp(ctx) });
  ctx.stampedParents.add(parentId);
}

/**
 * Room for one more task (an added task, or the completed copy of a repeating one): counts it,
 * or returns the 603 item error when the account is full. Call it only right before the insert,
 * once nothing else can refuse the item, or the count runs ahead of the rows.
 */
export async function reserveTask(ctx: WriteContext): Promise<ItemError | undefined> {
  if (ctx.taskCount >= LIMITS.tasksPerAccount) return itemError(603, '');
  ctx.taskCount++;
  return undefined;
}
