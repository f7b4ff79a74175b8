import type { FastifyCsrfProtectionOptions } from '@fastify/csrf-protection';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHmac } from 'node:crypto';
import { cookieNames, cookieOptions } from './cookies.js';

/**
 * CSRF tokens bound to the browser's session (docs/decisions/0021). The double-submit secret
 * travels in an HttpOnly cookie, and a cookie can be planted by whoever controls a sibling
 * subdomain or the plain-http origin of the host: with the secret alone, B's cookie and B's form
 * token made a valid post in A's browser, as A. So every token also carries a value derived from
 * the session cookie it was made for (@fastify/csrf's `userInfo`), and a post is checked against
 * the session cookie it arrives with: a token made for another session, or for no session, is
 * refused. The value is derived, not stored: nothing is added to the session's row.
 */

/** What a browser without a session cookie is bound to: visitors' forms (sign-in, sign-up, reset). */
const NO_SESSION = 'no session';

/**
 * The session's binding: an HMAC under the session id, which only the browser holds (HttpOnly;
 * the database keeps only its SHA-256). Not the id itself, nor the hash the database keeps: the
 * token shows a hash of this value in the page, and neither a page nor a copy of the database may
 * tell anyone what the session cookie is, or let them compute a token for it.
 */
export function sessionBinding(sessionId: string | undefined): string {
  return sessionId ? createHmac('sha256', sessionId).update('tickler csrf binding').digest('base64url') : NO_SESSION;
}

/**
 * @fastify/csrf hashes the binding and the token under this key, and requires one with `userInfo`.
 * It needs no secrecy and must be the same on every instance: what a forger lacks is the session
 * id (for the binding) and the browser's CSRF secret (for the token), never this key; before the
 * binding the same hashes were plain SHA-256.
 */
const HMAC_KEY = 'tickler form tokens';

/** The plugin's options: the secret's cookie, the token from the form's `_csrf`, the session's binding. */
export function csrfOptions(https: boolean): FastifyCsrfProtectionOptions {
  const names = cookieNames(https);
  return {
    cookieKey: names.csrf,
    cookieOpts: cookieOptions(https),
    getToken: (request: FastifyRequest) => (request.body as Record<string, string> | undefined)?.['_csrf'],
    getUserInfo: (request: FastifyRequest) => sessionBinding(request.cookies[names.session]),
    csrfOpts: { userInfo: true, hmacKey: HMAC_KEY },
  };
}

/** A form's token, bound to the session cookie this request came with (the page the form is on). */
export function csrfToken(reply: FastifyReply, sessionCookie: string): string {
  return reply.generateCsrf({ userInfo: sessionBinding(reply.request.cookies[sessionCookie]) });
}
