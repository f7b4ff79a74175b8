import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import type { ItemError } from '../../errors.js';
import { DOCUMENT_KINDS } from '../../features/documents/document-kinds.js';
import { addDocuments, deleteDocuments, editDocuments } from '../../features/documents/documents.write.js';
import type { Row } from '../../features/organizers/organizer-fields.js';
import { KINDS } from '../../features/organizers/organizer-kinds.js';
import { listOrganizers } from '../../features/organizers/organizers.service.js';
import { classifyId, type Params } from '../../http/params.js';
import type { Note } from '../../storage/store.js';
import { accountDay } from '../organize/dates.js';
import type { Problem } from '../organize/inputs.js';
import { webAuth } from '../organize/organize.routes.js';
import { confirmNoteDeletePage, noteFormPage, notePage, notesListPage, type NoteValues } from '../views/notes.js';
import { showMoreAddress, shownRows } from '../paging.js';
import { queryStrings, type SignedIn, type Web } from '../web-kit.js';

/**
 * The notes pages: the account's notes by folder, one note, add, edit, delete. Every change goes
 * through documents.write.ts with the notes' description, as notes/add, edit and delete do: the
 * same limits and messages, and the stamps apps sync by (lastedit_note, lastdelete_note) move.
 */

const NOTES = DOCUMENT_KINDS.find((k) => k.kind === 'note');
const FOLDERS = KINDS.find((k) => k.kind === 'folder');
const FIELDS = ['title', 'text', 'folder', 'private'] as const;
/** Notes read per query when the list page gathers them all. */
const PAGE = 1000;

/** Every note of the account, in id order (the list page groups them by folder). */
async function allNotes(deps: Deps, userPk: number): Promise<Note[]> {
  const out: Note[] = [];
  for (;;) {
    const page = await deps.store.read.documents.page(userPk, 'note', { start: out.length, num: PAGE });
    out.push(...page.items);
    if (page.items.length < PAGE || out.length >= page.total) return out;
  }
}

const dayOf = (who: SignedIn) => (seconds: number): string => accountDay(who.account, seconds);

/** What the form sent, as the service reads a note item (an unticked box sends nothing: 0). */
function typed(p: Params): NoteValues {
  return { title: p.get('title') ?? '', text: p.get('text') ?? '', folder: p.get('folder') ?? '0', private: p.get('private') === '1' ? '1' : '0' };
}

/** The field the API's refusal is about, from its code and the field its description names. */
function problemOf(err: ItemError): Problem {
  const codes = NOTES?.codes;
  const field =
    err.errorCode === codes?.required || err.errorDesc.startsWith('Malformed request: title')
      ? 'title'
      : err.errorCode === 707 || err.errorDesc.startsWith('Malformed request: folder')
        ? 'folder'
        : FIELDS.find((f) => err.errorDesc.startsWith(`Malformed request: ${f} `));
  return { code: err.errorCode, message: err.errorDesc, field };
}

