import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { siteOf } from '../web/html.js';
import { authenticateDav } from './dav-auth.js';
import { DavPaths, plain, type DavAnswer, type DavContext } from './dav-context.js';
import { dispatch } from './dispatch.js';

/**
 * The CalDAV face (RFC 4791, RFC 6578, RFC 6764; docs/caldav.md): `/.well-known/caldav`, and every
 * method CalDAV clients use under `/dav/`, answered from the same services as the v3 API and the
 * web pages. Requests are read as text (up to CALDAV_MAX_BYTES) and answered by dispatch.ts; this
 * file holds what is HTTP: methods, bodies, sign-in, errors.
 */

export const DAV_METHODS = ['OPTIONS', 'GET', 'HEAD', 'PUT', 'DELETE', 'PROPFIND', 'PROPPATCH', 'REPORT', 'MKCALENDAR', 'MKCOL', 'MOVE'] as const;
/** Methods Node.js knows that Fastify must be told carry a body. */
const EXTRA_METHODS = ['PROPFIND', 'PROPPATCH', 'REPORT', 'MKCALENDAR', 'MKCOL', 'MOVE'] as const;

/** The DAV header of OPTIONS: class 1 and 3 WebDAV, CalDAV's calendar access, extended MKCOL; no scheduling (a client would poll an inbox). */
const DAV_HEADER = '1, 3, calendar-access, extended-mkcol';

/** Called on the root instance before any route: Fastify routes only the methods it knows. */
export function addDavMethods(app: FastifyInstance): void {
  for (const m of EXTRA_METHODS) app.addHttpMethod(m, { hasBody: true });
}

function send(reply: FastifyReply, answer: DavAnswer): FastifyReply {
  reply.code(answer.status);
  for (const [k, v] of Object.entries(answer.headers ?? {})) reply.header(k, v);
  if (answer.body === undefined) return reply.send();
  return reply.type(answer.contentType ?? 'text/plain; charset=utf-8').send(answer.body);
}

export async function caldavRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const paths = new DavPaths(siteOf(deps.config.publicUrl).base);

  // RFC 6764 5: the well-known address points at the service. A 301: some clients follow no 303.
  app.route({
    method: [...DAV_METHODS],
    url: '/.well-known/caldav',
    handler: function wellKnownCaldav(_request, reply) {
      return reply.code(301).header('location', paths.root()).send();
    },
  });

  await app.register(async function davScope(dav) {
    // Bodies are XML or iCalendar, read as text whatever their label; never the API's forms or JSON.
    dav.removeAllContentTypeParsers();
    dav.addContentTypeParser('*', { parseAs: 'string', bodyLimit: deps.config.caldavMaxBytes }, (_request, body, done) => done(null, body));
    dav.setErrorHandler(function davError(error, request, reply) {
      const status = (error as { statusCode?: number }).statusCode ?? 500;
      if (status === 413) return send(reply, plain(413, `the body is larger than CALDAV_MAX_BYTES (${deps.config.caldavMaxBytes} bytes)`));
      if (status >= 400 && status < 500) return send(reply, plain(status, 'the request could not be read'));
      request.log.error({ err: error }, 'CalDAV request failed');
      return send(reply, plain(500, 'the server failed to answer this request'));
    });
    const handler = async function caldavRequest(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
      reply.header('dav', DAV_HEADER);
      reply.header('cache-control', 'no-store');
      const method = request.method.toUpperCase();
      if (method === 'OPTIONS') {
        return send(reply, { status: 200, headers: { allow: DAV_METHODS.join(', '), 'content-length': '0' } });
      }
      const signedIn = await authenticateDav(deps, request);
      if ('answer' in signedIn) return send(reply, signedIn.answer);
      const sent = request.url.split('?')[0] as string;
      // The site's root answers PROPFIND as the service root: clients look for the service there (RFC 6764 6).
      const requestPath = sent === '/' ? '/dav/' : sent;
      const ctx: DavContext = {
        deps,
        paths,
        account: signedIn.account,
        readOnly: signedIn.readOnly,
        requestPath: `${paths.root().slice(0, -'/dav/'.length)}${sent}`,
        minimal: /return=minimal/i.test(String(request.headers['prefer'] ?? '')) || String(request.headers['brief'] ?? '').toLowerCase() === 't',
      };
      const body = typeof request.body === 'string' ? request.body : '';
      return send(reply, await dispatch(ctx, method, requestPath, body, request.headers));
    };
    dav.route({ method: 'PROPFIND', url: '/', handler });
    dav.route({ method: [...DAV_METHODS], url: '/dav', handler });
    dav.route({ method: [...DAV_METHODS], url: '/dav/', handler });
    dav.route({ method: [...DAV_METHODS], url: '/dav/*', handler });
  });
}
