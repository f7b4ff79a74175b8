import type { LightMyRequestResponse } from 'fastify';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { createAccount, type TestContext } from '../../test/harness.js';
import { createAppPassword } from '../features/users/app-passwords.service.js';
import { FORBIDDEN } from '../lib/xml-chars.js';
import { parseDav } from './dav-xml.js';
import type { Account } from '../storage/store.js';

/** Shared steps of the CalDAV tests (not a test file itself). */

export interface DavUser {
  readonly account: Account;
  readonly password: string;
  readonly authorization: string;
  readonly home: string;
}

export async function davUser(ctx: TestContext, options: { pro?: 0 | 1 | 2; readOnly?: boolean; account?: Account } = {}): Promise<DavUser> {
  const account = options.account ?? (await createAccount(ctx, { pro: options.pro ?? 1 }));
  const { password } = await createAppPassword(ctx.deps, account.pk, { name: 'Phone', readOnly: options.readOnly ?? false });
  return {
    account,
    password,
    authorization: `Basic ${Buffer.from(`${account.email}:${password}`).toString('base64')}`,
    home: `/dav/calendars/${account.userid}/`,
  };
}

export function dav(
  ctx: TestContext,
  user: DavUser | null,
  method: string,
  url: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return ctx.app.inject({
    method: method as 'GET',
    url,
    headers: {
      ...(user && { authorization: user.authorization }),
      ...(body !== undefined && { 'content-type': body.startsWith('BEGIN:') ? 'text/calendar; charset=utf-8' : 'application/xml; charset=utf-8' }),
      ...headers,
    },
    ...(body !== undefined && { payload: body }),
  });
}

export const PROPFIND = (props: string): string =>
  `<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/" xmlns:a="http://apple.com/ns/ical/"><d:prop>${props}</d:prop></d:propfind>`;

export interface DavResponse {
  readonly href: string;
  /** Properties found (status 200), by local name: their text, or their XML tree. */
  readonly props: Record<string, unknown>;
  /** Properties answered 404, by local name. */
  readonly missing: string[];
  /** A response's own status (a removed member: 404). */
  readonly status?: string;
}

// As a client reads an answer: character references decoded (htmlEntities brings the numeric ones).
const parser = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true, parseTagValue: false, htmlEntities: true, isArray: (name) => ['response', 'propstat'].includes(name) });

/**
 * Fails unless `body` is well-formed XML 1.0. The validator does not look at characters, so those
 * XML forbids anywhere (most control characters) are looked for too.
 */
export function assertWellFormed(body: string): void {
  const valid = XMLValidator.validate(body);
  if (valid !== true) throw new Error(`the answer is not well-formed XML (line ${valid.err.line}: ${valid.err.msg}):\n${body}`);
  const bad = body.search(FORBIDDEN);
  if (bad >= 0) throw new Error(`the answer holds U+${(body.codePointAt(bad) as number).toString(16).padStart(4, '0')}, which XML 1.0 forbids:\n${body}`);
  // Namespace-well-formed too: every prefix declared (the validator does not look at namespaces).
  try {
    parseDav(body);
  } catch (err) {
    throw new Error(`the answer is not namespace-well-formed (${(err as Error).message}):\n${body}`);
  }
}

/**
 * The responses of a multistatus, by href. The answer must be well-formed XML first: clients parse
 * it whole, and one bad character makes them drop the whole listing.
 */
export function multistatusOf(res: LightMyRequestResponse): { responses: DavResponse[]; syncToken?: string } {
  assertWellFormed(res.body);
  const doc = parser.parse(res.body) as { multistatus?: { response?: Array<Record<string, unknown>>; 'sync-token'?: string } };
  const responses = (doc.multistatus?.response ?? []).map((r): DavResponse => {
    const props: Record<string, unknown> = {};
    const missing: string[] = [];
    for (const ps of (r['propstat'] ?? []) as Array<{ prop: Record<string, unknown> | string; status: string }>) {
      const p = typeof ps.prop === 'object' ? ps.prop : {};
      if (ps.status.includes(' 200 ')) Object.assign(props, p);
      else missing.push(...Object.keys(p));
    }
    return { href: String(r['href']), props, missing, ...(typeof r['status'] === 'string' && { status: r['status'] }) };
  });
  return { responses, ...(doc.multistatus?.['sync-token'] !== undefined && { syncToken: String(doc.multistatus['sync-token']) }) };
}

/** A VTODO in a VCALENDAR, one property a line. */
export function vtodo(uid: string, ...lines: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', 'BEGIN:VTODO', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', ...lines, 'END:VTODO', 'END:VCALENDAR', ''].join('\r\n');
}
