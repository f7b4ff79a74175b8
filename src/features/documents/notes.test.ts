import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { api, createOrganizer, settledStamps, tasksCall, testContext } from '../../../test/harness.js';
import { call } from '../organizers/organizers.test-kit.js';
import { added, batch, inlineError, json, newUser, one, parseXml, read, setup, storedStamps, type Json } from './documents.test-kit.js';

describe('notes: add, get, edit, delete, deleted', () => {
  const env = setup(() => testContext());

  it('add answers each note with exactly its keys, in order, numbers as numbers, and echoes ref', async () => {
    const { ctx, user } = env;
    const now = Math.floor(ctx.clock.now() / 1000);
    const [note] = await added(ctx, user, 'notes', [{ title: '  Recipe  ', text: 'Flour\nEggs ✓ 😀', private: '1', ref: 'n1', via: 9, bogus: true }]);
    assert.deepEqual(Object.keys(note ?? {}), ['id', 'title', 'modified', 'added', 'folder', 'private', 'text', 'ref']);
    assert.deepEqual(note, { id: note?.['id'], title: 'Recipe', modified: now, added: now, folder: 0, private: 1, text: 'Flour\nEggs ✓ 😀', ref: 'n1' });
    assert.equal(typeof note?.['id'], 'number');
  });

  it('a mixed batch is answered in order; refused notes take no id, so the accepted ones are numbered on', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const out = json(await batch(ctx, user, 'notes', 'add', [{ title: 'one', ref: 'a' }, { text: 'no title', ref: 'b' }, { title: 'two' }, { title: 'three', folder: 999 }, 'x', { title: 'four', ref: 'c' }]));
    const first = out[0]?.['id'] as number;
    assert.deepEqual(out.map((n) => n['id'] ?? n['errorCode']), [first, 701, first + 1, 707, 711, first + 2]);
    assert.deepEqual(out.map((n) => n['ref']), ['a', 'b', undefined, '', '', 'c']);
    const [next] = await added(ctx, user, 'notes', [{ title: 'five' }]);
    assert.equal(next?.['id'], first + 3);
    assert.deepEqual(json(await read(ctx, user, 'notes', 'get')).slice(1).map((n) => n['title']), ['one', 'two', 'four', 'five']);
  });

  it('get starts with {num, total}, pages by start and num (at most 1000), and filters by id, after and before', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const first = await added(ctx, user, 'notes', [{ title: 'a' }, { title: 'b' }, { title: 'c' }]);
    ctx.clock.advance(5);
    const later = await added(ctx, user, 'notes', [{ title: 'd' }]);
    const all = json(await read(ctx, user, 'notes', 'get'));
    assert.deepEqual(all[0], { num: 4, total: 4 });
    assert.deepEqual(all.slice(1).map((n) => n['title']), ['a', 'b', 'c', 'd']);
    assert.deepEqual(json(await read(ctx, user, 'notes', 'get', { start: '1', num: '2' })).map((n) => n['title'] ?? n), [{ num: 2, total: 4 }, 'b', 'c']);
    const stamp = first[0]?.['modified'] as number;
    assert.deepEqual(json(await read(ctx, user, 'notes', 'get', { after: String(stamp) })).slice(1).map((n) => n['title']), ['d']);
    assert.deepEqual(json(await read(ctx, user, 'notes', 'get', { before: String(later[0]?.['modified']) })).slice(1).length, 3);
    assert.deepEqual(json(await read(ctx, user, 'notes', 'get', { id: String(first[1]?.['id']) })).slice(1).map((n) => n['title']), ['b']);
    assert.deepEqual(json(await read(ctx, user, 'notes', 'get', { id: '999' })), [{ num: 0, total: 0 }]);
    assert.deepEqual(json(await read(ctx, user, 'notes', 'get', { id: 'abc' })), [{ num: 0, total: 0 }]);
    assert.equal(json(await read(ctx, user, 'notes', 'get', { num: '5000' }))[0]?.['num'], 4);
    inlineError(json<Json>(await read(ctx, user, 'notes', 'get', { after: 'yesterday' })), 711);
  });

  it('edit changes only the fields sent; the stored values again change nothing and move no stamp', async () => {
    const { ctx, user } = env;
    const [note] = await added(ctx, user, 'notes', [{ title: 'Draft', text: 'one' }]);
    const id = note?.['id'] as number;
    ctx.clock.advance(3);
    const edited = await one(batch(ctx, user, 'notes', 'edit', [{ id: String(id), text: 'two' }]));
    assert.equal(edited['title'], 'Draft');
    assert.equal(edited['text'], 'two');
    assert.equal(edited['modified'], (note?.['modified'] as number) + 3);
    assert.equal(edited['added'], note?.['added']);
    const before = await storedStamps(ctx, user);
    ctx.clock.advance(3);
    const same = await one(batch(ctx, user, 'notes', 'edit', [{ id, title: 'Draft', text: 'two', modified: 5 }]));
    assert.equal(same['modified'], edited['modified']);
    assert.deepEqual(await storedStamps(ctx, user), before);
  });

  it('delete answers {id} per note (inline errors among them) and deleted.php lists tombstones after a stamp', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const [a, b] = await added(ctx, user, 'notes', [{ title: 'a' }, { title: 'b' }]);
    ctx.clock.advance(2);
    const out = json(await batch(ctx, user, 'notes', 'delete', [a?.['id'], { id: String(b?.['id']) }, 0, 'x', 12345]));
    assert.deepEqual(out.slice(0, 2), [{ id: a?.['id'] }, { id: b?.['id'] }]);
    inlineError(out[2] as Json, 704, '0');
    inlineError(out[3] as Json, 705, 'x');
    inlineError(out[4] as Json, 705, '12345');
    const stamps = await storedStamps(ctx, user);
    assert.equal(stamps.lastdelete_note, Math.floor(ctx.clock.now() / 1000));
    const tombstones = json(await read(ctx, user, 'notes', 'deleted', { after: '0' }));
    assert.deepEqual(tombstones, [{ num: 2 }, { id: a?.['id'], stamp: stamps.lastdelete_note }, { id: b?.['id'], stamp: stamps.lastdelete_note }]);
    assert.deepEqual(json(await read(ctx, user, 'notes', 'deleted', { after: String(stamps.lastdelete_note) })), [{ num: 0 }]);
    assert.deepEqual(json(await read(ctx, user, 'notes', 'get')), [{ num: 0, total: 0 }]);
  });

  it('answers in compact XML: <notes num total><note>…, <deleted><id>…, tombstones as <note><id/><stamp/>, errors inline', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const addXml = await batch(ctx, user, 'notes', 'add', [{ title: 'X & <Y>', text: 'a\r\nb' }, { text: 'no title', ref: 'r9' }], { f: 'xml' });
    assert.match(addXml.headers['content-type'] as string, /^text\/xml/);
    const parsed = parseXml(addXml.body, ['note', 'error']) as { notes: { note: Json[]; error: Json[] } };
    assert.equal(parsed.notes.note[0]?.['title'], 'X & <Y>');
    // A carriage return is written as a reference so that it survives parsing.
    assert.match(addXml.body, /<text>a&#13;\nb<\/text>/);
    assert.deepEqual(parsed.notes.error[0], { '#text': 'Your note must have a title', '@id': '701', '@ref': 'r9' });
    const get = parseXml((await read(ctx, user, 'notes', 'get', { f: 'xml' })).body, ['note']) as { notes: Json & { note: Json[] } };
    assert.equal(get.notes['@num'], '1');
    assert.equal(get.notes['@total'], '1');
    assert.deepEqual(Object.keys(get.notes.note[0] ?? {}), ['id', 'title', 'modified', 'added', 'folder', 'private', 'text']);
    const id = get.notes.note[0]?.['id'] as string;
    assert.match((await batch(ctx, user, 'notes', 'delete', [id], { f: 'xml' })).body, new RegExp(`<deleted><id>${id}</id></deleted>$`));
    assert.match((await read(ctx, user, 'notes', 'deleted', { f: 'xml' })).body, new RegExp(`<deleted num="1"><note><id>${id}</id><stamp>\\d+</stamp></note></deleted>$`));
  });

  it('folder: a folder of the account (0 none, archived ones too); deleting the folder files its notes under none and moves lastedit_note and lastedit_task', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const folder = await createOrganizer(ctx, user.account, 'folder', 'Kitchen', { archived: 1 });
    const [inFolder, none] = await added(ctx, user, 'notes', [{ title: 'in', folder }, { title: 'none', folder: '0' }]);
    assert.equal(inFolder?.['folder'], folder);
    assert.equal(none?.['folder'], 0);
    await tasksCall(ctx, user.token, 'add', [{ title: 'filed task', folder }]);
    ctx.clock.advance(4);
    const res = await call(ctx, user, 'folder', 'delete', { id: String(folder) });
    assert.deepEqual(res.json(), { deleted: folder });
    const now = Math.floor(ctx.clock.now() / 1000);
    const [, note] = json(await read(ctx, user, 'notes', 'get', { id: String(inFolder?.['id']) }));
    assert.equal(note?.['folder'], 0);
    assert.equal(note?.['modified'], now);
    const stamps = await storedStamps(ctx, user);
    assert.deepEqual([stamps.lastedit_note, stamps.lastedit_task, stamps.lastedit_folder], [now, now, now]);
    // A folder that no note is in moves no note stamp.
    const other = await createOrganizer(ctx, user.account, 'folder', 'Empty');
    ctx.clock.advance(4);
    await call(ctx, user, 'folder', 'delete', { id: String(other) });
    assert.equal((await storedStamps(ctx, user)).lastedit_note, now);
  });

  it('stamps: add and edit move lastedit_note, delete lastdelete_note, a failed call moves nothing', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const t0 = Math.floor(ctx.clock.now() / 1000);
    const [n] = await added(ctx, user, 'notes', [{ title: 'n' }]);
    assert.equal((await storedStamps(ctx, user)).lastedit_note, t0);
    ctx.clock.advance(2);
    await batch(ctx, user, 'notes', 'edit', [{ id: n?.['id'], title: 'n2' }]);
    assert.equal((await storedStamps(ctx, user)).lastedit_note, t0 + 2);
    ctx.clock.advance(2);
    await batch(ctx, user, 'notes', 'add', [{ title: '' }]);
    await batch(ctx, user, 'notes', 'edit', [{ id: 999, title: 'x' }]);
    await batch(ctx, user, 'notes', 'delete', [999]);
    const s = await storedStamps(ctx, user);
    assert.equal(s.lastedit_note, t0 + 2);
    assert.equal(s.lastdelete_note, 0);
    await batch(ctx, user, 'notes', 'delete', [n?.['id']]);
    assert.equal((await storedStamps(ctx, user)).lastdelete_note, t0 + 4);
    assert.equal((await storedStamps(ctx, user)).lastedit_note, t0 + 2, 'a delete is not an edit');
    const reported = (await api(ctx, user.token, '/3/account/get.php')).json() as Json;
    assert.equal(typeof reported['lastdelete_note'], 'number');
  });
});

