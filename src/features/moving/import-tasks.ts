import type { ItemError } from '../../errors.js';
import { OtherAccounts } from '../sharing/other-accounts.js';
import type { Account, Attachment, AttachmentKind, ImportKind, ImportMapEntry, Repos, Task } from '../../storage/store.js';
import { applyLinkChanges, type LinkTarget } from '../tasks/task-attachments.js';
import { checkReferences } from '../tasks/task-checks.js';
import { parseTaskInput, type TaskPatch } from '../tasks/task-input.js';
import { noonOf, normalizeRemind } from '../tasks/task-rules.js';
import { deleteTasks } from '../tasks/tasks.write.js';
import { editStamp, markParentChanged, reserveTask, type WriteContext } from '../tasks/task-write-context.js';
import { importBatch } from './import-batch.js';
import { sourceIdOf, whole, type ImportScope, type SourceRecord } from './import-report.js';

/**
 * Tasks from a source, through the tasks' own rules: each record is read as a tasks/add item
 * (parseTaskInput: limits, dates at noon, floating times, tags), its references checked as the
 * endpoints check them (checkReferences), reminders rounded for the account's level, the account's
 * 80,000 counted. What a client cannot set but the person would miss is kept from the source:
 * `added`, `timer`, the subtasks' `order`, `previous` (mapped), `via`. Folders, contexts, goals,
 * locations, parents and attachments go through the id map; a parent or previous task not copied
 * yet waits in the map (`pending`) until the end of the run.
 */

/** Records per transaction: a few hundred keep each one short (docs/decisions/0003). */
export const TASK_BATCH = 250;

interface Pending {
  parent?: string;
  order?: number;
  previous?: string;
}

type Lookup = (kind: ImportKind, sourceId: string) => string | undefined;

const REFERENCES = ['folder', 'context', 'goal', 'location'] as const;
const ATTACHABLE: ReadonlySet<string> = new Set<AttachmentKind>(['note', 'outline', 'list']);

/** The record as a tasks/add item: the fields a client sets, references as local ids. */
function itemOf(r: SourceRecord, local: Lookup): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const key of ['title', 'tag', 'duedate', 'duedatemod', 'startdate', 'duetime', 'starttime', 'remind', 'repeat', 'status', 'length', 'priority', 'star', 'completed', 'note']) {
    if (r[key] !== undefined) item[key] = r[key];
  }
  for (const field of REFERENCES) {
    const id = String(r[field] ?? '0');
    item[field] = id === '0' || id === '' ? 0 : (local(field, id) ?? 0);
  }
  return item;
}

/** Links the source's attachment names, as local records (files cannot be copied: none are stored). */
function linksOf(scope: ImportScope, r: SourceRecord, local: Lookup): LinkTarget[] {
  const sent = Array.isArray(r['attachment']) ? (r['attachment'] as Array<{ kind?: unknown; id?: unknown }>) : [];
  const out: LinkTarget[] = [];
  for (const a of sent) {
    const kind = String(a.kind ?? '');
    if (!ATTACHABLE.has(kind)) {
      scope.report.warn('attached files are not copied: files are not stored on this server');
      continue;
    }
    const id = local(kind as AttachmentKind, String(a.id ?? ''));
    if (id !== undefined) out.push({ kind: kind as AttachmentKind, id: kind === 'note' ? Number(id) : id });
  }
  return out;
}

/** The ids of other records the page names, per kind, to look up in the map at once. */
function namedIds(records: readonly SourceRecord[]): Map<ImportKind, string[]> {
  const ids = new Map<ImportKind, Set<string>>();
  const add = (kind: ImportKind, v: unknown): void => {
    const id = String(v ?? '0');
    if (id === '0' || id === '') return;
    if (!ids.has(kind)) ids.set(kind, new Set());
    ids.get(kind)?.add(id);
  };
  for (const r of records) {
    for (const field of REFERENCES) add(field, r[field]);
    add('task', r['parent']);
    add('task', r['previous']);
    for (const a of Array.isArray(r['attachment']) ? (r['attachment'] as Array<{ kind?: unknown; id?: unknown }>) : []) {
      if (ATTACHABLE.has(String(a.kind))) add(String(a.kind) as ImportKind, a.id);
    }
  }
  return new Map([...ids].map(([k, v]) => [k, [...v]]));
}

