import type { FastifyReply } from 'fastify';
import type { ItemError } from '../../errors.js';
import { DOCUMENT_KINDS } from '../../features/documents/document-kinds.js';
import { addDocuments, deleteDocuments, editDocuments } from '../../features/documents/documents.write.js';
import { randomHex } from '../../lib/crypto.js';
import type { Params } from '../../http/params.js';
import type { Outline } from '../../storage/store.js';
import type { Problem } from '../organize/inputs.js';
import { webAuth } from '../organize/organize.routes.js';
import { storedLines } from '../forms.js';
import { confirmOutlineDeletePage, HEADER_FIELDS, outlineFormPage, shownHeader, shownName, type HeaderField, type OutlineValues } from '../views/outline-form.js';
import type { SignedIn, Web } from '../web-kit.js';
import { nodesOfText, outlineText, sameItems, sentNodes, writable } from './outline-text.js';
import { noOutline, ownOutline } from './outlines.routes.js';

/**
 * An outline's own pages: make one, change its title, keywords, note, hidden flag and items,
 * delete it. The items are one text (outline-text.ts) made into the `nodes` the service reads, as
 * outlines/add, edit and delete do: the same limits and messages, items left as they were keep
 * their ids, and the stamp apps sync by (lastedit_outline) moves.
 */

const OUTLINES = DOCUMENT_KINDS.find((k) => k.kind === 'outline');
const FIELDS = ['title', 'keywords', 'note', 'hidden', 'items'] as const;
/** The hidden fields of an edit form (one per header field), none of which may come twice either. */
const SHOWN_FIELDS = HEADER_FIELDS.map(shownName);
/** The codes of the items' refusals (node text, shape, ids, how many): shown beside the items. */
const ITEM_CODES = new Set([807, 808, 811, 813]);

/** What the form sent; `items` only when the form had the field. */
function typed(p: Params): OutlineValues {
  const items = p.get('items');
  return { title: p.get('title') ?? '', keywords: p.get('keywords') ?? '', note: storedLines(p.get('note') ?? ''), hidden: p.get('hidden') === '1', items: items === undefined ? undefined : storedLines(items) };
}

/**
 * After a stale save: what was typed in each header field the person changed (it differs from
 * what the form showed, kept in its hidden field), the outline as it now is in the others, so
 * that saving again replaces only what the person changed. The items are one text, kept as typed.
 */
function mergedValues(typedValues: OutlineValues, p: Params, now: OutlineValues): OutlineValues {
  const leftAsShown = (f: HeaderField): boolean => {
    const was = p.get(shownName(f));
    return was !== undefined && shownHeader(typedValues, f) === storedLines(was);
  };
  const pick = <F extends HeaderField>(f: F): OutlineValues[F] => (leftAsShown(f) ? now : typedValues)[f];
  return { title: pick('title'), keywords: pick('keywords'), note: pick('note'), hidden: pick('hidden'), items: typedValues.items };
}

/** What the form shows for a stored outline. */
function storedValues(o: Outline): OutlineValues {
  return { title: o.title, keywords: o.keywords, note: o.note, hidden: o.hidden === 1, items: writable(o.nodes.children) ? outlineText(o.nodes.children) : undefined };
}

