import type { IncomingHttpHeaders } from 'node:http';
import { deleteCalendar, makeCalendar, patchCalendar } from './collections.js';
import { ICAL_TYPE, plain, type DavAnswer, type DavContext } from './dav-context.js';
import { namesControls } from './dav-paths.js';
import { moveObject, putObject, deleteObject } from './object-writes.js';
import { etagListHolds, objectTexts } from './objects.js';
import { propfind } from './propfind.js';
import { report } from './reports.js';
import { resolve } from './resources.js';

/**
 * Which handler answers a CalDAV request, by its method and what its path names (dav-paths.ts).
 * Every path under another account's name is not found: a person sees only their own calendars.
 */

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

function depthOf(headers: IncomingHttpHeaders): '0' | '1' {
  // Depth infinity (and none, which means it) is read as 1: the tree below a resource is at most one level deep.
  return header(headers, 'depth')?.trim() === '0' ? '0' : '1';
}

/**
 * Whether a MOVE's Destination is on this server: a path, or a URL whose host is the one the
 * request was sent to or PUBLIC_URL's (behind a proxy the Host header may be the proxy's upstream).
 * Anything else is another server's (RFC 4918 9.9.4: 502). A Destination that is no URL at all is
 * left to parseHref, which refuses it.
 */
function onThisServer(destination: string, host: string | undefined, publicUrl: string): boolean {
  const d = destination.trim();
  if (d.startsWith('/') && !d.startsWith('//')) return true;
  let url: URL;
  try {
    url = new URL(d);
  } catch {
    return true;
  }
  // The Host header written as a URL of the Destination's scheme, so that a default port reads as none.
  const requested = host === undefined ? undefined : URL.canParse(`${url.protocol}//${host}`) ? new URL(`${url.protocol}//${host}`).host : undefined;
  return url.host === requested || url.host === new URL(publicUrl).host;
}

const notFound = (): DavAnswer => plain(404, 'not found');
const controlsRefused = (): DavAnswer => plain(400, 'names of calendars and objects may not hold control characters');
const notAllowed = (allow: string): DavAnswer => plain(405, 'this method does not apply to this resource', { allow });

export async function dispatch(ctx: DavContext, method: string, path: string, body: string, headers: IncomingHttpHeaders): Promise<DavAnswer> {
  const target = ctx.paths.parse(path);
  const own = 'userid' in target ? target.userid === ctx.account.userid : true;
  if (!own || target.kind === 'unknown') return notFound();
  if (namesControls(target)) return controlsRefused();
  switch (method) {
    case 'PROPFIND':
    case 'REPORT':
    case 'GET':
    case 'HEAD': {
      const resolved = await resolve(ctx, target, ctx.requestPath);
      if (!('found' in resolved)) return notFound();
      const r = resolved.found;
      if (method === 'PROPFIND') return propfind(ctx, r, depthOf(headers), body);
      if (method === 'REPORT') return report(ctx, r, body);
      if (r.kind !== 'object') return plain(200, 'Tickler CalDAV: point a CalDAV client at this address (docs/caldav.md).');
      const text = (await objectTexts(ctx.deps, ctx.account, [r.view])).get(r.view.task.id) ?? '';
      const headersOut = { etag: r.view.etag, 'last-modified': new Date(r.view.task.modified * 1000).toUTCString() };
      const ifNoneMatch = header(headers, 'if-none-match');
      if (ifNoneMatch !== undefined && etagListHolds(ifNoneMatch, r.view.etag, 'weak')) return { status: 304, headers: headersOut };
      return { status: 200, headers: headersOut, contentType: ICAL_TYPE, body: method === 'HEAD' ? '' : text };
    }
    case 'PUT':
      if (target.kind !== 'object') return notAllowed('OPTIONS, PROPFIND, REPORT, PROPPATCH, DELETE');
      return putObject(ctx, target.segment, target.name, body, { ifMatch: header(headers, 'if-match'), ifNoneMatch: header(headers, 'if-none-match') });
    case 'DELETE': {
      if (target.kind === 'object') return deleteObject(ctx, target.segment, target.name, header(headers, 'if-match'));
      if (target.kind !== 'calendar') return plain(403, 'only calendars and their objects can be deleted');
      const resolved = await resolve(ctx, target, ctx.requestPath);
      return 'found' in resolved && resolved.found.kind === 'calendar' ? deleteCalendar(ctx, resolved.found.calendar) : notFound();
    }
    case 'MKCALENDAR':
    case 'MKCOL':
      if (target.kind !== 'calendar') return plain(403, 'calendars are made in the calendar home');
      return makeCalendar(ctx, target.segment, body, method);
    case 'PROPPATCH': {
      const resolved = await resolve(ctx, target, ctx.requestPath);
      if (!('found' in resolved)) return notFound();
      if (resolved.found.kind !== 'calendar') return plain(403, 'only a calendar\'s properties can be changed');
      return patchCalendar(ctx, resolved.found.calendar, body);
    }
    case 'MOVE': {
      if (target.kind !== 'object') return plain(403, 'only calendar objects can be moved');
      const destination = header(headers, 'destination');
      if (destination !== undefined && !onThisServer(destination, header(headers, 'host'), ctx.deps.config.publicUrl)) return plain(502, 'the Destination is on another server');
      const to = destination === undefined ? undefined : ctx.paths.parseHref(destination);
      if (!to || to.kind !== 'object' || to.userid !== ctx.account.userid) return plain(400, 'MOVE needs a Destination: an object of one of your calendars');
      if (namesControls(to)) return controlsRefused();
      // Overwrite is moot: a name is the account's, so the destination holds no other object (moveObject).
      return moveObject(ctx, { segment: target.segment, name: target.name }, { segment: to.segment, name: to.name }, { ifMatch: header(headers, 'if-match') });
    }
    default:
      return notAllowed('OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, REPORT, MKCALENDAR, MKCOL, MOVE');
  }
}
