import { readFileSync } from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ItemError } from '../../errors.js';
import type { Task } from '../../storage/store.js';
import { showMoreAddress, shownRows } from '../paging.js';
import { queryStrings, type SignedIn, type Web } from '../web-kit.js';
import { listSearches, searchTestOf } from '../../features/sharing/searches.service.js';
import { webAuth } from '../organize/organize.routes.js';
import { dayOfDate, formatDay, todayOf } from './task-dates.js';
import { GROUPED, groupKeys, hiddenFarAhead, rowsOf, viewCounts, viewQueryOf, type Row } from './task-views.js';
import { groupOrder, groupTitle, taskListPage } from './task-list.view.js';
import { addTask, allTasks, completeTask, deleteWithUndo, editMany, editTask, moveTask, organizersOf, planQuickAdd, restore } from './tasks.web.js';
import { repeatInWords } from './repeat-words.js';
import { taskEditorRoutes } from './task-editor.routes.js';

/**
 * The task pages: the list at `/` (signed in), quick add, complete, star, delete with undo and the
 * bulk form. Every post answers 303 back to the list it came from (Post/Redirect/Get).
 */

/** Where a list's forms return: one of the list's own addresses, nothing else. */
export function safeBack(back: string | undefined): string {
  if (back === undefined || !/^\/(tasks\/[1-9]\d{0,14})?(\?[A-Za-z0-9_\-=&%.+*~]*)?$/.test(back)) return '/';
  return back;
}

/** The stamps that change when any task of the account changes: the poll compares them. */
export function stampOf(who: SignedIn['account']): string {
  return `${who.stamps.lastedit_task ?? 0}.${who.stamps.lastdelete_task ?? 0}`;
}

export async function showTaskList(web: Web, request: FastifyRequest, reply: FastifyReply, who: SignedIn): Promise<FastifyReply> {
  const { deps } = web;
  const flash = web.flash(request, reply);
  const prefs = who.account.prefs;
  const now = Math.floor(deps.clock.now() / 1000);
  const when = { today: todayOf(prefs, now), now };
  const asked = viewQueryOf(queryStrings(request));
  const [tasks, orgs, searches] = await Promise.all([allTasks(deps, who.account.pk), organizersOf(deps, who.account.pk), listSearches(deps, webAuth(who))]);
  // A saved search's view runs it with the engine tasks/get's runs (search-rules.ts); one that is
  // not there (an app deleted it since) finds nothing, and the page says so.
  const saved = asked.view === 'search' ? searches.find((s) => String(s.id) === asked.value) : undefined;
  const v = asked.view !== 'search' ? asked : { ...asked, test: saved ? searchTestOf(saved) : () => false };
  const all = rowsOf(tasks, v, prefs, when);
  // The first `show` rows (in group order for grouped views): a list of thousands is not read,
  // and its HTML would take seconds to send and paint (bench: web). "Show more" adds a page.
  const show = shownRows(queryStrings(request)['show']);
  let groups: Array<[string, string, Row[]]> | undefined;
  let rows: Row[];
  if (GROUPED.has(v.view) && v.value === undefined) {
    const byKey = new Map<string, Row[]>();
    for (const r of all) {
      for (const k of groupKeys(v.view, r.task, when.today)) {
        const group = byKey.get(k);
        if (group) group.push(r);
        else byKey.set(k, [r]);
      }
    }
    groups = [];
    let left = show;
    for (const k of groupOrder(v.view, orgs, new Set(byKey.keys()))) {
      if (left <= 0) break;
      const inGroup = (byKey.get(k) ?? []).slice(0, left);
      left -= inGroup.length;
      groups.push([k, groupTitle(v.view, k, orgs), inGroup]);
    }
    rows = [...new Set(groups.flatMap((g) => g[2]))];
  } else {
    rows = all.slice(0, show);
  }
  const hidden = all.length - rows.length;
  const counts = prefs.showtabnums === 1 ? viewCounts(tasks, prefs, when) : undefined;
  const here = safeBack(request.url.replace(/^[^?]*/, '/'));
  const page = taskListPage(web.site, web.nav(reply, who, '/'), {
    csrf: web.csrf(reply), prefs, today: when.today, query: v, here, rows, ...(groups && { groups }), orgs, counts,
    searches: searches.map((s) => ({ id: s.id, name: s.name })),
    more: hidden > 0 ? { hidden, next: showMoreAddress(here, show) } : undefined,
    farAhead: hiddenFarAhead(tasks, v, prefs, when),
    stamp: stampOf(who.account),
    flash: { error: flash.error, notice: flash.notice, quick: flash.fields?.['line'], undo: flash.fields?.['undo'] },
  });
  return web.page(reply, 200, page, true);
}

/** The ticked boxes of the bulk form: every `id` the form sent (a name sent once per box). */
function selectedIds(body: unknown): number[] {
  const raw = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)['id'] : undefined;
  const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string' && /^[1-9]\d{0,14}$/.test(v));
  return [...new Set(values.map(Number))].slice(0, 1000);
}

