import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { Deps } from '../deps.js';
import type { AuthContext } from '../oauth/access-tokens.js';
import { missingScope, type RequiredScope } from '../oauth/scopes.js';
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

async function authenticate(deps: Deps, request: FastifyRequest, need: RequiredScope): Promise<AuthContext> {
  const auth = await deps.accessTokens.verify(accessTokenOf(request));
  if (!auth) throw new ApiError(2, { headers: { 'www-authenticate': `${REALM}, error="invalid_token"` } });
  const missing = missingScope(auth.scopes, need);
  if (missing) {
    throw new ApiError(2, {
      desc: `Unauthorized: the access token's scope does not include "${missing}"`,
      headers: { 'www-authenticate': `${REALM}, error="insufficient_scope", scope="${missing}"` },
    });
  }
  const d = await deps.apiLimits.count(auth.userPk, auth.clientPk, deps.clock.now());
  if (!d.allowed) throw new ApiError(3, { retryAfter: d.retryAfterSeconds });
  return auth;
}

/**
 * The checks before every API and token handler, in this order: maintenance (4), then for API
 * calls the token (1, 2), its scope (2) and the rate limits (3). Called at the start of the route
 * handler rather than as a hook: the scope is bound at registration, and a hook costs a measurable
 * share of a cheap call.
 */
export async function guardApi(deps: Deps, request: FastifyRequest, reply: FastifyReply, scope?: RequiredScope): Promise<void> {
  // Private data and credentials: no cache anywhere may keep a copy.
  reply.header('cache-control', 'no-store');
  if (deps.config.maintenance) throw new ApiError(4, { retryAfter: 300 });
  if (scope) request.auth = await authenticate(deps, request, scope);
}