export function notesRoutes(web: Web): void {
  const { deps } = web;
  if (!NOTES || !FOLDERS) throw new Error('the notes and folders descriptions are missing');
  const notes = NOTES;
  const folderSpec = FOLDERS;

  const foldersOf = (who: SignedIn): Promise<Row[]> => listOrganizers(deps, webAuth(who), { spec: folderSpec });

  /** The note the address names, among the signed-in person's; null (and a 404 page sent) otherwise. */
  async function noteOf(request: FastifyRequest, reply: FastifyReply, who: SignedIn): Promise<Note | null> {
    const id = classifyId((request.params as { id: string }).id);
    const note = typeof id === 'number' ? await deps.store.read.documents.get(who.account.pk, 'note', id) : null;
    if (note) return note;
    // Another person's note answers as none does.
    web.errorPage(reply, 404, 'No such note', 'There is no note of yours at this address.');
    return null;
  }

  async function showForm(reply: FastifyReply, who: SignedIn, status: number, v: { id?: number; values: NoteValues; problem?: Problem }): Promise<FastifyReply> {
    const page = noteFormPage(web.site, web.nav(reply, who, '/notes'), { csrf: web.csrf(reply), folders: await foldersOf(who), ...v });
    return web.page(reply, status, page);
  }

  web.getSignedIn('/notes', async function showNotes(request, reply, who) {
    const flash = web.flash(request, reply);
    const query = queryStrings(request);
    // A search looks through titles and texts, ignoring case as the task list's does.
    const q = (query['q'] ?? '').trim().slice(0, 200);
    const needle = q.toLowerCase();
    const [all, folders] = await Promise.all([allNotes(deps, who.account.pk), foldersOf(who)]);
    const notes = needle === '' ? all : all.filter((n) => n.title.toLowerCase().includes(needle) || n.text.toLowerCase().includes(needle));
    // The first `show` notes, in the page's order: an account may hold 20,000, whose list would
    // be megabytes of HTML to send and paint. "Show more" adds a page.
    const show = shownRows(query['show']);
    const here = q === '' ? '/notes' : `/notes?${new URLSearchParams({ q }).toString()}`;
    const page = notesListPage(web.site, web.nav(reply, who, '/notes'), { notes, folders, q, show, more: showMoreAddress(here, show), total: all.length, day: dayOf(who), notice: flash.notice, error: flash.error });
    return web.page(reply, 200, page);
  });

  web.getSignedIn('/notes/new', async function newNote(_request, reply, who) {
    return showForm(reply, who, 200, { values: { title: '', text: '', folder: '0', private: '0' } });
  });

  web.postSignedIn('/notes', FIELDS, async function addNote(request, reply, p, who) {
    const values = typed(p);
    const [result] = await addDocuments(deps, webAuth(who), notes, [values]);
    if (!result) throw new Error('notes/add answered nothing');
    // A refusal shows the form again at once with what was typed: a note can be far larger than a cookie.
    if ('errorCode' in result) return showForm(reply, who, 422, { values, problem: problemOf(result) });
    return web.redirect(request, reply, `/notes/${String(result.record.id)}`, { notice: 'The note is added.' });
  });

  web.getSignedIn('/notes/:id', async function showNote(request, reply, who) {
    const note = await noteOf(request, reply, who);
    if (!note) return reply;
    const flash = web.flash(request, reply);
    const [folders, linked] = await Promise.all([foldersOf(who), deps.store.read.attachments.isLinked(who.account.pk, 'note', note.id)]);
    return web.page(reply, 200, notePage(web.site, web.nav(reply, who, '/notes'), { note, folders, linked, day: dayOf(who), notice: flash.notice }));
  });

  web.getSignedIn('/notes/:id/edit', async function editNote(request, reply, who) {
    const note = await noteOf(request, reply, who);
    if (!note) return reply;
    return showForm(reply, who, 200, { id: note.id, values: { title: note.title, text: note.text, folder: String(note.folder), private: String(note.private) } });
  });

  web.postSignedIn('/notes/:id', FIELDS, async function saveNote(request, reply, p, who) {
    const note = await noteOf(request, reply, who);
    if (!note) return reply;
    const values = typed(p);
    const [result] = await editDocuments(deps, webAuth(who), notes, [{ id: note.id, ...values }]);
    if (!result) throw new Error('notes/edit answered nothing');
    if ('errorCode' in result) {
      // Deleted meanwhile (another tab, an app): as for any note that is not there.
      if (result.errorCode === notes.codes.invalid) return web.errorPage(reply, 404, 'No such note', 'There is no note of yours at this address.');
      return showForm(reply, who, 422, { id: note.id, values, problem: problemOf(result) });
    }
    const changed = result.record.modified !== note.modified;
    return web.redirect(request, reply, `/notes/${note.id}`, { notice: changed ? 'The note is saved.' : 'Nothing to save: the note was not changed.' });
  });

  web.getSignedIn('/notes/:id/delete', async function confirmDelete(request, reply, who) {
    const note = await noteOf(request, reply, who);
    if (!note) return reply;
    const linked = await deps.store.read.attachments.isLinked(who.account.pk, 'note', note.id);
    return web.page(reply, 200, confirmNoteDeletePage(web.site, web.nav(reply, who, '/notes'), { csrf: web.csrf(reply), note, linked }));
  });

  web.postSignedIn('/notes/:id/delete', [], async function deleteNote(request, reply, _p, who) {
    const note = await noteOf(request, reply, who);
    if (!note) return reply;
    // An item error here can only be "deleted meanwhile": the outcome asked for is there.
    await deleteDocuments(deps, webAuth(who), notes, [note.id]);
    return web.redirect(request, reply, '/notes', { notice: `Deleted the note “${note.title}”.` });
  });
}
