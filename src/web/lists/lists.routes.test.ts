import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser } from '../../../test/browser.js';
import { api, signIn, testContext, type TestContext } from '../../../test/harness.js';
import { signedInBrowser, text } from '../../../test/web-pages.js';
import type { ListColumn } from '../../storage/store.js';
import { cellText, listPage } from '../views/lists.js';

/**
 * The lists pages through app.inject: the account's lists, and a list's rows as a table of its
 * columns, as lists/get and rows/get read them; another person's list out of reach.
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

const COLS = [
  { title: 'Item', type: 19 },
  { title: 'Qty', type: 13 },
  { title: 'Done', type: 1 },
  { title: 'Shops', type: 9, choices: ['market', 'bakery'] },
  { title: 'By', type: 3 },
];

/** A list of the five columns above, with `rows` added through the API; its id. */
async function listWith(token: string, title: string, rows: ReadonlyArray<Record<string, unknown>>): Promise<string> {
  const added = (await api(ctx, token, '/3/lists/add.php', { lists: JSON.stringify([{ title, ref: title, note: 'For the weekend', keywords: 'home', cols: COLS }]) })).json<Rec[]>();
  const id = added[0]?.['id'];
  assert.equal(typeof id, 'string', JSON.stringify(added));
  if (rows.length > 0) {
    const res = await api(ctx, token, '/3/rows/add.php', { rows: JSON.stringify(rows.map((cells, i) => ({ list: id, ref: `r${i}`, cells }))) });
    assert.ok(res.json<Rec[]>().every((r) => typeof r['id'] === 'string'), res.body);
  }
  return id as string;
}

