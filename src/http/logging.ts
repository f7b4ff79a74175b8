import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

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

/**
 * One access-log line per request, written when the response is done (Fastify's default is two:
 * one on arrival and one on completion, which doubled the cost of logging per call).
 */
export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const line = { req: request, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 };
    if (error) reply.log.error({ ...line, err: error }, 'request failed');
    else reply.log.info(line, 'request');
  }
}
