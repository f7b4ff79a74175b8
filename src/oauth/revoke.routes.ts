import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import type { Deps } from '../deps.js';
import { guardApi } from '../http/api-guard.js';
import { methodNotAllowed, OTHER_METHODS } from '../http/api-route.js';
import { paramsOf } from '../http/params.js';
import { objectBody, sendBody } from '../http/reply.js';
import { authenticatedClient, isSecureEnough, noStore } from './client-auth.js';
import { revokeToken } from './revoke.service.js';

export const REVOKE_PATH = '/3/account/revoke.php';

/** What this endpoint reads; none may be sent twice (as at the token endpoint, RFC 6749 3.2: the same value in the query and the body counts once). */
const REVOKE_PARAMS = ['token', 'token_type_hint', 'client_id', 'client_secret', 'f'] as const;

const refusal = (why: string, status = 400): ApiError => new ApiError(104, { desc: `Error revoking a token: ${why}`, status });

/**
 * RFC 7009 token revocation, Tickler's addition to the v3 API (docs/oauth.md). The same client
 * authentication, transport rule (101) and limits (103) as the token endpoint. Success is 200
 * with an empty object, also for a token that is unknown or already ended (RFC 7009 2.2).
 * `token_type_hint` is read and may be anything: either kind of token ends the whole family.
 */
export function revokeRoutes(app: FastifyInstance, deps: Deps): void {
  const proxyTrusted = deps.config.trustProxy !== false;
  app.route({
    method: 'POST',
    url: REVOKE_PATH,
    config: { kind: 'token', malformedCode: 104 },
    onSend: noStore,
    onRequest: async function requireSecureTransport(request) {
      if (!isSecureEnough(request, proxyTrusted)) request.refusal = new ApiError(101);
    },
    preValidation: async function refuseInsecureTransport(request) {
      if (request.refusal) throw request.refusal;
    },
    handler: async function revokeEndpoint(request, reply) {
      await guardApi(deps, request, reply);
      const p = paramsOf(request);
      const repeated = p.repeatedAmong(REVOKE_PARAMS);
      if (repeated) throw refusal(`${repeated} was sent more than once`);
      // RFC 6749 5.2: bad client credentials are 401.
      const client = await authenticatedClient(deps, request, reply, p, (why) => refusal(why, 401));
      const token = p.text('token');
      if (token === undefined) throw refusal('token is required');
      if ((await revokeToken(deps, client, token)) === 'other-app') throw refusal('the token was not issued to this app');
      return sendBody(request, reply, objectBody('response', {}));
    },
  });
  app.route({
    method: ['GET', ...OTHER_METHODS],
    url: REVOKE_PATH,
    config: { kind: 'token' },
    onSend: noStore,
    handler: methodNotAllowed('POST'),
  });
}
