import type { Row } from '../../features/organizers/organizer-fields.js';
import type { Note } from '../../storage/store.js';
import { form } from '../forms.js';
import { h, layout, messages, type Nav, type Site } from '../html.js';
import { showMore } from '../paging.js';
import { choiceOf, problemSummary, textBox, textInput, tickBox, type Problem } from '../organize/inputs.js';

/** The notes pages: the list by folder, one note, its form, the delete question. */

/** The API's limit of a note's text (document-kinds.ts, notes). */
export const NOTE_TEXT_BYTES = 62_000;
export const NOTE_TITLE_CHARS = 255;

export interface NoteValues {
  readonly title: string;
  readonly text: string;
  readonly folder: string;
  readonly private: string;
}

const folderName = (folders: readonly Row[], id: number): string => String(folders.find((f) => f['id'] === id)?.['name'] ?? 'No folder');

/** A day as the account reads dates (organize/dates.ts). */
export type DayOf = (seconds: number) => string;

function noteItem(site: Site, n: Note, day: DayOf): string {
  return `<li><span><a href="${h(`${site.base}/notes/${n.id}`)}">${h(n.title)}</a>${n.private === 1 ? ' <span class="badge">Private</span>' : ''}</span><span class="muted">Changed ${h(day(n.modified))}</span></li>`;
}

export function notesListPage(
  site: Site,
  nav: Nav,
  v: {
    /** The notes to list: all of the account's, or those a search found. */
    notes: readonly Note[];
    folders: readonly Row[];
    /** The search, '' for none. */
    q: string;
    /** How many of them to show, and the address that shows more (none once the most a page shows is shown). */
    show: number;
    more: string | undefined;
    /** The account's notes, searched or not. */
    total: number;
    day: DayOf;
    notice?: string | undefined;
    error?: string | undefined;
  },
): string {
  // Folders in their order (archived ones too, marked), then the notes in no folder; the first
  // `show` notes in that order.
  let left = v.show;
  // A note whose folder is not among those read (deleted in between) is listed with no folder.
  const known = new Set(v.folders.map((f) => f['id'] as number));
  const folderOf = (n: Note): number => (known.has(n.folder) ? n.folder : 0);
  const groups = [...v.folders.map((f) => ({ id: f['id'] as number, name: String(f['name']), archived: f['archived'] === 1 })), { id: 0, name: 'No folder', archived: false }]
    .map((g) => {
      const all = v.notes.filter((n) => folderOf(n) === g.id);
      const shown = all.slice(0, Math.max(0, left));
      left -= shown.length;
      return { ...g, count: all.length, notes: shown };
    })
    .filter((g) => g.notes.length > 0);
  const shown = Math.min(v.show, v.notes.length);
  const hidden = v.notes.length - shown;
  const sections = groups
    .map(
      (g, i) => `<section class="card" aria-labelledby="g-${i}"><h2 id="g-${i}">${h(g.name)}${g.archived ? ' <span class="badge">Archived</span>' : ''} <span class="muted">(${g.count})</span></h2>
<ul class="compact">${g.notes.map((n) => noteItem(site, n, v.day)).join('')}</ul></section>`,
    )
    .join('');
  const count = v.q === '' ? `${v.notes.length} note${v.notes.length === 1 ? '' : 's'}` : `${v.notes.length} of ${v.total} note${v.total === 1 ? '' : 's'} found`;
  const search =
    v.total === 0
      ? ''
      : `<form method="get" action="${h(site.base)}/notes" role="search" class="bar-row" aria-label="Search notes">
<div class="grow"><label for="q">Search titles and texts</label><input id="q" name="q" type="search" value="${h(v.q)}"></div>
<div><button type="submit">Search</button></div>${v.q === '' ? '' : `<div><a class="button secondary" href="${h(site.base)}/notes">Show every note</a></div>`}</form>
<p class="muted" id="note-count">${h(count)}${hidden > 0 ? `; ${shown} shown, ${hidden} more below` : ''}</p>`;
  const empty = v.total === 0 ? '<div class="card"><p>You have no notes yet.</p></div>' : `<div class="card"><p>No note holds “${h(v.q)}”.</p></div>`;
  return layout(
    site,
    'Notes',
    `<h1>Notes</h1>${messages(v)}
<p><a class="button" href="${h(site.base)}/notes/new">Write a note</a></p>
${search}
${sections || empty}
${hidden > 0 ? showMore(site.base, v.more, hidden) : ''}`,
    { nav },
  );
}

