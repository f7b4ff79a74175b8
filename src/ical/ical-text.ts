/**
 * Text values as RFC 5545 writes them, and what counts as a control character, in one place: the
 * VTODO writer (vtodo-write.ts) and the calendar feed's (vevent-write.ts) both use these, and the
 * reader and CalDAV's paths test identifiers with holdsControls(). A task's title or note may hold
 * control characters (the v3 API stores what it is sent, a pasted vertical tab included); RFC 5545
 * 3.3.11 allows none in a value but HTAB, and XML 1.0 none in the CalDAV answer that carries the
 * object, so they are left out here rather than break a client's whole listing.
 */

/** RFC 5545 3.1's CONTROL characters, less HTAB and the line breaks the callers turn into `\n` or spaces. */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;
/** Whatever might need work: tested first, as most text needs none (a calendar-multiget writes thousands). */
// eslint-disable-next-line no-control-regex
const NEEDS_WORK = /[\x00-\x08\x0a-\x1f\x7f\\;,]/;

/** Any control character, tab and line breaks included: none belongs in a UID or a resource's name. */
// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\x00-\x1f\x7f]/;

/**
 * Whether an identifier (a UID, a calendar's or an object's name) holds a control character.
 * Such a name cannot be kept as sent (PostgreSQL's text holds no NUL), nor most of them written in XML.
 */
export function holdsControls(s: string): boolean {
  return ANY_CONTROL.test(s);
}

/** The text without the control characters no iCalendar value may hold. */
export function withoutControls(s: string): string {
  return s.replace(CONTROLS, '');
}

/** RFC 5545 3.3.11: a TEXT value, escaped (`\\`, `\;`, `\,`, line breaks as `\n`), without control characters. */
export function icalText(s: string): string {
  if (!NEEDS_WORK.test(s)) return s;
  return withoutControls(s)
    .replace(/\r\n?/g, '\n')
    .replace(/[\\;,\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/**
 * The value of an X- property: ical.js (and most readers) take an unknown property's value as it
 * stands, without unescaping, so only what would break the line goes: line breaks become spaces,
 * other control characters are left out.
 */
export function xValue(s: string): string {
  return withoutControls(s).replace(/[\r\n]+/g, ' ');
}