export function outlineEditRoutes(web: Web): void {
  const { deps } = web;
  if (!OUTLINES) throw new Error('the outlines description is missing');
  const outlines = OUTLINES;
  const codes = outlines.codes;

  function problemOf(err: ItemError): Problem {
    const field =
      err.errorCode === codes.required ? 'title' : ITEM_CODES.has(err.errorCode) && !err.errorDesc.startsWith('Malformed request: ') ? 'items' : FIELDS.find((f) => err.errorDesc.startsWith(`Malformed request: ${f} `));
    return { code: err.errorCode, message: err.errorDesc, field: field ?? (err.errorDesc.startsWith('Malformed request: node') ? 'items' : undefined) };
  }

  /**
   * The API's item of a form, or the problem of its items (beside them, naming the line): the
   * items as nodes keeping the ids of those unchanged, none when the text is the stored one (so
   * that an outline over a lowered limit can still be renamed), a note left as shown as stored.
   */
  function itemOf(v: OutlineValues, stored: Outline | null): Record<string, unknown> | Problem {
    const note = stored && v.note === storedLines(stored.note) ? stored.note : v.note;
    const item = { title: v.title, keywords: v.keywords, note, hidden: v.hidden ? 1 : 0 };
    if (v.items === undefined || (stored && writable(stored.nodes.children) && v.items === outlineText(stored.nodes.children))) return item;
    const nodes = nodesOfText(v.items, stored?.nodes.children ?? [], deps.config.recordLimits.outlineNodes);
    return Array.isArray(nodes) ? { ...item, nodes } : { ...nodes, field: 'items' };
  }
  const isProblem = (x: Record<string, unknown> | Problem): x is Problem => typeof x['code'] === 'number' && typeof x['message'] === 'string';

  /** Whether `o` holds what a form sent (a second click on Save finds it so). */
  function holds(o: Outline, v: OutlineValues): boolean {
    if (v.title.trim() !== o.title || v.keywords.trim() !== o.keywords || v.note !== storedLines(o.note) || v.hidden !== (o.hidden === 1)) return false;
    if (v.items === undefined) return true;
    const typedNodes = nodesOfText(v.items);
    return Array.isArray(typedNodes) && sameItems(typedNodes, sentNodes(o.nodes.children));
  }

  function showForm(reply: FastifyReply, who: SignedIn, status: number, v: { outline?: Outline; ref?: string; version?: number; values: OutlineValues; shown?: OutlineValues; problem?: Problem; now?: Outline }): FastifyReply {
    return web.page(reply, status, outlineFormPage(web.site, web.nav(reply, who, '/outlines'), { csrf: web.csrf(reply), ...v }));
  }

  web.getSignedIn('/outlines/new', async function newOutline(_request, reply, who) {
    return showForm(reply, who, 200, { ref: `web-${randomHex(12)}`, values: { title: '', keywords: '', note: '', hidden: false, items: '' } });
  });

  web.postSignedIn('/outlines', ['ref', ...FIELDS], async function makeOutline(request, reply, p, who) {
    const values = typed(p);
    const ref = p.get('ref') ?? '';
    const item = itemOf(values, null);
    if (isProblem(item)) return showForm(reply, who, 422, { ref, values, problem: item });
    const [result] = await addDocuments(deps, webAuth(who), outlines, [{ ...item, ref }]);
    if (!result) throw new Error('outlines/add answered nothing');
    const made = !('errorCode' in result) ? String(result.record.id) : result.errorCode === codes.alreadyAdded ? /it is ([0-9a-f]{24})$/.exec(result.errorDesc)?.[1] : undefined;
    // Sent twice (a second click): the first sending made it.
    if (made) return web.redirect(request, reply, `/outlines/${made}`, { notice: 'The outline is made.' });
    return showForm(reply, who, 422, { ref, values, problem: problemOf(result as ItemError) });
  });

  web.getSignedIn('/outlines/:id/edit', async function editOutline(request, reply, who) {
    const outline = await ownOutline(deps, who, (request.params as { id: string }).id);
    if (!outline) return noOutline(web, reply);
    return showForm(reply, who, 200, { outline, version: outline.version, values: storedValues(outline) });
  });

  web.postSignedIn('/outlines/:id/edit', ['version', ...FIELDS, ...SHOWN_FIELDS], async function saveOutline(request, reply, p, who) {
    const outline = await ownOutline(deps, who, (request.params as { id: string }).id);
    if (!outline) return noOutline(web, reply);
    const values = typed(p);
    const item = itemOf(values, outline);
    if (isProblem(item)) return showForm(reply, who, 422, { outline, version: outline.version, values, shown: storedValues(outline), problem: item });
    const [result] = await editDocuments(deps, webAuth(who), outlines, [{ id: outline.id, version: p.get('version') ?? '', ...item }]);
    if (!result) throw new Error('outlines/edit answered nothing');
    if (!('errorCode' in result)) {
      const changed = (result.record as Outline).version !== outline.version;
      return web.redirect(request, reply, `/outlines/${outline.id}`, { notice: changed ? 'The outline is saved.' : 'Nothing to save: the outline was not changed.' });
    }
    if (result.errorCode === codes.invalid) return noOutline(web, reply);
    if (result.errorCode === codes.stale) {
      // The outline already holds what was sent (a second click on Save): saved.
      if (holds(outline, values)) return web.redirect(request, reply, `/outlines/${outline.id}`, { notice: 'The outline is saved.' });
      // Changed meanwhile: shown as it now is above what was typed, which a save (on the version
      // now) puts in its place. The items are one text: no change of another's can be kept in it.
      const lines = writable(outline.nodes.children);
      const problem = {
        code: result.errorCode,
        message: `The outline was changed (by an app, or on another page) after this form was opened${lines ? '' : '; an item of it now holds a line break, so its items are left to the apps and the items you typed were not kept'}`,
      };
      const now = storedValues(outline);
      const kept = { ...mergedValues(values, p, now), items: lines ? values.items : undefined };
      return showForm(reply, who, 409, { outline, version: outline.version, values: kept, shown: now, now: outline, problem });
    }
    // The form comes back on the version read for this post: what it shows of the header is that version's.
    return showForm(reply, who, 422, { outline, version: outline.version, values, shown: storedValues(outline), problem: problemOf(result) });
  });

  web.getSignedIn('/outlines/:id/delete', async function confirmDelete(request, reply, who) {
    const outline = await ownOutline(deps, who, (request.params as { id: string }).id);
    if (!outline) return noOutline(web, reply);
    const linked = await deps.store.read.attachments.isLinked(who.account.pk, 'outline', outline.id);
    return web.page(reply, 200, confirmOutlineDeletePage(web.site, web.nav(reply, who, '/outlines'), { csrf: web.csrf(reply), outline, linked }));
  });

  web.postSignedIn('/outlines/:id/delete', [], async function deleteOutline(request, reply, _p, who) {
    const outline = await ownOutline(deps, who, (request.params as { id: string }).id);
    if (!outline) return noOutline(web, reply);
    // An item error here can only be "deleted meanwhile": the outcome asked for is there.
    await deleteDocuments(deps, webAuth(who), outlines, [outline.id]);
    return web.redirect(request, reply, '/outlines', { notice: `Deleted the outline “${outline.title}”.` });
  });
}
