import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { ApiError, type ErrorCode } from '../errors.js';
import type { AuthContext } from '../oauth/access-tokens.js';
import type { RequiredScope } from '../oauth/scopes.js';
import { guardApi } from './api-guard.js';
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
  readonly handler: (call: ApiCall) => Promise<ApiBody>;
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
    handler: async function apiHandler(request, reply) {
      // Awaited only when a check had to wait: a cached token counted in memory needs no turn.
      const guarded = guardApi(deps, request, reply, route.scope);
      if (guarded) await guarded;
      const auth = request.auth;
      if (!auth) throw new Error(`api route ${route.path} ran without authentication`);
      return sendBody(request, reply, await route.handler({ params: paramsOf(request), auth, request }));
    },
  });
  app.route({ method: [...OTHER_METHODS], url: route.path, config: { kind: 'api' }, handler: methodNotAllowed('GET, POST') });
}
