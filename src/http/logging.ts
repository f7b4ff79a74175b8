import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * Query parameters that carry credentials; their values never reach a log line. `token` and
 * `invite` are the secrets of the password-reset and invitation links (src/web), `token` also
 * the revocation endpoint's; `request` names a pending consent.
 */
const SECRET_PARAMS = new Set(['access_token', 'refresh_token', 'code', 'client_secret', 'password', 'state', '_csrf', 'code_verifier', 'token', 'invite', 'request']);

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).trim().toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/** A calendar feed's address holds its secret in the path (docs/feeds.md): `/feeds/<secret>.ics`. */
const FEED_PATH = /^\/feeds\/[^?]*/i;

/**
 * The URL with the values of credential parameters replaced, and a calendar feed's secret.
 * Names are compared as the query parser will read them (percent-decoded, any case):
 * `access%5Ftoken=` authenticates too.
 */
function redactUrl(raw: string): string {
  const url = raw.replace(FEED_PATH, '/feeds/[redacted]');
  const q = url.indexOf('?');
  if (q < 0) return url;
  const pairs = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    return SECRET_PARAMS.has(decodedName(name)) ? `${name}=[redacted]` : pair;
  });
  return `${url.slice(0, q)}?${pairs.join('&')}`;
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