describe('account/get reports the stamps of notes, outlines and lists', () => {
  const env = setup(() => testContext());

  it('lastedit_note, lastdelete_note, lastedit_outline and lastedit_list show each write once its second has settled', async () => {
    const { ctx, user } = env;
    const t0 = Math.floor(ctx.clock.now() / 1000);
    const [n] = await added(ctx, user, 'notes', [{ title: 'n' }]);
    await added(ctx, user, 'outlines', [{ title: 'o', ref: 'o' }]);
    assert.equal(((await api(ctx, user.token, '/3/account/get.php')).json() as Json)['lastedit_note'], t0 - 2, 'not before its second is over');
    const first = await settledStamps(ctx, user.token);
    assert.deepEqual([first.lastedit_note, first.lastdelete_note, first.lastedit_outline, first.lastedit_list], [t0, 0, t0, 0]);
    const t1 = Math.floor(ctx.clock.now() / 1000);
    await batch(ctx, user, 'notes', 'delete', [n?.['id']]);
    const [l] = await added(ctx, user, 'lists', [{ title: 'l', ref: 'l' }]);
    await added(ctx, user, 'rows', [{ list: l?.['id'], ref: 'r' }]);
    const second = await settledStamps(ctx, user.token);
    assert.deepEqual([second.lastedit_note, second.lastdelete_note, second.lastedit_outline, second.lastedit_list], [t0, t1, t0, t1]);
  });
});

