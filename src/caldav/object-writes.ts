import type { ItemError } from '../errors.js';
import { addTasks, deleteTasks, editTasks, type BeforeWrite, type WriteResult } from '../features/tasks/tasks.write.js';
import { storedDate } from '../ical/times.js';
import { statusAsked, type TodoFields } from '../ical/vtodo-model.js';
import { readCalendarObject } from '../ical/vtodo-read.js';
import { startWrittenAsDtstart } from '../ical/vtodo-write.js';
import type { AuthContext } from '../oauth/access-tokens.js';
import type { Repos, Task } from '../storage/store.js';
import { calendarAt, type Calendar } from './calendars.js';
import { plain, XML_TYPE, type DavAnswer, type DavContext } from './dav-context.js';
import { CALDAV, DAV, davError } from './dav-xml.js';
import { etagListHolds, findObject, sameFound, taskOfDefaultName, taskOfDefaultUid, type Found, type ObjectView } from './objects.js';

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

/** The task a UID names in this account, if a live one does (a client's UID, or one of Tickler's own), read through `reader`. */
async function taskOfUid(ctx: DavContext, uid: string, reader: Repos): Promise<number | undefined> {
  const row = await reader.caldav.byUid(ctx.account.pk, uid);
  if (row && (await reader.tasks.get(ctx.account.pk, row.taskId))) return row.taskId;
  const own = taskOfDefaultUid(uid, ctx.account.userid);
  if (own === undefined || !(await reader.tasks.get(ctx.account.pk, own))) return undefined;
  // A task a client named with a UID of its own no longer answers to Tickler's.
  return (await reader.caldav.objectsOf(ctx.account.pk, [own])).has(own) ? undefined : own;
}

/** The ids of the organizers the object names that exist: a stale one is left as the task has it. */
async function existing(ctx: DavContext, kind: 'context' | 'goal' | 'location', id: number | undefined): Promise<number | undefined> {
  if (id === undefined || id === 0) return id;
  return (await ctx.deps.store.read.organizers.exists(ctx.account.pk, kind, id)) ? id : undefined;
}

/**
 * The tasks/add or tasks/edit item a VTODO asks for, and the kept properties with what could not
 * be applied. `withParent` false: RELATED-TO is kept as the client wrote it, not made the task's
 * parent (the tasks' service refused that parent: putObject).
 */
