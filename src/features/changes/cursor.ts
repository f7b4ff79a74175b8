import { createHash } from 'node:crypto';

/**
 * The change feed's cursor: a position in the account's change log (changes-port.ts), with a
 * check that ties it to the account. Opaque to apps; readable here as `<position, base 36>.<check>`.
 * The check is not a secret: a cursor an app makes up names a position of its own account, which
 * it may read anyway. It tells a garbled cursor or another account's (error 1101) from a good one.
 */

const SHAPE = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{10})$/;

function check(userid: string, seq: number): string {
  return createHash('sha256').update(`tickler-cursor:${userid}:${seq}`).digest('base64url').slice(0, 10);
}

export function encodeCursor(userid: string, seq: number): string {
  return `${seq.toString(36)}.${check(userid, seq)}`;
}

/** The position a cursor names, or undefined when it is not a cursor of this account. */
export function decodeCursor(userid: string, cursor: string): number | undefined {
  const m = SHAPE.exec(cursor);
  if (!m) return undefined;
  const seq = parseInt(m[1] as string, 36);
  if (!Number.isSafeInteger(seq) || seq.toString(36) !== m[1]) return undefined;
  return check(userid, seq) === m[2] ? seq : undefined;
}
