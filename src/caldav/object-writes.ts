import type { ItemError } from '../errors.js';
import { addTasks, deleteTasks, editTasks, type WriteResult } from '../features/tasks/tasks.write.js';
import { storedDate } from '../ical/times.js';
import { statusAsked, type TodoFields } from '../ical/vtodo-model.js';
import { readCalendarObject } from '../ical/vtodo-read.js';
import type { AuthContext } from '../oauth/access-tokens.js';
import type { Repos, Task } from '../storage/store.js';
import { calendarAt, type Calendar } from './calendars.js';
import { plain, XML_TYPE, type DavAnswer, type DavContext } from './dav-context.js';
import { CALDAV, DAV, davError } from './dav-xml.js';
import { etagListHolds, findObject, taskOfDefaultName, taskOfDefaultUid, type ObjectView } from './objects.js';

/**
 * PUT, DELETE and MOVE of calendar objects, through the tasks' own services (tasks/add, edit and
 * delete): a write through CalDAV is a write of the task, with its rules, stamps and log entry,
 * and the object's name, UID and kept properties are written in the same transaction
 * (docs/caldav.md).
 */

const NO_WANTED = { children: false, meta: false, attachment: false, sharing: false };

function daverror(status: number, ns: string, name: string, desc: string): DavAnswer {
  return { status, contentType: XML_TYPE, body: davError(ns, name, desc) };
}

export const needPrivileges = (): DavAnswer => daverror(403, DAV, 'need-privileges', 'this app password may only read');

export function davAuth(ctx: DavContext): AuthContext {
  const scopes = new Set(ctx.readOnly ? ['tasks'] : ['tasks', 'write']);
  return { userPk: ctx.account.pk, clientPk: 0, grantId: 0, scopes, expiresAt: Number.MAX_SAFE_INTEGER };
}

/** RFC 9110 13.1: whether an If-Match or If-None-Match header fails for the object as it is (undefined: no header). */
export function preconditionFails(ifMatch: string | undefined, ifNoneMatch: string | undefined, current: ObjectView | undefined): boolean {
  if (ifMatch !== undefined && (!current || !etagListHolds(ifMatch, current.etag, 'strong'))) return true;
  return ifNoneMatch !== undefined && current !== undefined && etagListHolds(ifNoneMatch, current.etag, 'weak');
}

/** The task a UID names in this account, if a live one does (a client's UID, or one of Tickler's own). */
async function taskOfUid(ctx: DavContext, uid: string): Promise<number | undefined> {
  const row = await ctx.deps.store.read.caldav.byUid(ctx.account.pk, uid);
  if (row && (await ctx.deps.store.read.tasks.get(ctx.account.pk, row.taskId))) return row.taskId;
  const own = taskOfDefaultUid(uid, ctx.account.userid);
  if (own === undefined || !(await ctx.deps.store.read.tasks.get(ctx.account.pk, own))) return undefined;
  // A task a client named with a UID of its own no longer answers to Tickler's.
  return (await ctx.deps.store.read.caldav.objectsOf(ctx.account.pk, [own])).has(own) ? undefined : own;
}

/** The ids of the organizers the object names that exist: a stale one is left as the task has it. */
async function existing(ctx: DavContext, kind: 'context' | 'goal' | 'location', id: number | undefined): Promise<number | undefined> {
  if (id === undefined || id === 0) return id;
  return (await ctx.deps.store.read.organizers.exists(ctx.account.pk, kind, id)) ? id : undefined;
}

