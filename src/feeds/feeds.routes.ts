import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { feedCalendar, findFeed, recordFetch } from '../features/feeds/feed-calendar.service.js';
import { secretOfFile } from '../features/feeds/feeds.service.js';

/**
 * The calendar feeds face (docs/feeds.md): `GET` and `HEAD /feeds/<secret>.ics`, what Google
 * Calendar, Apple Calendar and Outlook fetch when subscribed. No sign-in: the secret in the
 * address is the credential, made and revoked on the Calendar feeds page. The access log never
 * shows it (src/http/logging.ts).
 */

export const FEEDS_PATH = '/feeds/';

/** Whether `If-None-Match` names this tag, compared weakly as RFC 9110 13.1.2 says; `*` names any. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const bare = (tag: string): string => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

/** An unknown address, a revoked one and a malformed one get the same answer: nothing says which. */
function notFound(reply: FastifyReply): FastifyReply {
  return reply.code(404).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('Not found\n');
}

export async function feedsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  await app.register(async function feedsScope(feeds) {
    feeds.setErrorHandler(function feedError(error, request, reply) {
      request.log.error({ err: error }, 'calendar feed failed');
      return reply.code(500).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('The server failed to answer this request.\n');
    });

    // GET; Fastify answers HEAD with the same headers and no body (exposeHeadRoutes).
    feeds.get(`${FEEDS_PATH}:file`, async function calendarFeed(request: FastifyRequest, reply: FastifyReply) {
      if (deps.config.maintenance) return reply.code(503).header('retry-after', '300').type('text/plain; charset=utf-8').send('Down for maintenance.\n');
      const secret = secretOfFile((request.params as { file: string }).file);
      const found = secret === undefined ? null : await findFeed(deps, secret);
      if (!found) return notFound(reply);
      await recordFetch(deps, found.feed);
      const validators = {
        etag: found.etag,
        'last-modified': new Date(found.lastModified * 1000).toUTCString(),
        // Kept by the calendar but asked again each time (a 304 is cheap); never by a shared cache.
        'cache-control': 'private, no-cache',
        // A secret address: not for search engines, even if it is posted somewhere.
        'x-robots-tag': 'noindex, nofollow',
      };
      if (noneMatch(request.headers['if-none-match'], found.etag)) return reply.code(304).headers(validators).send();
      const text = await feedCalendar(deps, found);
      if (text === null) return notFound(reply);
      return reply.code(200).headers(validators).type('text/calendar; charset=utf-8').send(text);
    });
  });
}
