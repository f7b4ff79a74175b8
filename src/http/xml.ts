/**
 * A small XML writer. Output is compact (no white space between elements, no DOCTYPE), because
 * at least one client of the hosted service counts child nodes. Text is escaped and characters that
 * XML 1.0 forbids (most control characters, lone surrogates, U+FFFE/U+FFFF) are dropped, since no
 * escape can carry them. Written by hand rather than with fast-xml-parser's builder: see
 * docs/decisions/0004-xml-writer.md.
 */
import { escapeXmlText, FORBIDDEN, NEEDS_WORK } from '../lib/xml-chars.js';

export type XmlValue = string | number | null | undefined;

/** A public record: keys in the documented order, values as clients expect them. */
export type PublicValue = string | number | null | readonly PublicValue[] | PublicRecord;
export type PublicRecord = { readonly [key: string]: PublicValue };

export interface XmlNode {
  readonly name: string;
  readonly attrs?: ReadonlyArray<readonly [string, XmlValue]>;
  /** Text, children, or a record (one child element per field); with none, an empty element pair. */
  readonly text?: XmlValue;
  readonly children?: readonly XmlNode[];
  readonly record?: PublicRecord;
}

const ATTR_SPECIAL = /[&<>"\r\n\t]/g;
const ENTITY: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  // Parsers turn a raw CR into LF and white space in attributes into spaces; references survive.
  '\r': '&#13;',
  '\n': '&#10;',
  '\t': '&#9;',
};

function clean(v: string): string {
  return v.replace(FORBIDDEN, '');
}

export function escapeText(v: XmlValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return String(v);
  return escapeXmlText(v);
}

export function escapeAttr(v: XmlValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return String(v);
  return NEEDS_WORK.test(v) || v.includes('"') ? clean(v).replace(ATTR_SPECIAL, (c) => ENTITY[c] as string) : v;
}

/** Element name for the members of a list-valued field: records take the list's singular, values `id`. */
function itemName(listName: string, item: PublicValue): string {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return 'id';
  return listName.endsWith('s') ? listName.slice(0, -1) : listName;
}

/** A field of a record as an element; lists and nested records become child elements. */
export function writeValue(name: string, value: PublicValue): string {
  if (Array.isArray(value)) {
    let s = `<${name}>`;
    for (const item of value as readonly PublicValue[]) s += writeValue(itemName(name, item), item);
    return `${s}</${name}>`;
  }
  if (value !== null && typeof value === 'object') return writeRecord(name, value as PublicRecord);
  return `<${name}>${escapeText(value as XmlValue)}</${name}>`;
}

/** `<name attrs>` with one child element per field of the record. */
function writeRecord(name: string, record: PublicRecord, attrs = ''): string {
  let s = `<${name}${attrs}>`;
  for (const key in record) s += writeValue(key, record[key] as PublicValue);
  return `${s}</${name}>`;
}

function writeAttrs(attrs: XmlNode['attrs']): string {
  let s = '';
  if (attrs) for (const [k, v] of attrs) s += ` ${k}="${escapeAttr(v)}"`;
  return s;
}

/**
 * String concatenation rather than pushing pieces and joining: V8 builds ropes, which measured
 * several times faster for the 35,000 elements of 1000 tasks.
 */
function write(node: XmlNode): string {
  const attrs = writeAttrs(node.attrs);
  if (node.record) return writeRecord(node.name, node.record, attrs);
  let s = `<${node.name}${attrs}>`;
  if (node.children) for (const child of node.children) s += write(child);
  else s += escapeText(node.text);
  return `${s}</${node.name}>`;
}

/** One element, without the XML declaration (for writers that assemble a document themselves). */
export function writeXmlNode(node: XmlNode): string {
  return write(node);
}

export function renderXml(root: XmlNode): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${write(root)}`;
}
