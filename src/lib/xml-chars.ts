/**
 * Which characters XML 1.0 text needs work on, in one place: the XML writer (src/http/xml.ts)
 * escapes or drops them, and on SQLite a stored task keeps its text fields' XML where that differs
 * (task_xml, migration 12), so that the database writes a task's XML without escaping.
 */

/** Characters XML 1.0 forbids anywhere: left out of what Tickler writes. */
// eslint-disable-next-line no-control-regex
export const FORBIDDEN = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Anything that might need work: quick to test, and most values have none. */
// eslint-disable-next-line no-control-regex
export const NEEDS_WORK = /[^\t\n\x20-\x25\x27-\x3b\x3d\x3f-\uD7FF\uE000-\uFFFD]/;

/** Exactly what text needs: `&`, `<`, `>` and CR escaped, each forbidden character dropped. */
// eslint-disable-next-line no-control-regex
const TEXT_WORK = /[&<>\r]|[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const ENTITY: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };

/**
 * Text as XML character data: each special character to its entity (CR to a reference: parsers
 * turn a raw one into LF), each forbidden one to nothing, in one pass.
 */
export function escapeXmlText(v: string): string {
  return NEEDS_WORK.test(v) ? v.replace(TEXT_WORK, (c) => ENTITY[c] ?? '') : v;
}

/** `v` as XML text where that differs from `v`, else null: what a task keeps beside a text field. */
export function xmlTextIfOther(v: string): string | null {
  const escaped = escapeXmlText(v);
  return escaped === v ? null : escaped;
}
