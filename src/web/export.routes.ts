import type { FastifyReply } from 'fastify';
import { exportAccount } from '../features/moving/export.service.js';
import { exportTasksCsv, exportTasksIcal } from '../features/moving/export-formats.js';
import type { Web } from './web-kit.js';

/**
 * The account page's downloads (docs/moving.md, "Export"): the same services as `bin/tickler
 * export`, for the signed-in account only (its `pk` comes from the session, never from the
 * address). GETs that only read: no form, so no CSRF token is needed, and a link from another
 * site can at most make the person's own browser download their own data. Signed out, the
 * request is sent to sign in and brought back (web.getSignedIn).
 */

const DOWNLOADS = [
  { path: '/account/export/json', file: 'tickler-export.json', type: 'application/json; charset=utf-8', make: async (web: Web, pk: number) => `${JSON.stringify(await exportAccount(web.deps, pk))}\n` },
  { path: '/account/export/csv', file: 'tickler-tasks.csv', type: 'text/csv; charset=utf-8', make: (web: Web, pk: number) => exportTasksCsv(web.deps, pk) },
  { path: '/account/export/ical', file: 'tickler-tasks.ics', type: 'text/calendar; charset=utf-8', make: (web: Web, pk: number) => exportTasksIcal(web.deps, pk) },
] as const;

/**
 * A download's headers: an attachment (the browser saves it rather than showing it), never kept
 * by a cache (it is the account's data), never sniffed as something else, and not framed.
 */
function downloadHeaders(reply: FastifyReply, type: string, file: string): FastifyReply {
  return reply
    .header('content-disposition', `attachment; filename="${file}"`)
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'same-origin')
    .type(type);
}

export function exportRoutes(web: Web): void {
  for (const d of DOWNLOADS) {
    web.getSignedIn(d.path, async function downloadExport(_request, reply, who) {
      const body = await d.make(web, who.account.pk);
      return downloadHeaders(reply, d.type, d.file).send(body);
    });
  }
}