/** The tasks/add or tasks/edit item a VTODO asks for, and the kept properties with what could not be applied. */
async function itemOf(ctx: DavContext, f: TodoFields, calendar: Calendar, current: Task | undefined, taskId: number | undefined): Promise<{ item: Record<string, unknown>; kept: string }> {
  const today = Math.floor((ctx.deps.clock.now() / 1000 + ctx.account.offsetMinutes * 60) / 86400);
  const completed = f.completed === null ? 0 : f.completed === 'undated' ? (current && current.completed !== 0 ? current.completed : storedDate(today)) : storedDate(f.completed);
  const item: Record<string, unknown> = {
    title: f.title,
    note: f.note,
    folder: calendar.folder,
    duedate: f.due ? storedDate(f.due.day) : 0,
    duetime: f.due && f.due.time !== null ? f.due.day * 86400 + f.due.time : 0,
    startdate: f.start ? storedDate(f.start.day) : 0,
    starttime: f.start && f.start.time !== null ? f.start.day * 86400 + f.start.time : 0,
    completed,
    priority: f.priority,
    tag: f.tags,
    repeat: f.repeat,
    remind: f.remind,
  };
  const t = f.tickler;
  for (const key of ['star', 'length', 'duedatemod'] as const) if (t[key] !== undefined) item[key] = t[key];
  for (const key of ['context', 'goal', 'location'] as const) {
    const id = await existing(ctx, key, t[key]);
    if (id !== undefined) item[key] = id;
  }
  const status = statusAsked(f.icalStatus, t.status, current?.status);
  if (status !== undefined) item['status'] = status;
  let props = f.kept.props;
  const parent = f.parentUid === null ? undefined : await taskOfUid(ctx, f.parentUid);
  if (f.parentUid === null) item['parent'] = 0;
  else if (parent !== undefined && parent !== taskId && ctx.account.pro > 0) item['parent'] = parent;
  else {
    // A parent this account cannot hold (unknown, itself, or subtasks need a subscription) stays as the client wrote it.
    props = [...props, ['related-to', { reltype: 'PARENT' }, 'text', f.parentUid]];
    item['parent'] = 0;
  }
  const kept = { ...f.kept, props };
  return { item, kept: kept.props.length + kept.comps.length + kept.calendar.length === 0 ? '' : JSON.stringify(kept) };
}

function refusedItem(e: ItemError): DavAnswer {
  return daverror(403, CALDAV, 'valid-calendar-object-resource', e.errorDesc);
}

export async function putObject(ctx: DavContext, segment: string, name: string, body: string, headers: { ifMatch?: string; ifNoneMatch?: string }): Promise<DavAnswer> {
  if (ctx.readOnly) return needPrivileges();
  const calendar = await calendarAt(ctx.deps, ctx.account.pk, segment);
  if (!calendar) return plain(409, 'no such calendar: make it first (MKCALENDAR)');
  const read = readCalendarObject(body, ctx.account.offsetMinutes);
  if ('problem' in read) {
    const p = read.problem;
    if (p.kind === 'calendar-data') return daverror(400, CALDAV, 'valid-calendar-data', p.desc);
    if (p.kind === 'component') return daverror(403, CALDAV, 'supported-calendar-component', p.desc);
    return daverror(403, CALDAV, 'valid-calendar-object-resource', p.desc);
  }
  const fields = read.ok;
  const found = await findObject(ctx.deps, ctx.account, calendar, name);
  if (found.kind === 'elsewhere') return plain(409, 'another calendar holds a task under this name');
  const current = found.kind === 'here' ? found.view : undefined;
  if (preconditionFails(headers.ifMatch, headers.ifNoneMatch, current)) return plain(412, 'the object is not as the request expects (If-Match, If-None-Match)');
  const owner = await taskOfUid(ctx, fields.uid);
  if (owner !== undefined && owner !== current?.task.id) return daverror(409, CALDAV, 'no-uid-conflict', `another task of this account has the UID ${fields.uid}`);
  if (!current && taskOfDefaultName(name) !== undefined) return plain(403, 'names of the form tickler-<number>.ics are the server\'s own: choose another name');
  const { item, kept } = await itemOf(ctx, fields, calendar, current?.task, current?.task.id);
  const auth = davAuth(ctx);
  const also =
    (taskId: () => number | undefined) =>
    async (tx: Repos, results: readonly WriteResult[]): Promise<void> => {
      const id = taskId() ?? (results[0] && 'task' in results[0] ? results[0].task.id : undefined);
      if (id === undefined) return;
      const row = (await tx.caldav.objectsOf(ctx.account.pk, [id])).get(id);
      if (row && row.name === name && row.uid === fields.uid && row.kept === kept) return;
      await tx.caldav.put(ctx.account.pk, { taskId: id, name, uid: fields.uid, kept });
    };
  if (!current) {
    const [result] = await addTasks(ctx.deps, auth, [item], NO_WANTED, also(() => undefined));
    if (!result || 'errorCode' in result) return refusedItem(result as ItemError);
    return { status: 201 };
  }
  // Completing a repeating task moves it on, as v3's reschedule does: it stays open with its next due date.
  const [result] = await editTasks(ctx.deps, auth, [{ id: current.task.id, ...item }], { wanted: NO_WANTED, reschedule: true, also: also(() => current.task.id) });
  // 606: nothing of the task changed (its kept properties may have, written beside it).
  if (result && 'errorCode' in result && result.errorCode !== 606) return refusedItem(result);
  return { status: 204 };
}

