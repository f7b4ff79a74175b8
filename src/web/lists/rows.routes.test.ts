import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, filledForm, formInputs, submit } from '../../../test/browser.js';
import { api, signIn, testContext, type TestContext } from '../../../test/harness.js';
import { landed, signedInBrowser, text } from '../../../test/web-pages.js';

/**
 * A list row's pages through app.inject: add, edit and delete a row by its form, through the
 * service rows/add, edit and delete use (the API's rules of each column type, its codes beside
 * the field they are about), an edit made on the version the form showed, a form sent twice
 * adding one row, and another person's lists and rows out of reach.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testContext();
});
after(() => ctx.close());

type Rec = Record<string, unknown>;

const COLS = [
  { title: 'Item', type: 19 },
  { title: 'Qty', type: 13 },
  { title: 'Done', type: 1 },
  { title: 'Shops', type: 9, choices: ['market', 'bakery', 'corner'] },
  { title: 'By', type: 3 },
  { title: 'Call at', type: 4 },
  { title: 'Price', type: 2 },
  { title: 'Size', type: 10, choices: ['S', 'M'] },
];

async function person(): Promise<{ b: Browser; token: string }> {
  const { account, token } = await signIn(ctx, { scope: 'basic lists write' });
  return { b: await signedInBrowser(ctx, account), token };
}

/** A list of the columns above (or `cols`); its id. */
async function newList(token: string, title = 'Groceries', cols: unknown[] = COLS): Promise<string> {
  const added = (await api(ctx, token, '/3/lists/add.php', { lists: JSON.stringify([{ title, ref: title, cols }]) })).json<Rec[]>();
  const id = added[0]?.['id'];
  assert.equal(typeof id, 'string', JSON.stringify(added));
  return id as string;
}

/** The list's rows as rows/get answers them. */
async function rowsOf(token: string, list: string): Promise<Rec[]> {
  const res = await api(ctx, token, '/3/rows/get.php', { list });
  return res.json<Rec[] | null>() ?? [];
}

const stamp = async (token: string): Promise<number> => (await api(ctx, token, '/3/account/get.php')).json<Rec>()['lastedit_list'] as number;

