import type { Deps } from '../../deps.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import type { ListedTask, PublicTaskField, RecordForm, TaskPage, TaskQuery, TaskWrittenPage, Tombstone } from '../../storage/store.js';

/** The filters of tasks/get, plus which costly fields were asked for. */
type ListInput = Omit<TaskQuery, 'withChildren' | 'metaFor'> & { readonly children: boolean; readonly meta: boolean; readonly attachment: boolean; readonly sharing: boolean };

/** Default and maximum of `num` (spec 4.2); larger values are capped, not refused. */
export const MAX_PAGE = 1000;

function queryOf(auth: AuthContext, input: ListInput): TaskQuery {
  return {
    id: input.id,
    after: input.after,
    before: input.before,
    comp: input.comp,
    where: input.where,
    start: Math.max(0, input.start),
    num: Math.min(MAX_PAGE, Math.max(0, input.num)),
    withChildren: input.children,
    // meta is private to the calling app (spec 2.1).
    metaFor: input.meta ? auth.clientPk : undefined,
  };
}

export async function listTasks(deps: Deps, auth: AuthContext, input: ListInput): Promise<TaskPage> {
  const page = await deps.store.read.tasks.page(auth.userPk, queryOf(auth, input));
  return { total: page.total, tasks: await withExtras(deps, auth.userPk, page.tasks, input) };
}

/** Adds the links and the sharing fields asked for: one read of each for the whole page, not one per task. */
export async function withExtras(
  deps: Deps,
  userPk: number,
  tasks: readonly ListedTask[],
  wanted: { readonly attachment: boolean; readonly sharing: boolean },
): Promise<readonly ListedTask[]> {
  if ((!wanted.attachment && !wanted.sharing) || tasks.length === 0) return tasks;
  const ids = tasks.map((t) => t.id);
  const links = wanted.attachment ? await deps.store.read.attachments.forTasks(userPk, ids) : undefined;
  const sharing = wanted.sharing ? await deps.store.read.sharing.forTasks(userPk, ids) : undefined;
  return tasks.map((t) => ({
    ...t,
    ...(links && { attachment: links.get(t.id) ?? [] }),
    ...(sharing?.has(t.id) && { sharing: sharing.get(t.id) }),
  }));
}

/**
 * listTasks, each task already written as its public record with `fields`, in JSON or XML (the
 * fast path of tasks/get), links and sharing included: the database writes them too.
 */
export async function listTasksWritten(deps: Deps, auth: AuthContext, input: ListInput, fields: readonly PublicTaskField[], form: RecordForm): Promise<TaskWrittenPage> {
  return deps.store.read.tasks.pageWritten(auth.userPk, queryOf(auth, input), fields, form);
}

export async function deletedTasks(deps: Deps, auth: AuthContext, after: number): Promise<Tombstone[]> {
  return deps.store.read.tasks.deletedAfter(auth.userPk, after);
}
