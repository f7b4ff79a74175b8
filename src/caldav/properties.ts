import { CALDAV, clark, clarkOf, CS, DAV, el, escapeXml, href, ICAL, type DavElement } from './dav-xml.js';
import { plain, syncToken, type DavAnswer, type DavContext, type Resource } from './dav-context.js';

/**
 * The properties Tickler answers for each kind of resource (docs/caldav.md, "What clients ask"):
 * each a function of the resource that writes the property's element, or undefined when the
 * resource has no such property (answered 404 in its propstat). Values come from the account and
 * its log; a calendar's dead properties (its colour, its order) from what its client set.
 */

export interface PropertyInput {
  readonly ctx: DavContext;
  readonly resource: Resource;
  /** The account's position in its log: every calendar's CTag and sync token. */
  readonly position: number;
  /** A calendar object's text, read when a property needs it. */
  readonly text: () => string;
}

type Property = (input: PropertyInput) => string | undefined;

const privileges = (readOnly: boolean): string => {
  const names = readOnly ? ['read', 'read-current-user-privilege-set'] : ['read', 'read-current-user-privilege-set', 'write', 'write-properties', 'write-content', 'bind', 'unbind', 'all'];
  return names.map((n) => el(DAV, 'privilege', el(DAV, n))).join('');
};

const reports = (names: ReadonlyArray<readonly [string, string]>): string =>
  names.map(([ns, n]) => el(DAV, 'supported-report', el(DAV, 'report', el(ns, n)))).join('');

const COLLECTION_REPORTS: ReadonlyArray<readonly [string, string]> = [
  [CALDAV, 'calendar-multiget'],
  [CALDAV, 'calendar-query'],
  [DAV, 'sync-collection'],
];

const isCollection = (r: Resource): boolean => r.kind !== 'object';

/** An HTTP date, as getlastmodified writes one. */
const httpDate = (seconds: number): string => new Date(seconds * 1000).toUTCString();

export const PROPERTIES: ReadonlyMap<string, Property> = new Map<string, Property>([
  [clark(DAV, 'resourcetype'), ({ resource: r }) => {
    if (r.kind === 'object') return el(DAV, 'resourcetype');
    if (r.kind === 'principal') return el(DAV, 'resourcetype', el(DAV, 'collection') + el(DAV, 'principal'));
    if (r.kind === 'calendar') return el(DAV, 'resourcetype', el(DAV, 'collection') + el(CALDAV, 'calendar'));
    return el(DAV, 'resourcetype', el(DAV, 'collection'));
  }],
  [clark(DAV, 'displayname'), ({ ctx, resource: r }) => {
    if (r.kind === 'calendar') return el(DAV, 'displayname', escapeXml(r.calendar.displayName));
    if (r.kind === 'principal') return el(DAV, 'displayname', escapeXml(ctx.account.alias || ctx.account.email));
    if (r.kind === 'home') return el(DAV, 'displayname', 'Tasks');
    return undefined;
  }],
  [clark(DAV, 'current-user-principal'), ({ ctx }) => el(DAV, 'current-user-principal', href(ctx.paths.principal(ctx.account.userid)))],
  [clark(DAV, 'principal-URL'), ({ ctx, resource: r }) => (r.kind === 'principal' ? el(DAV, 'principal-URL', href(ctx.paths.principal(ctx.account.userid))) : undefined)],
  [clark(DAV, 'principal-collection-set'), ({ ctx }) => el(DAV, 'principal-collection-set', href(`${ctx.paths.root()}principals/`))],
  [clark(DAV, 'owner'), ({ ctx, resource: r }) => (r.kind === 'root' || r.kind === 'principals' ? undefined : el(DAV, 'owner', href(ctx.paths.principal(ctx.account.userid))))],
  [clark(CALDAV, 'calendar-home-set'), ({ ctx, resource: r }) => (r.kind === 'root' || r.kind === 'principal' ? el(CALDAV, 'calendar-home-set', href(ctx.paths.home(ctx.account.userid))) : undefined)],
  [clark(CALDAV, 'calendar-user-address-set'), ({ ctx, resource: r }) =>
    r.kind === 'principal' ? el(CALDAV, 'calendar-user-address-set', href(`mailto:${ctx.account.email}`)) : undefined],
  [clark(DAV, 'current-user-privilege-set'), ({ ctx }) => el(DAV, 'current-user-privilege-set', privileges(ctx.readOnly))],
  [clark(DAV, 'supported-report-set'), ({ resource: r }) =>
    r.kind === 'calendar' || r.kind === 'home' ? el(DAV, 'supported-report-set', reports(COLLECTION_REPORTS)) : r.kind === 'object' ? undefined : el(DAV, 'supported-report-set')],
  [clark(CALDAV, 'supported-calendar-component-set'), ({ resource: r }) =>
    r.kind === 'calendar' ? el(CALDAV, 'supported-calendar-component-set', '<c:comp name="VTODO"/>') : undefined],
  [clark(CALDAV, 'supported-calendar-data'), ({ resource: r }) =>
    r.kind === 'calendar' ? el(CALDAV, 'supported-calendar-data', '<c:calendar-data content-type="text/calendar" version="2.0"/>') : undefined],
  [clark(CALDAV, 'max-resource-size'), ({ ctx, resource: r }) => (r.kind === 'calendar' ? el(CALDAV, 'max-resource-size', String(ctx.deps.config.caldavMaxBytes)) : undefined)],
  [clark(CS, 'getctag'), ({ ctx, resource: r, position }) => (r.kind === 'calendar' || r.kind === 'home' ? el(CS, 'getctag', syncToken(position, ctx.account.offsetMinutes)) : undefined)],
  [clark(DAV, 'sync-token'), ({ ctx, resource: r, position }) => (r.kind === 'calendar' || r.kind === 'home' ? el(DAV, 'sync-token', syncToken(position, ctx.account.offsetMinutes)) : undefined)],
  [clark(DAV, 'getetag'), ({ resource: r }) => (r.kind === 'object' ? el(DAV, 'getetag', escapeXml(r.view.etag)) : undefined)],
  [clark(DAV, 'getcontenttype'), ({ resource: r }) => (r.kind === 'object' ? el(DAV, 'getcontenttype', 'text/calendar; charset=utf-8; component=VTODO') : undefined)],
  [clark(DAV, 'getcontentlength'), ({ resource: r, text }) => (r.kind === 'object' ? el(DAV, 'getcontentlength', String(Buffer.byteLength(text()))) : undefined)],
  [clark(DAV, 'getlastmodified'), ({ resource: r }) => (r.kind === 'object' ? el(DAV, 'getlastmodified', httpDate(r.view.task.modified)) : undefined)],
  [clark(CALDAV, 'calendar-data'), ({ resource: r, text }) => (r.kind === 'object' ? el(CALDAV, 'calendar-data', escapeXml(text())) : undefined)],
  [clark(ICAL, 'calendar-color'), (input) => deadProperty(input, clark(ICAL, 'calendar-color'))],
  [clark(ICAL, 'calendar-order'), (input) => deadProperty(input, clark(ICAL, 'calendar-order'))],
]);