async function lookupFor(tx: Repos, scope: ImportScope, records: readonly SourceRecord[]): Promise<Lookup> {
  const maps = new Map<ImportKind, Map<string, ImportMapEntry>>();
  for (const [kind, ids] of namedIds(records)) maps.set(kind, await tx.imports.mapped(scope.auth.userPk, scope.source, kind, ids));
  return (kind, id) => maps.get(kind)?.get(id)?.localId;
}

/** A task as the source had it, in stored form (id and stamp given by the caller). */
function taskOf(r: SourceRecord, p: TaskPatch, account: Account, base: { id: number; modified: number; ord: number; previous: number; now: number }): Task {
  const via = whole(r, 'via');
  return {
    id: base.id,
    title: p.title as string,
    tag: p.tag ?? '',
    folder: p.folder ?? 0,
    context: p.context ?? 0,
    goal: p.goal ?? 0,
    location: p.location ?? 0,
    parent: p.parent ?? 0,
    ord: base.ord,
    duedate: p.duedate ?? 0,
    duedatemod: p.duedatemod ?? 0,
    startdate: p.startdate ?? 0,
    duetime: p.duetime ?? null,
    starttime: p.starttime ?? null,
    remind: normalizeRemind(p.remind ?? 0, account.pro),
    repeat: p.repeat ?? '',
    repeatIndex: 1,
    status: p.status ?? 0,
    length: p.length ?? 0,
    priority: p.priority ?? 0,
    star: p.star ?? 0,
    modified: base.modified,
    completed: p.completed ?? 0,
    added: whole(r, 'added') > 0 ? noonOf(whole(r, 'added')) : noonOf(base.now),
    timer: Math.max(0, whole(r, 'timer')),
    timeron: 0,
    note: p.note ?? '',
    previous: base.previous,
    // The source's origin when it says (the v3 API does); 8, "import tools", for a file.
    via: r['via'] !== undefined && via >= 0 && via <= 9 ? via : 8,
  };
}

/** Writes one page of tasks, in batches of TASK_BATCH. */
export async function importTasks(scope: ImportScope, records: readonly SourceRecord[]): Promise<void> {
  for (let i = 0; i < records.length; i += TASK_BATCH) await importTaskBatch(scope, records.slice(i, i + TASK_BATCH));
}

