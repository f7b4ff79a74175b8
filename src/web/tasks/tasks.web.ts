import type { Deps } from '../../deps.js';
import type { ItemError } from '../../errors.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import type { Account, Context, Folder, Goal, Location, Task } from '../../storage/store.js';
import { listTasks } from '../../features/tasks/tasks.read.js';
import { moveSubtask } from '../../features/tasks/task-order.js';
import { addTasks, deleteTasks, editTasks, type Wanted } from '../../features/tasks/tasks.write.js';
import { dateOfDay, todayOf } from './task-dates.js';
import { parseQuickAdd, type QuickAdd } from './quick-add.js';

/**
 * What the task pages do, as calls of the task services the API uses (src/features/tasks/): one
 * copy of every rule, the account's stamps move with every change, and apps see web edits on their
 * next sync. The pages act as no app (client 0, like imports): they read and write no app's meta.
 */

const NOTHING: Wanted = { children: false, meta: false, attachment: false, sharing: false };
const PAGE = 1000;

export function webAuth(userPk: number): AuthContext {
  return { userPk, clientPk: 0, grantId: 0, scopes: new Set(['tasks', 'write']), expiresAt: Number.MAX_SAFE_INTEGER };
}

/** Every task of the account, read page by page through the service tasks/get uses. */
export async function allTasks(deps: Deps, userPk: number): Promise<Task[]> {
  const auth = webAuth(userPk);
  const out: Task[] = [];
  for (let start = 0; ; start += PAGE) {
    const page = await listTasks(deps, auth, { start, num: PAGE, children: false, meta: false, attachment: false, sharing: false });
    out.push(...page.tasks);
    if (page.tasks.length < PAGE || out.length >= page.total) return out;
  }
}

export interface Organizers {
  readonly folders: readonly Folder[];
  readonly contexts: readonly Context[];
  readonly goals: readonly Goal[];
  readonly locations: readonly Location[];
}

export async function organizersOf(deps: Deps, userPk: number): Promise<Organizers> {
  const o = deps.store.read.organizers;
  const [folders, contexts, goals, locations] = await Promise.all([o.list(userPk, 'folder'), o.list(userPk, 'context'), o.list(userPk, 'goal'), o.list(userPk, 'location')]);
  return { folders, contexts, goals, locations };
}

/** Names compared as the store compares them: trimmed, NFC, lower-cased. */
function sameName(a: string, b: string): boolean {
  return a.trim().normalize('NFC').toLowerCase() === b.trim().normalize('NFC').toLowerCase();
}

export interface QuickAddPlan {
  readonly parsed: QuickAdd;
  /** The task as tasks/add receives it, or the reason it cannot be saved. */
  readonly item?: Record<string, unknown>;
  readonly problem?: string;
  readonly folderName?: string;
  readonly contextName?: string;
}

/**
 * A quick-add line read into a tasks/add item. Unknown folder and context names are refused, not
 * created: a typo would otherwise make a folder (docs/decisions/0013). Archived folders count.
 */
export function planQuickAdd(line: string, account: Account, orgs: Organizers, now: number): QuickAddPlan {
  const parsed = parseQuickAdd(line, todayOf(account.prefs, now));
  const folder = parsed.folder === undefined ? undefined : orgs.folders.find((f) => sameName(f.name, parsed.folder as string));
  const context = parsed.context === undefined ? undefined : orgs.contexts.find((c) => sameName(c.name, parsed.context as string));
  const names = { ...(folder && { folderName: folder.name }), ...(context && { contextName: context.name }) };
  if (parsed.title === '') return { parsed, problem: 'The task needs a title: words that are not part of the syntax.', ...names };
  if (parsed.folder !== undefined && !folder) return { parsed, problem: `There is no folder named “${parsed.folder}”. Make it first, or check the spelling.`, ...names };
  if (parsed.context !== undefined && !context) return { parsed, problem: `There is no context named “${parsed.context}”. Make it first, or check the spelling.`, ...names };
  const item: Record<string, unknown> = {
    title: parsed.title,
    ...(folder && { folder: folder.id }),
    ...(context && { context: context.id }),
    ...(parsed.tags.length > 0 && { tag: parsed.tags.join(',') }),
    ...(parsed.priority !== undefined && { priority: parsed.priority }),
    ...(parsed.star && { star: 1 }),
    ...(parsed.dueDay !== undefined && { duedate: dateOfDay(parsed.dueDay) }),
    // A floating time: its clock time read from GMT; on 2 January 1970 so that midnight is not 0 ("no time").
    ...(parsed.dueTime !== undefined && { duetime: 86400 + parsed.dueTime }),
    ...(parsed.repeat !== undefined && { repeat: parsed.repeat }),
  };
  return { parsed, item, ...names };
}

