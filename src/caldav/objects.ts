import ICAL from 'ical.js';
import type { Deps } from '../deps.js';
import { calendarObject } from '../ical/vtodo-write.js';
import { NOTHING_KEPT, type KeptIcal } from '../ical/vtodo-model.js';
import type { CalendarObject, Repos, Task } from '../storage/store.js';
import type { Calendar } from './calendars.js';

/**
 * Calendar objects: a task as a CalDAV client sees it (docs/caldav.md). An object's name and UID
 * are the ones its client chose, kept beside the task (storage/caldav-port.ts); a task no client
 * named has names of Tickler's own. Its ETag is the position of the task's latest change in the
 * account's log (docs/decisions/0023), with the account's clock: any change of the task, through
 * any face, changes it, and so does a change of the clock its times are written in.
 *
 * Every read here takes the account's position before the tasks, and no ETag names a position
 * past it (etagOf's callers): a task changed after that is answered with its body as read and an
 * ETag older than that body, which costs its client one more fetch. The other way round (an old
 * body under a new ETag) a client would keep the old body until the task changed again.
 */

export interface AccountView {
  readonly pk: number;
  readonly userid: string;
  readonly pro: number;
  /** The account's clock, minutes east of UTC. */
  readonly offsetMinutes: number;
}

const DEFAULT_NAME = /^tickler-(\d{1,10})\.ics$/;

export const defaultName = (taskId: number): string => `tickler-${taskId}.ics`;
export const defaultUid = (taskId: number, userid: string): string => `task-${taskId}-${userid}@tickler`;
export const etagOf = (seq: number, offsetMinutes: number): string => `"${seq}.${offsetMinutes}"`;

/** The account's position now: read before the tasks whose ETags it bounds. */
export async function positionBefore(reader: Repos, account: AccountView): Promise<number> {
  return (await reader.changes.position(account.pk))?.seq ?? 0;
}

/**
 * Whether an If-Match or If-None-Match list names an object's ETag (RFC 9110 13.1.1, 13.1.2): `*`
 * names any. If-Match compares strongly, so a weak tag (`W/"7"`) never matches; If-None-Match
 * compares weakly, so `W/"7"` matches `"7"`.
 */
export function etagListHolds(header: string, etag: string, comparison: 'strong' | 'weak'): boolean {
  return header.split(',').some((listed) => {
    const tag = listed.trim();
    return tag === '*' || tag === etag || (comparison === 'weak' && tag.startsWith('W/') && tag.slice(2) === etag);
  });
}

