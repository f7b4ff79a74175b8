import type { Deps } from '../../deps.js';
import { classifyDocumentId } from '../../features/documents/document-fields.js';
import { DOCUMENT_KINDS, type AnyDocument, type DocumentSpec } from '../../features/documents/document-kinds.js';
import { listDocuments, MAX_PAGE } from '../../features/documents/documents.read.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import type { List, ListRow } from '../../storage/store.js';
import { accountDay } from '../organize/dates.js';
import { webAuth } from '../organize/organize.routes.js';
import { showMoreAddress, shownRows } from '../paging.js';
import { listPage, listsPage } from '../views/lists.js';
import { queryStrings, type Web } from '../web-kit.js';

/**
 * The lists pages, to read: the account's lists, and one list's rows. They read through the same
 * service as lists/get and rows/get (documents.read.ts), with the signed-in account's rights.
 */

const LISTS = DOCUMENT_KINDS.find((k) => k.kind === 'list');
const ROWS = DOCUMENT_KINDS.find((k) => k.kind === 'row');

/** Every record the get service lists, a page of MAX_PAGE at a time (an account's lists, a list's rows). */
async function everything(deps: Deps, auth: AuthContext, spec: DocumentSpec, list?: string): Promise<AnyDocument[]> {
  const out: AnyDocument[] = [];
  for (;;) {
    const page = await listDocuments(deps, auth, { spec, start: out.length, num: MAX_PAGE, list });
    out.push(...page.items);
    if (page.items.length < MAX_PAGE || out.length >= page.total) return out;
  }
}

export function listsRoutes(web: Web): void {
  const { deps } = web;
  if (!LISTS || !ROWS) throw new Error('the lists and rows descriptions are missing');
  const lists = LISTS;
  const rows = ROWS;

  web.getSignedIn('/lists', async function showLists(request, reply, who) {
    const all = (await everything(deps, webAuth(who), lists)) as List[];
    const show = shownRows(queryStrings(request)['show']);
    const day = (seconds: number): string => accountDay(who.account, seconds);
    return web.page(reply, 200, listsPage(web.site, web.nav(reply, who, '/lists'), { lists: all, show, more: showMoreAddress('/lists', show), day }));
  });

  web.getSignedIn('/lists/:id', async function showList(request, reply, who) {
    const id = classifyDocumentId((request.params as { id: string }).id, 'hex');
    // Another person's list answers as none does.
    const list = id === 'none' || id === 'invalid' ? null : await deps.store.read.documents.get(who.account.pk, 'list', id);
    if (!list) return web.errorPage(reply, 404, 'No such list', 'There is no list of yours at this address.');
    const listRows = (await everything(deps, webAuth(who), rows, list.id)) as ListRow[];
    const show = shownRows(queryStrings(request)['show']);
    const day = (seconds: number): string => accountDay(who.account, seconds);
    const page = listPage(web.site, web.nav(reply, who, '/lists'), { list, rows: listRows, show, more: showMoreAddress(`/lists/${list.id}`, show), who: who.account, day });
    return web.page(reply, 200, page);
  });
}
