import { ApiError } from '../errors.js';
import { KINDS } from '../features/organizers/organizer-kinds.js';
import { addOrganizer, deleteOrganizer, editOrganizer } from '../features/organizers/organizers.service.js';
import { listCalendars, NAME_KEY, SEGMENT_KEY, UNFILED_SEGMENT, type Calendar } from './calendars.js';
import { plain, XML_TYPE, type DavAnswer, type DavContext } from './dav-context.js';
import { CALDAV, child, clarkOf, DAV, davError, emptyPropertyOf, multistatus, parseDav, response, writeElement, type DavElement } from './dav-xml.js';
import { davAuth, needPrivileges } from './object-writes.js';

/**
 * Calendars made, changed and deleted by CalDAV clients, as folders (docs/caldav.md): MKCALENDAR
 * (and RFC 5689's extended MKCOL, which some clients use instead) makes a folder named after the
 * calendar's displayname, PROPPATCH of displayname renames it, DELETE does what deleting the
 * folder does in v3 (its tasks move to the calendar of tasks without a folder). Every other
 * property a client sets on a calendar (its colour, its order, its time zone) is kept as it sent it.
 */

const FOLDERS = KINDS.find((k) => k.kind === 'folder') as (typeof KINDS)[number];
const DISPLAYNAME = '{DAV:}displayname';
/** Properties whose values are the server's own: a client cannot set them. */
const PROTECTED = new Set([
  '{DAV:}resourcetype', '{DAV:}getetag', '{DAV:}sync-token', '{http://calendarserver.org/ns/}getctag',
  '{DAV:}current-user-privilege-set', '{DAV:}owner', '{DAV:}supported-report-set', `{${CALDAV}}supported-calendar-component-set`,
  `{${CALDAV}}supported-calendar-data`, `{${CALDAV}}max-resource-size`,
]);

const xmlAnswer = (status: number, body: string): DavAnswer => ({ status, contentType: XML_TYPE, body });

/** The properties a `set` (of MKCALENDAR or MKCOL) carries. */
function setProps(root: DavElement): DavElement[] {
  return root.children.filter((c) => c.ns === DAV && c.name === 'set').flatMap((s) => child(s, DAV, 'prop')?.children ?? []);
}

async function uniqueFolderName(ctx: DavContext, wanted: string): Promise<string> {
  const taken = new Set((await ctx.deps.store.read.organizers.list(ctx.account.pk, 'folder')).map((f) => f.name.trim().normalize('NFC').toLowerCase()));
  const base = wanted.trim().slice(0, 60) || 'Tasks';
  for (let n = 1; n < 1000; n++) {
    const name = n === 1 ? base : `${base} (${n})`;
    if (!taken.has(name.normalize('NFC').toLowerCase())) return name;
  }
  return `${base} ${Date.now()}`;
}

/** MKCALENDAR, or MKCOL with a calendar's resourcetype. */
export async function makeCalendar(ctx: DavContext, segment: string, body: string, method: 'MKCALENDAR' | 'MKCOL'): Promise<DavAnswer> {
  if (ctx.readOnly) return needPrivileges();
  const calendars = await listCalendars(ctx.deps, ctx.account.pk);
  const kept = await ctx.deps.store.read.caldav.calendarProps(ctx.account.pk);
  const taken = segment === UNFILED_SEGMENT || /^folder-\d+$/.test(segment) || calendars.some((c) => c.segment === segment) || [...kept.values()].some((p) => p[SEGMENT_KEY] === segment);
  if (taken) return method === 'MKCOL' ? plain(405, 'a collection exists there') : xmlAnswer(403, davError(DAV, 'resource-must-be-null', 'a calendar exists there'));
  let props: DavElement[] = [];
  if (body.trim() !== '') {
    let root: DavElement;
    try {
      root = parseDav(body);
    } catch (err) {
      return plain(400, (err as Error).message);
    }
    props = setProps(root);
  }
  const type = props.find((p) => clarkOf(p) === '{DAV:}resourcetype');
  if (method === 'MKCOL' && !child(type, CALDAV, 'calendar')) return xmlAnswer(403, davError(DAV, 'valid-resourcetype', 'only calendars can be made here'));
  const components = props.find((p) => clarkOf(p) === `{${CALDAV}}supported-calendar-component-set`);
  if (components && !components.children.some((c) => (c.attrs['name'] ?? '').toUpperCase() === 'VTODO')) {
    return xmlAnswer(403, davError(CALDAV, 'supported-calendar-component', 'calendars here hold tasks (VTODO) only'));
  }
  const displayName = props.find((p) => clarkOf(p) === DISPLAYNAME)?.text.trim() || segment;
  const dead: Record<string, string> = { [SEGMENT_KEY]: segment };
  for (const p of props) if (!PROTECTED.has(clarkOf(p)) && clarkOf(p) !== DISPLAYNAME) dead[clarkOf(p)] = writeElement(p);
  let folder: number;
  try {
    folder = (await addOrganizer(ctx.deps, davAuth(ctx), { spec: FOLDERS, raw: { name: await uniqueFolderName(ctx, displayName) } }))['id'] as number;
  } catch (err) {
    if (err instanceof ApiError) return xmlAnswer(403, davError(DAV, 'quota-not-exceeded', err.desc));
    throw err;
  }
  await ctx.deps.store.transaction((tx) => tx.caldav.setCalendarProps(ctx.account.pk, folder, dead));
  return { status: 201 };
}

