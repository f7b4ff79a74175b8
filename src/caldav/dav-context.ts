import type { Deps } from '../deps.js';
import type { Calendar } from './calendars.js';
import { DavPaths } from './dav-paths.js';
import type { AccountView, ObjectView } from './objects.js';

/** What every CalDAV handler works with: the signed-in account, and how paths are written. */
export interface DavContext {
  readonly deps: Deps;
  readonly paths: DavPaths;
  readonly account: AccountView & { readonly email: string; readonly alias: string };
  /** An app password made read-only: every write is refused (403). */
  readonly readOnly: boolean;
  /** The request's path as sent (without its query): the href of the resource it names. */
  readonly requestPath: string;
  /** RFC 8144 `Prefer: return=minimal` (or `Brief: t`): leave properties not found out of answers. */
  readonly minimal: boolean;
}

/** An answer to a CalDAV request. */
export interface DavAnswer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly contentType?: string;
}

export const XML_TYPE = 'application/xml; charset=utf-8';
export const ICAL_TYPE = 'text/calendar; charset=utf-8';

/** A resource a request names, read. */
export type Resource =
  | { readonly kind: 'root' | 'principals' | 'principal' | 'home'; readonly path: string }
  | { readonly kind: 'calendar'; readonly path: string; readonly calendar: Calendar }
  | { readonly kind: 'object'; readonly path: string; readonly calendar: Calendar; readonly view: ObjectView };

/**
 * The sync token of a position in the account's log: a URI, as RFC 6578 wants,
 * `urn:tickler:sync:<position>:<clock>` with the account's clock (minutes east of UTC), since the
 * objects' times are written in it: a token of another clock has every timed object changed.
 * A truncated first sync's token also carries the position the sync started at,
 * `…:<position>:<clock>:<start>`: the removals its client needs are those after it (as the feed's
 * cursors, src/features/changes/cursor.ts).
 */
export const SYNC_TOKEN_PREFIX = 'urn:tickler:sync:';

export function syncToken(seq: number, offsetMinutes: number, start = seq): string {
  return `${SYNC_TOKEN_PREFIX}${seq}:${offsetMinutes}${start > seq ? `:${start}` : ''}`;
}

/** Where a sync token stands: its position, the position since which its client needs every removal, and its clock. */
export interface TokenPlace {
  readonly seq: number;
  readonly needsAfter: number;
  readonly offsetMinutes: number;
}

const TOKEN_SHAPE = /^(\d{1,15}):(-?\d{1,4})(?::(\d{1,15}))?$/;

/** A sync token's place, or undefined for anything else. */
export function placeOfToken(token: string): TokenPlace | undefined {
  if (!token.startsWith(SYNC_TOKEN_PREFIX)) return undefined;
  const m = TOKEN_SHAPE.exec(token.slice(SYNC_TOKEN_PREFIX.length));
  if (!m) return undefined;
  const seq = Number(m[1]);
  const needsAfter = m[3] === undefined ? seq : Number(m[3]);
  return needsAfter < seq || (m[3] !== undefined && needsAfter === seq) ? undefined : { seq, needsAfter, offsetMinutes: Number(m[2]) };
}

export function plain(status: number, text: string, headers: Readonly<Record<string, string>> = {}): DavAnswer {
  return { status, body: `${text}\n`, contentType: 'text/plain; charset=utf-8', headers };
}

export { DavPaths };
