import { allPropNames, askedNames, emptyProperty, propertyValue, tooManyProperties, type PropertyInput } from './properties.js';
import { CALDAV, child, clarkOf, DAV, multistatus, parseDav, response, type DavElement } from './dav-xml.js';
import { plain, XML_TYPE, type DavAnswer, type DavContext, type Resource } from './dav-context.js';
import { membersOf } from './resources.js';
import { objectTexts } from './objects.js';

/**
 * PROPFIND (RFC 4918 9.1) on any CalDAV resource, Depth 0 or 1 (infinity is read as 1: the tree
 * is two levels deep). A body naming properties gets them, each in a propstat of 200 or, for
 * properties the resource lacks, 404 (left out under `Prefer: return=minimal`); an empty body or
 * allprop gets the resource's live and dead properties; propname their names.
 */

type Request = { readonly kind: 'prop'; readonly names: string[] } | { readonly kind: 'allprop' } | { readonly kind: 'propname' };

function requestOf(body: string): Request | DavAnswer {
  if (body.trim() === '') return { kind: 'allprop' };
  let root: DavElement;
  try {
    root = parseDav(body);
  } catch (err) {
    return plain(400, (err as Error).message);
  }
  if (clarkOf(root) !== '{DAV:}propfind') return plain(400, 'a PROPFIND body is a DAV:propfind element');
  const prop = child(root, DAV, 'prop');
  if (prop) {
    // Each name once (a name sent twice would write its value twice), and only so many.
    const names = askedNames(prop);
    return tooManyProperties(names) ?? { kind: 'prop', names };
  }
  if (child(root, DAV, 'propname')) return { kind: 'propname' };
  return { kind: 'allprop' };
}

export async function propfind(ctx: DavContext, resource: Resource, depth: '0' | '1', body: string): Promise<DavAnswer> {
  const request = requestOf(body);
  if ('status' in request) return request;
  // The position (a calendar's CTag and sync token) is read before the members it covers.
  const position = (await ctx.deps.store.read.changes.position(ctx.account.pk))?.seq ?? 0;
  const resources = depth === '0' ? [resource] : [resource, ...(await membersOf(ctx, resource, position))];
  // Calendar data (and sizes) are written only when asked for, for every object at once; allprop
  // asks for getcontentlength, which is the length of the object's text.
  const wantsText = request.kind === 'allprop' || (request.kind === 'prop' && request.names.some((n) => n === `{${CALDAV}}calendar-data` || n === '{DAV:}getcontentlength'));
  const objects = resources.flatMap((r) => (r.kind === 'object' ? [r.view] : []));
  const texts = wantsText && objects.length > 0 ? await objectTexts(ctx.deps, ctx.account, objects) : new Map<number, string>();
  const answers = resources.map((r) => {
    const input: PropertyInput = { ctx, resource: r, position, text: () => (r.kind === 'object' ? (texts.get(r.view.task.id) ?? '') : '') };
    // The resource asked about keeps the path exactly as the request wrote it (a client looks its answer up by it).
    const path = r === resource ? ctx.requestPath : r.path;
    if (request.kind === 'propname') return response(path, [{ status: 200, props: allPropNames(r).map(emptyProperty) }]);
    const names = request.kind === 'prop' ? request.names : allPropNames(r);
    const found: string[] = [];
    const missing: string[] = [];
    for (const name of names) {
      const value = propertyValue(name, input);
      if (value !== undefined) found.push(value);
      else missing.push(emptyProperty(name));
    }
    return response(path, [
      { status: 200, props: found },
      { status: 404, props: ctx.minimal ? [] : missing },
    ]);
  });
  return { status: 207, body: multistatus(answers), contentType: XML_TYPE };
}
