import type { Prefs, Task } from '../../storage/store.js';
import { civilFromDays, daysFromCivil, daysInMonth } from '../../repeat/calendar.js';
import { dayOfDate } from './task-dates.js';

/**
 * The views of the task list, pure: which tasks a view shows, in which order, grouped how, and how
 * many each view holds. The tasks are read once per page through the store the API reads
 * (tasks.web.ts); everything here works on that array.
 */

export const VIEWS = ['hotlist', 'all', 'folder', 'context', 'goal', 'location', 'priority', 'due', 'starred', 'tag', 'status', 'completed', 'recent', 'search'] as const;
export type ViewName = (typeof VIEWS)[number];
/** Views that group the tasks by a field; with a `value` they show one group only. */
export const GROUPED: ReadonlySet<ViewName> = new Set(['folder', 'context', 'goal', 'location', 'priority', 'due', 'tag', 'status']);

export const SORTS = ['due', 'title', 'priority', 'star', 'status', 'modified', 'added', 'completed'] as const;
export type SortName = (typeof SORTS)[number];

export interface ViewQuery {
  readonly view: ViewName;
  /** One group of a grouped view: an id, a priority, a status, a tag, or a due bucket. */
  readonly value?: string | undefined;
  readonly q?: string | undefined;
  readonly sort: SortName;
  readonly desc: boolean;
  /**
   * The saved search a `search` view shows (its value is the search's id), as the rule engine's
   * test of a task (search-rules.ts, searchTest): set by the page once it has read the search.
   */
  readonly test?: ((t: Task) => boolean) | undefined;
}

export const STATUSES = ['None', 'Next Action', 'Active', 'Planning', 'Delegated', 'Waiting', 'Hold', 'Postponed', 'Someday', 'Canceled', 'Reference'] as const;
export const PRIORITIES: Readonly<Record<number, string>> = { 3: 'Top', 2: 'High', 1: 'Medium', 0: 'Low', [-1]: 'Negative' };
/** Recently modified: the last seven days. */
export const RECENT_SECONDS = 7 * 86400;

/** Reads a view from the page's query string; anything unknown falls back to the defaults. */
export function viewQueryOf(q: Readonly<Record<string, string | undefined>>): ViewQuery {
  const view = (VIEWS as readonly string[]).includes(q['view'] ?? '') ? (q['view'] as ViewName) : 'hotlist';
  const sort = (SORTS as readonly string[]).includes(q['sort'] ?? '') ? (q['sort'] as SortName) : defaultSort(view);
  const search = (q['q'] ?? '').trim().slice(0, 200);
  const value = q['value']?.slice(0, 250);
  const kept = value !== undefined && value !== '' && (GROUPED.has(view) || (view === 'search' && /^[1-9]\d{0,8}$/.test(value)));
  return { view, sort, desc: q['dir'] === 'desc' || (q['dir'] === undefined && (sort === 'modified' || sort === 'completed' || sort === 'priority' || sort === 'star')), ...(kept && { value }), ...(search !== '' && { q: search }) };
}

function defaultSort(view: ViewName): SortName {
  if (view === 'completed') return 'completed';
  if (view === 'recent') return 'modified';
  return 'due';
}

export interface Today {
  readonly today: number;
  readonly now: number;
}

/** The hotlist of the account's settings: not completed, and important enough by any one measure. */
export function onHotlist(t: Task, prefs: Prefs, when: Today): boolean {
  if (t.completed !== 0) return false;
  if (t.priority >= prefs.hotlistpriority) return true;
  const due = dayOfDate(t.duedate);
  if (due !== undefined && due <= when.today + prefs.hotlistduedate) return true;
  if (prefs.hotliststar === 1 && t.star === 1) return true;
  // Status contributes with Next Action, the status that means "do this next".
  return prefs.hotliststatus === 1 && t.status === 1;
}

/** The due bucket of a task, as the due view groups them. */
export function dueBucket(t: Task, today: number): string {
  const due = dayOfDate(t.duedate);
  if (due === undefined) return 'none';
  if (due < today) return 'overdue';
  if (due === today) return 'today';
  if (due === today + 1) return 'tomorrow';
  if (due <= today + 7) return 'week';
  return 'later';
}
export const DUE_BUCKETS: ReadonlyArray<readonly [string, string]> = [
  ['overdue', 'Overdue'], ['today', 'Today'], ['tomorrow', 'Tomorrow'], ['week', 'Within a week'], ['later', 'Later'], ['none', 'No due date'],
];

