import { setImmediate } from 'node:timers/promises';
import type { Deps } from '../../deps.js';
import { ApiError, itemError, type ItemError } from '../../errors.js';
import { classifyId } from '../../http/params.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import type { PublicTaskField, RecordForm, SavedSearch, TaskWrittenPage } from '../../storage/store.js';
import { listTasksWritten, MAX_PAGE } from '../tasks/tasks.read.js';
import { lockAccount } from '../account/account.service.js';
import { parseRules, rulesObject, SEARCH_CAPS, searchPlan, searchTest, type SearchedTask, type SearchRules } from './search-rules.js';

/** A saved search as tasks/search.php shows it. */
export interface ShownSearch {
  readonly id: number;
  readonly name: string;
  readonly bool: 'All' | 'Any';
  readonly rules: SearchRules;
  /** Set when the stored rules cannot be read (the engine no longer knows one): the search finds nothing. */
  readonly unreadable?: true;
}

function shown(s: SavedSearch): ShownSearch {
  // Stored rules were checked when saved; rules the engine can no longer read are shown as none,
  // and the search finds nothing rather than everything.
  let rules: ReturnType<typeof parseRules>;
  try {
    rules = parseRules(JSON.parse(s.rules) as unknown);
  } catch {
    rules = { problem: 'not JSON' };
  }
  return 'problem' in rules ? { id: s.id, name: s.name, bool: s.bool, rules: { root: [], groups: [] }, unreadable: true } : { id: s.id, name: s.name, bool: s.bool, rules };
}

/** A saved search as one test of a task: the rule engine's (search-rules.ts), nothing for rules it cannot read. */
export function searchTestOf(s: ShownSearch): (t: SearchedTask) => boolean {
  return s.unreadable ? () => false : searchTest(s.bool, s.rules);
}

export async function listSearches(deps: Deps, auth: AuthContext): Promise<ShownSearch[]> {
  return (await deps.store.read.sharing.searches(auth.userPk)).map(shown);
}

type Judged = { name: string; bool: 'All' | 'Any'; rules: SearchRules };

/** An item of search_add or search_edit; `base` is the search being edited (fields not sent stay). */
function judge(item: unknown, base: ShownSearch | null): Judged | ItemError {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return itemError(618, '', 'Invalid saved search: each item must be an object');
  const o = item as Record<string, unknown>;
  const name = o['name'] === undefined ? base?.name : typeof o['name'] === 'string' ? o['name'].trim() : undefined;
  if (!name || name.length > SEARCH_CAPS.name) return itemError(618, '', `Invalid saved search: a name of 1 to ${SEARCH_CAPS.name} characters is required`);
  const rawBool = o['bool'] ?? base?.bool ?? 'All';
  const bool = typeof rawBool === 'string' ? rawBool.trim().toLowerCase() : '';
  if (bool !== 'all' && bool !== 'any') return itemError(618, '', 'Invalid saved search: bool must be All or Any');
  let rules = base?.rules ?? { root: [], groups: [] };
  if (o['search'] !== undefined) {
    let raw: unknown = o['search'];
    if (typeof raw === 'string') {
      try {
        raw = JSON.parse(raw) as unknown;
      } catch {
        return itemError(618, '', 'Invalid saved search: search is not valid JSON');
      }
    }
    const parsed = parseRules(raw);
    if ('problem' in parsed) return itemError(618, '', `Invalid saved search: ${parsed.problem}`);
    rules = parsed;
  }
  return { name, bool: bool === 'all' ? 'All' : 'Any', rules };
}

async function writeSearches<T>(deps: Deps, auth: AuthContext, fn: (tx: Parameters<Parameters<Deps['store']['transaction']>[0]>[0], now: number) => Promise<T>): Promise<T> {
  return deps.store.transaction(async (tx) => {
    const { now } = await lockAccount(deps, tx, auth.userPk);
    return fn(tx, now);
  });
}

export async function addSearches(deps: Deps, auth: AuthContext, items: readonly unknown[]): Promise<Array<ShownSearch | ItemError>> {
  return writeSearches(deps, auth, async (tx, now) => {
    let count = await tx.sharing.countSearches(auth.userPk);
    const out: Array<ShownSearch | ItemError> = [];
    for (const item of items) {
      const j = judge(item, null);
      if ('errorCode' in j) out.push(j);
      else if (count >= SEARCH_CAPS.searches) out.push(itemError(618, '', `Invalid saved search: at most ${SEARCH_CAPS.searches} per account`));
      else {
        const id = await tx.sharing.addSearch(auth.userPk, { name: j.name, bool: j.bool, rules: JSON.stringify(rulesObject(j.rules)), modified: now });
        count++;
        out.push({ id, ...j });
      }
    }
    return out;
  });
}

function searchId(raw: unknown): number | ItemError {
  const id = classifyId(raw);
  return typeof id === 'number' ? id : itemError(618, typeof raw === 'string' || typeof raw === 'number' ? String(raw) : '', 'Invalid saved search: no such id');
}