async function importTaskBatch(scope: ImportScope, records: readonly SourceRecord[]): Promise<void> {
  const { userPk } = scope.auth;
  await importBatch(scope, async (tx, now, account) => {
    const ctx: WriteContext = { tx, account, clientPk: 0, now, stampedParents: new Set(), taskCount: account.taskCount, others: new OtherAccounts(tx, scope.deps.clock), sharingMinPro: scope.deps.config.sharingMinPro };
    const entries = await tx.imports.mapped(userPk, scope.source, 'task', records.map(sourceIdOf));
    const local = await lookupFor(tx, scope, records);
    const written: ImportMapEntry[] = [];
    const added: Array<{ r: SourceRecord; p: TaskPatch; links: LinkTarget[]; pending: Pending; sourceId: string; stamp: number; ord: number; previous: number }> = [];
    for (const r of records) {
      const sourceId = sourceIdOf(r);
      const entry = entries.get(sourceId);
      const sourceStamp = whole(r, 'modified');
      if (entry && sourceStamp !== 0 && entry.stamp === sourceStamp) {
        scope.report.count('task', 'unchanged');
        continue;
      }
      const current = entry ? await tx.tasks.get(userPk, Number(entry.localId)) : null;
      if (entry && !current) {
        scope.report.count('task', 'skipped');
        continue;
      }
      const parsed = parseTaskInput(itemOf(r, local), 'add');
      if ('error' in parsed) {
        scope.report.refuse('task', sourceId, parsed.error.code, parsed.error.desc);
        continue;
      }
      const pending: Pending = {};
      const p: TaskPatch = { ...parsed.ok.patch };
      const parentId = String(r['parent'] ?? '0');
      if (parentId !== '0' && parentId !== '') {
        if (account.pro < 1) scope.report.warn('subtasks were copied as top-level tasks: subtasks need pro 1 or 2 (bin/tickler user add --pro)');
        else {
          const parent = local('task', parentId);
          if (parent === undefined) Object.assign(pending, { parent: parentId, order: whole(r, 'order') });
          else p.parent = Number(parent);
        }
      }
      const previousId = String(r['previous'] ?? '0');
      const previous = previousId === '0' || previousId === '' ? 0 : Number(local('task', previousId) ?? 0);
      if (previousId !== '0' && previousId !== '' && previous === 0) pending.previous = previousId;
      const problem = await checkReferences(tx, account, p, current);
      if (problem) {
        scope.report.refuse('task', sourceId, problem.code, problem.desc);
        continue;
      }
      const links = linksOf(scope, r, local);
      const pendingText = Object.keys(pending).length > 0 ? JSON.stringify(pending) : null;
      if (!current) {
        const full: ItemError | undefined = await reserveTask(ctx);
        if (full) {
          scope.report.refuse('task', sourceId, full.errorCode, full.errorDesc);
          continue;
        }
        const ord = (p.parent ?? 0) === 0 ? 0 : whole(r, 'order') > 0 ? whole(r, 'order') : await tx.tasks.nextOrder(userPk, p.parent as number);
        added.push({ r, p, links, pending, sourceId, stamp: sourceStamp, ord, previous });
        written.push({ sourceId, localId: '', stamp: sourceStamp, pending: pendingText });
        continue;
      }
      const keptParent = p.parent ?? (pending.parent !== undefined ? current.parent : 0);
      const sourceOrder = whole(r, 'order');
      const ord = keptParent === 0 ? 0 : sourceOrder > 0 ? sourceOrder : keptParent === current.parent ? current.ord : await tx.tasks.nextOrder(userPk, keptParent);
      let next = taskOf(r, { ...p, parent: keptParent }, account, { id: current.id, modified: current.modified, ord, previous: previous || (pending.previous ? current.previous : 0), now });
      next = { ...next, repeatIndex: next.repeat === current.repeat ? current.repeatIndex : 1, timeron: current.timeron };
      // A source without `added` (an export file) leaves the copy's own.
      if (whole(r, 'added') <= 0) next = { ...next, added: current.added };
      const linksChanged = await syncLinks(tx, userPk, current.id, links);
      written.push({ sourceId, localId: String(current.id), stamp: sourceStamp, pending: pendingText });
      if (!linksChanged && JSON.stringify(next) === JSON.stringify(current)) {
        scope.report.count('task', 'unchanged');
        continue;
      }
      next = { ...next, modified: await editStamp(ctx) };
      await tx.tasks.update(userPk, next);
      if (next.parent !== current.parent) {
        await markParentChanged(ctx, current.parent);
        await markParentChanged(ctx, next.parent);
      }
      scope.report.count('task', 'updated');
    }
    if (added.length > 0) {
      const stamp = await editStamp(ctx);
      const first = await tx.accounts.allocateIds(userPk, 'task', added.length);
      const tasks = added.map((a, i) => taskOf(a.r, a.p, account, { id: first + i, modified: stamp, ord: a.ord, previous: a.previous, now }));
      await tx.tasks.insertMany(userPk, tasks);
      for (const [i, a] of added.entries()) {
        for (const link of a.links) await tx.attachments.link(userPk, first + i, link.kind, link.id);
        await markParentChanged(ctx, a.p.parent ?? 0);
      }
      let next = 0;
      for (const w of written) if (w.localId === '') Object.assign(w, { localId: String(first + next++) });
      scope.report.count('task', 'created', added.length);
    }
    await tx.imports.setMapped(userPk, scope.source, 'task', written);
  });
}

