import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { pageHeaders, type Site } from '../web/html.js';
import { errorPage, formRefusedPage } from '../web/pages.js';
import { MalformedBody } from './body-parsers.js';
import { sendError } from './error-body.js';
import { formatOf, queryFormatOf, type Format } from './reply.js';

/**
 * Turns anything thrown into the answer a client can use: an API error record in the negotiated
 * format (or an HTML page for page routes). Client mistakes never become a 500 or a stack trace;
 * only a genuine server fault does, logged here with its details and answered without them.
 */
function toApiError(err: unknown, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  // A request refused before its body was read is refused for that reason, readable body or not.
  if (request.refusal) return request.refusal;
  const e = err as Partial<FastifyError>;
  const malformed = request.routeOptions.config?.malformedCode ?? 0;
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status === 413 || e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new ApiError(0, { status: 413, desc: 'The request body is too large' });
  }
  if (err instanceof MalformedBody || (status >= 400 && status < 500 && isBodyError(e.code))) {
    const desc = `Malformed request: ${err instanceof MalformedBody ? err.message : 'the body could not be read'}`;
    return new ApiError(malformed, malformed === 0 ? { status: 400, desc } : { desc });
  }
  if (status >= 400 && status < 500) return new ApiError(0, { status, desc: 'Bad request' });
  return new ApiError(0, { status: 500, desc: 'Internal server error' });
}

function isBodyError(code: string | undefined): boolean {
  // Fastify's content-type parser errors (unsupported media type, bad content length, …).
  return code !== undefined && code.startsWith('FST_ERR_CTP');
}

function pageError(site: Site, reply: FastifyReply, err: unknown, apiError: ApiError): FastifyReply {
  const code = (err as Partial<FastifyError>).code ?? '';
  if (code.startsWith('FST_CSRF')) {
    return pageHeaders(reply.status(403)).send(formRefusedPage(site));
  }
  const status = apiError.status === 200 ? 400 : apiError.status;
  return pageHeaders(reply.status(status)).send(
    errorPage(site, status >= 500 ? 'Something went wrong' : 'Bad request', status >= 500 ? 'Please try again later.' : apiError.desc),
  );
}

/** The format for an error; never throws (the body may be what failed), JSON when in doubt. */
function safeFormat(request: FastifyRequest): Format {
  try {
    return request.body === undefined ? queryFormatOf(request) : formatOf(request);
  } catch {
    return 'json';
  }
}

/**
 * Errors Fastify raises before a route runs (a URL that cannot be decoded): answered in the API's
 * format, without echoing the URL (it may hold a token). The query cannot be parsed, so `f=xml` is
 * looked for in the raw URL.
 */
export function frameworkError(_error: Error, request: FastifyRequest, reply: FastifyReply): void {
  const format: Format = /[?&]f=xml(&|$)/i.test(request.raw.url ?? '') ? 'xml' : 'json';
  void sendError(request, reply, new ApiError(0, { status: 400, desc: 'Malformed request: the URL could not be read' }), format);
}

export function registerErrorHandling(app: FastifyInstance, site: Site): void {
  app.setErrorHandler(function handleError(err, request, reply) {
    const apiError = toApiError(err, request);
    if (apiError.status >= 500) request.log.error({ err }, 'request failed');
    if (request.routeOptions.config?.kind === 'page') return pageError(site, reply, err, apiError);
    return sendError(request, reply, apiError, safeFormat(request));
  });

  app.setNotFoundHandler(function unknownEndpoint(request, reply) {
    const path = request.url.split('?')[0] ?? '';
    reply.header('cache-control', 'no-store');
    return sendError(request, reply, new ApiError(0, { status: 404, desc: `Unknown endpoint: ${request.method} ${path}` }));
  });
}