describe('list row pages', () => {
  it('a row added by its form holds what each field meant, in the account\'s timezone', async () => {
    const { b, token } = await person();
    // Five hours ahead of UTC (half hours from UTC-5).
    const settings = { alias: 'Tester', timezone: '20', dateformat: '3', hidemonths: '6', hotlistpriority: '3', hotlistduedate: '2', hotliststar: '1', hotliststatus: '1', showtabnums: '1' };
    await landed(b, await submit(b, '/account', settings, '/account/settings'));
    const id = await newList(token);
    const page = await b.get(`/lists/${id}`);
    assert.match(page.body, new RegExp(`<a class="button" href="/lists/${id}/rows/new">Add a row</a>`));
    const form = await b.get(`/lists/${id}/rows/new`);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<label for="f-c1">Item<\/label><input id="f-c1" name="c1" autofocus type="text" value="">/);
    // A whole number may be negative: the full keyboard, which has the minus sign.
    assert.match(form.body, /<input id="f-c2" name="c2" aria-describedby="f-c2-hint" type="text" value="">/);
    assert.match(form.body, /<fieldset><legend>Shops<\/legend><label class="check" for="f-c4-0"><input type="checkbox" id="f-c4-0" name="c4.0" value="market"> market<\/label>/);
    assert.match(form.body, /type="date" value=""/);
    assert.match(form.body, /type="datetime-local" value=""/);
    assert.match(form.body, /<option value="" selected>None<\/option><option value="S">S<\/option>/);
    const before = await stamp(token);
    ctx.clock.advance(5_000);
    const res = await b.post(`/lists/${id}/rows`, { ...formInputs(form.body, `/lists/${id}/rows`), c1: ' Bread ', c2: '3', c3: '1', 'c4.1': 'bakery', 'c4.2': 'corner', c5: '2026-03-14', c6: '2026-03-15T03:30', c7: '2.345', c8: 'M' });
    const shown = await landed(b, res);
    assert.match(text(shown), /The row is added\./);
    assert.match(text(shown), /Edit Bread 3 Yes bakery, corner 2026-03-14 2026-03-15 03:30 2\.35 M/);
    const [row] = await rowsOf(token, id);
    assert.deepEqual(row?.['cells'], { c1: 'Bread', c2: 3, c3: 1, c4: ['bakery', 'corner'], c5: Date.UTC(2026, 2, 14, 12) / 1000, c6: Date.UTC(2026, 2, 14, 22, 30) / 1000, c7: 2.35, c8: 'M' });
    assert.ok((await stamp(token)) > before, 'lastedit_list moved: apps see the row at their next sync');
  });

  it('a refused cell comes back beside its field with what was typed, and nothing is added', async () => {
    const { b, token } = await person();
    const id = await newList(token);
    const res = await submit(b, `/lists/${id}/rows/new`, { c1: 'Eggs', c2: 'a dozen', 'c4.0': 'market' }, `/lists/${id}/rows`);
    assert.equal(res.statusCode, 422);
    assert.match(text(res), /Not added: Qty must be a whole number \(error 1013\)/);
    assert.match(res.body, /id="f-c2" name="c2" aria-describedby="f-c2-hint f-c2-error" aria-invalid="true" autofocus type="text" value="a dozen"/);
    assert.match(res.body, /value="Eggs"/);
    assert.match(res.body, /name="c4.0" value="market" checked/);
    assert.doesNotMatch(res.body, /id="f-c1"[^>]*autofocus/, 'the refused field takes the focus, not the first');
    // Sent again as it is, after the fix: the ref the form kept adds one row.
    const fixed = await b.post(`/lists/${id}/rows`, { ...formInputs(res.body, `/lists/${id}/rows`), c1: 'Eggs', c2: '12' });
    await landed(b, fixed);
    assert.deepEqual((await rowsOf(token, id)).map((r) => r['cells']), [{ c1: 'Eggs', c2: 12 }]);
    const shops = await submit(b, `/lists/${id}/rows/new`, { c8: 'XL' }, `/lists/${id}/rows`);
    assert.match(text(shops), /Not added: Size must be one of its choices \("S", "M"\) \(error 1013\)/);
  });

  it('a form sent twice adds one row; a field sent twice is refused', async () => {
    const { b, token } = await person();
    const id = await newList(token);
    const form = await b.get(`/lists/${id}/rows/new`);
    const fields = { ...formInputs(form.body, `/lists/${id}/rows`), c1: 'Milk' };
    await landed(b, await b.post(`/lists/${id}/rows`, fields));
    const again = await landed(b, await b.post(`/lists/${id}/rows`, fields));
    assert.match(text(again), /The row is added\./);
    assert.equal((await rowsOf(token, id)).length, 1);
    const twice = await b.post(`/lists/${id}/rows`, [...Object.entries(fields), ['c2', '1'], ['c2', '2']]);
    assert.equal(twice.statusCode, 400);
    assert.equal((await rowsOf(token, id)).length, 1);
  });

  it('an edit changes what was changed and keeps the rest exactly; an unchanged form changes nothing', async () => {
    const { b, token } = await person();
    const id = await newList(token);
    // A short text with a line break an app stored, which a one-line field would drop.
    const cells = { c1: 'Tea\nloose leaf', c2: 2, c3: 0, c4: ['market'], c6: Date.UTC(2026, 2, 14, 22, 30, 59) / 1000, c7: 4.5 };
    const added = (await api(ctx, token, '/3/rows/add.php', { rows: JSON.stringify([{ list: id, ref: 'a', cells }]) })).json<Rec[]>();
    const rowId = added[0]?.['id'] as string;
    const page = await b.get(`/lists/${id}`);
    assert.match(page.body, new RegExp(`<a href="/lists/${id}/rows/${rowId}" aria-label="Edit row 1, Tea\nloose leaf">Edit</a>`));
    const path = `/lists/${id}/rows/${rowId}`;
    const form = await b.get(path);
    assert.match(form.body, /<h1>Edit a row<\/h1>/);
    assert.match(form.body, /value="4\.50"/);
    assert.match(form.body, /<textarea id="f-c1" name="c1" autofocus rows="2">\nTea\nloose leaf<\/textarea>/);
    // The account's timezone is UTC-5 (timezone 0, the default).
    assert.match(form.body, /type="datetime-local" value="2026-03-14T17:30"/);
    // The form as shown: nothing changes (the seconds it cannot show, the 0 of an unticked box).
    const same = await landed(b, await b.post(path, filledForm(form.body, path)));
    assert.match(text(same), /Nothing to save: the row was not changed\./);
    assert.deepEqual((await rowsOf(token, id))[0]?.['cells'], cells);
    assert.equal((await rowsOf(token, id))[0]?.['version'], 1);
    ctx.clock.advance(5_000);
    const saved = await landed(b, await b.post(path, { ...filledForm(form.body, path), c1: 'Green tea', c3: '1', c7: '' }));
    assert.match(text(saved), /The row is saved\./);
    const [row] = await rowsOf(token, id);
    assert.deepEqual(row?.['cells'], { c1: 'Green tea', c2: 2, c3: 1, c4: ['market'], c6: cells.c6 });
    assert.equal(row?.['version'], 2);
  });

  it('an edit made on an older version shows the row as it now is, and a second save replaces it', async () => {
    const { b, token } = await person();
    const id = await newList(token);
    const rowId = (await api(ctx, token, '/3/rows/add.php', { rows: JSON.stringify([{ list: id, ref: 'a', cells: { c1: 'Soap' } }]) })).json<Rec[]>()[0]?.['id'] as string;
    const path = `/lists/${id}/rows/${rowId}`;
    const form = await b.get(path);
    // An app edits the row while the form is open.
    await api(ctx, token, '/3/rows/edit.php', { rows: JSON.stringify([{ id: rowId, version: 1, cells: { c1: 'Hand soap', c2: 3 } }]) });
    const stale = await b.post(path, { ...filledForm(form.body, path), c1: 'Soap bars' });
    assert.equal(stale.statusCode, 409);
    assert.match(text(stale), /The row as it is now Item Hand soap Qty 3/);
    assert.match(text(stale), /Not saved: The row was changed \(by an app, or on another page\) after this form was opened \(error 1014\)/);
    assert.match(stale.body, /value="Soap bars"/, 'what was typed is kept');
    assert.equal(((await rowsOf(token, id))[0]?.['cells'] as Rec)['c1'], 'Hand soap', 'the refused edit changed nothing');
    // The field the person did not touch holds the app's value: saving again keeps it.
    assert.match(stale.body, /id="f-c2" name="c2" aria-describedby="f-c2-hint" type="text" value="3"/);
    await landed(b, await b.post(path, filledForm(stale.body, path)));
    const [row] = await rowsOf(token, id);
    assert.deepEqual(row?.['cells'], { c1: 'Soap bars', c2: 3 });
    assert.equal(row?.['version'], 3);
  });

  it('a save sent twice (a second click) finds the row saved; a stale save that differs still answers 409', async () => {
    const { b, token } = await person();
    const id = await newList(token, 'Twice', [{ title: 'Item', type: 19 }, { title: 'Done', type: 1 }]);
    const rowId = (await api(ctx, token, '/3/rows/add.php', { rows: JSON.stringify([{ list: id, ref: 'a', cells: { c1: 'Saw' } }]) })).json<Rec[]>()[0]?.['id'] as string;
    const path = `/lists/${id}/rows/${rowId}`;
    const sent = { ...filledForm((await b.get(path)).body, path), c1: 'Hand saw', c2: '1' };
    assert.match(text(await landed(b, await b.post(path, sent))), /The row is saved\./);
    assert.match(text(await landed(b, await b.post(path, sent))), /The row is saved\./, 'the second click');
    assert.equal((await rowsOf(token, id))[0]?.['version'], 2, 'saved once');
    assert.equal((await b.post(path, { ...sent, c1: 'Bow saw' })).statusCode, 409, 'a different text on the old version');
    assert.deepEqual((await rowsOf(token, id))[0]?.['cells'], { c1: 'Hand saw', c2: 1 });
  });

  it('a column an app added while the form was open keeps the value the app gave the row, through a stale save', async () => {
    const { b, token } = await person();
    const id = await newList(token, 'Tools', [{ title: 'Item', type: 19 }, { title: 'Qty', type: 13 }]);
    const rowId = (await api(ctx, token, '/3/rows/add.php', { rows: JSON.stringify([{ list: id, ref: 'a', cells: { c1: 'Saw', c2: 1 } }]) })).json<Rec[]>()[0]?.['id'] as string;
    const path = `/lists/${id}/rows/${rowId}`;
    const form = await b.get(path);
    // An app adds a column (c3) and fills it in this row while the form is open.
    const cols = [{ id: 1, title: 'Item', type: 19 }, { id: 2, title: 'Qty', type: 13 }, { title: 'Shed', type: 19 }];
    const edited = (await api(ctx, token, '/3/lists/edit.php', { lists: JSON.stringify([{ id, version: 1, cols }]) })).json<Rec[]>();
    assert.equal(edited[0]?.['errorCode'], undefined, JSON.stringify(edited));
    await api(ctx, token, '/3/rows/edit.php', { rows: JSON.stringify([{ id: rowId, version: 1, cells: { c1: 'Saw', c2: 1, c3: 'Back shelf' } }]) });
    const stale = await b.post(path, { ...filledForm(form.body, path), c1: 'Hand saw' });
    assert.equal(stale.statusCode, 409);
    assert.match(stale.body, /value="Hand saw"/, 'what was typed is kept');
    assert.match(stale.body, /name="c3"[^>]* value="Back shelf"/, "the new column shows the app's value, which the person never saw");
    await landed(b, await b.post(path, filledForm(stale.body, path)));
    assert.deepEqual((await rowsOf(token, id))[0]?.['cells'], { c1: 'Hand saw', c2: 1, c3: 'Back shelf' });
  });

  it('a row is deleted after a question; a row deleted meanwhile answers 404', async () => {
    const { b, token } = await person();
    const id = await newList(token);
    const rowIds = (await api(ctx, token, '/3/rows/add.php', { rows: JSON.stringify([{ list: id, ref: 'a', cells: { c1: 'Salt', c3: 1 } }, { list: id, ref: 'b', cells: { c1: 'Pepper' } }]) })).json<Rec[]>().map((r) => r['id'] as string);
    const path = `/lists/${id}/rows/${rowIds[0] ?? ''}`;
    assert.match((await b.get(path)).body, new RegExp(`href="${path}/delete">Delete the row…</a>`));
    const question = await b.get(`${path}/delete`);
    assert.match(text(question), /Delete this row of “Groceries”\? Item Salt Done Yes/);
    const before = await stamp(token);
    ctx.clock.advance(5_000);
    const done = await landed(b, await b.post(`${path}/delete`, formInputs(question.body, `${path}/delete`)));
    assert.match(text(done), /Deleted the row\./);
    assert.deepEqual((await rowsOf(token, id)).map((r) => r['id']), [rowIds[1]]);
    assert.ok((await stamp(token)) > before);
    assert.equal((await b.post(`${path}/delete`, formInputs(question.body, `${path}/delete`))).statusCode, 404);
    assert.equal((await b.get(path)).statusCode, 404);
    assert.equal((await b.post(path, { ...formInputs(question.body, `${path}/delete`), version: '1', c1: 'x' })).statusCode, 404);
  });

  it('choices reordered or added by an app while the form is open: each box still means its choice', async () => {
    const { b, token } = await person();
    const id = await newList(token);
    const form = await b.get(`/lists/${id}/rows/new`);
    const version = (await api(ctx, token, '/3/lists/get.php')).json<Rec[]>().find((l) => l['id'] === id)?.['version'];
    const cols = (await api(ctx, token, '/3/lists/get.php')).json<Rec[]>().find((l) => l['id'] === id)?.['cols'] as Rec[];
    const changed = cols.map((c) => (c['title'] === 'Shops' ? { ...c, choices: ['deli', 'corner', 'market', 'bakery'] } : c));
    assert.equal((await api(ctx, token, '/3/lists/edit.php', { lists: JSON.stringify([{ id, version, cols: changed }]) })).statusCode, 200);
    // The form's second box was "bakery" when it was shown; in the column it is now the fourth.
    await landed(b, await b.post(`/lists/${id}/rows`, { ...formInputs(form.body, `/lists/${id}/rows`), c1: 'Rolls', 'c4.1': 'bakery' }));
    assert.deepEqual((await rowsOf(token, id))[0]?.['cells'], { c1: 'Rolls', c4: ['bakery'] });
  });

  it("another person's list and rows answer 404 and change nothing; a row is named within its list", async () => {
    const owner = await person();
    const id = await newList(owner.token, 'Mine');
    const other = await newList(owner.token, 'Other');
    const rowId = (await api(ctx, owner.token, '/3/rows/add.php', { rows: JSON.stringify([{ list: id, ref: 'a', cells: { c1: 'Secret' } }]) })).json<Rec[]>()[0]?.['id'] as string;
    const stranger = await person();
    const own = await newList(stranger.token, 'Theirs');
    const csrf = formInputs((await stranger.b.get(`/lists/${own}/rows/new`)).body, `/lists/${own}/rows`);
    for (const url of [`/lists/${id}/rows/new`, `/lists/${id}/rows/${rowId}`, `/lists/${id}/rows/${rowId}/delete`, `/lists/${own}/rows/${rowId}`, '/lists/nope/rows/new', `/lists/${own}/rows/nope`]) {
      const res = await stranger.b.get(url);
      assert.equal(res.statusCode, 404, url);
      assert.doesNotMatch(res.body, /Secret/);
    }
    for (const url of [`/lists/${id}/rows`, `/lists/${id}/rows/${rowId}`, `/lists/${id}/rows/${rowId}/delete`, `/lists/${own}/rows/${rowId}`, `/lists/${own}/rows/${rowId}/delete`]) {
      assert.equal((await stranger.b.post(url, { ...csrf, version: '1', c1: 'Mine now' })).statusCode, 404, url);
    }
    // The owner's row under the owner's other list: not that list's.
    assert.equal((await owner.b.get(`/lists/${other}/rows/${rowId}`)).statusCode, 404);
    const ownerCsrf = formInputs((await owner.b.get(`/lists/${other}/rows/new`)).body, `/lists/${other}/rows`);
    for (const url of [`/lists/${other}/rows/${rowId}`, `/lists/${other}/rows/${rowId}/delete`]) {
      assert.equal((await owner.b.post(url, { ...ownerCsrf, version: '1', c1: 'Moved' })).statusCode, 404, url);
    }
    assert.deepEqual((await rowsOf(owner.token, id)).map((r) => r['cells']), [{ c1: 'Secret' }]);
    const visitor = await new Browser(ctx.app).get(`/lists/${id}/rows/new`);
    assert.equal(visitor.statusCode, 303);
  });

  it('a list without columns offers no row to add', async () => {
    const { b, token } = await person();
    const id = await newList(token, 'Bare', []);
    const page = await b.get(`/lists/${id}`);
    assert.match(text(page), /This list has no columns yet: give it some with “Change the list”\./);
    assert.doesNotMatch(page.body, /Add a row/);
    assert.equal((await b.get(`/lists/${id}/rows/new`)).statusCode, 409);
    // A form shown while the list had columns, sent after they were removed.
    const had = await newList(token, 'Had columns');
    const form = await b.get(`/lists/${had}/rows/new`);
    const cols = (await api(ctx, token, '/3/lists/get.php')).json<Rec[]>().find((l) => l['id'] === had)?.['version'];
    await api(ctx, token, '/3/lists/edit.php', { lists: JSON.stringify([{ id: had, version: cols, cols: [] }]) });
    const late = await b.post(`/lists/${had}/rows`, { ...formInputs(form.body, `/lists/${had}/rows`), c1: 'x' });
    assert.equal(late.statusCode, 409);
    assert.match(text(late), /This list has no columns to fill in/);
    assert.deepEqual(await rowsOf(token, had), []);
  });
});
