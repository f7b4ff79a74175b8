import type { Task } from '../storage/store.js';
import { calendarAt, listCalendars, type Calendar } from './calendars.js';
import type { DavContext, Resource } from './dav-context.js';
import type { DavTarget } from './dav-paths.js';
import { findObject, objectViews, positionBefore, type ObjectView } from './objects.js';

/**
 * The resource a path names, for the signed-in account only: another account's paths are not
 * found (its calendars' names are none of this one's business). And the members a Depth: 1
 * request lists.
 */

export type Resolved = { readonly found: Resource } | { readonly missing: 'resource' | 'collection' };

export async function resolve(ctx: DavContext, target: DavTarget, path: string): Promise<Resolved> {
  const own = (userid: string): boolean => userid === ctx.account.userid;
  switch (target.kind) {
    case 'root':
    case 'principals':
      return { found: { kind: target.kind, path } };
    case 'principal':
    case 'home':
      return own(target.userid) ? { found: { kind: target.kind, path } } : { missing: 'collection' };
    case 'calendar': {
      const calendar = own(target.userid) ? await calendarAt(ctx.deps, ctx.account.pk, target.segment) : undefined;
      return calendar ? { found: { kind: 'calendar', path, calendar } } : { missing: 'collection' };
    }
    case 'object': {
      const calendar = own(target.userid) ? await calendarAt(ctx.deps, ctx.account.pk, target.segment) : undefined;
      if (!calendar) return { missing: 'collection' };
      const found = await findObject(ctx.deps.store.read, ctx.account, calendar, target.name);
      return found.kind === 'here' ? { found: { kind: 'object', path, calendar, view: found.view } } : { missing: 'resource' };
    }
    default:
      return { missing: 'resource' };
  }
}

/** The tasks of a calendar, whole, ordered by id. */
export async function tasksOf(ctx: DavContext, calendar: Calendar): Promise<Task[]> {
  const page = await ctx.deps.store.read.tasks.page(ctx.account.pk, {
    where: { column: 'folder', op: '=', value: calendar.folder },
    start: 0,
    num: Number.MAX_SAFE_INTEGER,
    withChildren: false,
  });
  return [...page.tasks];
}

/** A calendar's objects, as resources. `readBefore`: the account's position, when the caller read it already. */
export async function objectsOf(ctx: DavContext, calendar: Calendar, readBefore?: number): Promise<Array<Resource & { kind: 'object' }>> {
  const before = readBefore ?? (await positionBefore(ctx.deps.store.read, ctx.account));
  const views: ObjectView[] = await objectViews(ctx.deps.store.read, ctx.account, await tasksOf(ctx, calendar), before);
  return views.map((view) => ({ kind: 'object', path: ctx.paths.object(ctx.account.userid, calendar.segment, view.name), calendar, view }));
}

/** What a Depth: 1 request lists under a resource; `readBefore` as objectsOf's. */
export async function membersOf(ctx: DavContext, r: Resource, readBefore: number): Promise<Resource[]> {
  if (r.kind === 'home') {
    return (await listCalendars(ctx.deps, ctx.account.pk)).map((calendar) => ({ kind: 'calendar', path: ctx.paths.calendar(ctx.account.userid, calendar.segment), calendar }));
  }
  if (r.kind === 'calendar') return objectsOf(ctx, r.calendar, readBefore);
  if (r.kind === 'principals') return [{ kind: 'principal', path: ctx.paths.principal(ctx.account.userid) }];
  return [];
}
