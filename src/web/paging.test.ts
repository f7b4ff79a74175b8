import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Note } from '../storage/store.js';
import { MAX_SHOW, PAGE_ROWS, showMore, showMoreAddress, shownRows } from './paging.js';
import { notesListPage } from './views/notes.js';

const newNote = (id: number, over: Partial<Note>): Note => ({ id, title: `Note ${id}`, text: '', folder: 0, private: 0, added: 1, modified: 1, ...over });

describe('long lists: the first page and Show more', () => {
  it('shows a page at least and 20,000 at most, whatever `show` says', () => {
    for (const [raw, want] of [[undefined, PAGE_ROWS], ['0', PAGE_ROWS], ['-1', PAGE_ROWS], ['1e3', PAGE_ROWS], ['400', 400], ['999999', MAX_SHOW]] as const) assert.equal(shownRows(raw), want, String(raw));
  });

  it('links the same address a page further, keeping its query, until the most a page shows', () => {
    assert.equal(showMoreAddress('/notes?q=a+b%26c', 200), '/notes?q=a+b%26c&show=400');
    assert.equal(showMoreAddress('/?view=all&show=200', 200), '/?view=all&show=400');
    assert.equal(showMoreAddress('/', MAX_SHOW - 100), `/?show=${MAX_SHOW}`);
    assert.equal(showMoreAddress('/', MAX_SHOW), undefined, 'no link that would show the same page again');
    assert.equal(showMoreAddress('/.//elsewhere.example', 200), undefined, 'never an address off this server');
    assert.match(showMore('', undefined, 5), /5 more not shown: a page shows at most 20,000\. Search to narrow the list\./);
    assert.match(showMore('/base', '/notes?show=400', 5), /href="\/base\/notes\?show=400">Show 5 more \(of 5\)/);
  });

  it('the notes list: the first `show` notes in its order, each folder counting all of its notes, a note of a folder not read with no folder', () => {
    const site = { base: '', address: 'todo.example.org' };
    const nav = { email: 'a@example.org', isAdmin: false, csrf: 'c', current: '/notes' };
    const notes = [newNote(1, { title: 'In work', folder: 7 }), newNote(2, { title: 'Loose', folder: 0 }), newNote(3, { title: 'Orphan', folder: 99 }), newNote(4, { title: 'Also work', folder: 7 })];
    const page = notesListPage(site, nav, { notes, folders: [{ id: 7, name: 'Work', archived: 0 }], q: '', show: 3, more: '/notes?show=203', total: 4, day: () => 'today' });
    const text = page.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    assert.match(text, /4 notes; 3 shown, 1 more below/);
    assert.match(text, /Work \(2\) In work Changed today Also work Changed today No folder \(2\) Loose Changed today Show 1 more \(of 1\)/);
    assert.doesNotMatch(text, /Orphan/, 'the fourth in order, past the three shown');
  });
});
