import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser } from '../../../test/browser.js';
import { api, signIn, testContext, type TestContext } from '../../../test/harness.js';
import { signedInBrowser, text } from '../../../test/web-pages.js';

/**
 * The outlines pages through app.inject: the account's outlines, and one outline as its tree, as
 * outlines/get reads them; another person's outline out of reach.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testContext();
});
after(() => ctx.close());

async function person(): Promise<{ b: Browser; token: string }> {
  const { account, token } = await signIn(ctx, { scope: 'basic outlines write' });
  return { b: await signedInBrowser(ctx, account), token };
}

/** Outlines added through the API; their ids, in order. */
async function added(token: string, outlines: ReadonlyArray<Record<string, unknown>>): Promise<string[]> {
  const res = await api(ctx, token, '/3/outlines/add.php', { outlines: JSON.stringify(outlines) });
  const ids = res.json<Array<{ id?: unknown }>>().map((o) => o.id);
  assert.ok(ids.every((id) => typeof id === 'string'), res.body);
  return ids as string[];
}

describe('outlines pages', () => {
  it('the outlines with their item counts, and an outline as its tree, nodes in their places, done ones marked', async () => {
    const { b, token } = await person();
    assert.match(text(await b.get('/outlines')), /You have no outlines yet/);
    const [id] = await added(token, [
      {
        title: 'Move <house>',
        ref: 'm',
        note: 'By the end of May',
        keywords: 'home',
        nodes: [
          { content: 'Pack', children: [{ content: 'Books & "papers"', checked: 1 }, { content: 'Kitchen' }] },
          { content: 'Change the address' },
        ],
      },
      { title: 'Empty', ref: 'e', hidden: 1 },
    ]);
    const list = await b.get('/outlines');
    assert.match(list.body, /<a href="\/outlines" aria-current="page">Outlines<\/a>/);
    assert.match(text(list), /2 outlines/);
    assert.match(list.body, new RegExp(`<a href="/outlines/${id}">Move &#60;house&#62;</a>`));
    assert.match(text(list), /Move <house> home 4 items · changed /);
    assert.match(text(list), /Empty Hidden 0 items/);
    const page = await b.get(`/outlines/${id}`);
    assert.equal(page.statusCode, 200);
    assert.match(
      page.body,
      /<ul class="outline"><li>Pack<ul class="outline"><li class="checked"><span class="muted">✓ Done:<\/span> Books &#38; &#34;papers&#34;<\/li><li>Kitchen<\/li><\/ul><\/li><li>Change the address<\/li><\/ul>/,
    );
    assert.match(text(page), /By the end of May/);
  });

  it('an outline without items says so; more than 200 outlines show 200 and a link', async () => {
    const { b, token } = await person();
    const [empty] = await added(token, [{ title: 'Nothing', ref: 'n' }]);
    assert.match(text(await b.get(`/outlines/${empty}`)), /This outline has no items yet/);
    for (let i = 1; i < 210; i += 50) await added(token, Array.from({ length: Math.min(50, 210 - i) }, (_, j) => ({ title: `Outline ${i + j}`, ref: `o${i + j}` })));
    const first = await b.get('/outlines');
    assert.equal((first.body.match(/<li><span><a href="\/outlines\//g) ?? []).length, 200);
    assert.match(text(first), /210 outlines; 200 shown, 10 more below/);
    assert.match(first.body, /href="\/outlines\?show=400">Show 10 more \(of 10\)/);
  });

  it("another person's outline answers 404, as an id that is none; signed out, the pages send to sign-in", async () => {
    const owner = await person();
    const [id] = await added(owner.token, [{ title: 'Mine', ref: 'x', nodes: [{ content: 'Secret' }] }]);
    const other = await person();
    for (const url of [`/outlines/${id}`, '/outlines/ffffffffffffffffffffffff', '/outlines/nope']) {
      const res = await other.b.get(url);
      assert.equal(res.statusCode, 404, url);
      assert.doesNotMatch(res.body, /Secret/);
    }
    assert.doesNotMatch((await other.b.get('/outlines')).body, /Mine/);
    const visitor = await new Browser(ctx.app).get('/outlines');
    assert.equal(visitor.statusCode, 303);
    assert.match(String(visitor.headers['location']), /^\/signin\?next=%2Foutlines/);
  });
});
