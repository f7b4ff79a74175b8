import type { FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { classifyDocumentId } from '../../features/documents/document-fields.js';
import { DOCUMENT_KINDS, type AnyDocument, type DocumentSpec } from '../../features/documents/document-kinds.js';
import { listDocuments, MAX_PAGE } from '../../features/documents/documents.read.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import type { List, ListRow } from '../../storage/store.js';
import { accountDay } from '../organize/dates.js';
import { webAuth } from '../organize/organize.routes.js';
import { PAGE_ROWS, showMoreAddress, shownRows } from '../paging.js';
import { listPage, listsPage } from '../views/lists.js';
import { queryStrings, type SignedIn, type Web } from '../web-kit.js';

/**
 * The lists pages: the account's lists, and one list's rows. They read through the same service
 * as lists/get and rows/get (documents.read.ts), with the signed-in account's rights; a row's
 * form is rows.routes.ts.
 */

const LISTS = DOCUMENT_KINDS.find((k) => k.kind === 'list');
const ROWS = DOCUMENT_KINDS.find((k) => k.kind === 'row');

/**
 * The records the get service lists, a page of MAX_PAGE at a time (an account's lists or
 * outlines, a list's rows), up to `most`; and how many there are. The outlines pages use it too.
 */
export async function upTo(deps: Deps, auth: AuthContext, spec: DocumentSpec, most: number, list?: string): Promise<{ items: AnyDocument[]; total: number }> {
  const items: AnyDocument[] = [];
  for (;;) {
    const page = await listDocuments(deps, auth, { spec, start: items.length, num: Math.min(MAX_PAGE, most - items.length), list });
    items.push(...page.items);
    if (page.items.length === 0 || items.length >= most || items.length >= page.total) return { items, total: Math.max(page.total, items.length) };
  }
}

/**
 * The most cells a list's page writes: "Show more" stops short of it (a list may have up to
 * MAX_LIST_COLUMNS columns, and 20,000 rows of 1,000 columns would be megabytes of HTML).
 */
const MOST_CELLS = 200_000;

/** The list an address names, among the signed-in person's; null for any other (another person's answers as none does). */
export async function ownList(deps: Deps, who: SignedIn, raw: string): Promise<List | null> {
  const id = classifyDocumentId(raw, 'hex');
  return id === 'none' || id === 'invalid' ? null : deps.store.read.documents.get(who.account.pk, 'list', id);
}

/** The page of an address that names no list of the person's. */
export const noList = (web: Web, reply: FastifyReply): FastifyReply => web.errorPage(reply, 404, 'No such list', 'There is no list of yours at this address.');

export function listsRoutes(web: Web): void {
  const { deps } = web;
  if (!LISTS || !ROWS) throw new Error('the lists and rows descriptions are missing');
  const lists = LISTS;
  const rows = ROWS;

  web.getSignedIn('/lists', async function showLists(request, reply, who) {
    // Only the lists shown are read: nothing on this page needs the others, but their count.
    const show = shownRows(queryStrings(request)['show']);
    const { items, total } = await upTo(deps, webAuth(who), lists, show);
    const day = (seconds: number): string => accountDay(who.account, seconds);
    const { notice } = web.flash(request, reply);
    const page = listsPage(web.site, web.nav(reply, who, '/lists'), { lists: items as List[], total, more: showMoreAddress('/lists', show), day, notice });
    return web.page(reply, 200, page);
  });

  web.getSignedIn('/lists/:id', async function showList(request, reply, who) {
    const list = await ownList(deps, who, (request.params as { id: string }).id);
    const gone = (): FastifyReply => noList(web, reply);
    if (!list) return gone();
    let listRows: ListRow[];
    try {
      // Every row (MAX_LIST_ROWS, 5,000 by default): the page orders them (views/lists.ts).
      listRows = (await upTo(deps, webAuth(who), rows, Number.MAX_SAFE_INTEGER, list.id)).items as ListRow[];
    } catch (err) {
      // Deleted since it was read (another tab, an app): as for any list that is not there.
      if (err instanceof ApiError && err.code === 1007) return gone();
      throw err;
    }
    const most = Math.max(PAGE_ROWS, Math.floor(MOST_CELLS / Math.max(1, list.cols.length)));
    const show = Math.min(most, shownRows(queryStrings(request)['show']));
    const more = show >= most ? undefined : showMoreAddress(`/lists/${list.id}`, show);
    const day = (seconds: number): string => accountDay(who.account, seconds);
    const { notice } = web.flash(request, reply);
    return web.page(reply, 200, listPage(web.site, web.nav(reply, who, '/lists'), { list, rows: listRows, show, more, who: who.account, day, notice }));
  });
}
