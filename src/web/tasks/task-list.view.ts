import type { Prefs, Task } from '../../storage/store.js';
import { h, layout, messages, type Nav, type Site } from '../html.js';
import { repeatInWords } from './repeat-words.js';
import { dayOfDate, formatTime, relativeDay } from './task-dates.js';
import { showMore } from '../paging.js';
import { DUE_BUCKETS, PRIORITIES, STATUSES, tagsOf, type Row, type ViewName, type ViewQuery } from './task-views.js';
import type { Organizers } from './tasks.web.js';

/** The task list page: quick add, the views, search and sort, and the list itself as one bulk form. */

export const VIEW_TITLES: Readonly<Record<ViewName, string>> = {
  hotlist: 'Hotlist', all: 'All tasks', folder: 'By folder', context: 'By context', goal: 'By goal', location: 'By location',
  priority: 'By priority', due: 'By due date', starred: 'Starred', tag: 'By tag', status: 'By status', completed: 'Completed', recent: 'Recently modified', search: 'Saved search',
};

export interface ListPage {
  readonly csrf: string;
  readonly prefs: Prefs;
  readonly today: number;
  readonly query: ViewQuery;
  /** The page's own address (path and query), where its forms return. */
  readonly here: string;
  readonly rows: readonly Row[];
  /** Groups of a grouped view, in order: key, heading, rows. */
  readonly groups?: ReadonlyArray<readonly [string, string, readonly Row[]]>;
  readonly orgs: Organizers;
  /** The account's saved searches (made by its apps), each a view of its own. */
  readonly searches: ReadonlyArray<{ readonly id: number; readonly name: string }>;
  readonly counts?: Readonly<Record<string, number>> | undefined;
  readonly stamp: string;
  /** Rows left out of a long list, and the address that shows more (none once the most a page shows is shown). */
  readonly more?: { readonly hidden: number; readonly next: string | undefined } | undefined;
  /** Tasks the account's hidemonths setting leaves out of this view. */
  readonly farAhead: number;
  readonly flash: { error?: string | undefined; notice?: string | undefined; quick?: string | undefined; undo?: string | undefined };
}

/** The name of an organiser a task points at ('' for none). */
function nameIn(list: ReadonlyArray<{ id: number; name: string }>, id: number): string {
  return id === 0 ? '' : (list.find((o) => o.id === id)?.name ?? '');
}

/** The heading of a group of a grouped view. */
export function groupTitle(view: ViewName, key: string, orgs: Organizers): string {
  const none = { folder: 'No folder', context: 'No context', goal: 'No goal', location: 'No location' } as Record<string, string>;
  switch (view) {
    case 'folder': case 'context': case 'goal': case 'location': {
      const list = { folder: orgs.folders, context: orgs.contexts, goal: orgs.goals, location: orgs.locations }[view];
      return key === '0' ? (none[view] ?? '') : nameIn(list, Number(key)) || `(${key})`;
    }
    case 'priority': return `${PRIORITIES[Number(key)] ?? key} priority`;
    case 'status': return STATUSES[Number(key)] ?? key;
    case 'due': return DUE_BUCKETS.find(([k]) => k === key)?.[1] ?? key;
    case 'tag': return key === '' ? 'No tag' : key;
    default: return key;
  }
}

/** The order of groups: organisers as listed, then none; priorities from the top; due buckets in time. */
export function groupOrder(view: ViewName, orgs: Organizers, keys: ReadonlySet<string>): string[] {
  const present = (k: string): boolean => keys.has(k);
  switch (view) {
    case 'folder': return [...orgs.folders.map((f) => String(f.id)), '0'].filter(present);
    case 'context': return [...orgs.contexts.map((c) => String(c.id)), '0'].filter(present);
    case 'goal': return [...orgs.goals.map((g) => String(g.id)), '0'].filter(present);
    case 'location': return [...orgs.locations.map((l) => String(l.id)), '0'].filter(present);
    case 'priority': return ['3', '2', '1', '0', '-1'].filter(present);
    case 'status': return STATUSES.map((_, i) => String(i)).filter(present);
    case 'due': return DUE_BUCKETS.map(([k]) => k).filter(present);
    default: return [...keys].sort((a, b) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)));
  }
}

