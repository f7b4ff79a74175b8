import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ItemError } from '../../errors.js';
import { classifyDocumentId } from '../../features/documents/document-fields.js';
import { DOCUMENT_KINDS } from '../../features/documents/document-kinds.js';
import { addDocuments, deleteDocuments, editDocuments } from '../../features/documents/documents.write.js';
import { randomHex } from '../../lib/crypto.js';
import type { Params } from '../../http/params.js';
import type { List, ListRow } from '../../storage/store.js';
import type { Problem } from '../organize/inputs.js';
import { webAuth } from '../organize/organize.routes.js';
import { confirmRowDeletePage, rowFormPage } from '../views/list-rows.js';
import type { SignedIn, Web } from '../web-kit.js';
import { noList, ownList } from './lists.routes.js';
import { fieldNames, fieldOfProblem, formValues, holdsPosted, mergedValues, postedCells, postedValues, problemText, type FieldValue } from './row-form.js';

/**
 * A list row's pages: add one, edit one, delete one. Each change goes through documents.write.ts
 * with the rows' description, as rows/add, edit and delete do: the same rules of every column
 * type, the same limits and messages, and the list's stamp apps sync by (lastedit_list) moves.
 * An edit is made on the version the form showed: one made meanwhile (an app, another tab) is
 * not overwritten unseen (1014). A new row's form carries a ref of its own, so that sending it
 * twice adds one row (1009 names the row the first sending added).
 */

const ROWS = DOCUMENT_KINDS.find((k) => k.kind === 'row');

/** The API's refusal as the form shows it: a cell's beside its field, said with its column's title (problemText); its code stays. */
const problemOf = (list: List, err: ItemError): Problem => ({ code: err.errorCode, message: problemText(list.cols, err.errorDesc), field: fieldOfProblem(err.errorDesc) });

