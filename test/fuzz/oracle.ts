import { parse as parseCsv } from 'csv-parse/sync';
import { XMLValidator } from 'fast-xml-parser';
import ICAL from 'ical.js';

/**
 * What an answer must never show: a stack frame, a file path, an exception's class, a database's
 * own message, a framework's internal code. The fuzzer's values never contain these, so an echo
 * of the request cannot trip it.
 */
const LEAKS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bat (?:async )?[\w$.<>[\]]+ \(/, 'a stack frame'],
  [/\n\s+at \S/, 'a stack frame'],
  [/node:internal|node_modules|\/dist\/|\/src\/|file:\/\//, 'a file path'],
  [/\.(?:js|ts|mjs|cjs):\d+/, 'a source position'],
  [/\b(?:Type|Range|Reference|Syntax|Sqlite|Database|Internal|URI|Eval|Aggregate|Assertion)Error\b/, "an exception's class"],
  [/(?:^|[^\w])Error: /, "an exception's message"],
  [/SQLITE_[A-Z]|syntax error at or near|duplicate key value|violates \w+ constraint|relation "[^"]*" does not exist|invalid byte sequence/, "a database's message"],
  [/FST_[A-Z_]+|ERR_[A-Z_]{4,}/, "an internal error code"],
  [/"statusCode":\s*5\d\d/, 'a server error record'],
];

export interface Answer {
  readonly method: string;
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: string;
}

/** What of the server's insides a text shows, or undefined. */
export function leakIn(text: string): string | undefined {
  for (const [pattern, what] of LEAKS) {
    const m = pattern.exec(text);
    if (m) return `the answer shows ${what}: ${JSON.stringify(text.slice(Math.max(0, m.index - 80), m.index + 120))}`;
  }
  return undefined;
}

/** The bitmap images the server sends: app icons, uploaded as PNG, JPEG, GIF or WebP (oauth/client-icons.ts). */
const IMAGES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** Why an answer is wrong, or undefined when it is fine. */
export function judge(a: Answer): string | undefined {
  if (a.status >= 500) return `answered HTTP ${a.status}`;
  const leak = leakIn(a.body);
  if (leak) return leak;
  if (a.method === 'HEAD' || a.body === '') return undefined;
  const type = a.contentType ?? '';
  if (type.startsWith('application/json')) {
    try {
      JSON.parse(a.body);
    } catch {
      return `the JSON answer does not parse: ${JSON.stringify(a.body.slice(0, 200))}`;
    }
  } else if (type.startsWith('text/xml') || type.startsWith('application/xml')) {
    // application/xml: CalDAV's multistatus and error bodies (src/caldav/).
    const valid = XMLValidator.validate(a.body);
    if (valid !== true) return `the XML answer is not well-formed (${valid.err.msg}): ${JSON.stringify(a.body.slice(0, 200))}`;
  } else if (type.startsWith('text/plain')) {
    // The short answers of the CalDAV and calendar feed faces (401, 404, 413…): one line, what they
    // must not hold checked by leakIn() above.
    if (a.body.length > 300 || a.body.trimEnd().includes('\n')) return `a plain answer longer than one line: ${JSON.stringify(a.body.slice(0, 200))}`;
  } else if (type.startsWith('image/svg+xml')) {
    // The favicon: an image, but XML all the same.
    const valid = XMLValidator.validate(a.body);
    if (valid !== true) return `the SVG answer is not well-formed (${valid.err.msg})`;
  } else if (type.startsWith('text/event-stream')) {
    // The event stream (/3/sync/events.php): its first lines, comments and fields.
    if (!/^(?:(?::[^\n]*|[a-z]+: ?[^\n]*)?\n)+/.test(a.body)) return `the event stream does not start with event lines: ${JSON.stringify(a.body.slice(0, 200))}`;
  } else if (type.startsWith('text/plain')) {
    // CalDAV's short answers (sign-in needed, a method refused): a line of text, judged for leaks above.
    return undefined;
  } else if (type.startsWith('text/javascript')) {
    // The to-do pages' script (src/web/client/): served as compiled, the same bytes whatever is asked.
    return undefined;
  } else if (type.startsWith('text/csv')) {
    // The account page's task download (web/export.routes.ts).
    try {
      parseCsv(a.body);
    } catch (err) {
      return `the CSV answer does not parse (${(err as Error).message}): ${JSON.stringify(a.body.slice(0, 200))}`;
    }
  } else if (type.startsWith('text/calendar')) {
    try {
      ICAL.parse(a.body);
    } catch (err) {
      return `the iCalendar answer does not parse (${(err as Error).message}): ${JSON.stringify(a.body.slice(0, 200))}`;
    }
  } else if (!type.startsWith('text/html') && !IMAGES.some((t) => type.startsWith(t))) {
    return `an answer of an unexpected type ${JSON.stringify(type)}: ${JSON.stringify(a.body.slice(0, 200))}`;
  }
  return undefined;
}
