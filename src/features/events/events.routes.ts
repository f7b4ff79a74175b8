import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { guardApi } from '../../http/api-guard.js';
import { methodNotAllowed, OTHER_METHODS } from '../../http/api-route.js';
import { paramsOf } from '../../http/params.js';
import { useridOf } from '../changes/changes.service.js';
import { decodeCursor } from '../changes/cursor.js';
import { EventStreams, type EventStreamOptions } from './event-streams.js';

export const EVENTS_PATH = '/3/sync/events.php';

/**
 * Server-sent events of the account's changes (docs/sync.md, docs/decisions/0026): Tickler's
 * addition to the v3 API, for apps that ask for it. Guarded like every call (the token, any
 * resource scope as the change feed, the rate limits: the stream counts as one call when it
 * opens, and what it carries counts nothing); then `text/event-stream` until the client leaves,
 * its token or grant ends, or the server closes.
 */
export function eventRoutes(app: FastifyInstance, deps: Deps, options: Partial<EventStreamOptions> = {}): EventStreams {
  const streams = new EventStreams(deps, { log: (err, what) => app.log.warn({ err }, `${what} failed`), ...options });
  // Before the server stops taking connections: each stream's response ends, so nothing waits on them.
  app.addHook('preClose', async function endEventStreams() {
    await streams.close();
  });

  app.route({
    method: 'GET',
    url: EVENTS_PATH,
    config: { kind: 'api' },
    handler: async function eventStream(request: FastifyRequest, reply: FastifyReply) {
      await guardApi(deps, request, reply, 'any resource');
      const auth = request.auth;
      if (!auth) throw new Error('the event stream ran without authentication');
      const userid = await useridOf(deps, auth);
      const from = startOf(request, userid);
      // HEAD (which Fastify routes here) says whether a stream would open, without one: no body.
      if (request.method === 'HEAD') return reply.header('content-type', 'text/event-stream; charset=utf-8').send();
      const opened = await streams.open(auth, userid, from);
      // From here the response is the stream's, written straight to the socket: through Fastify's
      // stream answer (a PassThrough piped) an idle stream held 8 KB more of heap, 15 KB more of
      // memory in all (decisions/0026, "Costs"). The headers the guard set (no-store, the rate
      // limits) go with its head.
      reply.hijack();
      const res = reply.raw;
      const head: Record<string, string | number | string[]> = {};
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) head[name] = value;
      head['content-type'] = 'text/event-stream; charset=utf-8';
      // A proxy that buffers answers (nginx) would hold the events back.
      head['x-accel-buffering'] = 'no';
      res.writeHead(200, head);
      const started = performance.now();
      // The client went away (or the connection broke), or the stream ended: its slot is free again.
      res.once('close', () => {
        opened.end();
        reply.log.info({ req: request, status: 200, ms: Math.round(performance.now() - started) }, 'event stream ended');
      });
      opened.start(res);
      if (res.destroyed) opened.end();
      return reply;
    },
  });
  app.route({ method: ['POST', ...OTHER_METHODS], url: EVENTS_PATH, config: { kind: 'api' }, handler: methodNotAllowed('GET') });
  return streams;
}

/**
 * Where the app stands: the `Last-Event-ID` an EventSource sends when it reconnects, else the
 * `cursor` parameter (the cursor the app last read from the feed: EventSource cannot set a header
 * on its first connection). Either must be a cursor of this account (1101 otherwise).
 */
function startOf(request: FastifyRequest, userid: string): number | undefined {
  const header = request.headers['last-event-id'];
  const sent = (Array.isArray(header) ? header[0] : header)?.trim() || paramsOf(request).text('cursor');
  if (sent === undefined || sent === '') return undefined;
  const seq = decodeCursor(userid, sent);
  if (seq === undefined) throw new ApiError(1101, { desc: 'Invalid cursor: Last-Event-ID or cursor is not a cursor of this account' });
  return seq;
}
