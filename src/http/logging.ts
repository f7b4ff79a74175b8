import type { FastifyRequest } from 'fastify';

/** Query parameters that carry credentials; their values never reach a log line. */
const SECRET_PARAMS = /([?&](?:access_token|refresh_token|code|client_secret|password|state|_csrf)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[redacted]');
}

/**
 * Request log fields. Headers are left out on purpose (Authorization carries tokens and client
 * secrets, Cookie carries sessions); the URL is logged with credential values removed.
 */
export function requestSerializer(request: FastifyRequest): Record<string, unknown> {
  return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip };
}