function facts(t: Task, v: ListPage, parentTitle?: string): string {
  const out: string[] = [];
  const due = dayOfDate(t.duedate);
  if (due !== undefined) {
    const late = t.completed === 0 && due < v.today;
    out.push(`<span${late ? ' class="overdue"' : ''}>Due ${h(relativeDay(due, v.today, v.prefs))}${t.duetime !== null ? ` ${h(formatTime(t.duetime, v.prefs))}` : ''}${late ? ' (overdue)' : ''}</span>`);
  }
  if (t.priority !== 0) out.push(`<span class="prio${t.priority}">${h(PRIORITIES[t.priority] ?? '')} priority</span>`);
  const folder = nameIn(v.orgs.folders, t.folder);
  if (folder) out.push(`<span>Folder: ${h(folder)}</span>`);
  const context = nameIn(v.orgs.contexts, t.context);
  if (context) out.push(`<span>@${h(context)}</span>`);
  const goal = nameIn(v.orgs.goals, t.goal);
  if (goal) out.push(`<span>Goal: ${h(goal)}</span>`);
  if (t.status !== 0) out.push(`<span>${h(STATUSES[t.status] ?? '')}</span>`);
  for (const tag of tagsOf(t)) out.push(`<span class="chip">${h(tag)}</span>`);
  const rule = repeatInWords(t.repeat);
  if (rule) out.push(`<span>↻ ${h(rule)}</span>`);
  if (t.completed !== 0) out.push(`<span>Completed ${h(relativeDay(dayOfDate(t.completed) ?? 0, v.today, v.prefs))}</span>`);
  if (parentTitle) out.push(`<span>Subtask of ${h(parentTitle)}</span>`);
  if (t.note !== '') out.push('<span>Has a note</span>');
  return out.length === 0 ? '' : `<div class="facts">${out.join('')}</div>`;
}

function taskItem(t: Task, v: ListPage, base: string, children: readonly Task[], parentTitle?: string, position?: { first: boolean; last: boolean }): string {
  const title = h(t.title);
  const done = t.completed !== 0;
  const complete = done
    ? `<button type="submit" class="ok" formaction="${h(`${base}/tasks/${t.id}/uncomplete`)}" aria-label="Mark “${title}” not done" data-key="x">↺</button>`
    : `<button type="submit" class="ok" formaction="${h(`${base}/tasks/${t.id}/complete`)}" aria-label="Complete “${title}”" data-key="x">✓</button>`;
  const star = `<button type="submit" class="star" formaction="${h(`${base}/tasks/${t.id}/star`)}" aria-pressed="${t.star === 1}" aria-label="Star “${title}”" data-key="s">${t.star === 1 ? '★' : '☆'}</button>`;
  const del = `<button type="submit" class="danger" formaction="${h(`${base}/tasks/${t.id}/delete`)}" aria-label="Delete “${title}”" data-key="#">✕</button>`;
  const kids = children.length === 0 ? '' : `<details class="kids" open><summary>${children.length} subtask${children.length === 1 ? '' : 's'}</summary><ul class="tasks">${children.map((c, i) => taskItem(c, v, base, [], undefined, { first: i === 0, last: i === children.length - 1 })).join('')}</ul></details>`;
  // A nested subtask moves among its siblings (the order apps see); the ends have one way to go.
  const move = !position ? '' : `${position.first ? '' : `<button type="submit" class="secondary" name="dir" value="up" formaction="${h(`${base}/tasks/${t.id}/move`)}" aria-label="Move “${title}” up" data-key="K">↑</button>`}${
    position.last ? '' : `<button type="submit" class="secondary" name="dir" value="down" formaction="${h(`${base}/tasks/${t.id}/move`)}" aria-label="Move “${title}” down" data-key="J">↓</button>`
  }`;
  return `<li class="task${done ? ' done' : ''}" data-id="${t.id}"><input type="checkbox" name="id" value="${t.id}" aria-label="Select “${title}”">${complete}<div class="body"><a class="title" href="${h(`${base}/tasks/${t.id}`)}">${title}</a>${facts(t, v, parentTitle)}${kids}</div><div class="acts">${move}${star}${del}</div></li>`;
}

function rowsHtml(rows: readonly Row[], v: ListPage, base: string): string {
  return `<ul class="tasks">${rows.map((r) => taskItem(r.task, v, base, r.children, r.parentTitle)).join('')}</ul>`;
}

function tabs(v: ListPage, base: string): string {
  const order: ViewName[] = ['hotlist', 'all', 'starred', 'due', 'folder', 'context', 'goal', 'location', 'priority', 'tag', 'status', 'completed', 'recent'];
  const short: Partial<Record<ViewName, string>> = { folder: 'Folders', context: 'Contexts', goal: 'Goals', location: 'Locations', priority: 'Priority', due: 'Due', tag: 'Tags', status: 'Status', recent: 'Recent' };
  const items = order.map((name) => {
    const count = v.counts?.[name];
    const current = v.query.view === name && v.query.value === undefined ? ' aria-current="page"' : '';
    return `<li><a href="${h(`${base}/?view=${name}`)}"${current}>${h(short[name] ?? VIEW_TITLES[name])}${count === undefined ? '' : `<span class="count">${count}</span>`}</a></li>`;
  });
  const saved = v.searches.map((s) => {
    const current = v.query.view === 'search' && v.query.value === String(s.id) ? ' aria-current="page"' : '';
    return `<li><a href="${h(`${base}/?view=search&value=${s.id}`)}"${current}>${h(s.name)}</a></li>`;
  });
  return `<nav class="views" aria-label="Views"><ul>${items.join('')}</ul></nav>${
    saved.length === 0 ? '' : `<nav class="views saved" aria-label="Saved searches"><ul>${saved.join('')}</ul></nav>`
  }`;
}

