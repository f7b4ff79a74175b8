import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Deps } from './deps.js';
import { addDavMethods, caldavRoutes } from './caldav/caldav.routes.js';
import { feedsRoutes } from './feeds/feeds.routes.js';
import { accountRoutes } from './features/account/account.routes.js';
import { changesRoutes } from './features/changes/changes.routes.js';
import { documentRoutes } from './features/documents/documents.routes.js';
import { eventRoutes } from './features/events/events.routes.js';
import { organizerRoutes } from './features/organizers/organizers.routes.js';
import { taskRoutes } from './features/tasks/tasks.routes.js';
import { sharingRoutes } from './features/sharing/sharing.routes.js';
import { registerBodyParsers } from './http/body-parsers.js';
import { answerClientError } from './http/client-errors.js';
import { frameworkError, registerErrorHandling } from './http/error-handler.js';
import { healthRoutes } from './http/health.js';
import './http/fastify-types.js';
import { AccessLog, requestSerializer } from './http/logging.js';
import { authorizeRoutes } from './oauth/authorize.routes.js';
import { metadataRoutes } from './oauth/metadata.routes.js';
import { revokeRoutes } from './oauth/revoke.routes.js';
import { tokenRoutes } from './oauth/token.routes.js';
import { accountRoutes as webAccountRoutes } from './web/account.routes.js';
import { adminRoutes } from './web/admin.routes.js';
import { appsRoutes } from './web/apps.routes.js';
import { collaboratorsRoutes } from './web/collaborators.routes.js';
import { csrfOptions } from './web/csrf.js';
import { exportRoutes } from './web/export.routes.js';
import { feedsRoutes as webFeedsRoutes } from './web/feeds.routes.js';
import { siteOf } from './web/html.js';
import { taskRoutes as webTaskRoutes } from './web/tasks/tasks.routes.js';
import { notesRoutes } from './web/notes/notes.routes.js';
import { listsRoutes } from './web/lists/lists.routes.js';
import { rowsRoutes } from './web/lists/rows.routes.js';
import { listEditRoutes } from './web/lists/list-edit.routes.js';
import { outlinesRoutes } from './web/outlines/outlines.routes.js';
import { outlineEditRoutes } from './web/outlines/outline-edit.routes.js';
import { organizeRoutes } from './web/organize/organize.routes.js';
import { visitorRoutes } from './web/visitor.routes.js';
import { webhooksRoutes } from './web/webhooks.routes.js';
import { Web } from './web/web-kit.js';

export interface BuildOptions {
  /** Where log lines go (default stdout); tests pass a stream to read them. */
  readonly logStream?: { write(line: string): void };
}

/**
 * The whole HTTP application with all its options. It never listens: src/server.ts does that
 * for production, and tests call app.inject() on exactly the same instance.
 */
export async function buildApp(deps: Deps, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger:
      config.logLevel === 'silent'
        ? false
        : { level: config.logLevel, serializers: { req: requestSerializer }, ...(options.logStream && { stream: options.logStream }) },
    trustProxy: typeof config.trustProxy === 'boolean' ? config.trustProxy : [...config.trustProxy],
    bodyLimit: config.bodyLimitBytes,
    // Some clients put every parameter, a batch of 50 tasks included, in the query string of a POST.
    http: { maxHeaderSize: 1024 * 1024 },
    requestTimeout: 60_000,
    return503OnClosing: true,
    requestIdHeader: false,
    frameworkErrors: frameworkError,
    // A request Node.js's parser refuses (a head over maxHeaderSize: 431) is answered with
    // `Connection: close`, in the API's error record on /3/ paths.
    clientErrorHandler: answerClientError(siteOf(config.publicUrl)),
    // The access-log controller runs on every response, so it is installed only when its line would print.
    logController: ['info', 'debug', 'trace'].includes(config.logLevel) ? new AccessLog() : new LogController({ disableRequestLogging: true }),
  });
  app.decorateRequest('auth', null);
  app.decorateRequest('params_', null);
  app.decorateRequest('refusal', null);
  addDavMethods(app);
  await registerBodyParsers(app, config.bodyLimitBytes);
  registerErrorHandling(app, siteOf(config.publicUrl));

  healthRoutes(app, deps);
  // Counts of API calls held in memory are written before the database closes (after the app).
  app.addHook('onClose', () => deps.apiLimits.close());

  await app.register(async function apiScope(api) {
    accountRoutes(api, deps);
    organizerRoutes(api, deps);
    documentRoutes(api, deps);
    taskRoutes(api, deps);
    sharingRoutes(api, deps);
    changesRoutes(api, deps);
    eventRoutes(api, deps);
    tokenRoutes(api, deps);
    revokeRoutes(api, deps);
    metadataRoutes(api, deps);
  });

  // CalDAV (docs/caldav.md): its own bodies (XML, iCalendar) and sign-in (app passwords).
  await caldavRoutes(app, deps);
  // Calendar feeds (docs/feeds.md): read-only iCalendar at secret addresses, for calendar apps.
  await feedsRoutes(app, deps);

  // Cookies and CSRF belong to the HTML pages only: API calls never run their hooks.
  await app.register(async function pagesScope(pages) {
    await pages.register(cookie);
    // Each form's token is bound to the browser's session (src/web/csrf.ts, docs/decisions/0021).
    await pages.register(csrf, csrfOptions(config.publicHttps));
    const web = new Web(pages, deps);
    authorizeRoutes(web);
    visitorRoutes(web);
    webAccountRoutes(web);
    collaboratorsRoutes(web);
    exportRoutes(web);
    appsRoutes(web);
    webFeedsRoutes(web);
    webhooksRoutes(web);
    adminRoutes(web);
    webTaskRoutes(web);
    organizeRoutes(web);
    notesRoutes(web);
    listsRoutes(web);
    rowsRoutes(web);
    listEditRoutes(web);
    outlinesRoutes(web);
    outlineEditRoutes(web);
  });
  return app;
}