export function rowsRoutes(web: Web): void {
  const { deps } = web;
  if (!ROWS) throw new Error('the rows description is missing');
  const rows = ROWS;
  const codes = rows.codes;

  /** The list and row an address names, among the signed-in person's; null (and a 404 page sent) otherwise. */
  async function found(request: FastifyRequest, reply: FastifyReply, who: SignedIn): Promise<{ list: List; row: ListRow | null } | null> {
    const params = request.params as { id: string; row?: string };
    const list = await ownList(deps, who, params.id);
    if (!list) {
      noList(web, reply);
      return null;
    }
    if (params.row === undefined) return { list, row: null };
    const id = classifyDocumentId(params.row, 'hex');
    const row = id === 'none' || id === 'invalid' ? null : await deps.store.read.documents.get(who.account.pk, 'row', id);
    // A row is named within its list, as rows/delete names it.
    if (row && row.list === list.id) return { list, row };
    web.errorPage(reply, 404, 'No such row', 'There is no row of this list at this address.');
    return null;
  }

  function showForm(
    reply: FastifyReply,
    who: SignedIn,
    status: number,
    v: { list: List; row?: ListRow; ref?: string; version?: number; values: Record<string, FieldValue>; shown?: Record<string, FieldValue>; problem?: Problem; changed?: ListRow },
  ): FastifyReply {
    const { changed, ...rest } = v;
    const page = rowFormPage(web.site, web.nav(reply, who, '/lists'), { csrf: web.csrf(reply), ...rest, ...(changed && { changed: { who: who.account, row: changed } }) });
    return web.page(reply, status, page);
  }

  /** A form that sent one of its fields twice was not sent by this server's page. */
  const repeated = (p: Params, list: List): boolean => p.repeatedAmong(fieldNames(list.cols)) !== undefined;
  const badForm = (reply: FastifyReply): FastifyReply => web.errorPage(reply, 400, 'Bad request', 'The form was not understood. Go back and try again.');

  /** A row is made of its list's columns: a list without any has no row to add. */
  const noColumns = (reply: FastifyReply): FastifyReply => web.errorPage(reply, 409, 'No columns', 'This list has no columns to fill in: give it some with “Change the list” first.');

  web.getSignedIn('/lists/:id/rows/new', async function newRow(request, reply, who) {
    const at = await found(request, reply, who);
    if (!at) return reply;
    if (at.list.cols.length === 0) return noColumns(reply);
    return showForm(reply, who, 200, { list: at.list, ref: `web-${randomHex(12)}`, values: formValues(who.account, at.list.cols) });
  });

  web.postSignedIn('/lists/:id/rows', ['ref'], async function addRow(request, reply, p, who) {
    const at = await found(request, reply, who);
    if (!at) return reply;
    const { list } = at;
    if (repeated(p, list)) return badForm(reply);
    if (list.cols.length === 0) return noColumns(reply);
    const ref = p.get('ref') ?? '';
    const [result] = await addDocuments(deps, webAuth(who), rows, [{ list: list.id, ref, cells: postedCells(who.account, list.cols, p) }]);
    if (!result) throw new Error('rows/add answered nothing');
    const added = { notice: 'The row is added.' };
    if (!('errorCode' in result)) return web.redirect(request, reply, `/lists/${list.id}`, added);
    // Deleted meanwhile: as for any list that is not there.
    if (result.errorCode === 1007) return noList(web, reply);
    // Sent twice (a second click, a page sent again): the first sending added it.
    if (result.errorCode === codes.alreadyAdded) return web.redirect(request, reply, `/lists/${list.id}`, added);
    return showForm(reply, who, 422, { list, ref, values: postedValues(list.cols, p), problem: problemOf(list, result) });
  });

  web.getSignedIn('/lists/:id/rows/:row', async function editRow(request, reply, who) {
    const at = await found(request, reply, who);
    if (!at?.row) return reply;
    const values = formValues(who.account, at.list.cols, at.row.cells);
    return showForm(reply, who, 200, { list: at.list, row: at.row, version: at.row.version, values, shown: values });
  });

  web.postSignedIn('/lists/:id/rows/:row', ['version'], async function saveRow(request, reply, p, who) {
    const at = await found(request, reply, who);
    if (!at?.row) return reply;
    const { list, row } = at;
    if (repeated(p, list)) return badForm(reply);
    const version = p.get('version') ?? '';
    // Cells left as the form showed them are compared with the row as the form showed it: the
    // version says whether that is the row as it now is.
    const [result] = await editDocuments(deps, webAuth(who), rows, [{ id: row.id, version, cells: postedCells(who.account, list.cols, p, row.cells) }]);
    if (!result) throw new Error('rows/edit answered nothing');
    if (!('errorCode' in result)) {
      // The version moves with every edit that changes something (a stamp may stay in its second).
      const changed = (result.record as ListRow).version !== row.version;
      return web.redirect(request, reply, `/lists/${list.id}`, { notice: changed ? 'The row is saved.' : 'Nothing to save: the row was not changed.' });
    }
    // Deleted meanwhile (another tab, an app): as for any row that is not there.
    if (result.errorCode === codes.invalid) return web.errorPage(reply, 404, 'No such row', 'There is no row of this list at this address.');
    // The form shows the row as stored now: `row` was read for this post, and a refusal other
    // than a stale version means the version the form was made on is that row's.
    const shown = formValues(who.account, list.cols, row.cells);
    // Changed meanwhile: the row as it now is, and in the fields what the person changed over it,
    // which a second save puts in.
    if (result.errorCode === codes.stale) {
      // The row as it now is already what was sent (a second click on Save): saved.
      if (holdsPosted(who.account, list.cols, p, row.cells)) return web.redirect(request, reply, `/lists/${list.id}`, { notice: 'The row is saved.' });
      const problem = { code: result.errorCode, message: 'The row was changed (by an app, or on another page) after this form was opened' };
      return showForm(reply, who, 409, { list, row, version: row.version, values: mergedValues(who.account, list.cols, p, row.cells), shown, changed: row, problem });
    }
    return showForm(reply, who, 422, { list, row, version: row.version, values: postedValues(list.cols, p), shown, problem: problemOf(list, result) });
  });

  web.getSignedIn('/lists/:id/rows/:row/delete', async function confirmDelete(request, reply, who) {
    const at = await found(request, reply, who);
    if (!at?.row) return reply;
    return web.page(reply, 200, confirmRowDeletePage(web.site, web.nav(reply, who, '/lists'), { csrf: web.csrf(reply), list: at.list, row: at.row, who: who.account }));
  });

  web.postSignedIn('/lists/:id/rows/:row/delete', [], async function deleteRow(request, reply, _p, who) {
    const at = await found(request, reply, who);
    if (!at?.row) return reply;
    // An item error here can only be "deleted meanwhile": the outcome asked for is there.
    await deleteDocuments(deps, webAuth(who), rows, [{ list: at.list.id, row: at.row.id }]);
    return web.redirect(request, reply, `/lists/${at.list.id}`, { notice: 'Deleted the row.' });
  });
}