function options(list: ReadonlyArray<readonly [string, string]>, selected = ''): string {
  return list.map(([value, text]) => `<option value="${h(value)}"${value === selected ? ' selected' : ''}>${h(text)}</option>`).join('');
}

/** Search and sort the view shown; from the hotlist, a search looks through all tasks to do. */
function searchAndSort(v: ListPage, base: string): string {
  const q = v.query;
  const sorts: Array<[string, string]> = [['due', 'Due date'], ['priority', 'Priority'], ['title', 'Title'], ['star', 'Star'], ['status', 'Status'], ['modified', 'Modified'], ['added', 'Added'], ['completed', 'Completed']];
  return `<form method="get" action="${h(base)}/" role="search" class="bar-row" aria-label="Search and sort">
<input type="hidden" name="view" value="${h(q.view === 'hotlist' ? 'all' : q.view)}">${q.value !== undefined ? `<input type="hidden" name="value" value="${h(q.value)}">` : ''}
<div class="grow"><label for="q">Search titles, tags and notes</label><input id="q" name="q" type="search" value="${h(q.q ?? '')}" data-key="/"></div>
<div><label for="sort">Sort by</label><select id="sort" name="sort">${options(sorts, q.sort)}</select></div>
<div><label for="dir">Order</label><select id="dir" name="dir">${options([['asc', 'Ascending'], ['desc', 'Descending']], q.desc ? 'desc' : 'asc')}</select></div>
<div><button type="submit">Show</button></div></form>`;
}

function bulkBar(v: ListPage): string {
  const orgOptions = (list: ReadonlyArray<{ id: number; name: string }>, none: string): string =>
    options([['', 'Unchanged'], ['0', none], ...list.map((o): [string, string] => [String(o.id), o.name])]);
  return `<fieldset class="bulk" aria-label="Selected tasks"><legend class="muted">With the selected tasks</legend>
<div><label for="bulk-folder">Folder</label><select id="bulk-folder" name="folder">${orgOptions(v.orgs.folders, 'No folder')}</select></div>
<div><label for="bulk-context">Context</label><select id="bulk-context" name="context">${orgOptions(v.orgs.contexts, 'No context')}</select></div>
<div><label for="bulk-priority">Priority</label><select id="bulk-priority" name="priority">${options([['', 'Unchanged'], ['3', 'Top'], ['2', 'High'], ['1', 'Medium'], ['0', 'Low'], ['-1', 'Negative']])}</select></div>
<div><button type="submit" name="action" value="move" class="secondary">Apply</button>
<button type="submit" name="action" value="complete" class="secondary">Complete</button>
<button type="submit" name="action" value="star" class="secondary">Star</button>
<button type="submit" name="action" value="unstar" class="secondary">Unstar</button>
<button type="submit" name="action" value="delete" class="danger">Delete</button></div></fieldset>`;
}

function undoForm(v: ListPage, base: string): string {
  // After a delete the focus is on Undo: Enter (or u) brings the tasks back.
  if (!v.flash.undo) return '';
  return `<form method="post" action="${h(base)}/tasks/undo" class="notice bar-row" aria-label="Undo"><input type="hidden" name="_csrf" value="${h(v.csrf)}"><input type="hidden" name="back" value="${h(v.here)}"><input type="hidden" name="snapshot" value="${h(v.flash.undo)}"><p class="grow">${h(v.flash.notice ?? 'Deleted.')}</p><button type="submit" data-key="u" autofocus>Undo</button></form>`;
}

