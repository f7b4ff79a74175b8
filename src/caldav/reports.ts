import { listCalendars, type Calendar } from './calendars.js';
import { placeOfToken, plain, syncToken, XML_TYPE, type DavAnswer, type DavContext, type Resource } from './dav-context.js';
import { CALDAV, child, children, clarkOf, DAV, davError, el, escapeXml, multistatus, parseDav, response, type DavElement } from './dav-xml.js';
import { namesControls } from './dav-paths.js';
import { componentOf, defaultName, findObjects, objectTexts, objectViews, type ObjectView } from './objects.js';
import type { TokenPlace } from './dav-context.js';
import { askedNames, emptyProperty, propertyValue, tooManyProperties } from './properties.js';
import { FilterError, passes } from './query-filter.js';
import { objectsOf } from './resources.js';

/**
 * REPORT (RFC 3253) on a calendar: calendar-multiget and calendar-query (RFC 4791 7.8, 7.9) and
 * sync-collection (RFC 6578). The Depth header is not held against clients: they send 0, 1 or
 * none whatever the RFCs say (docs/caldav.md, "Client quirks").
 */

type ObjectResource = Resource & { kind: 'object' };

/** The object responses for the properties asked, the calendar data written for all of them at once. */
async function objectResponses(ctx: DavContext, objects: readonly ObjectResource[], names: readonly string[]): Promise<string[]> {
  const wantsText = names.some((n) => n === `{${CALDAV}}calendar-data` || n === '{DAV:}getcontentlength');
  const texts = wantsText ? await objectTexts(ctx.deps, ctx.account, objects.map((o) => o.view)) : new Map<number, string>();
  return objects.map((o) => {
    const input = { ctx, resource: o, position: 0, text: () => texts.get(o.view.task.id) ?? '' };
    const found: string[] = [];
    const missing: string[] = [];
    for (const name of names) {
      const v = propertyValue(name, input);
      if (v !== undefined) found.push(v);
      else missing.push(emptyProperty(name));
    }
    return response(o.path, [
      { status: 200, props: found },
      { status: 404, props: ctx.minimal ? [] : missing },
    ]);
  });
}

/** The properties a report asks for, each once (askedNames); getetag when it names none. */
function propNames(root: DavElement): string[] {
  const prop = child(root, DAV, 'prop');
  return prop ? askedNames(prop) : [clarkOf({ ns: DAV, name: 'getetag', attrs: {}, children: [], text: '' })];
}

/**
 * The most hrefs one calendar-multiget may name: each is a whole object written. A client with
 * more fetches them in several reports; 1,000 is the largest the benchmarks ask for at once.
 */
const MAX_MULTIGET_HREFS = 1000;

async function multiget(ctx: DavContext, root: DavElement): Promise<DavAnswer> {
  const names = propNames(root);
  const hrefs = children(root, DAV, 'href');
  if (hrefs.length > MAX_MULTIGET_HREFS) {
    // The answer RFC 6578 3.7 gives a report the server will not answer in full.
    return { status: 507, contentType: XML_TYPE, body: davError(DAV, 'number-of-matches-within-limits', `a calendar-multiget may name at most ${MAX_MULTIGET_HREFS} hrefs, not ${hrefs.length}`) };
  }
  const calendars = new Map((await listCalendars(ctx.deps, ctx.account.pk)).map((c) => [c.segment, c]));
  // Each href as the client sent it (it matches its answers by it), and what it names, all read at once.
  const asked = hrefs.map((h) => {
    const raw = h.text.trim();
    const target = ctx.paths.parseHref(raw);
    // A name with control characters names no object (and PostgreSQL could not look it up).
    const calendar = target.kind === 'object' && target.userid === ctx.account.userid && !namesControls(target) ? calendars.get(target.segment) : undefined;
    return { raw, at: calendar && target.kind === 'object' ? { calendar, name: target.name } : undefined };
  });
  const views = await findObjects(ctx.deps, ctx.account, asked.flatMap((a) => (a.at ? [a.at] : [])));
  const found: ObjectResource[] = [];
  const missing: string[] = [];
  for (const { raw, at } of asked) {
    const view = at && views.get(`${at.calendar.segment}/${at.name}`);
    if (at && view) found.push({ kind: 'object', path: raw, calendar: at.calendar, view });
    else missing.push(response(raw, 404));
  }
  return { status: 207, contentType: XML_TYPE, body: multistatus([...(await objectResponses(ctx, found, names)), ...missing]) };
}

async function query(ctx: DavContext, calendar: Calendar, root: DavElement): Promise<DavAnswer> {
  const filter = child(root, CALDAV, 'filter');
  if (!filter) return { status: 403, contentType: XML_TYPE, body: davError(CALDAV, 'valid-filter', 'calendar-query needs a filter') };
  const objects = await objectsOf(ctx, calendar);
  const texts = await objectTexts(ctx.deps, ctx.account, objects.map((o) => o.view));
  let kept: ObjectResource[];
  try {
    kept = objects.filter((o) => passes(componentOf(texts.get(o.view.task.id) ?? ''), filter, ctx.account.offsetMinutes));
  } catch (err) {
    if (err instanceof FilterError) return { status: 403, contentType: XML_TYPE, body: davError(CALDAV, 'valid-filter', err.message) };
    throw err;
  }
  return { status: 207, contentType: XML_TYPE, body: multistatus(await objectResponses(ctx, kept, propNames(root))) };
}

