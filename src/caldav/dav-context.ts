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

/** The sync token of a position in the account's log: a URI, as RFC 6578 wants. */
export const SYNC_TOKEN_PREFIX = 'urn:tickler:sync:';
export const syncToken = (seq: number): string => `${SYNC_TOKEN_PREFIX}${seq}`;

/** A sync token's position, or undefined for anything else. */
export function positionOfToken(token: string): number | undefined {
  if (!token.startsWith(SYNC_TOKEN_PREFIX)) return undefined;
  const rest = token.slice(SYNC_TOKEN_PREFIX.length);
  return /^\d{1,15}$/.test(rest) ? Number(rest) : undefined;
}

export function plain(status: number, text: string, headers: Readonly<Record<string, string>> = {}): DavAnswer {
  return { status, body: `${text}\n`, contentType: 'text/plain; charset=utf-8', headers };
}

export { DavPaths };
