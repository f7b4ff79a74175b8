import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, filledForm, formInputs } from '../../../test/browser.js';
import { api, signIn, testContext, type TestContext } from '../../../test/harness.js';
import { landed, signedInBrowser, text } from '../../../test/web-pages.js';

/**
 * A list's own pages through app.inject: make a list with its columns, change its title, note and
 * columns (a new type, a removed column, an added one), delete it, through the service lists/add,
 * edit and delete use: its refusals beside the field they are about, the cells a change empties,
 * and another person's list out of reach.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testContext();
});
after(() => ctx.close());

type Rec = Record<string, unknown>;

async function person(): Promise<{ b: Browser; token: string }> {
  const { account, token } = await signIn(ctx, { scope: 'basic lists write' });
  return { b: await signedInBrowser(ctx, account), token };
}

async function listsOf(token: string): Promise<Rec[]> {
  return (await api(ctx, token, '/3/lists/get.php')).json<Rec[] | null>() ?? [];
}

/** Posts the form of `page` that posts to `action` with its hidden fields and `fields`. */
async function send(b: Browser, page: string, action: string, fields: Record<string, string>) {
  const shown = await b.get(page);
  assert.equal(shown.statusCode, 200, shown.body.slice(0, 200));
  return b.post(action, { ...formInputs(shown.body, action), ...fields });
}