export function notePage(site: Site, nav: Nav, v: { note: Note; folders: readonly Row[]; linked: boolean; day: DayOf; notice?: string | undefined }): string {
  const n = v.note;
  const base = `${site.base}/notes/${n.id}`;
  return layout(
    site,
    n.title,
    `<p class="crumbs"><a href="${h(site.base)}/notes">Notes</a></p><h1>${h(n.title)}${n.private === 1 ? ' <span class="badge">Private</span>' : ''}</h1>${messages({ notice: v.notice })}
<div class="card">${n.text === '' ? '<p class="muted">This note has no text.</p>' : `<div class="notetext">${h(n.text)}</div>`}</div>
<p class="muted">${h([n.folder === 0 ? 'In no folder' : `In ${folderName(v.folders, n.folder)}`, `written ${v.day(n.added)}`, `changed ${v.day(n.modified)}`].join(' · '))}${
      v.linked ? ' · linked to tasks' : ''
    }</p>
<p><a class="button" href="${h(base)}/edit">Edit the note</a> <a class="button secondary" href="${h(base)}/delete">Delete the note…</a></p>`,
    { nav },
  );
}

export function noteFormPage(
  site: Site,
  nav: Nav,
  v: { csrf: string; id?: number | undefined; values: NoteValues; folders: readonly Row[]; problem?: Problem | undefined },
): string {
  const editing = v.id !== undefined;
  const action = editing ? `${site.base}/notes/${v.id}` : `${site.base}/notes`;
  const folders: Array<readonly [string, string]> = [['0', 'No folder'], ...v.folders.map((f) => [String(f['id']), `${String(f['name'])}${f['archived'] === 1 ? ' (archived)' : ''}`] as const)];
  const body = `${textInput({ name: 'title', label: 'Title', value: v.values.title, required: true, problem: v.problem, autofocus: true, hint: `At most ${NOTE_TITLE_CHARS} characters.` })}
${choiceOf({ name: 'folder', label: 'Folder', value: v.values.folder, options: folders, problem: v.problem })}
${tickBox({ name: 'private', label: 'Private', checked: v.values.private === '1', problem: v.problem, hint: 'A private note is never shared with people you share tasks with.' })}
${textBox({ name: 'text', label: 'Text', value: v.values.text, rows: 14, problem: v.problem, hint: `Plain text, at most ${NOTE_TEXT_BYTES.toLocaleString('en')} bytes.` })}
<button type="submit">${editing ? 'Save the note' : 'Add the note'}</button> <a href="${h(editing ? `${site.base}/notes/${v.id}` : `${site.base}/notes`)}">Cancel</a>`;
  const title = editing ? 'Edit the note' : 'Write a note';
  return layout(
    site,
    title,
    `<p class="crumbs"><a href="${h(site.base)}/notes">Notes</a></p><div class="card"><h1>${title}</h1>${problemSummary(v.problem, editing ? 'Not saved' : 'Not added')}${form(action, v.csrf, body, { label: title })}</div>`,
    { nav },
  );
}

export function confirmNoteDeletePage(site: Site, nav: Nav, v: { csrf: string; note: Note; linked: boolean }): string {
  const base = `${site.base}/notes/${v.note.id}`;
  return layout(
    site,
    `Delete ${v.note.title}`,
    `<div class="card"><h1 tabindex="-1" autofocus>Delete the note “${h(v.note.title)}”?</h1>
<ul><li>${
      v.linked
        ? 'Tasks link to this note: they are kept, without the link. Apps see those tasks as edited at their next sync.'
        : 'No task links to this note.'
    }</li><li>Apps remove it at their next sync. The deletion cannot be undone.</li></ul>
${form(`${base}/delete`, v.csrf, `<button type="submit" class="danger">Delete the note</button> <a href="${h(base)}">Cancel</a>`)}</div>`,
    { nav, narrow: true },
  );
}
