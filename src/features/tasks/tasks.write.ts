import { itemError, type ItemError } from '../../errors.js';
import type { Deps } from '../../deps.js';
import { lockAccount, useTakenIds } from '../account/account.service.js';
import { classifyId } from '../../http/params.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import type { IdBlock, ListedTask, Repos, Task } from '../../storage/store.js';
import { applyLinkChanges, checkLinkChanges, readLinkChanges, type LinkChanges } from './task-attachments.js';
import { copyToOthers, jointChanged, leaveOnDelete } from '../sharing/joint-tasks.js';
import { OtherAccounts } from '../sharing/other-accounts.js';
import { CallRepos } from './call-repos.js';
import { checkReferences } from './task-checks.js';
import { parseTaskInput, readIfModified, type TaskPatch } from './task-input.js';
import { repeatCompletion } from './task-repeat.js';
import { noonOf, normalizeRemind } from './task-rules.js';
import { deleteStamp, editStamp, markParentChanged, reserveTask, stampAndIdsForAdd, type WriteContext } from './task-write-context.js';

/** What a write call reports per item: the task as it now is, or an inline error. */
export type WriteResult = { readonly task: ListedTask; readonly ref?: string | number } | ItemError;

/** Which costly parts of ListedTask the caller will show. */
export interface Wanted {
  readonly children: boolean;
  readonly meta: boolean;
  readonly attachment: boolean;
  /** shared, sharedowner, sharedwith or addedby. */
  readonly sharing: boolean;
}

/**
 * Runs a write call (tasks, and sharing: src/features/sharing): one transaction, the account's
 * writers serialised, every item judged on its own. `partners`: the call may write other accounts'
 * copies of joint tasks (edit, delete, share, reassign), so it locks the caller and every account it
 * may reach in one order, by key, before anything else: two calls of two participants then never
 * wait on each other in a cycle (which PostgreSQL would end as a deadlock).
 */