async function syncCollection(ctx: DavContext, calendar: Calendar, collectionPath: string, root: DavElement): Promise<DavAnswer> {
  const sent = child(root, DAV, 'sync-token')?.text.trim() ?? '';
  const invalid = (): DavAnswer => ({ status: 403, contentType: XML_TYPE, body: davError(DAV, 'valid-sync-token', 'this sync token is not (or no longer) valid: sync again without one') });
  const log = ctx.deps.store.read.changes;
  const pk = ctx.account.pk;
  const position = await log.position(pk);
  if (!position) return plain(404, 'no such account');
  let place: TokenPlace | undefined;
  if (sent !== '') {
    place = placeOfToken(sent);
    // Removals it needs forgotten, or a position past the log's (another history of the account).
    if (place === undefined || place.needsAfter > position.seq || place.needsAfter < position.floor) return invalid();
  }
  const limitText = child(child(root, DAV, 'limit'), DAV, 'nresults')?.text.trim();
  const limit = limitText !== undefined && /^\d+$/.test(limitText) ? Math.max(1, Number(limitText)) : Number.MAX_SAFE_INTEGER;
  const names = propNames(root);
  let changed: Array<{ readonly id: number; readonly seq: number; readonly gone: boolean }>;
  if (place === undefined) {
    // The first sync: every member, no removed ones (RFC 6578 3.4).
    changed = (await log.folderMembers(pk, calendar.folder)).map((m) => ({ ...m, gone: false }));
  } else {
    const since = await log.folderSince(pk, calendar.folder, place.seq, position.seq);
    // The hourly prune may have committed between the two reads, taking removals this answer needs.
    if (place.needsAfter < ((await log.position(pk))?.floor ?? 0)) return invalid();
    // A token of another clock: every member is changed, its times written anew in this one.
    const members = place.offsetMinutes === ctx.account.offsetMinutes ? since.members : await log.folderMembers(pk, calendar.folder);
    changed = [...members.map((m) => ({ ...m, gone: false })), ...since.left.map((m) => ({ ...m, gone: true }))];
  }
  // By position: a truncated answer's token is its last change's, and every change it left out is after it.
  changed.sort((a, b) => a.seq - b.seq);
  const truncated = changed.length > limit;
  const shown = truncated ? changed.slice(0, limit) : changed;
  const tokenSeq = truncated ? (shown[shown.length - 1] as { seq: number }).seq : position.seq;
  // A first sync's truncated answers carry where it started until they reach it (dav-context.ts).
  const start = place === undefined ? position.seq : place.needsAfter;
  const liveIds = shown.filter((c) => !c.gone).map((c) => c.id);
  const tasks = liveIds.length === 0 ? [] : (await ctx.deps.store.read.tasks.page(ctx.account.pk, { where: { ids: liveIds }, start: 0, num: liveIds.length, withChildren: false })).tasks;
  const views = await objectViews(ctx.deps.store.read, ctx.account, tasks, position.seq);
  const live: ObjectResource[] = views
    .filter((v: ObjectView) => v.task.folder === calendar.folder)
    .map((view) => ({ kind: 'object', path: ctx.paths.object(ctx.account.userid, calendar.segment, view.name), calendar, view }));
  // A task gone between the log's read and the tasks' is reported gone; so is every task that left.
  const liveIdSet = new Set(live.map((o) => o.view.task.id));
  const goneIds = shown.filter((c) => c.gone || !liveIdSet.has(c.id)).map((c) => c.id);
  const rows = await ctx.deps.store.read.caldav.objectsOf(ctx.account.pk, goneIds);
  const removed = goneIds.map((id) => response(ctx.paths.object(ctx.account.userid, calendar.segment, rows.get(id)?.name ?? defaultName(id)), 404));
  const more = truncated ? [response(collectionPath, 507)] : [];
  const tail = el(DAV, 'sync-token', escapeXml(syncToken(tokenSeq, ctx.account.offsetMinutes, start)));
  return { status: 207, contentType: XML_TYPE, body: multistatus([...(await objectResponses(ctx, live, names)), ...removed, ...more], tail) };
}

export async function report(ctx: DavContext, resource: Resource, body: string): Promise<DavAnswer> {
  let root: DavElement;
  try {
    root = parseDav(body);
  } catch (err) {
    return plain(400, (err as Error).message);
  }
  const refused = tooManyProperties(propNames(root));
  if (refused) return refused;
  const kind = clarkOf(root);
  if (kind === `{${CALDAV}}calendar-multiget`) {
    if (resource.kind !== 'calendar' && resource.kind !== 'home') return plain(403, 'calendar-multiget is a report of a calendar');
    return multiget(ctx, root);
  }
  if (resource.kind !== 'calendar') return { status: 403, contentType: XML_TYPE, body: davError(DAV, 'supported-report', 'reports are answered on a calendar') };
  if (kind === `{${CALDAV}}calendar-query`) return query(ctx, resource.calendar, root);
  if (kind === '{DAV:}sync-collection') return syncCollection(ctx, resource.calendar, ctx.requestPath, root);
  return { status: 403, contentType: XML_TYPE, body: davError(DAV, 'supported-report', `${kind} is not a report this server knows`) };
}