/** PROPPATCH of a calendar: all or nothing (RFC 4918 9.2), displayname renaming its folder. */
export async function patchCalendar(ctx: DavContext, calendar: Calendar, body: string): Promise<DavAnswer> {
  if (ctx.readOnly) return needPrivileges();
  let root: DavElement;
  try {
    root = parseDav(body);
  } catch (err) {
    return plain(400, (err as Error).message);
  }
  if (clarkOf(root) !== '{DAV:}propertyupdate') return plain(400, 'a PROPPATCH body is a DAV:propertyupdate element');
  const changes: Array<{ readonly prop: DavElement; readonly remove: boolean }> = [];
  for (const action of root.children) {
    if (action.ns !== DAV || (action.name !== 'set' && action.name !== 'remove')) continue;
    for (const prop of child(action, DAV, 'prop')?.children ?? []) changes.push({ prop, remove: action.name === 'remove' });
  }
  const refused = changes.filter((c) => PROTECTED.has(clarkOf(c.prop)));
  if (refused.length > 0) {
    return xmlAnswer(207, multistatus([
      response(ctx.requestPath, [
        { status: 403, props: refused.map((c) => emptyPropertyOf(c.prop)) },
        { status: 424, props: changes.filter((c) => !refused.includes(c)).map((c) => emptyPropertyOf(c.prop)) },
      ]),
    ]));
  }
  const props: Record<string, string> = { ...calendar.props, [SEGMENT_KEY]: calendar.segment, ...(calendar.folder === 0 && { [NAME_KEY]: calendar.displayName }) };
  let rename: string | undefined;
  for (const { prop, remove } of changes) {
    const key = clarkOf(prop);
    if (key === DISPLAYNAME && calendar.folder !== 0) {
      if (!remove && prop.text.trim() !== '' && prop.text.trim() !== calendar.displayName) rename = prop.text.trim();
      continue;
    }
    // The calendar of tasks without a folder has no folder to rename: its name is kept beside it.
    if (key === DISPLAYNAME) {
      if (remove || prop.text.trim() === '') delete props[NAME_KEY];
      else props[NAME_KEY] = prop.text.trim();
      continue;
    }
    if (remove) delete props[key];
    else props[key] = writeElement(prop);
  }
  if (rename !== undefined) {
    try {
      await editOrganizer(ctx.deps, davAuth(ctx), { spec: FOLDERS, raw: { id: String(calendar.folder), name: rename } });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return xmlAnswer(207, multistatus([response(ctx.requestPath, [{ status: 409, props: changes.map((c) => emptyPropertyOf(c.prop)) }])]));
    }
  }
  await ctx.deps.store.transaction((tx) => tx.caldav.setCalendarProps(ctx.account.pk, calendar.folder, props));
  return xmlAnswer(207, multistatus([response(ctx.requestPath, [{ status: 200, props: changes.map((c) => emptyPropertyOf(c.prop)) }])]));
}

/** DELETE of a calendar: its folder is deleted as v3's folders/delete does; the calendar of tasks without a folder cannot go. */
export async function deleteCalendar(ctx: DavContext, calendar: Calendar): Promise<DavAnswer> {
  if (ctx.readOnly) return needPrivileges();
  if (calendar.folder === 0) return plain(403, 'the calendar of tasks without a folder cannot be deleted');
  await deleteOrganizer(ctx.deps, davAuth(ctx), { spec: FOLDERS, raw: { id: String(calendar.folder) } });
  await ctx.deps.store.transaction((tx) => tx.caldav.setCalendarProps(ctx.account.pk, calendar.folder, {}));
  return { status: 204 };
}