/** A property a client set on a calendar (PROPPATCH, MKCALENDAR), as it sent it. */
export function deadProperty({ resource: r }: PropertyInput, key: string): string | undefined {
  return r.kind === 'calendar' ? r.calendar.props[key] : undefined;
}

/** What allprop answers (RFC 4918 9.1): the live properties of the resource, and its dead ones. Not calendar-data. */
export function allPropNames(r: Resource): string[] {
  const live = [
    clark(DAV, 'resourcetype'),
    clark(DAV, 'displayname'),
    clark(DAV, 'owner'),
    clark(DAV, 'supported-report-set'),
    ...(isCollection(r) ? [] : [clark(DAV, 'getetag'), clark(DAV, 'getcontenttype'), clark(DAV, 'getcontentlength'), clark(DAV, 'getlastmodified')]),
    ...(r.kind === 'calendar' ? [clark(CALDAV, 'supported-calendar-component-set'), clark(CS, 'getctag'), clark(DAV, 'sync-token')] : []),
  ];
  return r.kind === 'calendar' ? [...live, ...Object.keys(r.calendar.props).filter((k) => !live.includes(k))] : live;
}

/** The element of a property the resource does not have: `<name xmlns=…/>`, for a 404 propstat. */
export function emptyProperty(key: string): string {
  const m = /^\{(.*)\}(.+)$/.exec(key);
  return m ? el(m[1] as string, m[2] as string) : '';
}

/** The value of one property, known or dead; undefined when the resource has none. */
export function propertyValue(key: string, input: PropertyInput): string | undefined {
  const known = PROPERTIES.get(key);
  return known ? known(input) : deadProperty(input, key);
}

/**
 * The most distinct properties one PROPFIND or REPORT may ask for. Every name asked is answered
 * for every resource listed, calendar-data with the whole object: unbounded, a body of 1 MiB asked
 * for the same objects 58,000 times over. The clients' requests the tests hold
 * (caldav.clients.test.ts) ask for at most 17.
 */
const MAX_PROPERTIES = 64;

/** The names a `<d:prop>` asks for, each once, in the order first asked. */
export function askedNames(prop: DavElement): string[] {
  return [...new Set(prop.children.map(clarkOf))];
}

/**
 * The answer to a request asking for more than MAX_PROPERTIES, or undefined. 400: no precondition
 * of RFC 4918 or 4791 names this, and the request is not one this server answers as sent.
 */
export function tooManyProperties(names: readonly string[]): DavAnswer | undefined {
  return names.length > MAX_PROPERTIES ? plain(400, `a request may ask for at most ${MAX_PROPERTIES} properties, not ${names.length}`) : undefined;
}