/** One item through a write service: the task, or the API's own error for it. */
async function one<T>(results: Promise<ReadonlyArray<T | ItemError>>): Promise<T | ItemError> {
  const [first] = await results;
  if (first === undefined) throw new Error('a write call answered no item');
  return first;
}

export async function addTask(deps: Deps, userPk: number, item: Record<string, unknown>): Promise<{ task: Task } | ItemError> {
  return one(addTasks(deps, webAuth(userPk), [item], NOTHING));
}

/** tasks/edit of one task; `reschedule` as the API's reschedule=1 (a repeating task moves on). */
export async function editTask(deps: Deps, userPk: number, item: Record<string, unknown>, reschedule = false): Promise<{ task: Task } | ItemError> {
  return one(editTasks(deps, webAuth(userPk), [item], { wanted: NOTHING, reschedule }));
}

/** tasks/edit of many tasks, 50 at a time as the API allows (the bulk form). */
export async function editMany(deps: Deps, userPk: number, items: ReadonlyArray<Record<string, unknown>>, reschedule = false): Promise<Array<{ task: Task } | ItemError>> {
  const out: Array<{ task: Task } | ItemError> = [];
  for (let i = 0; i < items.length; i += 50) out.push(...(await editTasks(deps, webAuth(userPk), items.slice(i, i + 50), { wanted: NOTHING, reschedule })));
  return out;
}

/** Completes a task today (the account's today), rescheduling a repeating one as reschedule=1 does. */
export async function completeTask(deps: Deps, account: Account, id: number, now: number): Promise<{ task: Task } | ItemError> {
  return editTask(deps, account.pk, { id, completed: dateOfDay(todayOf(account.prefs, now)) }, true);
}

/**
 * What Undo needs to bring deleted tasks back: each as a tasks/add item (subtasks after their
 * parent). They come back with new ids: to an app, a delete and an add.
 */
export type Snapshot = Array<Record<string, unknown>>;

function itemOf(t: Task): Record<string, unknown> {
  return {
    title: t.title, tag: t.tag, folder: t.folder, context: t.context, goal: t.goal, location: t.location,
    duedate: t.duedate, duedatemod: t.duedatemod, startdate: t.startdate,
    duetime: t.duetime === null ? 0 : 86400 + t.duetime, starttime: t.starttime === null ? 0 : 86400 + t.starttime,
    remind: t.remind, repeat: t.repeat, status: t.status, length: t.length, priority: t.priority, star: t.star,
    completed: t.completed, note: t.note,
  };
}

/** Deletes tasks (and their subtasks, as tasks/delete does); returns what Undo needs. */
export async function deleteWithUndo(deps: Deps, userPk: number, ids: readonly number[]): Promise<{ deleted: number; snapshot: Snapshot }> {
  const all = await allTasks(deps, userPk);
  const wanted = new Set(ids);
  const snapshot: Snapshot = [];
  for (const t of all) {
    if (!wanted.has(t.id) || (t.parent !== 0 && wanted.has(t.parent))) continue;
    snapshot.push({ ...itemOf(t), kids: all.filter((c) => c.parent === t.id).sort((a, b) => a.ord - b.ord).map(itemOf) });
  }
  const results = await deleteTasks(deps, webAuth(userPk), [...wanted]);
  return { deleted: results.filter((r) => !('errorCode' in r)).length, snapshot };
}

/** Undo: the deleted tasks added again, each subtask under its parent's new id. */
export async function restore(deps: Deps, userPk: number, snapshot: unknown): Promise<number> {
  if (!Array.isArray(snapshot)) return 0;
  let restored = 0;
  for (const entry of snapshot.slice(0, 50)) {
    if (entry === null || typeof entry !== 'object') continue;
    const { kids, ...item } = entry as Record<string, unknown>;
    const added = await addTask(deps, userPk, item);
    if ('errorCode' in added) continue;
    restored++;
    if (Array.isArray(kids) && kids.length > 0) {
      const items = kids.slice(0, 49).filter((k): k is Record<string, unknown> => k !== null && typeof k === 'object').map((k) => ({ ...k, parent: added.task.id }));
      restored += (await addTasks(deps, webAuth(userPk), items, NOTHING)).filter((r) => !('errorCode' in r)).length;
    }
  }
  return restored;
}

/** A subtask one place up or down among its siblings. */
export async function moveTask(deps: Deps, userPk: number, id: number, direction: 'up' | 'down'): Promise<{ task: Task } | ItemError> {
  return moveSubtask(deps, webAuth(userPk), id, direction);
}
