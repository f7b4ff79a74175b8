import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import type { Deps } from '../deps.js';
import { guardApi } from '../http/api-guard.js';
import { methodNotAllowed, OTHER_METHODS } from '../http/api-route.js';
import { paramsOf, type Params } from '../http/params.js';
import { addRateLimit } from '../http/rate-limit-fields.js';
import { objectBody, sendBody } from '../http/reply.js';
import type { ClientInfo } from '../storage/store.js';
import { authenticatedClient, isSecureEnough, noStore } from './client-auth.js';
import { grantTokens } from './token.service.js';

/** `vers`, `os`, `device`, `udid`: for the developer's statistics only; kept short. */
function clientInfo(p: Params): ClientInfo {
  const field = (name: string): string | null => p.text(name)?.slice(0, 255) ?? null;
  return { vers: field('vers'), os: field('os'), device: field('device'), udid: field('udid') };
}

/** What this endpoint reads. RFC 6749 3.2: none may be sent twice; unknown ones are ignored (3.1). */
const TOKEN_PARAMS = [
  'grant_type',
  'code',
  'redirect_uri',
  'refresh_token',
  'scope',
  'code_verifier',
  'client_id',
  'client_secret',
  'vers',
  'os',
  'device',
  'udid',
  'f',
] as const;

export function tokenRoutes(app: FastifyInstance, deps: Deps): void {
  const proxyTrusted = deps.config.trustProxy !== false;
  app.route({
    method: 'POST',
    url: '/3/account/token.php',
    config: { kind: 'token', malformedCode: 102 },
    onSend: noStore,
    // Judged before the body is read (whatever it carries, the request is refused), answered once
    // it is: 101 honours `f` from the body like every other token error. The body has crossed the
    // network in the clear either way; reading it changes only the format of the answer.
    onRequest: async function requireSecureTransport(request) {
      if (!isSecureEnough(request, proxyTrusted)) request.refusal = new ApiError(101);
    },
    preValidation: async function refuseInsecureTransport(request) {
      if (request.refusal) throw request.refusal;
    },
    handler: async function tokenEndpoint(request, reply) {
      await guardApi(deps, request, reply);
      const p = paramsOf(request);
      // Which of two values would count is exactly what an attacker who can add one wants to choose
      // (a second code, a second redirect_uri): refuse rather than pick. In the query and the body
      // with different values is twice too; with the same value it is once (the Ruby sample's
      // client_id, docs/oauth.md), as nothing is left to choose.
      const repeated = p.repeatedAmong(TOKEN_PARAMS);
      if (repeated) throw new ApiError(102, { desc: `Error requesting a token: ${repeated} was sent more than once` });
      const client = await authenticatedClient(deps, request, reply, p, (why) => new ApiError(102, { desc: `Error requesting a token: ${why}` }));
      const issued = await grantTokens(deps, client, {
        grantType: p.text('grant_type'),
        code: p.text('code'),
        refreshToken: p.text('refresh_token'),
        // Compared byte for byte with what authorize received (RFC 6749 4.1.3: identical); empty is absent (3.1).
        redirectUri: p.get('redirect_uri') || undefined,
        scope: p.get('scope'),
        codeVerifier: p.text('code_verifier'),
        info: clientInfo(p),
      }, (user) => addRateLimit(reply, 'user', deps.config.rateLimits.tokenPerUser, user.quota));
      if (issued.retriedGrant !== undefined) {
        // Normal for a client whose answer was lost or two processes sharing a token file; a trail
        // for the rarer case of a thief using a token within the interval (docs/decisions/0011).
        request.log.warn({ grant: issued.retriedGrant }, 'a just-spent refresh token came again within REFRESH_TOKEN_REUSE_SECONDS: its answer was given again');
      }
      return sendBody(
        request,
        reply,
        objectBody('response', {
          access_token: issued.accessToken,
          expires_in: issued.expiresIn,
          token_type: 'Bearer',
          scope: issued.scope,
          refresh_token: issued.refreshToken,
        }),
      );
    },
  });
  // RFC 6749 3.2: token requests must be POST, so codes and secrets stay out of URLs and histories.
  app.route({
    method: ['GET', ...OTHER_METHODS],
    url: '/3/account/token.php',
    config: { kind: 'token' },
    onSend: noStore,
    handler: methodNotAllowed('POST'),
  });
}