export function tagsOf(t: Task): string[] {
  return t.tag === '' ? [] : t.tag.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** The keys of the groups a task belongs to in a grouped view (a task has several tags). */
export function groupKeys(view: ViewName, t: Task, today: number): string[] {
  switch (view) {
    case 'folder': return [String(t.folder)];
    case 'context': return [String(t.context)];
    case 'goal': return [String(t.goal)];
    case 'location': return [String(t.location)];
    case 'priority': return [String(t.priority)];
    case 'status': return [String(t.status)];
    case 'due': return [dueBucket(t, today)];
    case 'tag': {
      const tags = tagsOf(t).map((s) => s.toLowerCase());
      return tags.length === 0 ? [''] : tags;
    }
    default: return [];
  }
}

function matchesSearch(t: Task, needle: string): boolean {
  return t.title.toLowerCase().includes(needle) || t.tag.toLowerCase().includes(needle) || t.note.toLowerCase().includes(needle);
}

/** The first day `months` calendar months after `day` (the 31st becomes the month's last day). */
export function addMonths(day: number, months: number): number {
  const { y, m, d } = civilFromDays(day);
  const index = y * 12 + (m - 1) + months;
  const [ny, nm] = [Math.floor(index / 12), (index % 12) + 1];
  return daysFromCivil(ny, nm, Math.min(d, daysInMonth(ny, nm)));
}

/**
 * The `hidemonths` setting: tasks due that many months ahead or more are left out of the lists of
 * tasks to do (0: none is), but not out of the due-date view, completed, recent or a search.
 */
export function farAhead(t: Task, prefs: Prefs, today: number): boolean {
  const due = dayOfDate(t.duedate);
  return prefs.hidemonths > 0 && due !== undefined && due >= addMonths(today, prefs.hidemonths);
}

/** Whether a view shows the task, before its search (`hide`: apply hidemonths). */
export function inView(t: Task, v: Pick<ViewQuery, 'view' | 'value' | 'test'>, prefs: Prefs, when: Today, hide = true): boolean {
  const far = hide && v.view !== 'due' && farAhead(t, prefs, when.today);
  switch (v.view) {
    // A saved search decides everything itself, completion and dates included, as tasks/get's does.
    case 'search': return v.test?.(t) ?? false;
    case 'hotlist': return onHotlist(t, prefs, when) && !far;
    case 'completed': return t.completed !== 0;
    case 'recent': return t.modified > when.now - RECENT_SECONDS;
    case 'starred': return t.completed === 0 && t.star === 1 && !far;
    case 'all': return t.completed === 0 && !far;
    default:
      if (t.completed !== 0 || far) return false;
      return v.value === undefined || groupKeys(v.view, t, when.today).includes(v.value.toLowerCase());
  }
}

/** How many tasks of the view hidemonths leaves out (a search shows them all). */
export function hiddenFarAhead(all: readonly Task[], v: ViewQuery, prefs: Prefs, when: Today): number {
  if (v.q !== undefined || prefs.hidemonths === 0) return 0;
  let n = 0;
  for (const t of all) if (farAhead(t, prefs, when.today) && inView(t, v, prefs, when, false) && !inView(t, v, prefs, when)) n++;
  return n;
}

function compareBy(sort: SortName): (a: Task, b: Task) => number {
  // Tasks without a due date come after those with one, whichever way the list runs.
  const noneLast = (x: number): number => (x === 0 ? Number.MAX_SAFE_INTEGER : x);
  switch (sort) {
    case 'title': return (a, b) => a.title.localeCompare(b.title);
    case 'due': return (a, b) => noneLast(a.duedate) - noneLast(b.duedate) || (a.duetime ?? 86400) - (b.duetime ?? 86400);
    case 'priority': return (a, b) => a.priority - b.priority;
    case 'star': return (a, b) => a.star - b.star;
    case 'status': return (a, b) => a.status - b.status;
    case 'modified': return (a, b) => a.modified - b.modified;
    case 'added': return (a, b) => a.added - b.added;
    case 'completed': return (a, b) => a.completed - b.completed;
  }
}

/** Sorted by the column, then by priority (highest first), due date and title, then id: a stable order. */
export function sortTasks(tasks: readonly Task[], sort: SortName, desc: boolean): Task[] {
  const first = compareBy(sort);
  const due = compareBy('due');
  return [...tasks].sort((a, b) => (desc ? -first(a, b) : first(a, b)) || b.priority - a.priority || due(a, b) || a.title.localeCompare(b.title) || a.id - b.id);
}

export interface Row {
  readonly task: Task;
  /** Its subtasks shown under it (those the view shows too), in their order. */
  readonly children: readonly Task[];
  /** The parent's title when the parent is not in the view. */
  readonly parentTitle?: string;
}

/**
 * The rows of a view: its tasks filtered, searched and sorted; a subtask whose parent is shown
 * too is nested under it, in its own order (`ord`), rather than listed twice.
 */
export function rowsOf(all: readonly Task[], v: ViewQuery, prefs: Prefs, when: Today): Row[] {
  const needle = v.q?.toLowerCase();
  // A search finds tasks however far ahead they are due.
  const shown = all.filter((t) => inView(t, v, prefs, when, needle === undefined) && (needle === undefined || matchesSearch(t, needle)));
  const shownIds = new Set(shown.map((t) => t.id));
  const byId = new Map(all.map((t) => [t.id, t]));
  const kids = new Map<number, Task[]>();
  for (const t of shown) {
    if (t.parent === 0 || !shownIds.has(t.parent)) continue;
    const siblings = kids.get(t.parent);
    if (siblings) siblings.push(t);
    else kids.set(t.parent, [t]);
  }
  return sortTasks(shown.filter((t) => t.parent === 0 || !shownIds.has(t.parent)), v.sort, v.desc).map((task) => {
    const parent = task.parent === 0 ? undefined : byId.get(task.parent);
    return {
      task,
      children: (kids.get(task.id) ?? []).sort((a, b) => a.ord - b.ord || a.id - b.id),
      ...(parent && { parentTitle: parent.title }),
    };
  });
}

/** How many tasks each ungrouped view holds (the tabs' numbers when `showtabnums` is set). */
export function viewCounts(all: readonly Task[], prefs: Prefs, when: Today): Record<'hotlist' | 'all' | 'starred' | 'completed' | 'recent', number> {
  const counts = { hotlist: 0, all: 0, starred: 0, completed: 0, recent: 0 };
  for (const t of all) {
    const far = farAhead(t, prefs, when.today);
    if (onHotlist(t, prefs, when) && !far) counts.hotlist++;
    if (t.completed === 0 && !far) counts.all++;
    if (t.completed === 0 && t.star === 1 && !far) counts.starred++;
    if (t.completed !== 0) counts.completed++;
    if (t.modified > when.now - RECENT_SECONDS) counts.recent++;
  }
  return counts;
}
