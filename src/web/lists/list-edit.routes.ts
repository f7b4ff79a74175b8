import type { FastifyReply } from 'fastify';
import type { ItemError } from '../../errors.js';
import { DOCUMENT_KINDS } from '../../features/documents/document-kinds.js';
import { addDocuments, deleteDocuments, editDocuments } from '../../features/documents/documents.write.js';
import { readColumns } from '../../features/documents/list-columns.js';
import { randomHex } from '../../lib/crypto.js';
import type { Params } from '../../http/params.js';
import type { List } from '../../storage/store.js';
import { storedLines } from '../forms.js';
import type { Problem } from '../organize/inputs.js';
import { webAuth } from '../organize/organize.routes.js';
import { confirmListDeletePage, listFormPage } from '../views/list-form.js';
import type { SignedIn, Web } from '../web-kit.js';
import { BLANK_SLOTS, columnsOf, fieldNames, postedSlots, slotOfProblem, slotsOf, type ListValues, type Slot } from './list-form.js';
import { noList, ownList } from './lists.routes.js';

/**
 * A list's own pages: make one, change its title, keywords, note and columns, delete it. Each
 * change goes through documents.write.ts with the lists' description, as lists/add, edit and
 * delete do: the same rules of columns (what a new type does to the cells, removed columns'
 * cells going), limits and messages; the stamp apps sync by (lastedit_list) moves.
 */

const LISTS = DOCUMENT_KINDS.find((k) => k.kind === 'list');
const HEADER = ['title', 'keywords', 'note'] as const;

const typedValues = (p: Params): ListValues => ({ title: p.get('title') ?? '', keywords: p.get('keywords') ?? '', note: storedLines(p.get('note') ?? '') });

