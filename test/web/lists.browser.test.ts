import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, createAccount, PASSWORD, signIn, type TestContext } from '../harness.js';
import { launchChromium, skipWithoutChromium, watchConsole } from './chromium.js';
import { focusedOn, ORIGIN, pageCheck, servedContext, signInOnPage } from './page-kit.js';

/**
 * The lists and outlines pages in Chromium, at 1280 and 390 pixels: each checked with axe-core, for horizontal
 * scrolling of the page (a wide table scrolls within its own region, which the keyboard reaches),
 * console errors and CSP refusals. With SCREENSHOTS=docs/web they are photographed there.
 */

describe('the lists and outlines pages in a real browser', { skip: skipWithoutChromium() }, () => {
  let ctx: TestContext;
  let hostRules: string;

  before(async () => {
    ({ ctx, hostRules } = await servedContext());
    ctx.clock.set(Date.UTC(2026, 2, 14, 9, 30));
  });
  after(async () => {
    await ctx?.close();
  });

  for (const width of [1280, 390]) {
    it(`the lists, a list's rows, the outlines and one outline, by keyboard too, at ${width} px`, async () => {
      const account = await createAccount(ctx, { email: `lists-${width}@example.org`, alias: 'Ann' });
      const { token } = await signIn(ctx, { account, scope: 'basic lists outlines write' });
      const launched = await launchChromium({ width, height: width > 600 ? 860 : 844 }, { hostRules });
      const page = await launched.context.newPage();
      const problems = watchConsole(page);
      const main = async () => (await page.textContent('main')) ?? '';
      const check = pageCheck(page, width);
      try {
        await signInOnPage(page, account.email, PASSWORD);
        await page.click('header a:has-text("Lists")');
        await page.waitForURL(`${ORIGIN}/lists`);
        assert.match(await main(), /You have no lists yet/);
        await check('lists-empty');

        const cols = [
          { title: 'Item', type: 19 },
          { title: 'Quantity', type: 13 },
          { title: 'Done', type: 1 },
          { title: 'Shop', type: 10, choices: ['market', 'bakery', 'hardware store'] },
          { title: 'Needed by', type: 3 },
          { title: 'Notes', type: 18 },
          { title: 'For', type: 9, choices: ['Ann', 'Bob'] },
        ];
        const added = (
          await api(ctx, token, '/3/lists/add.php', {
            lists: JSON.stringify([
              { title: 'Groceries & errands', ref: 'g', note: 'For the weekend: the market opens at eight.', keywords: 'home', cols },
              { title: 'Books to read', ref: 'b', keywords: 'leisure', cols: [{ title: 'Title', type: 19 }, { title: 'Author', type: 19 }] },
            ]),
          })
        ).json<Array<{ id: string }>>();
        const id = added[0]?.id ?? '';
        const items = [
          ['Sourdough bread', 1, 0, 'bakery', '2026-03-14', 'Ask for the dark crust'],
          ['Milk', 2, 1, 'market', '', ''],
          ['Picture hooks', 12, 0, 'hardware store', '2026-03-20', 'The brass ones, for the hall'],
          ['Apples', 6, 0, 'market', '', 'Any sour kind'],
        ] as const;
        const rows = items.map(([c1, c2, c3, c4, c5, c6], i) => ({ list: id, ref: `r${i}`, cells: { c1, c2, c3, c4, ...(c5 && { c5 }), ...(c6 && { c6 }) } }));
        assert.equal((await api(ctx, token, '/3/rows/add.php', { rows: JSON.stringify(rows) })).statusCode, 200);

        await page.reload();
        assert.match(await main(), /2 lists/);
        await check('lists');
        // By keyboard: Tab to the list's link, Enter.
        let reached = false;
        for (let n = 0; n < 40 && !reached; n++) {
          await page.keyboard.press('Tab');
          reached = (await page.evaluate(`document.activeElement ? document.activeElement.matches('main a[href="/lists/${id}"]') : false`)) as boolean;
        }
        assert.ok(reached, 'the list is reached with Tab');
        await page.keyboard.press('Enter');
        await page.waitForURL(`${ORIGIN}/lists/${id}`);
        assert.match(await main(), /Sourdough bread/);
        assert.match(await main(), /Mar 14, 2026/);
        await check('list');
        // The table's region is reached with Tab (a narrow screen scrolls it with the arrow keys),
        // its focus shown.
        let inTable = false;
        for (let n = 0; n < 20 && !inTable; n++) {
          await page.keyboard.press('Tab');
          inTable = (await page.evaluate(`document.activeElement ? document.activeElement.matches('.tablewrap') : false`)) as boolean;
        }
        assert.ok(inTable, 'the table region is reached with Tab');
        const ring = (await page.evaluate(`(() => { const s = getComputedStyle(document.activeElement); return s.outlineStyle + ' ' + s.outlineWidth; })()`)) as string;
        assert.doesNotMatch(ring, /^none|0px$/, `the focused region shows its focus (${ring})`);

        // A row added by its form, by keyboard: the first field has the focus, Tab goes on.
        await page.click('main a:has-text("Add a row")');
        await page.waitForURL(`${ORIGIN}/lists/${id}/rows/new`);
        await focusedOn(page, 'f-c1');
        await page.keyboard.type('Coffee beans');
        await page.keyboard.press('Tab');
        await page.keyboard.type('lots');
        await page.keyboard.press('Tab');
        await page.keyboard.press('Space');
        await page.keyboard.press('Tab');
        await page.keyboard.type('m');
        await page.fill('#f-c5', '2026-03-21');
        await check('list-row-new');
        await page.focus('#f-c6');
        await page.keyboard.type('Whole,');
        await page.keyboard.press('Enter');
        await page.keyboard.type('not ground');
        // A pick-several column's choices, a box each.
        await page.keyboard.press('Tab');
        await page.keyboard.press('Tab');
        await page.keyboard.press('Space');
        await page.keyboard.press('Tab');
        await page.keyboard.press('Enter');
        // Refused: the API's words beside the field, which has the focus; what was typed is kept.
        await page.waitForSelector('#f-c2-error');
        assert.match(await main(), /Quantity must be a whole number \(error 1013\)/);
        await focusedOn(page, 'f-c2');
        assert.equal(await page.inputValue('#f-c1'), 'Coffee beans');
        await check('list-row-refused');
        await page.keyboard.press('Control+A');
        await page.keyboard.type('1');
        await page.keyboard.press('Enter');
        await page.waitForURL(`${ORIGIN}/lists/${id}`);
        assert.match(await main(), /The row is added\./);
        assert.match(await main(), /Edit\s*Coffee beans\s*1\s*Yes\s*market\s*Mar 21, 2026\s*Whole,\s*not ground\s*Bob/);
        await check('list-row-added');

        // Edited and deleted from its row's link. Saved as shown, nothing changes (the browser
        // sends the notes' line break as CRLF, the row holds LF).
        await page.click('main a[aria-label$="Coffee beans"]');
        await page.waitForSelector('h1:has-text("Edit a row")');
        assert.equal(await page.inputValue('#f-c1'), 'Coffee beans');
        await check('list-row-edit');
        await page.click('main button:has-text("Save the row")');
        await page.waitForURL(`${ORIGIN}/lists/${id}`);
        assert.match(await main(), /Nothing to save: the row was not changed\./);
        await page.click('main a[aria-label$="Coffee beans"]');
        await page.waitForSelector('h1:has-text("Edit a row")');
        // An app changes the row while its form is open: the save is refused as stale, and the
        // page shows the row as it now is, the app's quantity in the field the person left.
        const stored = (await api(ctx, token, '/3/rows/get.php', { list: id })).json<Array<{ id: string; version: number; cells: Record<string, unknown> }>>();
        const coffee = stored.find((r) => r.cells['c1'] === 'Coffee beans');
        await api(ctx, token, '/3/rows/edit.php', { rows: JSON.stringify([{ id: coffee?.id, version: coffee?.version, cells: { c2: 3 } }]) });
        await page.keyboard.press('Control+A');
        await page.keyboard.type('Coffee beans, dark roast');
        await page.keyboard.press('Enter');
        await page.waitForSelector('h2:has-text("The row as it is now")');
        assert.match(await main(), /The row was changed \(by an app, or on another page\) after this form was opened \(error 1014\)/);
        assert.equal(await page.inputValue('#f-c2'), '3');
        assert.equal(await page.inputValue('#f-c1'), 'Coffee beans, dark roast');
        await check('list-row-stale');
        await page.click('main button:has-text("Save the row")');
        await page.waitForURL(`${ORIGIN}/lists/${id}`);
        assert.match(await main(), /The row is saved\./);
        assert.match(await main(), /Coffee beans, dark roast\s*3\s*Yes/);
        assert.match(await main(), /Coffee beans, dark roast/);
        await page.click('main a[aria-label$="dark roast"]');
        await page.click('main a:has-text("Delete the row…")');
        await page.waitForSelector('h1:has-text("Delete this row")');
        await check('list-row-delete');
        await page.click('main button:has-text("Delete the row")');
        await page.waitForURL(`${ORIGIN}/lists/${id}`);
        assert.match(await main(), /Deleted the row\./);
        assert.doesNotMatch(await main(), /Coffee beans/);

        // A list made on its page, by keyboard: title, then its first column.
        await page.click('header a:has-text("Lists")');
        await page.click('main a:has-text("Make a list")');
        await page.waitForURL(`${ORIGIN}/lists/new`);
        await focusedOn(page, 'f-title');
        await page.keyboard.type('Packing');
        await page.focus('#f-col\\.0\\.title');
        await page.keyboard.type('Thing');
        await page.focus('#f-col\\.1\\.title');
        await page.keyboard.type('Bag');
        await page.selectOption('#f-col\\.1\\.type', '10');
        await page.focus('#f-col\\.1\\.choices');
        await check('list-new');
        await page.keyboard.type('blue, red');
        await page.keyboard.press('Enter');
        await page.waitForSelector('h1:has-text("Packing")');
        assert.match(await main(), /The list is made\. Add its rows here\./);
        await check('list-made');
        await page.click('main a:has-text("Change the list")');
        await page.waitForSelector('h1:has-text("Change the list")');
        assert.equal(await page.inputValue('#f-col\\.1\\.choices'), 'blue, red');
        await check('list-edit');
        await page.click('main a:has-text("Delete the list…")');
        await page.waitForSelector('h1:has-text("Delete the list")');
        await check('list-delete');
        await page.click('main button:has-text("Delete the list")');
        await page.waitForURL(`${ORIGIN}/lists`);
        assert.match(await main(), /Deleted the list “Packing”\./);

        // Outlines: the list of them from the navigation, one as its tree.
        const outlines = (
          await api(ctx, token, '/3/outlines/add.php', {
            outlines: JSON.stringify([
              {
                title: 'Moving house',
                ref: 'm',
                note: 'Keys handed over on May 30.',
                keywords: 'home',
                nodes: [
                  { content: 'Pack', children: [{ content: 'Books and papers', checked: 1 }, { content: 'Kitchen', children: [{ content: 'Wrap the glasses' }] }] },
                  { content: 'Tell the bank, the doctor and the school about the new address' },
                  { content: 'Read the meters on the last day', checked: 1 },
                ],
              },
              { title: 'Garden plans', ref: 'g', keywords: 'someday', hidden: 1 },
            ]),
          })
        ).json<Array<{ id: string }>>();
        assert.equal(typeof outlines[0]?.id, 'string', JSON.stringify(outlines));
        await page.click('header a:has-text("Outlines")');
        await page.waitForURL(`${ORIGIN}/outlines`);
        assert.match(await main(), /2 outlines/);
        await check('outlines');
        await page.click(`main a[href="/outlines/${outlines[0]?.id ?? ''}"]`);
        await page.waitForURL(`${ORIGIN}/outlines/${outlines[0]?.id ?? ''}`);
        assert.match(await main(), /Wrap the glasses/);
        await check('outline');

        // Its items changed as indented lines: one checked, one added under another.
        await page.click('main a:has-text("Change the outline")');
        await page.waitForSelector('h1:has-text("Change the outline")');
        assert.match(await page.inputValue('#f-items'), /^Pack\n {2}\[x\] Books and papers\n {2}Kitchen\n {4}Wrap the glasses\n/);
        await check('outline-edit');
        await page.focus('#f-items');
        await page.keyboard.press('Control+End');
        await page.keyboard.press('Enter');
        await page.keyboard.type('  [x] Meter photos');
        await page.click('main button:has-text("Save the outline")');
        await page.waitForURL(`${ORIGIN}/outlines/${outlines[0]?.id ?? ''}`);
        assert.match(await main(), /The outline is saved\./);
        assert.match(await main(), /Read the meters on the last day\s*✓ Done:\s*Meter photos/);

        // One made on its page, then deleted.
        await page.click('header a:has-text("Outlines")');
        await page.click('main a:has-text("Make an outline")');
        await page.waitForURL(`${ORIGIN}/outlines/new`);
        await focusedOn(page, 'f-title');
        await page.keyboard.type('Weekend');
        await page.focus('#f-items');
        await page.keyboard.type('Market\n  Bread\n  [x] Eggs\nCall Ann');
        await check('outline-new');
        await page.click('main button:has-text("Make the outline")');
        await page.waitForSelector('h1:has-text("Weekend")');
        assert.match(await main(), /The outline is made\./);
        assert.match(await main(), /Market\s*Bread\s*✓ Done:\s*Eggs\s*Call Ann/);
        await page.click('main a:has-text("Delete the outline…")');
        await page.waitForSelector('h1:has-text("Delete the outline")');
        await check('outline-delete');
        await page.click('main button:has-text("Delete the outline")');
        await page.waitForURL(`${ORIGIN}/outlines`);
        assert.match(await main(), /Deleted the outline “Weekend”\./);
      } catch (err) {
        throw new Error(`${(err as Error).message}\nat ${page.url()}:\n${((await page.textContent('main').catch(() => '')) ?? '').slice(0, 600)}\nconsole: ${problems.join('\n')}`);
      } finally {
        await launched.close();
      }
      // The refused row forms answer 422 and 409 on purpose, which Chromium reports on the console: not counted.
      assert.deepEqual(problems.filter((p) => !/status of (422|409)/.test(p)), [], 'no console errors or CSP refusals');
    });
  }
});