/** Makes the task's links the source's (detaching what it no longer has); whether any changed. */
async function syncLinks(tx: Repos, userPk: number, taskId: number, wanted: readonly LinkTarget[]): Promise<boolean> {
  const held: Attachment[] = (await tx.attachments.forTasks(userPk, [taskId])).get(taskId) ?? [];
  const same = (a: LinkTarget, b: LinkTarget): boolean => a.kind === b.kind && String(a.id) === String(b.id);
  const detach = held.filter((h) => !wanted.some((w) => same(w, h)));
  const attach = wanted.filter((w) => !held.some((h) => same(w, h)));
  if (detach.length === 0 && attach.length === 0) return false;
  return applyLinkChanges(tx, userPk, taskId, { attach, detach });
}

/**
 * Parents and previous tasks that had not been copied when their tasks were: resolved once the
 * run has copied every task. A parent the source no longer has leaves the task at the top level.
 */
export async function resolvePendingTasks(scope: ImportScope): Promise<void> {
  const { userPk } = scope.auth;
  const waiting = await scope.deps.store.read.imports.pending(userPk, scope.source, 'task');
  for (let i = 0; i < waiting.length; i += TASK_BATCH) {
    const part = waiting.slice(i, i + TASK_BATCH);
    await importBatch(scope, async (tx, now, account) => {
      const ctx: WriteContext = { tx, account, clientPk: 0, now, stampedParents: new Set(), taskCount: account.taskCount, others: new OtherAccounts(tx, scope.deps.clock), sharingMinPro: scope.deps.config.sharingMinPro };
      const named = part.flatMap((e) => {
        const p = JSON.parse(e.pending as string) as Pending;
        return [p.parent, p.previous].filter((x): x is string => x !== undefined);
      });
      const found = await tx.imports.mapped(userPk, scope.source, 'task', named);
      for (const e of part) {
        const p = JSON.parse(e.pending as string) as Pending;
        const task = await tx.tasks.get(userPk, Number(e.localId));
        if (!task) continue;
        let next = task;
        const parent = p.parent !== undefined ? Number(found.get(p.parent)?.localId ?? 0) : 0;
        if (parent !== 0 && !(await checkReferences(tx, account, { parent }, task))) {
          next = { ...next, parent, ord: p.order && p.order > 0 ? p.order : await tx.tasks.nextOrder(userPk, parent) };
        }
        const previous = p.previous !== undefined ? Number(found.get(p.previous)?.localId ?? 0) : 0;
        if (previous !== 0) next = { ...next, previous };
        if (next !== task) {
          await tx.tasks.update(userPk, { ...next, modified: await editStamp(ctx) });
          if (next.parent !== task.parent) await markParentChanged(ctx, next.parent);
        }
      }
      await tx.imports.setMapped(userPk, scope.source, 'task', part.map((e) => ({ ...e, pending: null })));
    });
  }
}

/** Tasks the source deleted: deleted here by tasks/delete's own rules (subtasks go too), then forgotten. */
export async function deleteTasksGone(scope: ImportScope, sourceIds: readonly string[]): Promise<void> {
  const { userPk } = scope.auth;
  const store = scope.deps.store;
  const entries = [...(await store.read.imports.mapped(userPk, scope.source, 'task', sourceIds)).values()];
  if (scope.dryRun) {
    scope.report.count('task', 'deleted', entries.length);
    return;
  }
  for (let i = 0; i < entries.length; i += 50) {
    const part = entries.slice(i, i + 50);
    const results = await deleteTasks(scope.deps, scope.auth, part.map((e) => Number(e.localId)));
    scope.report.count('task', 'deleted', results.filter((r) => !('errorCode' in r)).length);
    await store.transaction((tx) => tx.imports.unmap(userPk, scope.source, 'task', part.map((e) => e.sourceId)));
  }
}