export function listEditRoutes(web: Web): void {
  const { deps } = web;
  if (!LISTS) throw new Error('the lists description is missing');
  const lists = LISTS;
  const codes = lists.codes;
  const maxColumns = deps.config.recordLimits.listColumns;
  /**
   * The most slots a form of this server shows for `list` (a new one: none), a refused form shown
   * again included: a post claiming more was not made here. A list may hold more columns than
   * the limit if it was lowered since; its form must still be sent back.
   */
  const mostSlots = (list: List | null): number => Math.max(maxColumns, list?.cols.length ?? 0) + BLANK_SLOTS + 1;

  /** The field of the API's refusal: a header field by its words, a column's slot by its own reader. */
  function problemOf(err: ItemError, slots: readonly Slot[], list: List | null): Problem {
    const header = err.errorCode === codes.required ? 'title' : HEADER.find((f) => err.errorDesc.startsWith(`Malformed request: ${f} `));
    const column = header === undefined && (err.errorCode === 913 || err.errorCode === 907) ? slotOfProblem(slots, list?.cols ?? [], list?.nextCol ?? 1, maxColumns) : undefined;
    return { code: err.errorCode, message: err.errorDesc, field: header ?? column };
  }

  /** The slots a post sent, or null when its count is not one this server's form has. */
  function slotsSent(p: Params, list: List | null): Slot[] | null {
    // Number('') is 0: a post without the field would remove every column.
    const sent = p.get('slots')?.trim() ?? '';
    const count = sent === '' ? NaN : Number(sent);
    if (!Number.isSafeInteger(count) || count < 0 || count > mostSlots(list)) return null;
    if (p.repeatedAmong(fieldNames(count)) !== undefined) return null;
    return postedSlots(p, count);
  }
  const badForm = (reply: FastifyReply): FastifyReply => web.errorPage(reply, 400, 'Bad request', 'The form was not understood. Go back and try again.');

  function showForm(reply: FastifyReply, who: SignedIn, status: number, v: { list?: List; ref?: string; version?: number; values: ListValues; slots: readonly Slot[]; problem?: Problem }): FastifyReply {
    return web.page(reply, status, listFormPage(web.site, web.nav(reply, who, '/lists'), { csrf: web.csrf(reply), ...v }));
  }

  /** The slots of a refused form shown again: what was sent, blank ones topped up (as many as a post may send back). */
  const again = (slots: readonly Slot[], list: List | null): Slot[] => {
    const blanks = slots.filter((s) => s.id === undefined && s.title.trim() === '').length;
    return [...slots, ...slotsOf([], Math.max(0, Math.min(BLANK_SLOTS - blanks, mostSlots(list) - slots.length)))];
  };
  /** What a page says once a list is made: where to go next. */
  const madeNotice = (cols: number): string => (cols > 0 ? 'The list is made. Add its rows here.' : 'The list is made. Give it columns with “Change the list” to add rows.');

  /** Whether `list` holds what a form sent (its header, and its columns as the API's reader takes them). */
  function sameList(list: List, values: ListValues, cols: ReadonlyArray<Record<string, unknown>>): boolean {
    if (values.title.trim() !== list.title || values.keywords.trim() !== list.keywords || values.note !== list.note) return false;
    const read = readColumns(cols, list.cols, list.nextCol, Math.max(maxColumns, cols.length));
    if ('problem' in read || read.value.cols.length !== list.cols.length) return false;
    // A column sent without an id is a new one, which takes the next id: on a second click that is
    // past the id the first click's save gave it, so it is compared without its id.
    return read.value.cols.every((c, i) => {
      const stored = list.cols[i];
      return stored !== undefined && JSON.stringify(cols[i]?.['id'] === undefined ? { ...c, id: stored.id } : c) === JSON.stringify(stored);
    });
  }

  web.getSignedIn('/lists/new', async function newList(_request, reply, who) {
    return showForm(reply, who, 200, { ref: `web-${randomHex(12)}`, values: { title: '', keywords: '', note: '' }, slots: slotsOf([], BLANK_SLOTS + 1) });
  });

  web.postSignedIn('/lists', ['ref'], async function makeList(request, reply, p, who) {
    const slots = slotsSent(p, null);
    if (!slots || slots.some((s) => s.id !== undefined)) return badForm(reply);
    const values = typedValues(p);
    const ref = p.get('ref') ?? '';
    const cols = columnsOf(slots, []);
    const [result] = await addDocuments(deps, webAuth(who), lists, [{ ...values, ref, cols }]);
    if (!result) throw new Error('lists/add answered nothing');
    if (!('errorCode' in result)) return web.redirect(request, reply, `/lists/${String(result.record.id)}`, { notice: madeNotice(cols.length) });
    // Sent twice: the first sending made it ("already added: it is <id>").
    const made = codes.alreadyAdded === result.errorCode ? /it is ([0-9a-f]{24})$/.exec(result.errorDesc)?.[1] : undefined;
    if (made) return web.redirect(request, reply, `/lists/${made}`, { notice: madeNotice(cols.length) });
    return showForm(reply, who, 422, { ref, values, slots: again(slots, null), problem: problemOf(result, slots, null) });
  });

  web.getSignedIn('/lists/:id/edit', async function editList(request, reply, who) {
    const list = await ownList(deps, who, (request.params as { id: string }).id);
    if (!list) return noList(web, reply);
    return showForm(reply, who, 200, { list, version: list.version, values: { title: list.title, keywords: list.keywords, note: list.note }, slots: slotsOf(list.cols, BLANK_SLOTS) });
  });

  web.postSignedIn('/lists/:id/edit', ['version'], async function saveList(request, reply, p, who) {
    const list = await ownList(deps, who, (request.params as { id: string }).id);
    if (!list) return noList(web, reply);
    const slots = slotsSent(p, list);
    if (!slots) return badForm(reply);
    // The form shows a slot (with its Remove box) for each column of the version it was made on:
    // fewer slots on that version would drop the last columns unasked. An older version is
    // answered as stale below.
    if (Number(p.get('version')) === list.version && slots.length < list.cols.length) return badForm(reply);
    const typed = typedValues(p);
    // A note left as shown is the stored one, whatever line breaks an app stored it with.
    const values = { ...typed, note: typed.note === storedLines(list.note) ? list.note : typed.note };
    const version = p.get('version') ?? '';
    const cols = columnsOf(slots, list.cols);
    const [result] = await editDocuments(deps, webAuth(who), lists, [{ id: list.id, version, ...values, cols }]);
    if (!result) throw new Error('lists/edit answered nothing');
    if (!('errorCode' in result)) {
      const changed = (result.record as List).version !== list.version;
      return web.redirect(request, reply, `/lists/${list.id}`, { notice: changed ? 'The list is saved.' : 'Nothing to save: the list was not changed.' });
    }
    if (result.errorCode === codes.invalid) return noList(web, reply);
    if (result.errorCode === codes.stale) {
      // The list as it now is already what was sent (a second click on Save): saved.
      if (sameList(list, values, cols)) return web.redirect(request, reply, `/lists/${list.id}`, { notice: 'The list is saved.' });
      // Changed meanwhile (an app, another tab): shown as it now is. Columns are too entangled
      // (ids, cells) to lay typed changes over another's; the person makes theirs again.
      const problem = { code: result.errorCode, message: 'The list was changed (by an app, or on another page) after this form was opened. Here it is as it now is: make your changes again' };
      return showForm(reply, who, 409, { list, version: list.version, values: { title: list.title, keywords: list.keywords, note: list.note }, slots: slotsOf(list.cols, BLANK_SLOTS), problem });
    }
    return showForm(reply, who, 422, { list, version: list.version, values, slots: again(slots, list), problem: problemOf(result, slots, list) });
  });

  web.getSignedIn('/lists/:id/delete', async function confirmDelete(request, reply, who) {
    const list = await ownList(deps, who, (request.params as { id: string }).id);
    if (!list) return noList(web, reply);
    const linked = await deps.store.read.attachments.isLinked(who.account.pk, 'list', list.id);
    return web.page(reply, 200, confirmListDeletePage(web.site, web.nav(reply, who, '/lists'), { csrf: web.csrf(reply), list, linked }));
  });

  web.postSignedIn('/lists/:id/delete', [], async function deleteList(request, reply, _p, who) {
    const list = await ownList(deps, who, (request.params as { id: string }).id);
    if (!list) return noList(web, reply);
    // An item error here can only be "deleted meanwhile": the outcome asked for is there.
    await deleteDocuments(deps, webAuth(who), lists, [list.id]);
    return web.redirect(request, reply, '/lists', { notice: `Deleted the list “${list.title}”.` });
  });
}
