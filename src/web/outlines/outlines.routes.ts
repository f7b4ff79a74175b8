import { classifyDocumentId } from '../../features/documents/document-fields.js';
import { DOCUMENT_KINDS } from '../../features/documents/document-kinds.js';
import type { Outline } from '../../storage/store.js';
import { upTo } from '../lists/lists.routes.js';
import { accountDay } from '../organize/dates.js';
import { webAuth } from '../organize/organize.routes.js';
import { showMoreAddress, shownRows } from '../paging.js';
import { outlinePage, outlinesPage } from '../views/outlines.js';
import { queryStrings, type SignedIn, type Web } from '../web-kit.js';
import type { FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';

/**
 * The outlines pages: the account's outlines, and one outline's tree. The list reads through the
 * service outlines/get uses; one outline as the notes page reads a note. Its form is
 * outline-edit.routes.ts.
 */

const OUTLINES = DOCUMENT_KINDS.find((k) => k.kind === 'outline');

/** The outline an address names, among the signed-in person's; null for any other (another person's answers as none does). */
export async function ownOutline(deps: Deps, who: SignedIn, raw: string): Promise<Outline | null> {
  const id = classifyDocumentId(raw, 'hex');
  return id === 'none' || id === 'invalid' ? null : deps.store.read.documents.get(who.account.pk, 'outline', id);
}

/** The page of an address that names no outline of the person's. */
export const noOutline = (web: Web, reply: FastifyReply): FastifyReply => web.errorPage(reply, 404, 'No such outline', 'There is no outline of yours at this address.');

export function outlinesRoutes(web: Web): void {
  const { deps } = web;
  if (!OUTLINES) throw new Error('the outlines description is missing');
  const outlines = OUTLINES;

  web.getSignedIn('/outlines', async function showOutlines(request, reply, who) {
    // Only the outlines shown are read: nothing on this page needs the others, but their count.
    const show = shownRows(queryStrings(request)['show']);
    const { items, total } = await upTo(deps, webAuth(who), outlines, show);
    const day = (seconds: number): string => accountDay(who.account, seconds);
    const { notice } = web.flash(request, reply);
    const page = outlinesPage(web.site, web.nav(reply, who, '/outlines'), { outlines: items as Outline[], total, more: showMoreAddress('/outlines', show), day, notice });
    return web.page(reply, 200, page);
  });

  web.getSignedIn('/outlines/:id', async function showOutline(request, reply, who) {
    const outline = await ownOutline(deps, who, (request.params as { id: string }).id);
    if (!outline) return noOutline(web, reply);
    const day = (seconds: number): string => accountDay(who.account, seconds);
    const { notice } = web.flash(request, reply);
    return web.page(reply, 200, outlinePage(web.site, web.nav(reply, who, '/outlines'), { outline, day, notice }));
  });
}
