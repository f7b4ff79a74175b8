import type { Deps } from '../../deps.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import type { PublicTaskField, TaskJsonPage, TaskPage, TaskQuery, Tombstone } from '../../storage/store.js';

/** The filters of tasks/get, plus which costly fields were asked for. */
type ListInput = Omit<TaskQuery, 'withChildren' | 'metaFor'> & { readonly children: boolean; readonly meta: boolean; readonly attachment: boolean };

/** Default and maximum of `num` (spec 4.2); larger values are capped, not refused. */
export const MAX_PAGE = 1000;

function queryOf(auth: AuthContext, input: ListInput): TaskQuery {
  return {
    id: input.id,
    after: input.after,
    before: input.before,
    comp: input.comp,
    start: Math.max(0, input.start),
    num: Math.min(MAX_PAGE, Math.max(0, input.num)),
    withChildren: input.children,
    // meta is private to the calling app (spec 2.1).
    metaFor: input.meta ? auth.clientPk : undefined,
  };
}

export async function listTasks(deps: Deps, auth: AuthContext, input: ListInput): Promise<TaskPage> {
  const page = await deps.store.read.tasks.page(auth.userPk, queryOf(auth, input));
  if (!input.attachment || page.tasks.length === 0) return page;
  // One read of the page's links (and their records' titles), not one per task.
  const links = await deps.store.read.attachments.forTasks(auth.userPk, page.tasks.map((t) => t.id));
  return { total: page.total, tasks: page.tasks.map((t) => ({ ...t, attachment: links.get(t.id) ?? [] })) };
}

/**
 * listTasks, each task already written as its public JSON with `fields` (the fast path of
 * tasks/get in JSON), attachments included: the database writes them too.
 */
export async function listTasksJson(deps: Deps, auth: AuthContext, input: ListInput, fields: readonly PublicTaskField[]): Promise<TaskJsonPage> {
  return deps.store.read.tasks.pageJson(auth.userPk, queryOf(auth, input), fields);
}

export async function deletedTasks(deps: Deps, auth: AuthContext, after: number): Promise<Tombstone[]> {
  return deps.store.read.tasks.deletedAfter(auth.userPk, after);
}