async function itemOf(ctx: DavContext, f: TodoFields, calendar: Calendar, current: Task | undefined, withParent: boolean): Promise<{ item: Record<string, unknown>; kept: string }> {
  const today = Math.floor((ctx.deps.clock.now() / 1000 + ctx.account.offsetMinutes * 60) / 86400);
  const completed = f.completed === null ? 0 : f.completed === 'undated' ? (current && current.completed !== 0 ? current.completed : storedDate(today)) : storedDate(f.completed);
  // A start written in X-TICKLER-START that an app dropped with the X- properties it does not
  // know stays: the app never saw a DTSTART it could have removed.
  const startKept = !f.startTold && current !== undefined && current.startdate !== 0 && !startWrittenAsDtstart(current);
  const item: Record<string, unknown> = {
    title: f.title,
    note: f.note,
    folder: calendar.folder,
    duedate: f.due ? storedDate(f.due.day) : 0,
    duetime: f.due && f.due.time !== null ? f.due.day * 86400 + f.due.time : 0,
    ...(!startKept && {
      startdate: f.start ? storedDate(f.start.day) : 0,
      starttime: f.start && f.start.time !== null ? f.start.day * 86400 + f.start.time : 0,
    }),
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
  // The parent is the tasks' service's to judge (one level, a subscription: task-checks.ts); one
  // it does not know stays as the client wrote it.
  const parent = f.parentUid === null || !withParent ? undefined : await taskOfUid(ctx, f.parentUid, ctx.deps.store.read);
  if (f.parentUid === null) item['parent'] = 0;
  else if (parent !== undefined) item['parent'] = parent;
  else {
    props = [...props, ['related-to', { reltype: 'PARENT' }, 'text', f.parentUid]];
    item['parent'] = 0;
  }
  const kept = { ...f.kept, props };
  return { item, kept: kept.props.length + kept.comps.length + kept.calendar.length === 0 ? '' : JSON.stringify(kept) };
}

function refusedItem(e: ItemError): DavAnswer {
  return daverror(403, CALDAV, 'valid-calendar-object-resource', e.errorDesc);
}

/** What a write found changed (or gone, or come) by the time its transaction held the account: what it holds now. */
class FoundChanged<T> extends Error {
  constructor(readonly now: T) {
    super('the calendar object changed while the request was read');
  }
}

/** Times a write is judged again when what it found changed before it could write. */
const ATTEMPTS = 3;

/**
 * Runs a write judged on what `look` sees, judging it again when its transaction sees otherwise:
 * the request is then answered as of the object as it now is (its If-Match fails, a DELETE of a
 * moved object finds nothing), never written over a change it did not see. The second judgement
 * takes what the transaction saw: a read outside it may not see yet a write committed with it
 * (SQLite commits several transactions at once).
 */
async function judgedAgain<T>(
  look: (reader: Repos) => Promise<T>,
  same: (a: T, b: T) => boolean,
  write: (seen: T, before: BeforeWrite) => Promise<DavAnswer>,
  readFirst: Repos,
): Promise<DavAnswer> {
  let seen = await look(readFirst);
  for (let attempt = 1; ; attempt++) {
    const judged = seen;
    const before: BeforeWrite = async (tx) => {
      const now = await look(tx);
      if (!same(judged, now)) throw new FoundChanged(now);
    };
    try {
      return await write(judged, before);
    } catch (err) {
      if (!(err instanceof FoundChanged)) throw err;
      if (attempt >= ATTEMPTS) return plain(409, 'the object kept changing while this request was written: send it again');
      seen = err.now as Awaited<T>;
    }
  }
}

/** What a PUT reads before it writes: what its name holds, and the task its UID names. */
interface PutSight {
  readonly found: Found;
  readonly owner: number | undefined;
}

const samePutSight = (a: PutSight, b: PutSight): boolean => a.owner === b.owner && sameFound(a.found, b.found);

/** Subtask refusals of the tasks' service (612 the nesting, 617 a subscription): the PUT is written again with RELATED-TO kept. */
const PARENT_REFUSALS = new Set([612, 617]);

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
  const look = async (reader: Repos): Promise<PutSight> => ({
    found: await findObject(reader, ctx.account, calendar, name),
    owner: await taskOfUid(ctx, fields.uid, reader),
  });
  return judgedAgain(
    look,
    samePutSight,
    async (seen, before) => {
      const answer = await putOnce(ctx, { calendar, name, fields, headers, seen, before }, true);
      return answer === PARENT_REFUSED ? putOnce(ctx, { calendar, name, fields, headers, seen, before }, false) : answer;
    },
    ctx.deps.store.read,
  );
}

const PARENT_REFUSED: DavAnswer = { status: 403 };

/** A PUT as judged: its object and what it found at its name and UID, and the check its transaction makes. */
interface PutRequest {
  readonly calendar: Calendar;
  readonly name: string;
  readonly fields: TodoFields;
  readonly headers: { ifMatch?: string; ifNoneMatch?: string };
  readonly seen: PutSight;
  readonly before: BeforeWrite;
}