export async function deleteObject(ctx: DavContext, segment: string, name: string, ifMatch: string | undefined): Promise<DavAnswer> {
  if (ctx.readOnly) return needPrivileges();
  const calendar = await calendarAt(ctx.deps, ctx.account.pk, segment);
  const found = calendar ? await findObject(ctx.deps, ctx.account, calendar, name) : { kind: 'none' as const };
  if (found.kind !== 'here') return plain(404, 'no such object');
  if (preconditionFails(ifMatch, undefined, found.view)) return plain(412, 'the object changed since (If-Match)');
  // Its subtasks go with it, as tasks/delete does.
  await deleteTasks(ctx.deps, davAuth(ctx), [found.view.task.id]);
  return { status: 204 };
}

/** MOVE of an object to another calendar of the account: its task changes folder (and its name, when the destination's differs). */
export async function moveObject(
  ctx: DavContext,
  from: { segment: string; name: string },
  to: { segment: string; name: string },
  headers: { overwrite: boolean; ifMatch?: string },
): Promise<DavAnswer> {
  if (ctx.readOnly) return needPrivileges();
  const [source, target] = await Promise.all([calendarAt(ctx.deps, ctx.account.pk, from.segment), calendarAt(ctx.deps, ctx.account.pk, to.segment)]);
  if (!target) return plain(409, 'no such destination calendar');
  const found = source ? await findObject(ctx.deps, ctx.account, source, from.name) : { kind: 'none' as const };
  if (found.kind !== 'here') return plain(404, 'no such object');
  if (preconditionFails(headers.ifMatch, undefined, found.view)) return plain(412, 'the object changed since (If-Match)');
  const ownName = taskOfDefaultName(to.name);
  if (to.name !== found.view.name && ownName !== undefined && ownName !== found.view.task.id) return plain(403, 'names of the form tickler-<number>.ics are the server\'s own: choose another name');
  const seen = await findObject(ctx.deps, ctx.account, target, to.name);
  // The moving task itself holding the name (in the calendar it leaves) is no obstacle.
  const there = seen.kind === 'elsewhere' && seen.taskId === found.view.task.id ? ({ kind: 'none' } as const) : seen;
  if (there.kind === 'here' && there.view.task.id === found.view.task.id) return { status: 204 };
  if (there.kind !== 'none' && !headers.overwrite) return plain(412, 'the destination exists (Overwrite: F)');
  if (there.kind === 'elsewhere') return plain(409, 'another calendar holds a task under the destination name');
  if (there.kind === 'here') await deleteTasks(ctx.deps, davAuth(ctx), [there.view.task.id]);
  const view = found.view;
  const auth = davAuth(ctx);
  const [result] = await editTasks(ctx.deps, auth, [{ id: view.task.id, folder: target.folder }], {
    wanted: NO_WANTED,
    reschedule: false,
    also: async (tx) => {
      if (view.name === to.name) return;
      const row = (await tx.caldav.objectsOf(ctx.account.pk, [view.task.id])).get(view.task.id);
      await tx.caldav.put(ctx.account.pk, { taskId: view.task.id, name: to.name, uid: view.uid, kept: row?.kept ?? '' });
    },
  });
  if (result && 'errorCode' in result && result.errorCode !== 606) return refusedItem(result);
  return { status: there.kind === 'here' ? 204 : 201 };
}