export async function writeCall<T>(
  deps: Deps,
  auth: AuthContext,
  each: (ctx: WriteContext) => Promise<T>,
  options: { partners?: boolean; ids?: IdBlock; before?: BeforeWrite | undefined } = {},
): Promise<T> {
  return deps.store.transaction(async (inner) => {
    const calls = new CallRepos(inner, auth.userPk);
    const tx = calls.tx;
    const others = new OtherAccounts(tx, deps.clock);
    const partners = options.partners ? await tx.sharing.partners(auth.userPk) : [];
    for (const pk of partners) if (pk < auth.userPk) await others.lock(pk);
    const { now, account, taken } = await lockAccount(deps, tx, auth.userPk, options.ids);
    for (const pk of partners) if (pk > auth.userPk) await others.lock(pk);
    others.lockedAlready([auth.userPk]);
    if (options.before) await options.before(tx);
    const result = await each({
      tx,
      prefetch: async (ids, metaIds = []) => {
        await calls.prefetch(ids);
        await calls.prefetchMetas(auth.clientPk, metaIds);
      },
      account,
      ...(taken && { ids: taken }),
      clientPk: auth.clientPk,
      now,
      stampedParents: new Set(),
      taskCount: account.taskCount,
      others,
      sharingMinPro: deps.config.sharingMinPro,
    });
    await calls.flush();
    return result;
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A task a write call shows, with what it already knows of its costly parts. */
interface Shown {
  readonly task: Task;
  /** The meta the item wrote, as the call shows it; undefined: read it. */
  readonly meta?: string | null | undefined;
  /** Known already (0 for a task created a moment ago); undefined: count them. */
  readonly children?: number;
}

/**
 * The tasks a call shows, each with the costly parts wanted, read for all of them at once: one
 * page for the subtask counts and meta still unknown, one read of the links, one of the sharing
 * fields. Read once every item has been written, they show the call's end state.
 */
async function views(ctx: WriteContext, shown: readonly Shown[], wanted: Wanted): Promise<ListedTask[]> {
  const ids = [...new Set(shown.map((s) => s.task.id))];
  const counting = wanted.children && shown.some((s) => s.children === undefined && s.task.parent === 0);
  const reading = wanted.meta && shown.some((s) => s.meta === undefined);
  const listed = new Map<number, ListedTask>();
  if (ids.length > 0 && (counting || reading)) {
    // One more than the ids: a page that holds them all needs no count.
    const page = await ctx.tx.tasks.page(ctx.account.pk, {
      where: { ids },
      start: 0,
      num: ids.length + 1,
      withChildren: counting,
      metaFor: reading ? ctx.clientPk : undefined,
    });
    for (const t of page.tasks) listed.set(t.id, t);
  }
  const links = wanted.attachment && ids.length > 0 ? await ctx.tx.attachments.forTasks(ctx.account.pk, ids) : undefined;
  const sharing = wanted.sharing && ids.length > 0 ? await ctx.tx.sharing.forTasks(ctx.account.pk, ids) : undefined;
  return shown.map(({ task, meta, children }) => {
    const shownMeta = wanted.meta ? (meta !== undefined ? meta : (listed.get(task.id)?.meta ?? null)) : null;
    const shared = sharing?.get(task.id);
    return {
      ...task,
      children: children ?? (wanted.children && task.parent === 0 ? (listed.get(task.id)?.children ?? 0) : 0),
      meta: shownMeta === '' ? null : shownMeta,
      attachment: links?.get(task.id) ?? [],
      ...(shared && { sharing: shared }),
    };
  });
}

function refOf(item: unknown): string | number | undefined {
  if (!isObject(item)) return undefined;
  const ref = item['ref'];
  return typeof ref === 'string' || typeof ref === 'number' ? ref : undefined;
}

/**
 * What a caller of another protocol writes beside the tasks in the same transaction (CalDAV: the
 * calendar object's name and UID), once the items are judged and written: all or none of both.
 */
export type AlsoWrite<R> = (tx: Repos, results: readonly R[]) => Promise<void>;

/**
 * What a caller of another protocol checks in the call's transaction, with the account locked and
 * before anything is written (CalDAV: that the object is still as the request found it, for its
 * If-Match). It throws to write nothing: the transaction is rolled back and the error reaches the
 * caller.
 */
export type BeforeWrite = (tx: Repos) => Promise<void>;

/** The hooks of another protocol's write (CalDAV's): checked before, written beside. */
export interface WriteHooks<R> {
  readonly before?: BeforeWrite | undefined;
  readonly also?: AlsoWrite<R> | undefined;
}

/**
 * tasks/add. Every item is judged first, in order (its own fields, then what the database says of
 * its references, then the account's room); then the good ones are written together: one block of
 * ids, taken with the lock, and one multi-row insert, which moves the stamp. A call of 50 tasks
 * costs a handful of statements instead of two per task (docs/decisions/0007), and ids are still
 * handed out in submission order, to the items that succeed only (the others' go back).
 */
export async function addTasks(deps: Deps, auth: AuthContext, items: readonly unknown[], wanted: Wanted, hooks: WriteHooks<WriteResult> = {}): Promise<WriteResult[]> {
  const { also } = hooks;
  // The call's ids come with its lock, one for each item; those of refused items go back.
  const ids = items.length > 0 ? { kind: 'task' as const, count: items.length } : undefined;
  const add = async (ctx: WriteContext): Promise<WriteResult[]> => {
    const judged: Array<Judged | ItemError> = [];
    for (const item of items) judged.push(await judgeAdd(ctx, item));
    const good = judged.filter((j): j is Judged => !('errorCode' in j));
    if (good.length === 0 && ctx.ids) await useTakenIds(ctx.tx, ctx.account.pk, ctx.ids, 0);
    const written = good.length === 0 ? [] : await insertAdded(ctx, good, wanted);
    let next = 0;
    const results = judged.map((j, i): WriteResult => {
      const ref = refOf(items[i]);
      if ('errorCode' in j) return { ...j, ref: ref ?? '' };
      return { task: written[next++] as ListedTask, ...(ref !== undefined && { ref }) };
    });
    if (also) await also(ctx.tx, results);
    return results;
  };
  return writeCall(deps, auth, add, { ...(ids && { ids }), before: hooks.before });
}

/** What an add item will write: its fields, and the records it links (attach, an addition). */
interface Judged {
  readonly patch: TaskPatch;
  readonly links: LinkChanges | undefined;
}

/** One add item, judged, or its error; an item judged good has room reserved in the account. */
async function judgeAdd(ctx: WriteContext, item: unknown): Promise<Judged | ItemError> {
  if (!isObject(item)) return itemError(611, '', 'Malformed request: each task must be a JSON object');
  const parsed = parseTaskInput(item, 'add');
  if ('error' in parsed) return itemError(parsed.error.code, '', parsed.error.desc);
  const p = parsed.ok.patch;
  const links = readLinkChanges(item);
  if (links && 'code' in links) return itemError(links.code, '', links.desc);
  const problem = (await checkReferences(ctx.tx, ctx.account, p, null)) ?? (links && (await checkLinkChanges(ctx.tx, ctx.account.pk, null, links)));
  if (problem) return itemError(problem.code, '', problem.desc);
  return (await reserveTask(ctx)) ?? { patch: p, links };
}

/** Writes the judged items as new tasks, in order; returns them as the call shows them. */
async function insertAdded(ctx: WriteContext, items: readonly Judged[], wanted: Wanted): Promise<ListedTask[]> {
  const patches = items.map((j) => j.patch);
  const { stamp, first, moveStamp } = await stampAndIdsForAdd(ctx, patches.length);
  // Subtasks of one parent added in one call line up after its last subtask, in order.
  const orders = new Map<number, number>();
  const nextOrder = async (parent: number): Promise<number> => {
    const ord = orders.get(parent) ?? (await ctx.tx.tasks.nextOrder(ctx.account.pk, parent));
    orders.set(parent, ord + 1);
    return ord;
  };
  const tasks: Task[] = [];
  for (const [i, p] of patches.entries()) {
    const parent = p.parent ?? 0;
    tasks.push(newTaskOf(ctx, p, first + i, stamp, parent === 0 ? 0 : await nextOrder(parent)));
  }
  await ctx.tx.tasks.insertMany(ctx.account.pk, tasks, moveStamp ? stamp : undefined);
  const metas = patches.flatMap((p, i) => (p.meta ? [{ taskId: first + i, meta: p.meta }] : []));
  if (metas.length > 0) await ctx.tx.tasks.setMetas(ctx.account.pk, ctx.clientPk, metas);
  for (const [i, j] of items.entries()) if (j.links) await applyLinkChanges(ctx.tx, ctx.account.pk, first + i, j.links);
  for (const parent of orders.keys()) await markParentChanged(ctx, parent);
  return views(ctx, tasks.map((task, i) => ({ task, meta: patches[i]?.meta ?? null, children: 0 })), wanted);
}

function newTaskOf(ctx: WriteContext, p: TaskPatch, id: number, stamp: number, ord: number): Task {
  return {
    id,
    title: p.title as string,
    tag: p.tag ?? '',
    folder: p.folder ?? 0,
    context: p.context ?? 0,
    goal: p.goal ?? 0,
    location: p.location ?? 0,
    parent: p.parent ?? 0,
    ord,
    duedate: p.duedate ?? 0,
    duedatemod: p.duedatemod ?? 0,
    startdate: p.startdate ?? 0,
    duetime: p.duetime ?? null,
    starttime: p.starttime ?? null,
    remind: normalizeRemind(p.remind ?? 0, ctx.account.pro),
    repeat: p.repeat ?? '',
    repeatIndex: 1,
    status: p.status ?? 0,
    length: p.length ?? 0,
    priority: p.priority ?? 0,
    star: p.star ?? 0,
    modified: stamp,
    completed: p.completed ?? 0,
    added: noonOf(ctx.now),
    timer: 0,
    timeron: 0,
    note: p.note ?? '',
    previous: 0,
    // Tasks created through the API (spec 2.1: 3 = this API).
    via: 3,
  };
}

/**
 * The ref of an error about an id: the id as text, whatever type the client sent it as, as the
 * hosted service's documentation shows it ("ref":"5678"): one array never mixes numbers and
 * strings (docs/api-notes.md). A value that is not a number or text (an object) has ref "".
 */
export function idRef(raw: unknown): string {
  return typeof raw === 'number' || typeof raw === 'string' ? String(raw) : '';
}

/**
 * An id as clients send it (5, "5", 5.0): 604 when empty or 0, 605 when it cannot be an id (a
 * fraction, a boolean, past the largest id): reading `true` as 1 would act on another task.
 */
export function readId(raw: unknown): { id: number } | ItemError {
  const id = classifyId(raw);
  if (id === 'none') return itemError(604, idRef(raw));
  if (id === 'invalid') return itemError(605, idRef(raw));
  return { id };
}

/** The fields an edit may change, compared to decide whether anything really changed. */
const EDITABLE: ReadonlyArray<keyof Task> = [
  'title', 'tag', 'folder', 'context', 'goal', 'location', 'parent', 'duedate', 'duedatemod', 'startdate',
  'duetime', 'starttime', 'remind', 'repeat', 'status', 'length', 'priority', 'star', 'completed', 'note',
];

export async function editTasks(
  deps: Deps,
  auth: AuthContext,
  items: readonly unknown[],
  options: { wanted: Wanted; reschedule: boolean } & WriteHooks<WriteResult>,
): Promise<WriteResult[]> {
  return writeCall(deps, auth, async (ctx) => {
    await ctx.prefetch?.(
      items.flatMap((item) => idOf(isObject(item) ? item['id'] : undefined)),
      items.flatMap((item) => (isObject(item) && Object.hasOwn(item, 'meta') ? idOf(item['id']) : [])),
    );
    const edited: Array<Shown | ItemError> = [];
    for (const item of items) edited.push(await editOne(ctx, item, options));
    // Shown once every item is written (views): the parts of a task two items edit show the end state.
    const shown = await views(ctx, edited.filter((e): e is Shown => !('errorCode' in e)), options.wanted);
    let next = 0;
    const results = edited.map((e): WriteResult => ('errorCode' in e ? e : { task: shown[next++] as ListedTask }));
    if (options.also) await options.also(ctx.tx, results);
    return results;
  }, { partners: true, before: options.before });
}

/** The id an item names, when it names one: for prefetching (readId judges it). */
function idOf(raw: unknown): number[] {
  const id = classifyId(raw);
  return typeof id === 'number' ? [id] : [];
}

async function editOne(
  ctx: WriteContext,
  item: unknown,
  options: { wanted: Wanted; reschedule: boolean },
): Promise<Shown | ItemError> {
  if (!isObject(item)) return itemError(611, '', 'Malformed request: each task must be a JSON object');
  const idOrError = readId(item['id']);
  if ('errorCode' in idOrError) return idOrError;
  const { id } = idOrError;
  const current = await ctx.tx.tasks.get(ctx.account.pk, id);
  if (!current) return itemError(605, idRef(id));
  const share = await ctx.tx.sharing.shareOf(ctx.account.pk, id);
  // Only subscribers may edit others' tasks (hosted-resources.md; SHARING_MIN_PRO).
  if (share && share.ownerPk !== ctx.account.pk && ctx.account.pro < ctx.sharingMinPro) {
    return itemError(617, idRef(id), `This feature requires a subscription: editing a task someone shared needs pro ${ctx.sharingMinPro}`);
  }
  // A conditional edit: made on the task as the app last saw it, or refused with nothing of it changed.
  const condition = readIfModified(item);
  if ('error' in condition) return itemError(condition.error.code, idRef(id), condition.error.desc);
  if (condition.since !== undefined && condition.since !== current.modified) {
    return itemError(1106, idRef(id), `The task was changed since if_modified: its modified is ${current.modified}`);
  }
  const parsed = parseTaskInput(item, 'edit');
  if ('error' in parsed) return itemError(parsed.error.code, idRef(id), parsed.error.desc);
  const p: TaskPatch = parsed.ok.patch;
  const links = readLinkChanges(item);
  if (links && 'code' in links) return itemError(links.code, idRef(id), links.desc);
  if (Object.keys(p).length === 0 && !links) return itemError(606, idRef(id), 'Nothing was edited: the task carried no field that can be changed');
  const problem = (await checkReferences(ctx.tx, ctx.account, p, current)) ?? (links && (await checkLinkChanges(ctx.tx, ctx.account.pk, id, links)));
  if (problem) return itemError(problem.code, idRef(id), problem.desc);

  // addedby was only checked (615/616); it is not stored.
  const { meta, addedby, remind, ...fields } = p;
  let next: Task = { ...current, ...fields, ...(remind !== undefined && { remind: normalizeRemind(remind, ctx.account.pro) }) };
  if (next.parent !== current.parent) next = { ...next, ord: next.parent === 0 ? 0 : await ctx.tx.tasks.nextOrder(ctx.account.pk, next.parent) };
  if (next.repeat !== current.repeat) next = { ...next, repeatIndex: 1 };
  if (next.completed !== 0 && current.completed === 0) {
    const completed = await repeatCompletion(ctx, current, next, options.reschedule || parsed.ok.reschedule);
    if ('errorCode' in completed) return { ...completed, ref: idRef(id) };
    next = completed;
  }

  const oldMeta = meta === undefined ? undefined : await ctx.tx.tasks.meta(ctx.account.pk, id, ctx.clientPk);
  const metaChanged = meta !== undefined && (meta ?? '') !== (oldMeta ?? '');
  // A link made or removed changes the task's `attachment`: an edit like any other.
  const linksChanged = links ? await applyLinkChanges(ctx.tx, ctx.account.pk, id, links) : false;
  const changed = metaChanged || linksChanged || EDITABLE.some((f) => next[f] !== current[f]) || next.repeatIndex !== current.repeatIndex;
  if (changed) {
    next = { ...next, modified: await editStamp(ctx) };
    await ctx.tx.tasks.update(ctx.account.pk, next);
    // The other participants' copies take the joint fields, each with its own account's stamp.
    if (share && jointChanged(current, next)) await copyToOthers(ctx.tx, ctx.others, share, { userPk: ctx.account.pk, taskId: id }, next);
    if (metaChanged) await ctx.tx.tasks.setMeta(ctx.account.pk, id, ctx.clientPk, meta ?? null);
    if (next.parent !== current.parent) {
      await markParentChanged(ctx, current.parent);
      await markParentChanged(ctx, next.parent);
    }
  }
  return { task: next, meta };
}

export async function deleteTasks(deps: Deps, auth: AuthContext, items: readonly unknown[], hooks: { before?: BeforeWrite } = {}): Promise<Array<{ id: number } | ItemError>> {
  return writeCall(deps, auth, async (ctx) => {
    const pk = ctx.account.pk;
    // Ids arrive as numbers or strings; some clients send {id} objects.
    const asked = items.map((item) => readId(isObject(item) ? item['id'] : item));
    const ids = asked.flatMap((a) => ('errorCode' in a ? [] : [a.id]));
    // What the items will look at, read at once: the tasks, their subtasks, and the shares of both.
    const subtasks = ids.length > 0 ? await ctx.tx.tasks.childIdsOf(pk, ids) : new Map<number, number[]>();
    await ctx.prefetch?.([...ids, ...[...subtasks.values()].flat()]);
    const deletedNow = new Set<number>();
    const gone: number[] = [];
    const results: Array<{ id: number } | ItemError> = [];
    for (const idOrError of asked) {
      if ('errorCode' in idOrError) {
        results.push(idOrError);
        continue;
      }
      const { id } = idOrError;
      if (deletedNow.has(id)) {
        // Already gone with its parent earlier in this call: it is deleted, as asked.
        results.push({ id });
        continue;
      }
      const task = await ctx.tx.tasks.get(pk, id);
      if (!task) {
        results.push(itemError(605, idRef(id)));
        continue;
      }
      // Deleting a parent deletes its subtasks (those not deleted earlier in the call); each lands
      // in the deleted list.
      const removed = [id, ...(subtasks.get(id) ?? []).filter((child) => !deletedNow.has(child))];
      // A joint task (or subtask): the owner's deletion reaches every copy, anyone else's only
      // takes their copy out of the share (docs/decisions/0015).
      for (const one of removed) {
        const share = await ctx.tx.sharing.shareOf(pk, one);
        if (share) await leaveOnDelete(ctx.tx, ctx.others, share, { userPk: pk, taskId: one });
      }
      for (const one of removed) deletedNow.add(one);
      gone.push(...removed);
      if (task.parent !== 0 && !deletedNow.has(task.parent)) await markParentChanged(ctx, task.parent);
      results.push({ id });
    }
    // Every task the call deletes, at once (a parent stamped above and deleted by a later item is
    // written, then deleted).
    if (gone.length > 0) await ctx.tx.tasks.remove(pk, gone, await deleteStamp(ctx));
    return results;
  }, { partners: true, before: hooks.before });
}