function problemOf(e: ItemError): string {
  return e.errorDesc.replace(/^Malformed request: /, '');
}

function idParam(request: FastifyRequest): number | undefined {
  const raw = (request.params as Record<string, string>)['id'] ?? '';
  return /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : undefined;
}

/**
 * The pages' script, compiled by tsc from src/web/client/ beside this file, read once. Served by
 * the process itself: no CDN, and the policy allows only this server's files.
 */
const SCRIPT = readFileSync(new URL('../client/tasks.js', import.meta.url), 'utf8')
  .replace(/^\/\/\/ <reference [^\n]*\n/, '')
  .replace(/\n\/\/# sourceMappingURL=.*$/, '\n');

export function taskRoutes(web: Web): void {
  const { deps } = web;

  web.get('/assets/tasks.js', async function script(_request, reply) {
    return reply.header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').type('text/javascript; charset=utf-8').send(SCRIPT);
  });
  const nowSeconds = (): number => Math.floor(deps.clock.now() / 1000);

  web.postSignedIn('/tasks/add', ['line', 'back', 'parent'], async function quickAdd(request, reply, p, who) {
    const back = safeBack(p.get('back'));
    const line = p.get('line') ?? '';
    const plan = planQuickAdd(line, who.account, await organizersOf(deps, who.account.pk), nowSeconds());
    if (!plan.item) return web.redirect(request, reply, back, { error: `Not added: ${plan.problem ?? ''}`, fields: { line } });
    // A subtask (from the editor of its parent): tasks/add judges the parent as for any app.
    const parent = p.get('parent');
    const added = await addTask(deps, who.account.pk, { ...plan.item, ...(parent !== undefined && { parent }) });
    if ('errorCode' in added) return web.redirect(request, reply, back, { error: `Not added: ${problemOf(added)}.`, fields: { line } });
    return web.redirect(request, reply, back, { notice: `Added “${added.task.title}”.` });
  });

  web.postSignedIn('/tasks/:id/complete', ['back'], async function complete(request, reply, p, who) {
    const back = safeBack(p.get('back'));
    const id = idParam(request);
    if (id === undefined) return web.redirect(request, reply, back, { error: 'No such task.' });
    const done = await completeTask(deps, who.account, id, nowSeconds());
    if ('errorCode' in done) return web.redirect(request, reply, back, { error: `Not completed: ${problemOf(done)}.` });
    return web.redirect(request, reply, back, { notice: completedNotice(done.task, who.account.prefs) });
  });

  web.postSignedIn('/tasks/:id/uncomplete', ['back'], async function uncomplete(request, reply, p, who) {
    const back = safeBack(p.get('back'));
    const id = idParam(request);
    const done = id === undefined ? undefined : await editTask(deps, who.account.pk, { id, completed: 0 });
    if (!done || 'errorCode' in done) return web.redirect(request, reply, back, { error: 'Not changed: no such task.' });
    return web.redirect(request, reply, back, { notice: `“${done.task.title}” is to do again.` });
  });

  web.postSignedIn('/tasks/:id/star', ['back'], async function star(request, reply, p, who) {
    const back = safeBack(p.get('back'));
    const id = idParam(request);
    const task = id === undefined ? null : await deps.store.read.tasks.get(who.account.pk, id);
    if (!task) return web.redirect(request, reply, back, { error: 'Not changed: no such task.' });
    const done = await editTask(deps, who.account.pk, { id: task.id, star: task.star === 1 ? 0 : 1 });
    if ('errorCode' in done) return web.redirect(request, reply, back, { error: `Not changed: ${problemOf(done)}.` });
    return web.redirect(request, reply, back, { notice: done.task.star === 1 ? `Starred “${done.task.title}”.` : `Unstarred “${done.task.title}”.` });
  });

  web.postSignedIn('/tasks/:id/move', ['dir', 'back'], async function move(request, reply, p, who) {
    const back = safeBack(p.get('back'));
    const id = idParam(request);
    const dir = p.get('dir');
    if (id === undefined || (dir !== 'up' && dir !== 'down')) return web.redirect(request, reply, back, { error: 'Not moved: no such task.' });
    const moved = await moveTask(deps, who.account.pk, id, dir);
    if ('errorCode' in moved) return web.redirect(request, reply, back, { error: `Not moved: ${problemOf(moved)}.` });
    return web.redirect(request, reply, back, { notice: `Moved “${moved.task.title}” ${dir}.` });
  });

  web.postSignedIn('/tasks/:id/delete', ['back'], async function remove(request, reply, p, who) {
    const back = safeBack(p.get('back'));
    const id = idParam(request);
    if (id === undefined) return web.redirect(request, reply, back, { error: 'No such task.' });
    return deleted(request, reply, who, [id], back);
  });

  async function deleted(request: FastifyRequest, reply: FastifyReply, who: SignedIn, ids: number[], back: string): Promise<FastifyReply> {
    const { deleted: n, snapshot } = await deleteWithUndo(deps, who.account.pk, ids);
    if (n === 0) return web.redirect(request, reply, back, { error: 'Nothing was deleted: no such task.' });
    const names = snapshot.length === 1 ? `“${String(snapshot[0]?.['title'])}”` : `${n} tasks`;
    // The undo travels in the sealed flash; a snapshot too large for it (long notes) is not offered.
    const undo = JSON.stringify(snapshot);
    return web.redirect(request, reply, back, { notice: `Deleted ${names}.`, ...(undo.length < 3000 && { fields: { undo } }) });
  }

  web.postSignedIn('/tasks/undo', ['snapshot', 'back'], async function undo(request, reply, p, who) {
    const back = safeBack(p.get('back'));
    let snapshot: unknown;
    try {
      snapshot = JSON.parse(p.get('snapshot') ?? '');
    } catch {
      snapshot = undefined;
    }
    const n = await restore(deps, who.account.pk, snapshot);
    return web.redirect(request, reply, back, n === 0 ? { error: 'Nothing to undo.' } : { notice: n === 1 ? 'The task is back.' : `${n} tasks are back.` });
  });

  web.postSignedIn('/tasks/bulk', ['action', 'folder', 'context', 'priority', 'back'], async function bulk(request, reply, p, who) {
    const back = safeBack(p.get('back'));
    const ids = selectedIds(request.body);
    if (ids.length === 0) return web.redirect(request, reply, back, { error: 'Select one or more tasks first.' });
    const action = p.get('action');
    if (action === 'delete') return deleted(request, reply, who, ids, back);
    let change: Record<string, unknown>;
    if (action === 'complete') change = { completed: dateOfToday(who) };
    else if (action === 'star' || action === 'unstar') change = { star: action === 'star' ? 1 : 0 };
    else {
      change = {};
      for (const name of ['folder', 'context', 'priority'] as const) {
        const value = p.get(name);
        if (value !== undefined && value !== '') change[name] = value;
      }
      if (Object.keys(change).length === 0) return web.redirect(request, reply, back, { error: 'Choose a folder, context or priority to apply.' });
    }
    const results = await editMany(deps, who.account.pk, ids.map((id) => ({ id, ...change })), action === 'complete');
    const failed = results.filter((r): r is ItemError => 'errorCode' in r);
    const done = results.length - failed.length;
    if (failed.length > 0) return web.redirect(request, reply, back, { error: `${done} changed; ${failed.length} not: ${problemOf(failed[0] as ItemError)}.` });
    return web.redirect(request, reply, back, { notice: `${done} task${done === 1 ? '' : 's'} changed.` });
  });

  function dateOfToday(who: SignedIn): number {
    return (todayOf(who.account.prefs, nowSeconds()) * 86400) + 43200;
  }

  /** The live preview of quick add: the server's own reading of the line, as JSON. */
  web.getSignedIn('/tasks/preview.json', async function preview(request, reply, who) {
    const line = (queryStrings(request)['line'] ?? '').slice(0, 1000);
    const plan = planQuickAdd(line, who.account, await organizersOf(deps, who.account.pk), nowSeconds());
    const q = plan.parsed;
    const prefs = who.account.prefs;
    const parts: string[] = [];
    if (q.folder !== undefined) parts.push(`Folder: ${plan.folderName ?? `${q.folder} (unknown)`}`);
    if (q.context !== undefined) parts.push(`Context: ${plan.contextName ?? `${q.context} (unknown)`}`);
    for (const t of q.tags) parts.push(`Tag: ${t}`);
    if (q.priority !== undefined) parts.push(`Priority: ${q.priority}`);
    if (q.star) parts.push('Starred');
    if (q.dueDay !== undefined) parts.push(`Due: ${formatDay(q.dueDay, prefs)}`);
    if (q.dueTime !== undefined) parts.push(`at ${String(Math.floor(q.dueTime / 3600)).padStart(2, '0')}:${String((q.dueTime % 3600) / 60).padStart(2, '0')}`);
    if (q.repeat !== undefined) parts.push(`Repeats: ${repeatInWords(q.repeat)}`);
    return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send({ title: q.title, parts, ...(plan.problem !== undefined && line.trim() !== '' && { problem: plan.problem }) });
  });

  taskEditorRoutes(web);

  /** What the open pages poll: the account's task stamps (session-authenticated, nothing else). */
  web.getSignedIn('/tasks/stamps.json', async function stamps(_request, reply, who) {
    return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send({ stamp: stampOf(who.account) });
  });
}

function completedNotice(task: Task, prefs: SignedIn['account']['prefs']): string {
  if (task.completed === 0) {
    const due = dayOfDate(task.duedate);
    return `“${task.title}” repeats: next due ${due === undefined ? 'again' : formatDay(due, prefs)}.`;
  }
  return `Completed “${task.title}”.`;
}
