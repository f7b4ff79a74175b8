import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { ApiError, type ErrorCode } from '../errors.js';
import type { AuthContext } from '../oauth/access-tokens.js';
import type { RequiredScope } from '../oauth/scopes.js';
import { guardApi } from './api-guard.js';
import { answerOnce, wantsOnce } from './idempotent-answer.js';
import { paramsOf, type Params } from './params.js';
import { sendBody, type ApiBody } from './reply.js';

export interface ApiCall {
  readonly params: Params;
  readonly auth: AuthContext;
  readonly request: FastifyRequest;
}

export interface ApiRoute {
  readonly path: string;
  readonly scope: RequiredScope;
  readonly malformedCode?: ErrorCode;
  /** A body at once (what this process holds: account/get from its cache) or through a promise. */
  readonly handler: (call: ApiCall) => ApiBody | Promise<ApiBody>;
}

/** Methods that no v3 endpoint accepts: answered 405 in the API's own format. */
export const OTHER_METHODS = ['PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

export function methodNotAllowed(allow: string) {
  return async function wrongMethod(): Promise<never> {
    throw new ApiError(0, { status: 405, desc: `Method not allowed: use ${allow}`, headers: { allow } });
  };
}

/**
 * Registers a v3 API endpoint. Every one accepts GET and POST: the spec asks POST for writes,
 * but clients of the hosted service call some writes with GET and reads with POST.
 */
export function apiRoute(app: FastifyInstance, deps: Deps, route: ApiRoute): void {
  app.route({
    method: ['GET', 'POST'],
    url: route.path,
    config: { kind: 'api', ...(route.malformedCode !== undefined && { malformedCode: route.malformedCode }) },
    // Not an async function: a call whose checks and answer needed no wait (a cached token counted
    // in memory, account/get from the account cache) is sent before the handler returns, with no
    // promise at all. An async handler's promise, and Fastify's wait for it (the reply it returned
    // is a thenable), are turns of the event loop a cheap call pays for (docs/decisions/0007).
    // Errors thrown here reach the error handler as a rejection would.
    handler: function apiHandler(request, reply): Promise<void> | undefined {
      const guarded = guardApi(deps, request, reply, route.scope);
      // A POST with an Idempotency-Key runs once per key (docs/decisions/0022); the rest as always.
      const respond = wantsOnce(request) ? answerKeyed : answer;
      return guarded ? guarded.then(() => respond(request, reply)) : respond(request, reply);
    },
  });
  function callOf(request: FastifyRequest): ApiCall {
    const auth = request.auth;
    if (!auth) throw new Error(`api route ${route.path} ran without authentication`);
    return { params: paramsOf(request), auth, request };
  }
  // Sends the route's body; a promise only when the route's own work had to wait.
  function answer(request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined {
    const body = route.handler(callOf(request));
    if (body instanceof Promise) return body.then((b) => void sendBody(request, reply, b));
    sendBody(request, reply, body);
    return undefined;
  }
  function answerKeyed(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    return answerOnce(deps, request, reply, route.path, () => route.handler(callOf(request)));
  }
  app.route({ method: [...OTHER_METHODS], url: route.path, config: { kind: 'api' }, handler: methodNotAllowed('GET, POST') });
}
