/**
 * A small XML writer. Output is compact (no white space between elements, no DOCTYPE), because
 * at least one client of the hosted service counts child nodes. Text is escaped and characters that
 * XML 1.0 forbids (most control characters, lone surrogates, U+FFFE/U+FFFF) are dropped, since no
 * escape can carry them. Written by hand rather than with fast-xml-parser's builder: see
 * docs/decisions/0004-xml-writer.md.
 */
export type XmlValue = string | number | null | undefined;

export interface XmlNode {
  readonly name: string;
  readonly attrs?: ReadonlyArray<readonly [string, XmlValue]>;
  /** Either text or children; a node with neither is written as an empty element pair. */
  readonly text?: XmlValue;
  readonly children?: readonly XmlNode[];
}

// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const TEXT_SPECIAL = /[&<>\r]/g;
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

function clean(v: XmlValue): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'number' ? String(v) : v;
  return s.replace(FORBIDDEN, '');
}

export function escapeText(v: XmlValue): string {
  return clean(v).replace(TEXT_SPECIAL, (c) => ENTITY[c] as string);
}

export function escapeAttr(v: XmlValue): string {
  return clean(v).replace(ATTR_SPECIAL, (c) => ENTITY[c] as string);
}

function write(node: XmlNode, out: string[]): void {
  out.push('<', node.name);
  if (node.attrs) for (const [k, v] of node.attrs) out.push(' ', k, '="', escapeAttr(v), '"');
  out.push('>');
  if (node.children) for (const child of node.children) write(child, out);
  else out.push(escapeText(node.text));
  out.push('</', node.name, '>');
}

export function renderXml(root: XmlNode): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  write(root, out);
  return out.join('');
}
