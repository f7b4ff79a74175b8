import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { escapeAttr, escapeText } from '../http/xml.js';

/**
 * WebDAV's XML (RFC 4918), read with its namespaces resolved and written with fixed prefixes.
 * fast-xml-parser reads the text and keeps prefixes as written; this resolves each element's
 * namespace from the xmlns declarations in force, so that `<A:prop xmlns:A="DAV:">` and
 * `<prop xmlns="DAV:">` read the same. A document type declaration is refused before parsing, so
 * the only entities are XML's five; those and character references (`&#233;`, `&#xE9;`) are
 * decoded here, in one pass, and any other entity is refused as not well-formed.
 */

export const DAV = 'DAV:';
export const CALDAV = 'urn:ietf:params:xml:ns:caldav';
export const CS = 'http://calendarserver.org/ns/';
export const ICAL = 'http://apple.com/ns/ical/';

/** Prefixes of the answers' well-known namespaces, declared once on the root. */
const PREFIX: Readonly<Record<string, string>> = { [DAV]: 'd', [CALDAV]: 'c', [CS]: 'cs', [ICAL]: 'x1' };
export const ROOT_NAMESPACES = Object.entries(PREFIX)
  .map(([ns, p]) => `xmlns:${p}="${ns}"`)
  .join(' ');

export interface DavElement {
  readonly ns: string;
  readonly name: string;
  /** Attributes by name as written (`symbolic-color`, `z:q`). */
  readonly attrs: Readonly<Record<string, string>>;
  /** The namespaces of the prefixes its attributes use (`z` → `urn:z`), when they use any but `xml`. */
  readonly attrPrefixes?: Readonly<Record<string, string>>;
  readonly children: readonly DavElement[];
  /** The element's own text, its children's excluded. */
  readonly text: string;
}

export class DavXmlError extends Error {
  override name = 'DavXmlError';
}

/** `{namespace}name`, the Clark notation properties are keyed by. */
export const clark = (ns: string, name: string): string => `{${ns}}${name}`;
export const clarkOf = (e: DavElement): string => clark(e.ns, e.name);

/** How deep elements may nest: WebDAV's bodies need a handful of levels, and convert() recurses once a level. */
const MAX_DEPTH = 100;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // References are decoded by decodeReferences(): the parser would keep numeric ones as written
  // (or, with htmlEntities, take HTML's named entities too, which XML does not have).
  processEntities: false,
  // CDATA apart from text, so that what looks like a reference inside it stays as it stands.
  cdataPropName: '#cdata',
  ignoreDeclaration: true,
  ignorePiTags: true,
  commentPropName: false,
  // Stated, not left to the library's default; convert() holds the exact limit (the parser lets one more level by).
  maxNestedTags: MAX_DEPTH,
});

