import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, formInputs, submit } from '../../../test/browser.js';
import { api, createOrganizer, settledStamps, signIn, tasksCall, testContext, type TestContext } from '../../../test/harness.js';
import { landed, signedInBrowser, text } from '../../../test/web-pages.js';

/**
 * The notes pages through app.inject: list by folder, read, add, edit, delete, each through the
 * notes service (the API then shows the change, and the stamps apps sync by move); the API's
 * refusals beside their field; the checks of every form; another person's note out of reach.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testContext();
});
after(() => ctx.close());

type Rec = Record<string, unknown>;

async function person(): Promise<{ b: Browser; token: string; account: Awaited<ReturnType<typeof signIn>>['account'] }> {
  const { account, token } = await signIn(ctx, { scope: 'basic tasks notes write' });
  return { b: await signedInBrowser(ctx, account), token, account };
}

/** The account's notes as notes/get lists them (without the leading {num,total}). */
async function notesOf(token: string): Promise<Rec[]> {
  return (await api(ctx, token, '/3/notes/get.php')).json<Rec[]>().slice(1);
}

const ADD = { title: 'Shopping', folder: '0', text: 'Milk\nEggs' };

describe('notes pages', () => {
  it('add: the API lists the note, lastedit_note moved, and the note\'s page shows it', async () => {
    const { b, token, account } = await person();
    const folder = await createOrganizer(ctx, account, 'folder', 'Home');
    const before = await settledStamps(ctx, token);
    const page = await landed(b, await submit(b, '/notes/new', { ...ADD, folder: String(folder), private: '1', text: 'Milk\n<b>Eggs</b>' }, '/notes'));
    assert.match(text(page), /The note is added/);
    assert.match(page.body, /<div class="notetext">Milk\n&#60;b&#62;Eggs&#60;\/b&#62;<\/div>/, 'the text is shown as text');
    assert.match(text(page), /In Home · written [A-Z][a-z]{2} \d{1,2}, \d{4} · changed [A-Z][a-z]{2} \d{1,2}, \d{4}/);
    const [note] = await notesOf(token);
    assert.deepEqual([note?.['title'], note?.['text'], note?.['folder'], note?.['private']], ['Shopping', 'Milk\n<b>Eggs</b>', folder, 1]);
    const after = await settledStamps(ctx, token);
    assert.ok((after['lastedit_note'] as number) > (before['lastedit_note'] as number));
  });

  it('add refused: no title, a title too long, text over the limit, a folder that is not one; the message beside the field, what was typed kept', async () => {
    const { b, token } = await person();
    const blank = await submit(b, '/notes/new', { ...ADD, title: ' ' }, '/notes');
    assert.equal(blank.statusCode, 422);
    assert.match(text(blank), /Your note must have a title \(error 701\)/);
    assert.match(blank.body, /id="f-title" name="title" aria-describedby="f-title-hint f-title-error" aria-invalid="true" autofocus/);
    assert.match(blank.body, />\nMilk\nEggs<\/textarea>/, 'the text typed is kept');
    const long = await submit(b, '/notes/new', { ...ADD, title: 'x'.repeat(256) }, '/notes');
    assert.match(text(long), /title is longer than 255 characters \(error 711\)/);
    const big = 'é'.repeat(31_001);
    const large = await submit(b, '/notes/new', { ...ADD, text: big }, '/notes');
    assert.equal(large.statusCode, 422);
    assert.match(text(large), /text is larger than 62000 bytes \(error 711\)/);
    assert.match(large.body, /id="f-text" name="text" aria-describedby="f-text-hint f-text-error" aria-invalid="true"/);
    assert.ok(large.body.includes(big), 'a text too large for a cookie is kept all the same');
    const folder = await submit(b, '/notes/new', { ...ADD, folder: '42' }, '/notes');
    assert.match(text(folder), /Invalid folder id: 42 \(error 707\)/);
    assert.match(folder.body, /id="f-folder" name="folder" aria-describedby="f-folder-error" aria-invalid="true"/);
    assert.deepEqual(await notesOf(token), []);
  });

  it('the list groups the notes by folder, archived folders marked, notes in no folder last', async () => {
    const { b, account } = await person();
    const work = await createOrganizer(ctx, account, 'folder', 'Work');
    const old = await createOrganizer(ctx, account, 'folder', 'Old', { archived: 1 });
    await createOrganizer(ctx, account, 'folder', 'Empty');
    for (const [title, folder] of [['Loose', 0], ['Plan', work], ['Minutes', work], ['Ancient', old]] as const) {
      await landed(b, await submit(b, '/notes/new', { ...ADD, title, folder: String(folder) }, '/notes'));
    }
    const page = text(await b.get('/notes'));
    assert.match(page, /Work \(2\) Plan Changed \w+ \d+, \d+ Minutes Changed [^(]+ Old Archived \(1\) Ancient Changed [^(]+ No folder \(1\) Loose/);
    assert.doesNotMatch(page, /Empty/);
    assert.match(text(await new Browser(ctx.app).get('/notes')), /^\s*$/, 'signed out: a redirect, no page');
  });

  it('the list searches titles and texts without case, and says how many it found', async () => {
    const { b, token } = await person();
    await api(ctx, token, '/3/notes/add.php', {
      notes: JSON.stringify([{ title: 'Shopping list', text: 'Milk' }, { title: 'Plan', text: 'buy MILK & bread' }, { title: 'Other', text: 'nothing' }]),
    });
    const all = text(await b.get('/notes'));
    assert.match(all, /Search titles and texts/);
    assert.match(all, /3 notes/);
    const milk = await b.get('/notes?q=+milk+');
    assert.match(text(milk), /2 of 3 notes found/);
    assert.match(text(milk), /Shopping list/);
    assert.match(text(milk), /Plan/);
    assert.doesNotMatch(text(milk), /Other/);
    assert.match(milk.body, /<input id="q" name="q" type="search" value="milk">/, 'the search stays in its box');
    assert.match(milk.body, /href="\/notes">Show every note<\/a>/);
    assert.match(text(await b.get('/notes?q=%3Cb%3E')), /No note holds “<b>”/);
    assert.doesNotMatch((await b.get('/notes?q=%3Cb%3E')).body, /“<b>”/, 'the search is written as text');
    assert.match(text(await b.get('/notes?q=PLAN')), /1 of 3 notes found/);
  });

  it('a long list shows its first 200 notes, and Show more the next ones, the search kept', async () => {
    const { b, token } = await person();
    for (let i = 0; i < 5; i++) {
      await api(ctx, token, '/3/notes/add.php', { notes: JSON.stringify(Array.from({ length: i < 4 ? 50 : 10 }, (_, j) => ({ title: `Bulk ${i * 50 + j}`, text: j % 2 ? 'odd' : 'even' }))) });
    }
    const first = await b.get('/notes');
    assert.match(text(first), /210 notes; 200 shown, 10 more below/);
    assert.match(text(first), /No folder \(210\)/, 'a group counts all of its notes');
    assert.equal((first.body.match(/<li><span><a href="\/notes\/\d+">/g) ?? []).length, 200);
    const more = /href="(\/notes\?show=400)">Show 10 more \(of 10\)/.exec(first.body)?.[1];
    assert.ok(more, 'a Show more link');
    const next = await b.get(more);
    assert.equal((next.body.match(/<li><span><a href="\/notes\/\d+">/g) ?? []).length, 210);
    assert.doesNotMatch(text(next), /more below/);
    const even = await b.get('/notes?q=EVEN&show=1');
    assert.match(text(even), /105 of 210 notes found/);
    assert.doesNotMatch(text(even), /more below/, 'all found notes fit on a page');
    assert.equal((even.body.match(/<li><span><a href="\/notes\/\d+">/g) ?? []).length, 105, 'a show below a page shows a page');
    const bulk = await b.get('/notes?q=bulk');
    assert.match(text(bulk), /210 of 210 notes found; 200 shown, 10 more below/);
    assert.match(bulk.body, /href="\/notes\?q=bulk&#38;show=400"/, 'Show more keeps the search');
  });

  it('a note deleted by an app while its form was open: saving answers 404, nothing is made again', async () => {
    const { b, token } = await person();
    await landed(b, await submit(b, '/notes/new', ADD, '/notes'));
    const id = (await notesOf(token))[0]?.['id'] as number;
    const form = await b.get(`/notes/${id}/edit`);
    assert.equal((await api(ctx, token, '/3/notes/delete.php', { notes: JSON.stringify([id]) })).statusCode, 200);
    const res = await b.post(`/notes/${id}`, { ...formInputs(form.body, `/notes/${id}`), ...ADD, title: 'Too late' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(await notesOf(token), []);
  });

  it('edit: title, text, folder and private (an unticked box is 0); unchanged says so', async () => {
    const { b, token, account } = await person();
    const folder = await createOrganizer(ctx, account, 'folder', 'Work');
    await landed(b, await submit(b, '/notes/new', { ...ADD, private: '1' }, '/notes'));
    const id = (await notesOf(token))[0]?.['id'] as number;
    const form = await b.get(`/notes/${id}/edit`);
    assert.match(form.body, /value="Shopping"/);
    assert.match(form.body, />\nMilk\nEggs<\/textarea>/);
    assert.match(form.body, /name="private" value="1" checked/);
    const before = await settledStamps(ctx, token);
    const saved = await landed(b, await submit(b, `/notes/${id}/edit`, { title: 'Groceries', text: 'Bread', folder: String(folder) }, `/notes/${id}`));
    assert.match(text(saved), /The note is saved/);
    const [note] = await notesOf(token);
    assert.deepEqual([note?.['title'], note?.['text'], note?.['folder'], note?.['private']], ['Groceries', 'Bread', folder, 0]);
    assert.ok(((await settledStamps(ctx, token))['lastedit_note'] as number) > (before['lastedit_note'] as number));
    const same = await landed(b, await submit(b, `/notes/${id}/edit`, { title: 'Groceries', text: 'Bread', folder: String(folder) }, `/notes/${id}`));
    assert.match(text(same), /Nothing to save/);
    const blank = await submit(b, `/notes/${id}/edit`, { title: '', text: 'kept', folder: '0' }, `/notes/${id}`);
    assert.equal(blank.statusCode, 422);
    assert.match(text(blank), /Your note must have a title \(error 701\)/);
    assert.match(blank.body, />\nkept<\/textarea>/);
    assert.equal((await notesOf(token))[0]?.['title'], 'Groceries');
  });

  it('delete: the question says whether tasks link to it; the API then lists it as deleted, and the tasks lose the link', async () => {
    const { b, token } = await person();
    await landed(b, await submit(b, '/notes/new', ADD, '/notes'));
    const id = (await notesOf(token))[0]?.['id'] as number;
    assert.match(text(await b.get(`/notes/${id}/delete`)), /No task links to this note/);
    const [task] = (await tasksCall(ctx, token, 'add', [{ title: 'Shop', attach: [{ kind: 'note', id }] }])).json<Rec[]>();
    assert.match(text(await b.get(`/notes/${id}`)), /linked to tasks/);
    const question = await b.get(`/notes/${id}/delete`);
    assert.match(text(question), /Tasks link to this note: they are kept, without the link/);
    const before = await settledStamps(ctx, token);
    const done = await landed(b, await submit(b, `/notes/${id}/delete`));
    assert.match(text(done), /Deleted the note “Shopping”/);
    assert.deepEqual(await notesOf(token), []);
    const deleted = (await api(ctx, token, '/3/notes/deleted.php', { after: '0' })).json<Rec[]>();
    assert.deepEqual(deleted.slice(1).map((d) => d['id']), [id]);
    const stamps = await settledStamps(ctx, token);
    assert.ok((stamps['lastdelete_note'] as number) > (before['lastdelete_note'] as number));
    const [listed] = (await api(ctx, token, '/3/tasks/get.php', { fields: 'attachment' })).json<Rec[]>().slice(1);
    assert.equal(listed?.['id'], task?.['id']);
    assert.deepEqual(listed?.['attachment'] ?? [], []);
    assert.equal((await b.get(`/notes/${id}`)).statusCode, 404);
  });

  it('every form post needs its CSRF token and must come from this site', async () => {
    const { b, token } = await person();
    await landed(b, await submit(b, '/notes/new', ADD, '/notes'));
    const id = (await notesOf(token))[0]?.['id'] as number;
    const csrf = formInputs((await b.get(`/notes/${id}/edit`)).body, `/notes/${id}`)['_csrf'] as string;
    for (const [url, form] of [['/notes', ADD], [`/notes/${id}`, { ...ADD, title: 'Changed' }], [`/notes/${id}/delete`, {}]] as const) {
      assert.equal((await b.post(url, form)).statusCode, 403, `${url} without a token`);
      const crossSite = await b.crossSitePost(url, { ...form, _csrf: csrf });
      assert.equal(crossSite.statusCode, 403, `${url} from another site`);
    }
    assert.deepEqual((await notesOf(token)).map((n) => n['title']), ['Shopping']);
  });

  it("another person's note answers 404 to every page and post, and is left as it was", async () => {
    const owner = await person();
    await landed(owner.b, await submit(owner.b, '/notes/new', { ...ADD, title: 'Filler' }, '/notes'));
    await landed(owner.b, await submit(owner.b, '/notes/new', { ...ADD, title: 'Secret diary', text: 'Dear diary' }, '/notes'));
    const id = (await notesOf(owner.token))[1]?.['id'] as number;
    const stranger = await person();
    await landed(stranger.b, await submit(stranger.b, '/notes/new', { ...ADD, title: 'Mine' }, '/notes'));
    for (const url of [`/notes/${id}`, `/notes/${id}/edit`, `/notes/${id}/delete`, '/notes/abc', '/notes/0', '/notes/1.5']) {
      const res = await stranger.b.get(url);
      assert.equal(res.statusCode, 404, url);
      assert.doesNotMatch(res.body, /Secret diary|Dear diary/);
    }
    const csrf = formInputs((await stranger.b.get('/notes/new')).body, '/notes')['_csrf'] as string;
    for (const [url, form] of [[`/notes/${id}`, { ...ADD, title: 'Stolen' }], [`/notes/${id}/delete`, {}]] as const) {
      const res = await stranger.b.post(url, { ...form, _csrf: csrf });
      assert.equal(res.statusCode, 404, url);
      assert.doesNotMatch(res.body, /Secret diary|Dear diary/);
    }
    assert.doesNotMatch((await stranger.b.get('/notes')).body, /Secret diary/);
    // Filing a note in another person's folder is refused like a folder that does not exist.
    await createOrganizer(ctx, owner.account, 'folder', 'Their first');
    const theirs = await createOrganizer(ctx, owner.account, 'folder', 'Their second');
    await createOrganizer(ctx, stranger.account, 'folder', 'Pad');
    const refused = await submit(stranger.b, '/notes/new', { ...ADD, folder: String(theirs) }, '/notes');
    assert.equal(refused.statusCode, 422);
    assert.match(text(refused), /Invalid folder id: 2 \(error 707\)/);
    assert.deepEqual((await notesOf(owner.token)).map((n) => [n['title'], n['text']]), [['Filler', 'Milk\nEggs'], ['Secret diary', 'Dear diary']]);
  });
});

describe('notes pages on a server of their own (a maximum of notes, a clock of their own)', () => {
  let small: TestContext;
  before(async () => {
    small = await testContext({ MAX_NOTES: '1' });
  });
  after(() => small.close());

  it('an add past the maximum is refused above the form, which keeps what was typed; the message takes the focus', async () => {
    const { account } = await signIn(small, { scope: 'basic tasks notes write' });
    const b = await signedInBrowser(small, account);
    await landed(b, await submit(b, '/notes/new', ADD, '/notes'));
    const refused = await submit(b, '/notes/new', { ...ADD, title: 'One too many' }, '/notes');
    assert.equal(refused.statusCode, 422);
    assert.match(refused.body, /<div class="error" role="alert" id="problem" tabindex="-1" autofocus><p>Not added: Max notes reached: an account holds at most 1 \(error 703\)\.<\/p><\/div>/);
    assert.match(refused.body, /value="One too many"/);
    assert.doesNotMatch(refused.body, /aria-invalid="true"/);
  });
  it("dates are written in the account's date format and timezone", async () => {
    // 23:30 UTC: already the next day at UTC+1 (timezone 12: half hours from UTC-5). Set before
    // signing in: a session lasts SESSION_TTL_HOURS of this clock.
    small.clock.set(Date.UTC(2026, 4, 31, 23, 30));
    const { account } = await signIn(small, { scope: 'basic tasks notes write' });
    const b = await signedInBrowser(small, account);
    await landed(b, await submit(b, '/notes/new', ADD, '/notes'));
    // Through the settings page, as a person would (every setting is sent; the rest as they were).
    const settings = (dateformat: string, timezone: string) =>
      submit(b, '/account', { alias: 'Tester', timezone, dateformat, hidemonths: '6', hotlistpriority: '3', hotlistduedate: '2' }, '/account/settings');
    await landed(b, await settings('2', '12'));
    assert.match(text(await b.get('/notes')), /Shopping Changed 01\/06\/2026/);
    await landed(b, await settings('0', '10'));
    assert.match(text(await b.get('/notes')), /Shopping Changed May 31, 2026/);
  });

});