async function putOnce(ctx: DavContext, put: PutRequest, withParent: boolean): Promise<DavAnswer> {
  const { calendar, name, fields, headers, before } = put;
  const { found, owner } = put.seen;
  const current = found.kind === 'here' ? found.view : undefined;
  if (preconditionFails(headers.ifMatch, headers.ifNoneMatch, current)) return plain(412, 'the object is not as the request expects (If-Match, If-None-Match)');
  // The task this PUT writes: the object at its name, or the same object (name and UID) in
  // another calendar, which a client moves here by writing it here and deleting it there.
  const target = found.kind === 'none' ? undefined : found.view;
  if (found.kind === 'elsewhere' && (owner !== found.view.task.id || found.view.uid !== fields.uid)) return plain(409, 'another calendar holds a task under this name');
  if (owner !== undefined && owner !== target?.task.id) return daverror(409, CALDAV, 'no-uid-conflict', `another task of this account has the UID ${fields.uid}`);
  if (target && target.uid !== fields.uid) return daverror(409, CALDAV, 'no-uid-conflict', `the object at this name has the UID ${target.uid}: a new UID is a new object, at a name of its own`);
  if (!target && taskOfDefaultName(name) !== undefined) return plain(403, 'names of the form tickler-<number>.ics are the server\'s own: choose another name');
  const { item, kept } = await itemOf(ctx, fields, calendar, target?.task, withParent);
  const auth = davAuth(ctx);
  const also =
    (taskId: () => number | undefined) =>
    async (tx: Repos, results: readonly WriteResult[]): Promise<void> => {
      const result = results[0];
      // Nothing is written beside a refused item (606, nothing of the task changed, is no refusal).
      if (!result || ('errorCode' in result && result.errorCode !== 606)) return;
      const id = taskId() ?? ('task' in result ? result.task.id : undefined);
      if (id === undefined) return;
      const row = (await tx.caldav.objectsOf(ctx.account.pk, [id])).get(id);
      if (row && row.name === name && row.uid === fields.uid && row.kept === kept) return;
      await tx.caldav.put(ctx.account.pk, { taskId: id, name, uid: fields.uid, kept });
    };
  const parentRefused = (r: WriteResult | undefined): boolean => withParent && item['parent'] !== 0 && r !== undefined && 'errorCode' in r && PARENT_REFUSALS.has(r.errorCode);
  if (!target) {
    const [result] = await addTasks(ctx.deps, auth, [item], NO_WANTED, { before, also: also(() => undefined) });
    if (parentRefused(result)) return PARENT_REFUSED;
    if (!result || 'errorCode' in result) return refusedItem(result as ItemError);
    return { status: 201 };
  }
  // Completing a repeating task moves it on, as v3's reschedule does: it stays open with its next due date.
  const [result] = await editTasks(ctx.deps, auth, [{ id: target.task.id, ...item }], { wanted: NO_WANTED, reschedule: true, before, also: also(() => target.task.id) });
  if (parentRefused(result)) return PARENT_REFUSED;
  // 606: nothing of the task changed (its kept properties may have, written beside it).
  if (result && 'errorCode' in result && result.errorCode !== 606) return refusedItem(result);
  return { status: found.kind === 'here' ? 204 : 201 };
}

export async function deleteObject(ctx: DavContext, segment: string, name: string, ifMatch: string | undefined): Promise<DavAnswer> {
  if (ctx.readOnly) return needPrivileges();
  const calendar = await calendarAt(ctx.deps, ctx.account.pk, segment);
  if (!calendar) return plain(404, 'no such object');
  const look = (reader: Repos): Promise<Found> => findObject(reader, ctx.account, calendar, name);
  return judgedAgain(
    look,
    sameFound,
    async (found, before) => {
      if (found.kind !== 'here') return plain(404, 'no such object');
      if (preconditionFails(ifMatch, undefined, found.view)) return plain(412, 'the object changed since (If-Match)');
      // Its subtasks go with it, as tasks/delete does.
      await deleteTasks(ctx.deps, davAuth(ctx), [found.view.task.id], { before });
      return { status: 204 };
    },
    ctx.deps.store.read,
  );
}

/**
 * MOVE of an object to another calendar of the account: its task changes folder. The object
 * keeps its name: a calendar that an object left reports it gone under the name its clients knew
 * (a rename is refused; a client renames by PUT and DELETE). Names are the account's, so the
 * destination holds no other object.
 */
export async function moveObject(ctx: DavContext, from: { segment: string; name: string }, to: { segment: string; name: string }, headers: { ifMatch?: string }): Promise<DavAnswer> {
  if (ctx.readOnly) return needPrivileges();
  const [source, target] = await Promise.all([calendarAt(ctx.deps, ctx.account.pk, from.segment), calendarAt(ctx.deps, ctx.account.pk, to.segment)]);
  if (!source) return plain(404, 'no such object');
  if (!target) return plain(409, 'no such destination calendar');
  if (to.name !== from.name) return plain(403, 'MOVE keeps an object\'s name: to rename it, PUT it under the new name and DELETE the old');
  const look = (reader: Repos): Promise<Found> => findObject(reader, ctx.account, source, from.name);
  return judgedAgain(
    look,
    sameFound,
    async (found, before) => {
      if (found.kind !== 'here') return plain(404, 'no such object');
      if (preconditionFails(headers.ifMatch, undefined, found.view)) return plain(412, 'the object changed since (If-Match)');
      if (source.folder === target.folder) return { status: 204 };
      const [result] = await editTasks(ctx.deps, davAuth(ctx), [{ id: found.view.task.id, folder: target.folder }], { wanted: NO_WANTED, reschedule: false, before });
      if (result && 'errorCode' in result && result.errorCode !== 606) return refusedItem(result);
      return { status: 201 };
    },
    ctx.deps.store.read,
  );
}