export function taskListPage(site: Site, nav: Nav, v: ListPage): string {
  const base = site.base;
  const q = v.query;
  // A saved search that is gone (an app deleted it) keeps the view's heading, without a name.
  const searchName = q.view === 'search' ? v.searches.find((s) => String(s.id) === q.value)?.name : undefined;
  const heading =
    q.view === 'search'
      ? `${VIEW_TITLES.search}${searchName === undefined ? '' : `: ${searchName}`}`
      : q.value !== undefined ? `${VIEW_TITLES[q.view].replace(/^By /, '')}: ${groupTitle(q.view, q.value, v.orgs)}` : VIEW_TITLES[q.view];
  const title = q.q ? `${heading}: “${q.q}”` : heading;
  // Tasks shown, subtasks nested under their parent included (a task in two tag groups counts once).
  const total = v.rows.reduce((n, r) => n + 1 + r.children.length, 0);
  const list = v.groups
    ? v.groups.map(([key, name, rows]) => `<h2 class="group"><a href="${h(`${base}/?view=${q.view}&value=${encodeURIComponent(key)}`)}">${h(name)}</a> <span class="count">${rows.length}</span></h2>${rowsHtml(rows, v, base)}`).join('')
    : rowsHtml(v.rows, v, base);
  const gone = q.view === 'search' && searchName === undefined;
  const empty =
    total === 0
      ? `<p class="muted">${gone ? 'This saved search is gone: an app deleted it.' : q.q ? 'No task matches the search.' : q.view === 'hotlist' ? 'Nothing on the hotlist. Add a task above, or see all tasks.' : q.view === 'search' ? 'No task matches this saved search.' : 'No tasks here.'}</p>`
      : '';
  const body = `<div class="card">
<h1 id="view-title">${h(title)}</h1>
${messages({ error: v.flash.error, notice: v.flash.undo ? undefined : v.flash.notice })}${undoForm(v, base)}
<form method="post" action="${h(base)}/tasks/add" class="qa" aria-label="Quick add" id="quick-add">
<input type="hidden" name="_csrf" value="${h(v.csrf)}"><input type="hidden" name="back" value="${h(v.here)}">
<div class="bar-row"><div class="grow"><label for="qa">Add a task</label><span class="hint" id="qa-hint">For example: Call the plumber #home @phone +house !2 * tomorrow 9am every week. Press <kbd>?</kbd> for keys.</span>
<input id="qa" name="line" type="text" autocomplete="off" maxlength="1000" required aria-describedby="qa-hint qa-preview" value="${h(v.flash.quick ?? '')}" data-key="n"${v.flash.error || v.flash.undo ? '' : ' autofocus'}></div>
<div><button type="submit">Add</button></div></div>
<p class="preview" id="qa-preview" aria-live="polite"></p></form>
</div>
${tabs(v, base)}
${searchAndSort(v, base)}
<p id="fresh" class="fresh" hidden role="status"></p>
<form method="post" action="${h(base)}/tasks/bulk" aria-labelledby="view-title" id="task-list" data-stamp="${h(v.stamp)}">
<input type="hidden" name="_csrf" value="${h(v.csrf)}"><input type="hidden" name="back" value="${h(v.here)}">
<p class="muted" id="task-count">${total} task${total === 1 ? '' : 's'}${v.more ? ` shown; ${v.more.hidden} more below` : ''}</p>
${total > 0 ? bulkBar(v) : ''}
${list}${empty}
${v.farAhead > 0 ? `<p class="muted">${v.farAhead} task${v.farAhead === 1 ? ' is' : 's are'} due ${v.prefs.hidemonths} or more months ahead and not shown here (<a href="${h(base)}/account">the hidemonths setting</a>); the due-date view and search show ${v.farAhead === 1 ? 'it' : 'them'}.</p>` : ''}
${v.more ? showMore(base, v.more.next, v.more.hidden) : ''}
</form>
<dialog id="keys" aria-labelledby="keys-title"><h2 id="keys-title" tabindex="-1" autofocus>Keys</h2><dl class="facts">
<dt><kbd>n</kbd></dt><dd>Add a task (quick add)</dd><dt><kbd>/</kbd></dt><dd>Search</dd>
<dt><kbd>j</kbd> <kbd>k</kbd></dt><dd>Next, previous task</dd><dt><kbd>x</kbd></dt><dd>Complete the task in focus</dd>
<dt><kbd>s</kbd></dt><dd>Star or unstar it</dd><dt><kbd>e</kbd> or <kbd>Enter</kbd></dt><dd>Edit it</dd>
<dt><kbd>Space</kbd></dt><dd>Select it (for the bulk form)</dd><dt><kbd>#</kbd></dt><dd>Delete it (Undo follows)</dd>
<dt><kbd>u</kbd></dt><dd>Undo a delete</dd><dt><kbd>K</kbd> <kbd>J</kbd></dt><dd>Move a subtask up, down</dd><dt><kbd>g</kbd> then <kbd>h</kbd> / <kbd>a</kbd> / <kbd>c</kbd></dt><dd>Hotlist, all, completed</dd>
<dt><kbd>?</kbd></dt><dd>This list</dd><dt><kbd>Esc</kbd></dt><dd>Close it</dd></dl>
<form method="dialog"><button type="submit">Close</button></form></dialog>`;
  return layout(site, title, body, { nav, wide: true, scripts: ['/assets/tasks.js'] });
}
