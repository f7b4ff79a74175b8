import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { Deps } from '../deps.js';
import type { AuthContext } from '../oauth/access-tokens.js';
import { missingScope, type RequiredScope } from '../oauth/scopes.js';
import { limitField, type ApiDecision } from './api-limits.js';
import { paramsOf } from './params.js';

const REALM = 'Bearer realm="Tickler"';

/** The access token of a call: the Authorization: Bearer header or the access_token parameter. */
function accessTokenOf(request: FastifyRequest): string {
  const authorization = request.headers.authorization ?? '';
  const header = /^Bearer +(\S+) *$/i.exec(authorization)?.[1];
  // A Bearer header that is not one token ("Bearer", "Bearer a b") is a bad token, not a missing one.
  if (header === undefined && /^Bearer(\s|$)/i.test(authorization)) {
    throw new ApiError(2, { desc: 'Unauthorized: malformed Authorization header', headers: { 'www-authenticate': `${REALM}, error="invalid_request"` } });
  }
  const param = paramsOf(request).text('access_token');
  if (header !== undefined && param !== undefined && header !== param) {
    throw new ApiError(2, { desc: 'Unauthorized: two different access tokens were sent', headers: { 'www-authenticate': `${REALM}, error="invalid_request"` } });
  }
  const token = header ?? param;
  if (token === undefined) throw new ApiError(1, { headers: { 'www-authenticate': REALM } });
  return token;
}

/**
 * The caller of an API call, checked: token (1, 2), scope (2), rate limits (3). What this process
 * holds (a cached token, counts in memory) is answered without a promise, the rest through one:
 * each await of account/get's path was a turn of the event loop, a measurable share of a cheap
 * call (docs/decisions/0007).
 */
function authenticate(deps: Deps, request: FastifyRequest, reply: FastifyReply, need: RequiredScope): AuthContext | Promise<AuthContext> {
  const verified = deps.accessTokens.verify(accessTokenOf(request));
  return verified instanceof Promise ? verified.then((auth) => admit(deps, reply, auth, need)) : admit(deps, reply, verified, need);
}

function admit(deps: Deps, reply: FastifyReply, auth: AuthContext | null, need: RequiredScope): AuthContext | Promise<AuthContext> {
  if (!auth) throw new ApiError(2, { headers: { 'www-authenticate': `${REALM}, error="invalid_token"` } });
  const missing = missingScope(auth.scopes, need);
  if (missing) {
    throw new ApiError(2, {
      desc: `Unauthorized: the access token's scope does not include "${missing}"`,
      headers: { 'www-authenticate': `${REALM}, error="insufficient_scope", scope="${missing}"` },
    });
  }
  const counted = deps.apiLimits.count(auth.userPk, auth.clientPk, deps.clock.now());
  return counted instanceof Promise ? counted.then((d) => withinLimits(deps, reply, d, auth)) : withinLimits(deps, reply, counted, auth);
}

/**
 * Every counted call says where it stands (draft-ietf-httpapi-ratelimit-headers: RateLimit-Policy
 * and RateLimit), refused ones beside their Retry-After, which is never earlier than the `t` of
 * the limit that refused. Headers set here stay on an error answer (the error handler keeps them).
 */
function withinLimits(deps: Deps, reply: FastifyReply, d: ApiDecision, auth: AuthContext): AuthContext {
  const limit = limitField(d);
  if (limit !== undefined && deps.apiLimits.policy !== undefined) reply.header('ratelimit-policy', deps.apiLimits.policy).header('ratelimit', limit);
  if (!d.allowed) throw new ApiError(3, { retryAfter: d.retryAfterSeconds });
  return auth;
}

/**
 * The checks before every API and token handler, in this order: maintenance (4), then for API
 * calls the token (1, 2), its scope (2) and the rate limits (3). Called at the start of the route
 * handler rather than as a hook: the scope is bound at registration, and a hook costs a measurable
 * share of a cheap call. Returns a promise only when a check had to wait (see authenticate); it
 * throws its errors synchronously when no check waited: call it from an async function, whose
 * await turns either into the handler's rejection.
 */
export function guardApi(deps: Deps, request: FastifyRequest, reply: FastifyReply, scope?: RequiredScope): void | Promise<void> {
  // Private data and credentials: no cache anywhere may keep a copy.
  reply.header('cache-control', 'no-store');
  if (deps.config.maintenance) throw new ApiError(4, { retryAfter: 300 });
  if (!scope) return;
  const auth = authenticate(deps, request, reply, scope);
  if (auth instanceof Promise) {
    return auth.then((a) => {
      request.auth = a;
    });
  }
  request.auth = auth;
}
