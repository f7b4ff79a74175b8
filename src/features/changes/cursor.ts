import { createHash } from 'node:crypto';

/**
 * The change feed's cursor: a position in the account's change log (changes-port.ts), with a
 * check that ties it to the account. Opaque to apps; readable here as `<position, base 36>.<check>`.
 * The check is not a secret: a cursor an app makes up names a position of its own account, which
 * it may read anyway. It tells a garbled cursor or another account's (error 1101) from a good one.
 *
 * A page of a first read that ends before the position the read started at also carries that
 * start, `<position>-<start>.<check>`: the deletions its reader needs are those after the start
 * (it never held a record deleted before), so forgetting older ones does not void it (Place).
 */

const SHAPE = /^([0-9a-z]{1,11})(?:-([0-9a-z]{1,11}))?\.([A-Za-z0-9_-]{10})$/;

/** Where a reader stands: the position it has read up to, and the one since which it needs every deletion. */
export interface Place {
  readonly seq: number;
  /** At least seq: a first read's start while its pages have not reached it. */
  readonly needsAfter: number;
}

function check(userid: string, body: string): string {
  return createHash('sha256').update(`tickler-cursor:${userid}:${body}`).digest('base64url').slice(0, 10);
}

function base36(text: string): number | undefined {
  const n = parseInt(text, 36);
  return Number.isSafeInteger(n) && n.toString(36) === text ? n : undefined;
}

/** A cursor of this position; `start`: the position a first read started at, when it is past `seq`. */
export function encodeCursor(userid: string, seq: number, start = seq): string {
  const body = start > seq ? `${seq.toString(36)}-${start.toString(36)}` : seq.toString(36);
  return `${body}.${check(userid, body)}`;
}

/** The place a cursor names, or undefined when it is not a cursor of this account. */
export function decodePlace(userid: string, cursor: string): Place | undefined {
  const m = SHAPE.exec(cursor);
  if (!m) return undefined;
  const seq = base36(m[1] as string);
  const start = m[2] === undefined ? seq : base36(m[2]);
  if (seq === undefined || start === undefined || start <= (m[2] === undefined ? -1 : seq)) return undefined;
  const body = m[2] === undefined ? (m[1] as string) : `${m[1]}-${m[2]}`;
  return check(userid, body) === m[3] ? { seq, needsAfter: start } : undefined;
}

/** The position a cursor names, or undefined when it is not a cursor of this account. */
export function decodeCursor(userid: string, cursor: string): number | undefined {
  return decodePlace(userid, cursor)?.seq;
}
