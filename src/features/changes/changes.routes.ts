import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { apiRoute } from '../../http/api-route.js';
import { numberParam } from '../../http/batch-params.js';
import { formatOf } from '../../http/reply.js';
import { feedBody } from './changes.presenter.js';
import { MAX_CHANGES, readChanges } from './changes.service.js';

export const CHANGES_PATH = '/3/sync/changes.php';

/**
 * The change feed (docs/sync.md): Tickler's addition to the v3 API, for apps that ask for it. Any
 * of the resource scopes lets a token read it, each for its own kinds.
 */
export function changesRoutes(app: FastifyInstance, deps: Deps): void {
  apiRoute(app, deps, {
    path: CHANGES_PATH,
    scope: 'any resource',
    malformedCode: 1100,
    handler: async ({ params: p, auth, request }) => {
      const num = numberParam(p, 1100, 'num') ?? MAX_CHANGES;
      const wait = numberParam(p, 1100, 'wait') ?? 0;
      const form = formatOf(request);
      // A long poll ends when its caller goes away (the answer's socket closes before it is sent).
      const gone = new AbortController();
      const reply = request.raw.socket;
      const onClose = (): void => gone.abort();
      reply?.once('close', onClose);
      // Gone before the body was read: the listener above will never hear it.
      if (reply?.destroyed === true) gone.abort();
      try {
        const page = await readChanges(deps, auth, { cursor: p.text('cursor'), num, wait, form, signal: gone.signal });
        return feedBody(page, form);
      } finally {
        reply?.off('close', onClose);
      }
    },
  });
}