export async function editSearches(deps: Deps, auth: AuthContext, items: readonly unknown[]): Promise<Array<ShownSearch | ItemError>> {
  return writeSearches(deps, auth, async (tx, now) => {
    const out: Array<ShownSearch | ItemError> = [];
    for (const item of items) {
      const id = searchId(item !== null && typeof item === 'object' ? (item as Record<string, unknown>)['id'] : undefined);
      if (typeof id !== 'number') {
        out.push(id);
        continue;
      }
      const current = await tx.sharing.search(auth.userPk, id);
      if (!current) {
        out.push(itemError(618, String(id), 'Invalid saved search: no such id'));
        continue;
      }
      const j = judge(item, shown(current));
      if ('errorCode' in j) out.push({ ...j, ref: String(id) });
      else {
        await tx.sharing.updateSearch(auth.userPk, { id, name: j.name, bool: j.bool, rules: JSON.stringify(rulesObject(j.rules)), modified: now });
        out.push({ id, ...j });
      }
    }
    return out;
  });
}

export async function deleteSearches(deps: Deps, auth: AuthContext, items: readonly unknown[]): Promise<Array<{ id: number } | ItemError>> {
  return writeSearches(deps, auth, async (tx) => {
    const out: Array<{ id: number } | ItemError> = [];
    for (const item of items) {
      const id = searchId(item !== null && typeof item === 'object' ? (item as Record<string, unknown>)['id'] : item);
      if (typeof id !== 'number') out.push(id);
      else if (await tx.sharing.deleteSearch(auth.userPk, id)) out.push({ id });
      else out.push(itemError(618, String(id), 'Invalid saved search: no such id'));
    }
    return out;
  });
}

/** Tasks read per part of a search's scan (about 2 ms of SQLite's time for three columns). */
const SCAN_PART = 4000;

/**
 * tasks/get with `search=<id>` (an addition): the saved search run on the server over the
 * account's tasks, ordered by id, paged with start and num as tasks/get, narrowed by id, after,
 * before and comp. The database applies what it can decide of the search (searchPlan): when that
 * is all of it, it pages and counts too; otherwise it reads the columns the rules read, of the
 * tasks its condition lets through (at most LIMITS.tasksPerAccount, a part at a time), the code
 * decides each of those, and the page's tasks (at most MAX_PAGE) are read whole by id. The parts
 * are reads of their own: a task changed between them is seen as it was when its part was read.
 */
export async function runSearch(
  deps: Deps,
  auth: AuthContext,
  input: {
    search: unknown;
    id: number | undefined;
    after: number | undefined;
    before: number | undefined;
    comp: 0 | 1 | undefined;
    start: number;
    num: number;
    children: boolean;
    meta: boolean;
    attachment: boolean;
    sharing: boolean;
  },
  fields: readonly PublicTaskField[],
  form: RecordForm,
): Promise<TaskWrittenPage> {
  const id = searchId(input.search);
  const saved = typeof id === 'number' ? await deps.store.read.sharing.search(auth.userPk, id) : null;
  if (!saved) throw new ApiError(618, { desc: 'Invalid saved search: no such id' });
  const s = shown(saved);
  if (s.unreadable) return { total: 0, rows: [] };
  const plan = searchPlan(s.bool, s.rules);
  // The page is written by the database, as tasks/get's is (listTasksWritten).
  if (plan.exact) return listTasksWritten(deps, auth, { ...input, where: plan.where }, fields, form);
  // The account a part at a time: memory holds a part's rows, and other requests are answered
  // between parts (SQLite's reads hold the thread while they run). Ids only grow: the loop ends.
  const test = searchTest(s.bool, s.rules);
  const hits: number[] = [];
  const filters = { id: input.id, after: input.after, before: input.before, comp: input.comp, where: plan.where };
  for (let afterId = 0; ; ) {
    const rows = await deps.store.read.tasks.scan(auth.userPk, filters, plan.reads, { afterId, limit: SCAN_PART });
    // The columns read are those the rules read (plan.reads): each row carries what test() looks at.
    for (const t of rows) if (test(t)) hits.push(t.id);
    const last = rows[rows.length - 1];
    if (rows.length < SCAN_PART || !last) break;
    afterId = last.id;
    await setImmediate();
  }
  const start = Math.max(0, input.start);
  const ids = hits.slice(start, start + Math.min(MAX_PAGE, Math.max(0, input.num)));
  if (ids.length === 0) return { total: hits.length, rows: [] };
  // One more than the ids asked for: a page that holds them all needs no count (TasksRepo.page).
  const byIds = { ...input, id: undefined, after: undefined, before: undefined, comp: undefined, start: 0, num: ids.length + 1, where: { ids } };
  const page = await listTasksWritten(deps, auth, byIds, fields, form);
  return { total: hits.length, rows: page.rows };
}
