import { classifyDocumentId } from '../../features/documents/document-fields.js';
import { DOCUMENT_KINDS } from '../../features/documents/document-kinds.js';
import type { Outline } from '../../storage/store.js';
import { upTo } from '../lists/lists.routes.js';
import { accountDay } from '../organize/dates.js';
import { webAuth } from '../organize/organize.routes.js';
import { showMoreAddress, shownRows } from '../paging.js';
import { outlinePage, outlinesPage } from '../views/outlines.js';
import { queryStrings, type Web } from '../web-kit.js';

/**
 * The outlines pages, to read: the account's outlines, and one outline's tree. The list reads
 * through the service outlines/get uses; one outline as the notes page reads a note.
 */

const OUTLINES = DOCUMENT_KINDS.find((k) => k.kind === 'outline');

export function outlinesRoutes(web: Web): void {
  const { deps } = web;
  if (!OUTLINES) throw new Error('the outlines description is missing');
  const outlines = OUTLINES;

  web.getSignedIn('/outlines', async function showOutlines(request, reply, who) {
    // Only the outlines shown are read: nothing on this page needs the others, but their count.
    const show = shownRows(queryStrings(request)['show']);
    const { items, total } = await upTo(deps, webAuth(who), outlines, show);
    const day = (seconds: number): string => accountDay(who.account, seconds);
    const page = outlinesPage(web.site, web.nav(reply, who, '/outlines'), { outlines: items as Outline[], total, more: showMoreAddress('/outlines', show), day });
    return web.page(reply, 200, page);
  });

  web.getSignedIn('/outlines/:id', async function showOutline(request, reply, who) {
    const id = classifyDocumentId((request.params as { id: string }).id, 'hex');
    // Another person's outline answers as none does.
    const outline = id === 'none' || id === 'invalid' ? null : await deps.store.read.documents.get(who.account.pk, 'outline', id);
    if (!outline) return web.errorPage(reply, 404, 'No such outline', 'There is no outline of yours at this address.');
    const day = (seconds: number): string => accountDay(who.account, seconds);
    return web.page(reply, 200, outlinePage(web.site, web.nav(reply, who, '/outlines'), { outline, day }));
  });
}