const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const REFERENCE = /&(?:(#x[0-9A-Fa-f]{1,8}|#[0-9]{1,10}|[A-Za-z_:][\w.:-]*);)?/g;

/** Whether a code point is a character XML 1.0 allows (its production Char). */
function isXmlChar(cp: number): boolean {
  return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

/** Text or an attribute value with its references decoded; DavXmlError for anything but XML's five entities and references to characters. */
function decodeReferences(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(REFERENCE, (whole, ref: string | undefined) => {
    if (ref === undefined) throw new DavXmlError('not XML: a bare & is not a reference');
    if (!ref.startsWith('#')) {
      const named = PREDEFINED[ref];
      if (named === undefined) throw new DavXmlError(`not XML: the entity ${whole} is not declared`);
      return named;
    }
    const cp = ref.startsWith('#x') ? parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    if (!isXmlChar(cp)) throw new DavXmlError(`not XML: ${whole} is not a character XML allows`);
    return String.fromCodePoint(cp);
  });
}

type Ordered = Record<string, unknown>;

/** The text of a CDATA section as the parser gives it (a list of text nodes). */
function cdataText(node: Ordered): string {
  return ((node['#cdata'] ?? []) as Ordered[]).map((t) => String(t['#text'] ?? '')).join('');
}

function convert(node: Ordered, scope: ReadonlyMap<string, string>, depth: number): DavElement | undefined {
  const tag = Object.keys(node).find((k) => k !== ':@');
  if (tag === undefined || tag === '#text' || tag === '#cdata') return undefined;
  if (depth > MAX_DEPTH) throw new DavXmlError(`elements nest at most ${MAX_DEPTH} deep`);
  const rawAttrs = (node[':@'] ?? {}) as Record<string, string>;
  const local = new Map(scope);
  const attrs: Record<string, string> = {};
  for (const [name, raw] of Object.entries(rawAttrs)) {
    const value = decodeReferences(raw);
    if (name === 'xmlns') local.set('', value);
    else if (name.startsWith('xmlns:')) local.set(name.slice(6), value);
    else attrs[name] = value;
  }
  const attrPrefixes = prefixesOf(attrs, local);
  const colon = tag.indexOf(':');
  const prefix = colon < 0 ? '' : tag.slice(0, colon);
  const name = colon < 0 ? tag : tag.slice(colon + 1);
  const ns = local.get(prefix);
  if (ns === undefined && prefix !== '') throw new DavXmlError(`the prefix ${prefix} is not declared`);
  const inner = (node[tag] ?? []) as Ordered[];
  const children: DavElement[] = [];
  let text = '';
  for (const c of inner) {
    if (Object.hasOwn(c, '#text')) text += decodeReferences(String(c['#text']));
    else if (Object.hasOwn(c, '#cdata')) text += cdataText(c);
    else {
      const child = convert(c, local, depth + 1);
      if (child) children.push(child);
    }
  }
  return { ns: ns ?? '', name, attrs, ...(attrPrefixes && { attrPrefixes }), children, text };
}

/**
 * The namespaces of the prefixes attributes use, for writing the element back on its own (a dead
 * property): the declarations in force where it was read are not written with it. Undefined when
 * none is used but `xml`, which XML itself declares; DavXmlError for a prefix not declared.
 */
function prefixesOf(attrs: Readonly<Record<string, string>>, scope: ReadonlyMap<string, string>): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const name of Object.keys(attrs)) {
    const colon = name.indexOf(':');
    if (colon < 0) continue;
    const prefix = name.slice(0, colon);
    const ns = scope.get(prefix);
    if (ns === undefined) throw new DavXmlError(`the prefix ${prefix} is not declared`);
    if (prefix !== 'xml') (out ??= {})[prefix] = ns;
  }
  return out;
}

/** The root element of a request body; DavXmlError when it is not one well-formed XML document. */
export function parseDav(body: string): DavElement {
  if (/<!DOCTYPE/i.test(body)) throw new DavXmlError('document type declarations are not accepted');
  // The parser reads what it can of anything; the validator says whether it is well-formed XML.
  const valid = XMLValidator.validate(body);
  if (valid !== true) throw new DavXmlError(`not XML: ${valid.err.msg}`);
  let ordered: Ordered[];
  try {
    ordered = parser.parse(body) as Ordered[];
  } catch (err) {
    throw new DavXmlError(`not XML: ${(err as Error).message}`);
  }
  const roots = ordered.map((n) => convert(n, new Map([['xml', 'http://www.w3.org/XML/1998/namespace']]), 1)).filter((e): e is DavElement => e !== undefined);
  if (roots.length !== 1) throw new DavXmlError('a body must hold exactly one root element');
  return roots[0] as DavElement;
}

export function child(e: DavElement | undefined, ns: string, name: string): DavElement | undefined {
  return e?.children.find((c) => c.ns === ns && c.name === name);
}

export function children(e: DavElement | undefined, ns: string, name: string): DavElement[] {
  return e?.children.filter((c) => c.ns === ns && c.name === name) ?? [];
}

/**
 * Text as XML character data: the one rule of src/http/xml.ts (special characters escaped, CR as a
 * reference so that calendar data keeps its CRLF, characters XML 1.0 forbids left out: a task's
 * text may hold them, and one would make a client drop the whole answer).
 */
export const escapeXml = (s: string): string => escapeText(s);

/** An element of a known namespace, with its content already written (or empty). */
export function el(ns: string, name: string, content = ''): string {
  const p = PREFIX[ns];
  const tag = p ? `${p}:${name}` : name;
  const decl = p ? '' : ` xmlns="${escapeAttr(ns)}"`;
  return content === '' ? `<${tag}${decl}/>` : `<${tag}${decl}>${content}</${tag}>`;
}

/** An element as a client sent it (a dead property), written back with its namespaces declared, its attributes' prefixes' included. */
export function writeElement(e: DavElement): string {
  const declared = Object.entries(e.attrPrefixes ?? {})
    .map(([p, ns]) => ` xmlns:${p}="${escapeAttr(ns)}"`)
    .join('');
  const attrs = declared + Object.entries(e.attrs)
    .map(([k, v]) => ` ${k}="${escapeAttr(v)}"`)
    .join('');
  const inner = escapeXml(e.text) + e.children.map(writeElement).join('');
  const open = `<${e.name} xmlns="${escapeAttr(e.ns)}"${attrs}`;
  return inner === '' ? `${open}/>` : `${open}>${inner}</${e.name}>`;
}

/** `<d:href>` of a path, each segment's characters escaped as a URL's. */
export function href(path: string): string {
  return el(DAV, 'href', escapeXml(path));
}

export const XML_HEAD = '<?xml version="1.0" encoding="utf-8"?>\n';

export interface PropStat {
  readonly status: number;
  readonly props: readonly string[];
}

const REASONS: Readonly<Record<number, string>> = { 200: 'OK', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 424: 'Failed Dependency', 507: 'Insufficient Storage' };

export function statusLine(status: number): string {
  return `HTTP/1.1 ${status} ${REASONS[status] ?? ''}`.trimEnd();
}

/** One `<d:response>`: propstats grouped by status (empty groups left out), or a bare status. */
export function response(path: string, propstats: readonly PropStat[] | number): string {
  if (typeof propstats === 'number') return el(DAV, 'response', href(path) + el(DAV, 'status', statusLine(propstats)));
  const kept = propstats.filter((ps) => ps.props.length > 0);
  // A response holds at least one propstat (RFC 4918 14.24): an empty one when nothing is left to say.
  const parts = (kept.length > 0 ? kept : [{ status: 200, props: [] }]).map((ps) =>
    el(DAV, 'propstat', (ps.props.length > 0 ? el(DAV, 'prop', ps.props.join('')) : `<d:prop/>`) + el(DAV, 'status', statusLine(ps.status))),
  );
  return el(DAV, 'response', href(path) + parts.join(''));
}

export function multistatus(responses: readonly string[], tail = ''): string {
  return `${XML_HEAD}<d:multistatus ${ROOT_NAMESPACES}>${responses.join('')}${tail}</d:multistatus>`;
}

/** An error body naming the precondition that failed (RFC 4918 16). */
export function davError(ns: string, name: string, description?: string): string {
  const desc = description === undefined ? '' : el(DAV, 'responsedescription', escapeXml(description));
  return `${XML_HEAD}<d:error ${ROOT_NAMESPACES}>${el(ns, name)}${desc}</d:error>`;
}

/** An element's name alone, for a propstat that answers about it: `<name xmlns=…/>`. */
export function emptyPropertyOf(e: DavElement): string {
  return el(e.ns, e.name);
}
