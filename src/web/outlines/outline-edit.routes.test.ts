import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, filledForm, formInputs } from '../../../test/browser.js';
import { api, signIn, testContext, type TestContext } from '../../../test/harness.js';
import { landed, signedInBrowser, text } from '../../../test/web-pages.js';

/**
 * An outline's own pages through app.inject: make one with its items typed as indented lines,
 * change it (items kept, moved, checked, added: ids follow the text), delete it, through the
 * service outlines/add, edit and delete use; refusals beside their field; another person's
 * outline out of reach.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testContext();
});
after(() => ctx.close());

type Rec = Record<string, unknown>;
interface Node {
  id: number;
  content: string;
  checked: number;
  children: Node[];
}

async function person(): Promise<{ b: Browser; token: string }> {
  const { account, token } = await signIn(ctx, { scope: 'basic outlines write' });
  return { b: await signedInBrowser(ctx, account), token };
}

async function outlinesOf(token: string): Promise<Rec[]> {
  return (await api(ctx, token, '/3/outlines/get.php')).json<Rec[] | null>() ?? [];
}

const itemsOf = (o: Rec | undefined): Node[] => ((o?.['nodes'] as Rec | undefined)?.['children'] as Node[] | undefined) ?? [];
const shape = (nodes: readonly Node[]): unknown[] => nodes.map((n) => [n.content, n.checked, ...(n.children.length > 0 ? [shape(n.children)] : [])]);

describe('outline pages', () => {
  it('an outline is made with its items typed as indented lines', async () => {
    const { b, token } = await person();
    assert.match((await b.get('/outlines')).body, /<a class="button" href="\/outlines\/new">Make an outline<\/a>/);
    const form = await b.get('/outlines/new');
    assert.match(form.body, /<h1>Make an outline<\/h1>/);
    const res = await b.post('/outlines', { ...formInputs(form.body, '/outlines'), title: 'Moving', keywords: 'home', note: 'By May', hidden: '1', items: 'Pack\r\n  [x] Books\r\n  Kitchen\r\n\t  Glasses\r\n\r\nTell the bank\r\n' });
    const page = await landed(b, res);
    assert.match(text(page), /The outline is made\./);
    assert.match(text(page), /Pack ✓ Done: Books Kitchen Glasses Tell the bank/);
    const [o] = await outlinesOf(token);
    assert.equal(o?.['title'], 'Moving');
    assert.equal(o?.['hidden'], 1);
    assert.deepEqual(shape(itemsOf(o)), [['Pack', 0, [['Books', 1], ['Kitchen', 0, [['Glasses', 0]]]]], ['Tell the bank', 0]]);
    // Sent twice: one outline.
    await landed(b, await b.post('/outlines', { ...formInputs(form.body, '/outlines'), title: 'Moving', items: 'Pack' }));
    assert.equal((await outlinesOf(token)).length, 1);
  });

  it('a change keeps the ids of the items left as they were; the form saved as shown changes nothing', async () => {
    const { b, token } = await person();
    const nodes = [{ content: 'Pack', children: [{ content: 'Books' }, { content: '  odd [x]' }] }, { content: 'Bank', checked: 1 }];
    const id = (await api(ctx, token, '/3/outlines/add.php', { outlines: JSON.stringify([{ title: 'Move', ref: 'm', note: 'a\r\nb', nodes }]) })).json<Rec[]>()[0]?.['id'] as string;
    const before = (await outlinesOf(token))[0];
    const ids = (n: readonly Node[]): Record<string, number> => Object.fromEntries(n.flatMap((x) => [[x.content, x.id], ...Object.entries(ids(x.children))]));
    const was = ids(itemsOf(before));
    const path = `/outlines/${id}/edit`;
    const form = await b.get(path);
    assert.match(form.body, /<textarea id="f-items" name="items" aria-describedby="f-items-hint" rows="14">\nPack\n {2}Books\n {2}\[ \] {3}odd \[x\]\n\[x\] Bank<\/textarea>/);
    const same = await landed(b, await b.post(path, filledForm(form.body, path)));
    assert.match(text(same), /Nothing to save: the outline was not changed\./);
    assert.deepEqual((await outlinesOf(token))[0], before);
    ctx.clock.advance(5_000);
    const saved = await landed(b, await b.post(path, { ...filledForm(form.body, path), items: '[x] Bank\nPack\n  [x] Books\n  New one' }));
    assert.match(text(saved), /The outline is saved\./);
    const after = itemsOf((await outlinesOf(token))[0]);
    assert.deepEqual(shape(after), [['Bank', 1], ['Pack', 0, [['Books', 1], ['New one', 0]]]]);
    const now = ids(after);
    assert.equal(now['Bank'], was['Bank']);
    assert.equal(now['Pack'], was['Pack']);
    assert.equal(now['Books'], was['Books']);
    assert.ok(!Object.values(was).includes(now['New one'] ?? 0), 'a new item has an id of its own');
  });

  it('refusals come back beside their field with what was typed', async () => {
    const { b, token } = await person();
    const form = await b.get('/outlines/new');
    const long = await b.post('/outlines', { ...formInputs(form.body, '/outlines'), title: 'T', items: `ok\n${'x'.repeat(151)}` });
    assert.equal(long.statusCode, 422);
    assert.match(text(long), /Not made: Line 2 is longer than 150 characters, the most an item holds \(error 811\)/);
    assert.match(long.body, /id="f-items" name="items" aria-describedby="f-items-hint f-items-error" aria-invalid="true" autofocus/);
    const deep = await b.post('/outlines', { ...formInputs(form.body, '/outlines'), title: 'T', items: Array.from({ length: 34 }, (_, i) => `${' '.repeat(i)}level ${i}`).join('\n') });
    assert.match(text(deep), /Line 33 is nested deeper than 32 levels, the most an outline holds \(error 813\)/);
    assert.match(deep.body, /id="f-items"[^>]*aria-invalid="true"/);
    // Megabytes of lines: refused at the account's most items, at once.
    const many = await b.post('/outlines', { ...formInputs(form.body, '/outlines'), title: 'T', items: 'x\n'.repeat(1_000_000) });
    assert.equal(many.statusCode, 422);
    assert.match(text(many), /Max nodes reached: an outline holds at most \d+ items \(line \d+ is item \d+\) \(error 808\)/);
    const untitled = await b.post('/outlines', { ...formInputs(form.body, '/outlines'), title: '', items: 'kept' });
    assert.match(untitled.body, /id="f-title" name="title" aria-describedby="f-title-error" aria-invalid="true" autofocus/);
    assert.match(untitled.body, />\nkept<\/textarea>/);
    assert.deepEqual(await outlinesOf(token), []);
  });

  it("after a stale save, the header fields the person left as shown take the app's change; those typed over replace it", async () => {
    const { b, token } = await person();
    const id = (await api(ctx, token, '/3/outlines/add.php', { outlines: JSON.stringify([{ title: 'Trip', ref: 'h', keywords: 'travel', note: 'one\ntwo', nodes: [{ content: 'Tickets' }] }]) })).json<Rec[]>()[0]?.['id'] as string;
    const path = `/outlines/${id}/edit`;
    const form = await b.get(path);
    // An app renames the outline, marks it hidden and changes its note while the form is open.
    await api(ctx, token, '/3/outlines/edit.php', { outlines: JSON.stringify([{ id, version: 1, title: 'Trip to Rome', note: 'one\r\ntwo\r\nthree', hidden: 1 }]) });
    // The person changes the keywords only (the note sent back as a browser sends it, CRLF).
    const stale = await b.post(path, { ...filledForm(form.body, path), keywords: 'holiday', note: 'one\r\ntwo' });
    assert.equal(stale.statusCode, 409);
    assert.match(stale.body, /name="title"[^>]* value="Trip to Rome"/, "the app's title, which the person left as shown");
    assert.match(stale.body, /name="keywords"[^>]* value="holiday"/, 'what was typed');
    assert.match(stale.body, />\none\r?\ntwo\r?\nthree<\/textarea>/, "the app's note");
    assert.match(stale.body, /name="hidden"[^>]* checked/, "the app's hidden flag");
    await landed(b, await b.post(path, filledForm(stale.body, path)));
    const [o] = await outlinesOf(token);
    assert.deepEqual([o?.['title'], o?.['keywords'], o?.['note'], o?.['hidden']], ['Trip to Rome', 'holiday', 'one\r\ntwo\r\nthree', 1]);
  });

  it('a change made on an older version shows the outline as it now is above what was typed', async () => {
    const { b, token } = await person();
    const id = (await api(ctx, token, '/3/outlines/add.php', { outlines: JSON.stringify([{ title: 'Trip', ref: 't', nodes: [{ content: 'Tickets' }] }]) })).json<Rec[]>()[0]?.['id'] as string;
    const path = `/outlines/${id}/edit`;
    const form = await b.get(path);
    await api(ctx, token, '/3/outlines/edit.php', { outlines: JSON.stringify([{ id, version: 1, nodes: [{ content: 'Tickets', checked: 1 }, { content: 'Passport' }] }]) });
    const stale = await b.post(path, { ...filledForm(form.body, path), items: 'Tickets\nHotel' });
    assert.equal(stale.statusCode, 409);
    assert.match(text(stale), /The outline was changed \(by an app, or on another page\) after this form was opened \(error 814\)/);
    assert.match(text(stale), /The outline as it is now Title Trip Hidden No ✓ Done: Tickets Passport Saving replaces it with what is below\./);
    assert.match(stale.body, />\nTickets\nHotel<\/textarea>/);
    await landed(b, await b.post(path, filledForm(stale.body, path)));
    assert.deepEqual(shape(itemsOf((await outlinesOf(token))[0])), [['Tickets', 0], ['Hotel', 0]]);
    // The same save sent twice (a second click): the second finds it done.
    const again = await b.get(path);
    const sent = { ...filledForm(again.body, path), hidden: '1', items: 'Tickets\n  [x] Hotel' };
    await landed(b, await b.post(path, sent));
    assert.match(text(await landed(b, await b.post(path, sent))), /The outline is saved\./);
    const [o] = await outlinesOf(token);
    assert.equal(o?.['hidden'], 1);
    assert.deepEqual(shape(itemsOf(o)), [['Tickets', 0, [['Hotel', 1]]]]);
  });

  it('an outline holding a line break in an item: its items are left to the apps, the rest changes', async () => {
    const { b, token } = await person();
    const id = (await api(ctx, token, '/3/outlines/add.php', { outlines: JSON.stringify([{ title: 'Odd', ref: 'o', nodes: [{ content: 'two\nlines' }] }]) })).json<Rec[]>()[0]?.['id'] as string;
    const path = `/outlines/${id}/edit`;
    const form = await b.get(path);
    assert.match(text(form), /The items are changed by the apps that keep this outline/);
    assert.doesNotMatch(form.body, /name="items"/);
    await landed(b, await b.post(path, { ...filledForm(form.body, path), title: 'Odd one' }));
    const [o] = await outlinesOf(token);
    assert.equal(o?.['title'], 'Odd one');
    assert.deepEqual(shape(itemsOf(o)), [['two\nlines', 0]]);
  });

  it('an outline is deleted after a question; another person\'s answers 404 and changes nothing', async () => {
    const owner = await person();
    const id = (await api(ctx, owner.token, '/3/outlines/add.php', { outlines: JSON.stringify([{ title: 'Secret <plan>', ref: 's', nodes: [{ content: 'a' }, { content: 'b' }] }]) })).json<Rec[]>()[0]?.['id'] as string;
    const stranger = await person();
    const csrf = formInputs((await stranger.b.get('/outlines/new')).body, '/outlines');
    for (const url of [`/outlines/${id}/edit`, `/outlines/${id}/delete`]) {
      const shown = await stranger.b.get(url);
      assert.equal(shown.statusCode, 404, url);
      assert.doesNotMatch(shown.body, /Secret/);
      assert.equal((await stranger.b.post(url, { ...csrf, version: '1', title: 'Mine now' })).statusCode, 404, url);
    }
    const question = await owner.b.get(`/outlines/${id}/delete`);
    assert.match(text(question), /Delete the outline “Secret <plan>”\? Its 2 items go with it\. No task links to this outline\./);
    const done = await landed(owner.b, await owner.b.post(`/outlines/${id}/delete`, formInputs(question.body, `/outlines/${id}/delete`)));
    assert.match(text(done), /Deleted the outline “Secret <plan>”\./);
    assert.deepEqual(await outlinesOf(owner.token), []);
  });
});
