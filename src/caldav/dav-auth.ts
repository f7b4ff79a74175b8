import type { FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { signInWithAppPassword } from '../features/users/app-passwords.service.js';
import { utcOffsetMinutes } from '../lib/account-clock.js';
import { plain, type DavAnswer, type DavContext } from './dav-context.js';

/**
 * CalDAV's sign-in: HTTP Basic with the account's e-mail address and one of its app passwords
 * (docs/caldav.md, docs/decisions/0024), never the account's own password. A request without
 * credentials, or with wrong ones, gets 401 and the Basic challenge (clients send their first
 * request without credentials and answer the challenge); failures are throttled as the sign-in
 * page's are (429 with Retry-After).
 */

const CHALLENGE = 'Basic realm="Tickler CalDAV", charset="UTF-8"';

function credentialsOf(request: FastifyRequest): { email: string; password: string } | undefined {
  const m = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(request.headers.authorization ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { email: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export async function authenticateDav(deps: Deps, request: FastifyRequest): Promise<{ account: DavContext['account']; readOnly: boolean } | { answer: DavAnswer }> {
  const creds = credentialsOf(request);
  const challenge = (why: string): { answer: DavAnswer } => ({ answer: plain(401, why, { 'www-authenticate': CHALLENGE }) });
  if (!creds) return challenge('sign in with your e-mail address and an app password (made on the Connected apps page)');
  const result = await signInWithAppPassword(deps, { email: creds.email, password: creds.password, address: request.ip, device: request.headers['user-agent'] });
  if (result.kind === 'throttled') return { answer: plain(429, 'too many failed sign-ins: try again later', { 'retry-after': String(result.retryAfterSeconds) }) };
  if (result.kind !== 'ok') return challenge('wrong e-mail address or app password (the account password does not work here: make an app password)');
  const a = result.account;
  return {
    account: { pk: a.pk, userid: a.userid, pro: a.pro, email: a.email, alias: a.alias, offsetMinutes: utcOffsetMinutes(a.prefs) },
    readOnly: result.appPassword.readOnly,
  };
}
