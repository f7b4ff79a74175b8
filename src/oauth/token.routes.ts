import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { Deps } from '../deps.js';
import { guardApi } from '../http/api-guard.js';
import { methodNotAllowed, OTHER_METHODS } from '../http/api-route.js';
import { paramsOf, type Params } from '../http/params.js';
import { objectBody, sendBody } from '../http/reply.js';
import type { ClientInfo } from '../storage/store.js';
import { authenticateClient } from './clients.service.js';
import { grantTokens } from './token.service.js';

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
function isSecureEnough(request: FastifyRequest, proxyTrusted: boolean): boolean {
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

/** Client credentials from HTTP Basic or from the form (a widely used library does the latter). */
function clientCredentials(request: FastifyRequest, p: Params): { id: string | undefined; secret: string | undefined } {
  const basic = basicCredentials(request);
  const form = { id: p.text('client_id'), secret: p.get('client_secret') };
  if (basic && ((form.id !== undefined && form.id !== basic.id) || (form.secret !== undefined && form.secret !== basic.secret))) {
    throw new ApiError(102, { desc: 'Error requesting a token: two different sets of client credentials were sent' });
  }
  return basic ?? form;
}

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

/** Client ids are short and plain; anything else is not used as a rate-limit key (unbounded memory). */
const PLAUSIBLE_CLIENT_ID = /^[A-Za-z0-9._~-]{1,100}$/;

/**
 * RFC 6749 5.1 and 5.2: token answers carry credentials, and errors are answers too. Set as the
 * answer leaves (onSend), so that no path can miss it: 101 and body errors come before the
 * handler, 405 from another route.
 */
async function noStore(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  return payload;
}

export function tokenRoutes(app: FastifyInstance, deps: Deps): void {
  const limits = deps.config.rateLimits;
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
      // at once is twice too.
      const repeated = p.repeatedAmong(TOKEN_PARAMS);
      if (repeated) throw new ApiError(102, { desc: `Error requesting a token: ${repeated} was sent more than once` });
      const creds = clientCredentials(request, p);
      const now = deps.clock.now();
      // Failed authentications count per (client id, address): a stranger who knows an app's
      // public id cannot spend that app's budget for its real users.
      const claimed = creds.id !== undefined && PLAUSIBLE_CLIENT_ID.test(creds.id) ? creds.id : '?';
      const failKey = `token:fail:${claimed}:${request.ip}`;
      const before = await deps.limiter.check(failKey, limits.tokenAuthFailures, now);
      if (!before.allowed) throw new ApiError(103, { retryAfter: before.retryAfterSeconds });
      const client = creds.id && creds.secret !== undefined ? await authenticateClient(deps.store, creds.id, creds.secret) : null;
      if (!client) {
        await deps.limiter.hit(failKey, limits.tokenAuthFailures, now);
        throw new ApiError(102, { desc: 'Error requesting a token: invalid client credentials' });
      }
      // A ceiling for one app, all its users together: users are capped one by one in grantTokens.
      const d = await deps.limiter.hit(`token:client:${client.pk}`, limits.tokenPerClient, now);
      if (!d.allowed) throw new ApiError(103, { retryAfter: d.retryAfterSeconds });
      const issued = await grantTokens(deps, client, {
        grantType: p.text('grant_type'),
        code: p.text('code'),
        refreshToken: p.text('refresh_token'),
        // Compared byte for byte with what authorize received (RFC 6749 4.1.3: identical); empty is absent (3.1).
        redirectUri: p.get('redirect_uri') || undefined,
        scope: p.get('scope'),
        codeVerifier: p.text('code_verifier'),
        info: clientInfo(p),
      });
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
