import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { Deps } from '../deps.js';
import type { Params } from '../http/params.js';
import { addRateLimit } from '../http/rate-limit-fields.js';
import type { Client } from '../storage/store.js';
import { authenticateClient } from './clients.service.js';

/**
 * What the token and revocation endpoints share: the transport check (spec 5.8, error 101),
 * client credentials from HTTP Basic or the form, and the no-store answer.
 */

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/**
 * Spec 5.8: the token endpoint needs SSL (error 101). https is request.protocol: the socket's own,
 * or with TRUST_PROXY the X-Forwarded-Proto of a trusted peer (Fastify reads it only from one).
 * Plain HTTP is accepted from this machine only, judged by the socket's address. request.ip is not
 * used: with TRUST_PROXY=true it is the leftmost X-Forwarded-For entry, which the client writes.
 * Behind a trusted proxy, a loopback peer that sends forwarding headers is that proxy relaying a
 * client from elsewhere, and only its X-Forwarded-Proto counts. Without TRUST_PROXY a local proxy
 * is trusted to have refused plain HTTP itself, as before.
 */
export function isSecureEnough(request: FastifyRequest, proxyTrusted: boolean): boolean {
  if (request.protocol === 'https') return true;
  if (!LOOPBACK.test(request.socket.remoteAddress ?? '')) return false;
  return !proxyTrusted || (request.headers['x-forwarded-for'] === undefined && request.headers['x-forwarded-proto'] === undefined);
}

/** RFC 6749 2.3.1: Basic credentials are form-encoded before base64. */
function formDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

function basicCredentials(request: FastifyRequest): { id: string; secret: string } | undefined {
  const m = /^Basic +([A-Za-z0-9+/=_-]+) *$/i.exec(request.headers.authorization ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
}

/** Client credentials from HTTP Basic or from the form (a widely used library does the latter); both must agree. */
export function clientCredentials(request: FastifyRequest, p: Params, refusal: (why: string) => ApiError): { id: string | undefined; secret: string | undefined } {
  const basic = basicCredentials(request);
  const form = { id: p.text('client_id'), secret: p.get('client_secret') };
  if (basic && ((form.id !== undefined && form.id !== basic.id) || (form.secret !== undefined && form.secret !== basic.secret))) {
    throw refusal('two different sets of client credentials were sent');
  }
  return basic ?? form;
}

/** Client ids are short and plain; anything else is not used as a rate-limit key (unbounded memory). */
export const PLAUSIBLE_CLIENT_ID = /^[A-Za-z0-9._~-]{1,100}$/;

/**
 * RFC 6749 5.1 and 5.2: token answers carry credentials, and errors are answers too. Set as the
 * answer leaves (onSend), so that no path can miss it: 101 and body errors come before the
 * handler, 405 from another route.
 */
export async function noStore(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  return payload;
}


/**
 * The app a token or revocation request authenticates as, or the refusal (`refusal(why)`: 102 or
 * 104) for bad credentials; 103 past the limits. Failed authentications count per (client id,
 * address): a stranger who knows an app's public id cannot spend that app's budget for its real
 * users. Then the app's own ceiling, all its users together (RATE_LIMIT_TOKEN_PER_CLIENT), which
 * the answer states (RateLimit-Policy and RateLimit, "app"). The failures' budget is not stated:
 * it exists to slow a guesser, who need not learn how many guesses remain.
 */
export async function authenticatedClient(deps: Deps, request: FastifyRequest, reply: FastifyReply, p: Params, refusal: (why: string) => ApiError): Promise<Client> {
  const limits = deps.config.rateLimits;
  const creds = clientCredentials(request, p, refusal);
  const now = deps.clock.now();
  const claimed = creds.id !== undefined && PLAUSIBLE_CLIENT_ID.test(creds.id) ? creds.id : '?';
  const failKey = `token:fail:${claimed}:${request.ip}`;
  const before = await deps.limiter.check(failKey, limits.tokenAuthFailures, now);
  if (!before.allowed) throw new ApiError(103, { retryAfter: before.retryAfterSeconds });
  const client = creds.id && creds.secret !== undefined ? await authenticateClient(deps.store, creds.id, creds.secret) : null;
  if (!client) {
    await deps.limiter.hit(failKey, limits.tokenAuthFailures, now);
    throw refusal('invalid client credentials');
  }
  const d = await deps.limiter.hit(`token:client:${client.pk}`, limits.tokenPerClient, now);
  addRateLimit(reply, 'app', limits.tokenPerClient, d.quota);
  if (!d.allowed) throw new ApiError(103, { retryAfter: d.retryAfterSeconds });
  return client;
}