describe('lists pages', () => {
  it('the lists, each with its row count, and a list\'s rows in a table of its columns', async () => {
    const { b, token } = await person();
    const empty = await b.get('/lists');
    assert.equal(empty.statusCode, 200);
    assert.match(text(empty), /You have no lists yet/);
    assert.match(empty.body, /<a href="\/lists" aria-current="page">Lists<\/a>/, 'the navigation marks the page');
    const id = await listWith(token, 'Groceries <& more>', [
      { c1: 'Bread', c2: 2, c3: 1, c4: ['bakery'], c5: '2026-03-14' },
      { c1: 'Milk "fresh"', c4: 'market,bakery' },
    ]);
    await listWith(token, 'Empty one', []);
    const page = await b.get('/lists');
    assert.match(text(page), /2 lists/);
    assert.match(page.body, new RegExp(`<a href="/lists/${id}">Groceries &#60;&#38; more&#62;</a>`), 'the title shown as text');
    assert.match(text(page), /Groceries <& more> home 2 rows · changed /);
    assert.match(text(page), /Empty one home 0 rows/);
    const list = await b.get(`/lists/${id}`);
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /<th scope="col">Item<\/th><th scope="col">Qty<\/th><th scope="col">Done<\/th><th scope="col">Shops<\/th><th scope="col">By<\/th>/);
    assert.match(list.body, /<tr><td class="act"><a href="\/lists\/[0-9a-f]{24}\/rows\/[0-9a-f]{24}" aria-label="Edit row 1, Bread">Edit<\/a><\/td><td>Bread<\/td><td>2<\/td><td>Yes<\/td><td>bakery<\/td><td>Mar 14, 2026<\/td><\/tr>/);
    assert.match(list.body, /<tr><td class="act"><a [^>]+ aria-label="Edit row 2, Milk &#34;fresh&#34;">Edit<\/a><\/td><td>Milk &#34;fresh&#34;<\/td><td><\/td><td><\/td><td>market, bakery<\/td><td><\/td><\/tr>/, 'empty cells are empty');
    assert.match(text(list), /For the weekend/);
    assert.match(list.body, /role="region" aria-labelledby="rows-caption" tabindex="0"/, 'the table scrolls within a region reachable by keyboard');
  });

  it('a list without rows says so; more than a page of rows shows the first 200 and a link to more', async () => {
    const { b, token } = await person();
    const none = await listWith(token, 'Nothing yet', []);
    assert.match(text(await b.get(`/lists/${none}`)), /This list has no rows yet/);
    const many = await listWith(token, 'Long', []);
    for (let i = 0; i < 210; i += 50) {
      const rows = Array.from({ length: Math.min(50, 210 - i) }, (_, j) => ({ list: many, ref: `x${i + j}`, cells: { c1: `Row ${i + j}` } }));
      assert.equal((await api(ctx, token, '/3/rows/add.php', { rows: JSON.stringify(rows) })).statusCode, 200);
    }
    const first = await b.get(`/lists/${many}`);
    assert.equal((first.body.match(/<tr><td class="act">/g) ?? []).length, 200);
    assert.match(first.body, new RegExp(`href="/lists/${many}\\?show=400">Show 10 more \\(of 10\\)`));
    const all = await b.get(`/lists/${many}?show=400`);
    assert.equal((all.body.match(/<tr><td class="act">/g) ?? []).length, 210);
  });

  it('rows added together come in the order of their first column, as people sort text (numbers within it as numbers, case aside); more than 200 lists show 200 and a link', async () => {
    const { b, token } = await person();
    const id = await listWith(token, 'Numbers', [{ c1: 'Item 10' }, { c1: 'Item 9' }, { c1: 'item 2' }, { c1: 'Bread' }]);
    const page = (await b.get(`/lists/${id}`)).body;
    assert.deepEqual([...page.matchAll(/Edit<\/a><\/td><td>([^<]*)<\/td>/g)].map((m) => m[1]), ['Bread', 'item 2', 'Item 9', 'Item 10'], 'the first column (Item) orders them');
    const lists = await person();
    for (let i = 0; i < 210; i += 50) {
      const batch = Array.from({ length: Math.min(50, 210 - i) }, (_, j) => ({ title: `List ${i + j}`, ref: `l${i + j}` }));
      assert.equal((await api(ctx, lists.token, '/3/lists/add.php', { lists: JSON.stringify(batch) })).statusCode, 200);
    }
    const first = await lists.b.get('/lists');
    assert.equal((first.body.match(/<li><span><a href="\/lists\//g) ?? []).length, 200);
    assert.match(text(first), /210 lists; 200 shown, 10 more below/);
    assert.match(first.body, /href="\/lists\?show=400">Show 10 more \(of 10\)/);
    assert.equal(((await lists.b.get('/lists?show=400')).body.match(/<li><span><a href="\/lists\//g) ?? []).length, 210);
  });

  it("another person's list answers 404, as an id that is none; signed out, the pages send to sign-in", async () => {
    const owner = await person();
    const id = await listWith(owner.token, 'Mine', [{ c1: 'Secret' }]);
    const other = await person();
    for (const url of [`/lists/${id}`, '/lists/ffffffffffffffffffffffff', '/lists/nope']) {
      const res = await other.b.get(url);
      assert.equal(res.statusCode, 404, url);
      assert.doesNotMatch(res.body, /Secret/);
    }
    assert.doesNotMatch((await other.b.get('/lists')).body, /Mine/);
    const visitor = await new Browser(ctx.app).get('/lists');
    assert.equal(visitor.statusCode, 303);
    assert.match(String(visitor.headers['location']), /^\/signin\?next=%2Flists/);
  });

  it('cells read by their column type', () => {
    const who = { prefs: { timezone: 10, dateformat: 3 } } as Parameters<typeof cellText>[0];
    const col = (type: number): ListColumn => ({ id: 1, title: 'c', type, width: 100, sort: 0 });
    assert.equal(cellText(who, col(1), 0), 'No');
    assert.equal(cellText(who, col(17), 1), 'Starred');
    assert.equal(cellText(who, col(2), 3.5), '3.50');
    assert.equal(cellText(who, col(3), Date.UTC(2026, 0, 31, 12) / 1000), '2026-01-31');
    assert.equal(cellText(who, col(4), Date.UTC(2026, 0, 31, 20, 5) / 1000), '2026-01-31 20:05');
    assert.equal(cellText(who, col(8), 90), '90 min');
    assert.equal(cellText(who, col(14), 12.5), '12.5 %');
    assert.equal(cellText(who, col(16), 4), '4 of 5');
    assert.equal(cellText(who, col(9), ['a', 'b']), 'a, b');
    assert.equal(cellText(who, col(21), 'javascript:alert(1)'), 'javascript:alert(1)');
    assert.equal(cellText(who, col(19), undefined), '');
    assert.equal(cellText(who, col(12.2), 2.5), '2.50');
    assert.equal(cellText(who, col(12.4), 1), '1.0000');
    // In an account five hours ahead of UTC (timezone 20, half hours from UTC-5): a date and time
    // moves with it, a date (stored at noon UTC of its day) does not.
    const ahead = { prefs: { timezone: 20, dateformat: 3 } } as Parameters<typeof cellText>[0];
    assert.equal(cellText(ahead, col(4), Date.UTC(2026, 0, 31, 20, 5) / 1000), '2026-02-01 01:05');
    assert.equal(cellText(ahead, col(3), Date.UTC(2026, 0, 31, 12) / 1000), '2026-01-31');
    const behind = { prefs: { timezone: 0, dateformat: 3 } } as Parameters<typeof cellText>[0];
    assert.equal(cellText(behind, col(3), Date.UTC(2026, 0, 31, 12) / 1000), '2026-01-31');
  });

  it('a page that shows no more says so, without a link', () => {
    const site = { base: '', address: 'todo.example.org' };
    const nav = { email: 'a@example.org', isAdmin: false, csrf: 'x', current: '/lists' };
    const who = { prefs: { timezone: 10, dateformat: 3 } } as Parameters<typeof cellText>[0];
    const list = { id: 'a'.repeat(24), ref: 'r', title: 'L', keywords: '', note: '', version: 1, added: 1, modified: 1, cols: [{ id: 1, title: 'Item', type: 19, width: 100, sort: 0 }], nextCol: 2, rows: 3 };
    const rows = ['x', 'y', 'z'].map((c1, i) => ({ id: String(i).repeat(24), list: list.id, ref: c1, version: 1, added: 1, modified: 1, cells: { c1 } }));
    const page = listPage(site, nav, { list, rows, show: 2, more: undefined, who, day: String });
    assert.match(page, /1 more not shown: this page shows no more\./);
    assert.doesNotMatch(page, /Show \d+ more/);
  });
});