describe('list pages', () => {
  it('a list is made with its columns, in the slots\' order; blank slots add none', async () => {
    const { b, token } = await person();
    const index = await b.get('/lists');
    assert.match(index.body, /<a class="button" href="\/lists\/new">Make a list<\/a>/);
    const form = await b.get('/lists/new');
    assert.match(form.body, /<h1>Make a list<\/h1>/);
    assert.equal((form.body.match(/<fieldset class="slot">/g) ?? []).length, 4, 'four blank columns');
    assert.match(form.body, /<option value="12\.2">Number, 2 decimals<\/option>/);
    const res = await send(b, '/lists/new', '/lists', {
      title: 'Books',
      keywords: 'leisure',
      note: 'To read\r\nthis year',
      'col.0.title': 'Title',
      'col.0.type': '19',
      'col.1.title': 'Shelf',
      'col.1.type': '10',
      'col.1.choices': ' home, office ,',
      'col.2.title': '',
      'col.3.title': 'Read',
      'col.3.type': '1',
      'col.3.choices': 'ignored, for a checkbox',
    });
    const page = await landed(b, res);
    assert.match(text(page), /The list is made\. Add its rows here\./);
    assert.match(page.body, /<h1>Books<\/h1>/);
    const [list] = await listsOf(token);
    assert.equal(list?.['title'], 'Books');
    assert.equal(list?.['note'], 'To read\nthis year');
    assert.deepEqual((list?.['cols'] as Rec[]).map((c) => [c['title'], c['type'], c['choices'] ?? null]), [['Title', 19, null], ['Shelf', 10, ['home', 'office']], ['Read', 1, null]]);
  });

  it('a refusal comes back beside its field, the form as sent; a form sent twice makes one list', async () => {
    const { b, token } = await person();
    const untitled = await send(b, '/lists/new', '/lists', { title: ' ', 'col.0.title': 'A' });
    assert.equal(untitled.statusCode, 422);
    assert.match(text(untitled), /Not made: Your list must have a title \(error 901\)/);
    assert.match(untitled.body, /id="f-title" name="title" aria-describedby="f-title-error" aria-invalid="true" autofocus/);
    const noChoices = await send(b, '/lists/new', '/lists', { title: 'Chores', 'col.0.title': 'Who', 'col.0.type': '19', 'col.1.title': 'Room', 'col.1.type': '9', 'col.1.choices': ' , ' });
    assert.equal(noChoices.statusCode, 422);
    assert.match(text(noChoices), /a pick-one or pick-several column needs choices \(an array of texts\) \(error 913\)/);
    assert.match(noChoices.body, /id="f-col\.1\.choices" name="col\.1\.choices" aria-describedby="choices-rule f-col\.1\.choices-error" aria-invalid="true" autofocus/);
    assert.match(noChoices.body, /value="Who"/, 'what was typed is kept');
    assert.deepEqual(await listsOf(token), []);
    // Fixed, then sent again: one list (beside one made without columns).
    const bare = await landed(b, await send(b, '/lists/new', '/lists', { title: 'No columns yet' }));
    assert.match(text(bare), /The list is made\. Give it columns with “Change the list” to add rows\./);
    const fields = { ...formInputs(noChoices.body, '/lists'), title: 'Chores', 'col.0.title': 'Who', 'col.0.type': '19', 'col.1.title': 'Room', 'col.1.type': '9', 'col.1.choices': 'kitchen, hall' };
    await landed(b, await b.post('/lists', fields));
    const twice = await landed(b, await b.post('/lists', fields));
    assert.match(text(twice), /The list is made/);
    assert.equal((await listsOf(token)).length, 2);
    const forged = await b.post('/lists', { ...fields, slots: '100000' });
    assert.equal(forged.statusCode, 400);
  });

  it('a change renames, retypes (emptying the cells the type refuses), removes and adds columns', async () => {
    const { b, token } = await person();
    const cols = [{ title: 'Item', type: 19 }, { title: 'Qty', type: 19 }, { title: 'Old', type: 19 }];
    const id = (await api(ctx, token, '/3/lists/add.php', { lists: JSON.stringify([{ title: 'Shop', ref: 's', cols }]) })).json<Rec[]>()[0]?.['id'] as string;
    await api(ctx, token, '/3/rows/add.php', { rows: JSON.stringify([{ list: id, ref: 'a', cells: { c1: 'Milk', c2: '2', c3: 'x' } }, { list: id, ref: 'b', cells: { c1: 'Eggs', c2: 'a dozen' } }]) });
    const list = await b.get(`/lists/${id}`);
    assert.match(list.body, new RegExp(`href="/lists/${id}/edit">Change the list</a>`));
    const form = await b.get(`/lists/${id}/edit`);
    assert.match(form.body, /<legend>Column 2: Qty<\/legend>/);
    assert.match(form.body, /Remove this column and its cells/);
    assert.equal((form.body.match(/<fieldset class="slot">/g) ?? []).length, 6, 'three columns and three blank ones');
    ctx.clock.advance(5_000);
    const res = await b.post(`/lists/${id}/edit`, {
      ...formInputs(form.body, `/lists/${id}/edit`),
      title: 'Shopping',
      keywords: '',
      note: '',
      'col.0.title': 'What',
      'col.0.type': '19',
      'col.1.title': 'Qty',
      'col.1.type': '13',
      'col.2.title': 'Old',
      'col.2.type': '19',
      'col.2.remove': '1',
      'col.3.title': 'Where',
      'col.3.type': '10',
      'col.3.choices': 'market,bakery',
    });
    assert.match(text(await landed(b, res)), /The list is saved\./);
    const [saved] = await listsOf(token);
    assert.equal(saved?.['title'], 'Shopping');
    assert.deepEqual((saved?.['cols'] as Rec[]).map((c) => [c['id'], c['title'], c['type']]), [[1, 'What', 19], [2, 'Qty', 13], [4, 'Where', 10]]);
    const rows = (await api(ctx, token, '/3/rows/get.php', { list: id })).json<Rec[]>();
    const cells = rows.map((r) => r['cells'] as Rec).sort((a, b) => String(a['c1']).localeCompare(String(b['c1'])));
    assert.deepEqual(cells, [{ c1: 'Eggs' }, { c1: 'Milk', c2: 2 }], 'a whole number kept, "a dozen" emptied, the removed column\'s cells gone');
    // A choice renamed empties the cells that hold it (the page says so).
    assert.match(text(await b.get(`/lists/${id}/edit`)), /a choice removed or renamed empties the cells that hold it/);
  });

  it('the form saved as shown changes nothing: widths, sorts, untitled columns, a note an app wrote with CRLF or a leading line break', async () => {
    const { b, token } = await person();
    const cols = [{ title: 'Name', type: 19, width: 240, sort: -1 }, { title: '', type: 9, choices: ['a', 'b c'], width: 55, sort: 3 }];
    const id = (await api(ctx, token, '/3/lists/add.php', { lists: JSON.stringify([{ title: 'Kept', ref: 'k', note: '\nfirst line\r\nsecond', keywords: 'x y', cols }]) })).json<Rec[]>()[0]?.['id'] as string;
    const before = (await listsOf(token))[0];
    const form = await b.get(`/lists/${id}/edit`);
    assert.match(form.body, /<legend>Column 2<\/legend>/, 'an untitled column is kept as a slot');
    const res = await landed(b, await b.post(`/lists/${id}/edit`, filledForm(form.body, `/lists/${id}/edit`)));
    assert.match(text(res), /Nothing to save: the list was not changed\./);
    assert.deepEqual((await listsOf(token))[0], before);
    // Removing the untitled column removes it; an untitled column left alone stays.
    const removed = await landed(b, await b.post(`/lists/${id}/edit`, { ...filledForm(form.body, `/lists/${id}/edit`), 'col.1.remove': '1' }));
    assert.match(text(removed), /The list is saved\./);
    assert.deepEqual(((await listsOf(token))[0]?.['cols'] as Rec[]).map((c) => [c['title'], c['width'], c['sort']]), [['Name', 240, -1]]);
  });

  it('forged forms: ids on a new list, a column id the list lacks, a type that is none, more slots than a form shows', async () => {
    const { b, token } = await person();
    const made = await b.get('/lists/new');
    const fields = { ...formInputs(made.body, '/lists'), title: 'F', 'col.0.title': 'A', 'col.0.type': '19' };
    assert.equal((await b.post('/lists', { ...fields, 'col.0.id': '1' })).statusCode, 400);
    const wrongType = await b.post('/lists', { ...fields, 'col.0.type': '7' });
    assert.equal(wrongType.statusCode, 422);
    assert.match(text(wrongType), /type "7" is not a column type/);
    assert.match(wrongType.body, /id="f-col\.0\.type" name="col\.0\.type" aria-describedby="f-col\.0\.type-error" aria-invalid="true" autofocus/);
    const id = (await api(ctx, token, '/3/lists/add.php', { lists: JSON.stringify([{ title: 'G', ref: 'g', cols: [{ title: 'A', type: 19 }] }]) })).json<Rec[]>()[0]?.['id'] as string;
    const form = await b.get(`/lists/${id}/edit`);
    const unknown = await b.post(`/lists/${id}/edit`, { ...filledForm(form.body, `/lists/${id}/edit`), 'col.0.id': '99' });
    assert.equal(unknown.statusCode, 422);
    assert.match(text(unknown), /Invalid column id: the list has no column 99 \(error 907\)/);
    assert.equal((await b.post(`/lists/${id}/edit`, { ...filledForm(form.body, `/lists/${id}/edit`), slots: '999' })).statusCode, 400);
    // Without its count of slots, or with fewer slots than the list has columns, a post would drop columns no Remove box asked to.
    const { slots: _slots, ...withoutSlots } = filledForm(form.body, `/lists/${id}/edit`);
    assert.equal((await b.post(`/lists/${id}/edit`, withoutSlots)).statusCode, 400);
    assert.equal((await b.post(`/lists/${id}/edit`, { ...withoutSlots, slots: ' ' })).statusCode, 400);
    assert.equal((await b.post(`/lists/${id}/edit`, { ...withoutSlots, slots: '0' })).statusCode, 400);
    const after = (await listsOf(token)).find((l) => l['id'] === id);
    assert.equal(after?.['version'], 1, 'nothing changed');
    assert.equal((after?.['cols'] as unknown[]).length, 1);
  });

  it('a list at its most columns: a refused form can be sent again, fixed', async () => {
    const { b, token } = await person();
    const max = ctx.deps.config.recordLimits.listColumns;
    const id = (await api(ctx, token, '/3/lists/add.php', { lists: JSON.stringify([{ title: 'Wide', ref: 'w', cols: Array.from({ length: max }, (_, i) => ({ title: `C${i}`, type: 19 })) }]) })).json<Rec[]>()[0]?.['id'] as string;
    const form = await b.get(`/lists/${id}/edit`);
    const fill: Record<string, string> = {};
    for (let i = 0; i < 3; i++) Object.assign(fill, { [`col.${max + i}.title`]: `New ${i}`, [`col.${max + i}.type`]: '19', [`col.${i}.remove`]: '1' });
    // One new column a pick without choices: refused, shown again with its slots.
    const refused = await b.post(`/lists/${id}/edit`, { ...filledForm(form.body, `/lists/${id}/edit`), ...fill, [`col.${max}.type`]: '10' });
    assert.equal(refused.statusCode, 422);
    const fixed = await b.post(`/lists/${id}/edit`, { ...filledForm(refused.body, `/lists/${id}/edit`), [`col.${max}.type`]: '19' });
    assert.match(text(await landed(b, fixed)), /The list is saved\./);
    const cols = ((await listsOf(token)).find((l) => l['id'] === id)?.['cols'] as Rec[]).map((c) => c['title']);
    assert.equal(cols.length, max);
    assert.deepEqual(cols.slice(-3), ['New 0', 'New 1', 'New 2']);
  });

  it('a change made on an older version shows the list as it now is', async () => {
    const { b, token } = await person();
    const id = (await api(ctx, token, '/3/lists/add.php', { lists: JSON.stringify([{ title: 'Films', ref: 'f', cols: [{ title: 'Name', type: 19 }] }]) })).json<Rec[]>()[0]?.['id'] as string;
    const form = await b.get(`/lists/${id}/edit`);
    await api(ctx, token, '/3/lists/edit.php', { lists: JSON.stringify([{ id, version: 1, title: 'Films to see' }]) });
    const stale = await b.post(`/lists/${id}/edit`, { ...filledForm(form.body, `/lists/${id}/edit`), title: 'Movies' });
    assert.equal(stale.statusCode, 409);
    assert.match(text(stale), /The list was changed \(by an app, or on another page\) after this form was opened\. Here it is as it now is: make your changes again \(error 914\)/);
    assert.match(stale.body, /id="f-title" name="title"[^>]* value="Films to see"/);
    assert.equal((await listsOf(token))[0]?.['title'], 'Films to see');
    // The same save sent twice (a second click): the second finds it done.
    const form2 = await b.get(`/lists/${id}/edit`);
    const sent = { ...filledForm(form2.body, `/lists/${id}/edit`), title: 'Movies' };
    await landed(b, await b.post(`/lists/${id}/edit`, sent));
    assert.match(text(await landed(b, await b.post(`/lists/${id}/edit`, sent))), /The list is saved\./);
    // A second click on a save that adds a column finds it saved too, with the column added once.
    const form3 = await b.get(`/lists/${id}/edit`);
    const adding = { ...filledForm(form3.body, `/lists/${id}/edit`), 'col.1.title': 'Year', 'col.1.type': '13' };
    await landed(b, await b.post(`/lists/${id}/edit`, adding));
    assert.match(text(await landed(b, await b.post(`/lists/${id}/edit`, adding))), /The list is saved\./);
    assert.deepEqual(((await listsOf(token))[0]?.['cols'] as Rec[]).map((c) => [c['id'], c['title']]), [[1, 'Name'], [2, 'Year']]);
    // A stale save that adds a different column still answers 409.
    assert.equal((await b.post(`/lists/${id}/edit`, { ...adding, 'col.1.title': 'Director' })).statusCode, 409);
  });

  it('a list is deleted with its rows after a question', async () => {
    const { b, token } = await person();
    const id = (await api(ctx, token, '/3/lists/add.php', { lists: JSON.stringify([{ title: 'Old <list>', ref: 'o', cols: [{ title: 'A', type: 19 }] }]) })).json<Rec[]>()[0]?.['id'] as string;
    await api(ctx, token, '/3/rows/add.php', { rows: JSON.stringify([{ list: id, ref: 'a', cells: { c1: 'x' } }, { list: id, ref: 'b', cells: { c1: 'y' } }]) });
    const question = await b.get(`/lists/${id}/delete`);
    assert.match(text(question), /Delete the list “Old <list>”\? Its 2 rows go with it\. No task links to this list\./);
    assert.doesNotMatch(question.body, /Old <list>/, 'the title is written as text');
    const done = await landed(b, await b.post(`/lists/${id}/delete`, formInputs(question.body, `/lists/${id}/delete`)));
    assert.match(text(done), /Deleted the list “Old <list>”\./);
    assert.deepEqual(await listsOf(token), []);
    assert.equal((await b.get(`/lists/${id}/edit`)).statusCode, 404);
    assert.equal((await b.post(`/lists/${id}/delete`, formInputs(question.body, `/lists/${id}/delete`))).statusCode, 404);
  });

  // The lists, rows and outlines forms together: each post refused without its token, from another site, or signed out.
  it('every form post of the lists, rows and outlines pages needs its CSRF token, this site and a session', async () => {
    const { account, token } = await signIn(ctx, { scope: 'basic lists outlines write' });
    const b = await signedInBrowser(ctx, account);
    const list = (await api(ctx, token, '/3/lists/add.php', { lists: JSON.stringify([{ title: 'Kept', ref: 'k', cols: [{ title: 'A', type: 19 }] }]) })).json<Rec[]>()[0]?.['id'] as string;
    const row = (await api(ctx, token, '/3/rows/add.php', { rows: JSON.stringify([{ list, ref: 'r', cells: { c1: 'kept' } }]) })).json<Rec[]>()[0]?.['id'] as string;
    const outline = (await api(ctx, token, '/3/outlines/add.php', { outlines: JSON.stringify([{ title: 'Kept', ref: 'o', nodes: [{ content: 'kept' }] }]) })).json<Rec[]>()[0]?.['id'] as string;
    const csrf = formInputs((await b.get(`/lists/${list}/edit`)).body, `/lists/${list}/edit`)['_csrf'] as string;
    const posts: ReadonlyArray<readonly [string, Record<string, string>]> = [
      ['/lists', { ref: 'x', title: 'New', slots: '1', 'col.0.title': 'A', 'col.0.type': '19' }],
      [`/lists/${list}/edit`, { version: '1', title: 'Changed', slots: '1', 'col.0.id': '1', 'col.0.title': 'A', 'col.0.type': '19' }],
      [`/lists/${list}/delete`, {}],
      [`/lists/${list}/rows`, { ref: 'y', c1: 'new' }],
      [`/lists/${list}/rows/${row}`, { version: '1', c1: 'changed' }],
      [`/lists/${list}/rows/${row}/delete`, {}],
      ['/outlines', { ref: 'z', title: 'New', keywords: '', note: '', items: 'one' }],
      [`/outlines/${outline}/edit`, { version: '1', title: 'Changed', keywords: '', note: '', items: 'changed' }],
      [`/outlines/${outline}/delete`, {}],
    ];
    const signedOut = new Browser(ctx.app);
    for (const [url, form] of posts) {
      assert.equal((await b.post(url, form)).statusCode, 403, `${url} without a token`);
      assert.equal((await b.crossSitePost(url, { ...form, _csrf: csrf })).statusCode, 403, `${url} from another site`);
      const out = await signedOut.post(url, { ...form, _csrf: csrf });
      // Refused: without the session's CSRF cookie (403), or sent to sign in; never done.
      assert.ok(out.statusCode === 403 || (out.statusCode === 303 && /\/signin/.test(String(out.headers['location']))), `${url} signed out: ${out.statusCode}`);
    }
    assert.deepEqual((await listsOf(token)).map((l) => [l['title'], l['version']]), [['Kept', 1]]);
    assert.deepEqual((await api(ctx, token, '/3/rows/get.php', { list })).json<Rec[]>().map((r) => r['cells']), [{ c1: 'kept' }]);
    const outlines = (await api(ctx, token, '/3/outlines/get.php')).json<Rec[] | null>() ?? [];
    assert.deepEqual(outlines.map((o) => [o['title'], o['version']]), [['Kept', 1]]);
  });

  it("another person's list answers 404 and changes nothing", async () => {
    const owner = await person();
    const id = (await api(ctx, owner.token, '/3/lists/add.php', { lists: JSON.stringify([{ title: 'Secret', ref: 's', cols: [{ title: 'A', type: 19 }] }]) })).json<Rec[]>()[0]?.['id'] as string;
    const stranger = await person();
    const csrf = formInputs((await stranger.b.get('/lists/new')).body, '/lists');
    for (const url of [`/lists/${id}/edit`, `/lists/${id}/delete`]) {
      const shown = await stranger.b.get(url);
      assert.equal(shown.statusCode, 404, url);
      assert.doesNotMatch(shown.body, /Secret/);
      assert.equal((await stranger.b.post(url, { ...csrf, version: '1', slots: '0', title: 'Mine now' })).statusCode, 404, url);
    }
    assert.equal((await listsOf(owner.token))[0]?.['title'], 'Secret');
  });
});