describe('notes errors 701–707 and 711', () => {
  const env = setup(() => testContext({ MAX_NOTES: '3' }));

  it('701 no title (add, or edit to blank); 706 nothing to edit; 704/705 ids; 707 folder; 711 values over limits — each inline with its ref', async () => {
    const { ctx, user } = env;
    const [n] = await added(ctx, user, 'notes', [{ title: 'ok' }]);
    const id = n?.['id'] as number;
    const adds = json(await batch(ctx, user, 'notes', 'add', [
      { ref: 'a' },
      { title: '   ', ref: 7 },
      { title: 'x', folder: 44, ref: 'f' },
      { title: 'x', folder: 1.5 },
      { title: 'x'.repeat(256) },
      { title: 'x', text: 'é'.repeat(31_001) },
      { title: 'x', private: 2 },
      'not an object',
    ]));
    inlineError(adds[0] as Json, 701, 'a');
    inlineError(adds[1] as Json, 701, 7);
    inlineError(adds[2] as Json, 707, 'f');
    for (const r of adds.slice(3)) inlineError(r, 711, '');
    assert.match(adds[5]?.['errorDesc'] as string, /text is larger than 62000 bytes/);
    const edits = json(await batch(ctx, user, 'notes', 'edit', [{ id, title: '' }, { id }, { id: 0 }, {}, { id: 'nope' }, { id: 99 }, { id, via: 1 }]));
    inlineError(edits[0] as Json, 701, String(id));
    inlineError(edits[1] as Json, 706, String(id));
    inlineError(edits[2] as Json, 704, '0');
    inlineError(edits[3] as Json, 704, '');
    inlineError(edits[4] as Json, 705, 'nope');
    inlineError(edits[5] as Json, 705, '99');
    inlineError(edits[6] as Json, 706, String(id));
    // Exactly at the limits is fine.
    await added(ctx, user, 'notes', [{ title: 'x'.repeat(255), text: 'é'.repeat(31_000) }]);
  });

  it('702 more than 50 at once, 711 an unreadable batch: whole-request errors, nothing stored', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const many = Array.from({ length: 51 }, (_, i) => ({ title: `n${i}` }));
    const res = json<Json>(await batch(ctx, user, 'notes', 'add', many));
    assert.equal(res['errorCode'], 702);
    for (const notes of ['', '{', '{"title":"x"}']) assert.equal(json<Json>(await api(ctx, user.token, '/3/notes/add.php', { notes }))['errorCode'], 711);
    assert.deepEqual(json(await read(ctx, user, 'notes', 'get')), [{ num: 0, total: 0 }]);
  });

  it('703 past MAX_NOTES: the items before the limit are kept', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const out = json(await batch(ctx, user, 'notes', 'add', [{ title: '1' }, { title: '2' }, { title: '3' }, { title: '4', ref: 'four' }]));
    assert.equal(out.filter((r) => 'id' in r).length, 3);
    inlineError(out[3] as Json, 703, 'four');
    // Deleted notes free their place.
    await batch(ctx, user, 'notes', 'delete', [out[0]?.['id']]);
    await added(ctx, user, 'notes', [{ title: '5' }]);
  });
});