/** The task a name of Tickler's own names, or undefined. */
export function taskOfDefaultName(name: string): number | undefined {
  const m = DEFAULT_NAME.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** The task a UID of Tickler's own names in this account, or undefined. */
export function taskOfDefaultUid(uid: string, userid: string): number | undefined {
  const m = /^task-(\d{1,10})-(.+)@tickler$/.exec(uid);
  return m && m[2] === userid ? Number(m[1]) : undefined;
}

export function keptOf(row: CalendarObject | undefined): KeptIcal {
  if (!row || row.kept === '') return NOTHING_KEPT;
  return JSON.parse(row.kept) as KeptIcal;
}

/** An object as listed: its task, its row (if a client named it), its name, UID and ETag. */
export interface ObjectView {
  readonly task: Task;
  readonly row: CalendarObject | undefined;
  readonly name: string;
  readonly uid: string;
  readonly etag: string;
}

/**
 * The objects of these tasks, each with its names and ETag, read in two statements whatever
 * their number (their rows and their positions). `readBefore`: the account's position, read
 * before the tasks were (positionBefore).
 */
export async function objectViews(reader: Repos, account: AccountView, tasks: readonly Task[], readBefore: number): Promise<ObjectView[]> {
  const ids = tasks.map((t) => t.id);
  const [rows, positions] = await Promise.all([reader.caldav.objectsOf(account.pk, ids), reader.changes.taskPositions(account.pk, ids)]);
  return tasks.map((task) => {
    const row = rows.get(task.id);
    return {
      task,
      row,
      name: row?.name ?? defaultName(task.id),
      uid: row?.uid ?? defaultUid(task.id, account.userid),
      etag: etagOf(Math.min(positions.get(task.id) ?? 0, readBefore), account.offsetMinutes),
    };
  });
}

/** The UIDs of these tasks (parents of subtasks): a client's where it chose one, else Tickler's. */
export async function uidsOf(deps: Deps, account: AccountView, taskIds: readonly number[]): Promise<Map<number, string>> {
  const rows = await deps.store.read.caldav.objectsOf(account.pk, taskIds);
  return new Map(taskIds.map((id) => [id, rows.get(id)?.uid ?? defaultUid(id, account.userid)]));
}

/** The objects' iCalendar texts, by task id. */
export async function objectTexts(deps: Deps, account: AccountView, views: readonly ObjectView[]): Promise<Map<number, string>> {
  const parents = await uidsOf(deps, account, [...new Set(views.map((v) => v.task.parent).filter((p) => p !== 0))]);
  return new Map(views.map((v) => [v.task.id, textOf(v, account, parents.get(v.task.parent))]));
}

export function textOf(v: ObjectView, account: AccountView, parentUid: string | undefined): string {
  return calendarObject(v.task, { uid: v.uid, parentUid, kept: keptOf(v.row), offsetMinutes: account.offsetMinutes });
}

/** The object's VCALENDAR as a component, for calendar-query's filters. */
export function componentOf(text: string): ICAL.Component {
  return new ICAL.Component(ICAL.parse(text));
}

/** Where a name stands in a calendar: the object there, the object of another calendar holding it, or nothing. */
export type Found = { readonly kind: 'here' | 'elsewhere'; readonly view: ObjectView } | { readonly kind: 'none' };

/** The object at a name of a calendar, read through `reader` (the store's, or a write's transaction). */
export async function findObject(reader: Repos, account: AccountView, calendar: Calendar, name: string): Promise<Found> {
  const readBefore = await positionBefore(reader, account);
  const row = await reader.caldav.byName(account.pk, name);
  const taskId = row?.taskId ?? taskOfDefaultName(name);
  if (taskId === undefined) return { kind: 'none' };
  const task = await reader.tasks.get(account.pk, taskId);
  if (!task) return { kind: 'none' };
  const [view] = (await objectViews(reader, account, [task], readBefore)) as [ObjectView];
  // A name of Tickler's own is no longer the task's once a client named it otherwise.
  if (view.name !== name) return { kind: 'none' };
  return { kind: task.folder === calendar.folder ? 'here' : 'elsewhere', view };
}

/** Whether two reads found the same thing at a name: the same object, unchanged, or nothing. */
export function sameFound(a: Found, b: Found): boolean {
  if (a.kind === 'none' || b.kind === 'none') return a.kind === b.kind;
  return a.kind === b.kind && a.view.task.id === b.view.task.id && a.view.etag === b.view.etag;
}

/**
 * findObject() of many names at once (calendar-multiget): the objects at these names of these
 * calendars, by "segment/name", read in five statements whatever their number.
 */
export async function findObjects(
  deps: Deps,
  account: AccountView,
  asked: ReadonlyArray<{ readonly calendar: Calendar; readonly name: string }>,
): Promise<Map<string, ObjectView>> {
  const reader = deps.store.read;
  const readBefore = await positionBefore(reader, account);
  const rows = await reader.caldav.byNames(account.pk, [...new Set(asked.map((a) => a.name))]);
  const ids = new Set<number>();
  for (const { name } of asked) {
    const id = rows.get(name)?.taskId ?? taskOfDefaultName(name);
    if (id !== undefined) ids.add(id);
  }
  if (ids.size === 0) return new Map();
  const page = await reader.tasks.page(account.pk, { where: { ids: [...ids] }, start: 0, num: ids.size, withChildren: false });
  const views = new Map((await objectViews(reader, account, page.tasks, readBefore)).map((v) => [v.task.id, v]));
  const found = new Map<string, ObjectView>();
  for (const { calendar, name } of asked) {
    const row = rows.get(name);
    const view = views.get(row?.taskId ?? taskOfDefaultName(name) ?? -1);
    // Tickler's own name is no longer the task's once a client named it otherwise (the view's name is the row's).
    if (view && view.name === name && view.task.folder === calendar.folder) found.set(`${calendar.segment}/${name}`, view);
  }
  return found;
}
