import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createAccount, PASSWORD, signIn, tasksCall, type TestContext } from '../harness.js';
import { launchChromium, skipWithoutChromium, watchConsole } from './chromium.js';
import { ORIGIN, pageCheck, servedContext, signInOnPage, submitted } from './page-kit.js';

/**
 * The pages of folders, contexts, goals, locations and notes in Chromium, at 1280 and 390 pixels:
 * each page checked with axe-core, for horizontal scrolling, console errors and CSP refusals; the
 * forms used with the keyboard alone (Tab to the field, type, Enter), with the focus visible.
 * With SCREENSHOTS=docs/web the pages are photographed there (docs/web.md shows them).
 */


/** Presses Tab until the element matching `selector` has the focus; how many presses it took. */
async function tabTo(page: Page, selector: string, limit = 40): Promise<number> {
  for (let n = 1; n <= limit; n++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(`document.activeElement ? document.activeElement.matches(${JSON.stringify(selector)}) : false`)) return n;
  }
  throw new Error(`${selector} was not reached with ${limit} presses of Tab`);
}

/** The focused element's outline: a visible focus ring (the stylesheet's :focus-visible). */
async function focusRing(page: Page): Promise<string> {
  return page.evaluate(`(() => {
    const el = document.activeElement;
    if (!el) return 'none';
    const s = getComputedStyle(el);
    return s.outlineStyle === 'none' || s.outlineWidth === '0px' ? 'none' : s.outlineStyle + ' ' + s.outlineWidth;
  })()`) as Promise<string>;
}

describe('the organize and notes pages in a real browser', { skip: skipWithoutChromium() }, () => {
  let ctx: TestContext;
  const origin = ORIGIN;
  let hostRules: string;

  before(async () => {
    ({ ctx, hostRules } = await servedContext());
    ctx.clock.set(Date.UTC(2026, 2, 14, 9, 30));
  });
  after(async () => {
    await ctx?.close();
  });

  for (const width of [1280, 390]) {
    it(`folders, contexts, goals, locations and notes: every page, by keyboard too, at ${width} px`, async () => {
      const account = await createAccount(ctx, { email: `organizer-${width}@example.org`, alias: 'Ann' });
      const { token } = await signIn(ctx, { account, scope: 'basic tasks notes write' });
      const launched = await launchChromium({ width, height: width > 600 ? 860 : 844 }, { hostRules });
      const page = await launched.context.newPage();
      const problems = watchConsole(page);
      const go = (path: string) => page.goto(`${origin}${path}`);
      const main = async () => (await page.textContent('main')) ?? '';

      const check = pageCheck(page, width);

      try {
        await signInOnPage(page, account.email, PASSWORD);
        await page.click('header a:has-text("Organize")');
        await page.waitForURL(`${origin}/folders`);
        await check('folders-empty');

        // Keyboard only: Tab to the name, type, Enter. The focus ring shows on the way.
        await tabTo(page, '#f-name');
        assert.notEqual(await focusRing(page), 'none', 'the focused field shows its focus');
        await page.keyboard.type('Work');
        await submitted(page, () => page.keyboard.press('Enter'));
        assert.match(await main(), /Added the folder “Work”/);
        for (const name of ['Home', 'Someday']) {
          await page.fill('#f-name', name);
          await submitted(page, () => page.click('main button:has-text("Add the folder")'));
        }
        const tasks = await tasksCall(ctx, token, 'add', [{ title: 'Report', folder: 1 }, { title: 'Slides', folder: 1 }, { title: 'Lawn', folder: 2 }]);
        assert.equal(tasks.statusCode, 200, tasks.body);
        // A refused add: the API's message beside the field, which has the focus.
        await page.fill('#f-name', 'work');
        await submitted(page, () => page.click('main button:has-text("Add the folder")'));
        assert.match(await main(), /A folder with that name already exists/);
        await check('folders-error', /input#f-name/);
        await go('/folders');
        await check('folders');

        // A folder's page, by keyboard: Tab to its link, Enter.
        await tabTo(page, 'main a[href="/folders/1"]');
        assert.notEqual(await focusRing(page), 'none', 'the focused link shows its focus');
        await page.keyboard.press('Enter');
        await page.waitForURL(`${origin}/folders/1`);
        await check('folder');
        await page.click('main a:has-text("Delete the folder")');
        await page.waitForURL(`${origin}/folders/1/delete`);
        assert.match(await main(), /2 tasks \(completed ones included\) point at this folder/);
        await check('folder-delete', /h1/);
        await page.click('main a:has-text("Cancel")');
        await page.waitForURL(`${origin}/folders/1`);
        await submitted(page, () => page.click('main button:has-text("Archive the folder")'));
        assert.match(await main(), /The folder is archived/);

        // Contexts, goals, locations: add one each, see its page.
        await page.click('nav.tabs a:has-text("Contexts")');
        await page.fill('#f-name', '@phone');
        await submitted(page, () => page.click('main button:has-text("Add the context")'));
        await check('contexts');
        await go('/goals');
        await page.fill('#f-name', 'Be healthy');
        await submitted(page, () => page.click('main button:has-text("Add the goal")'));
        await page.fill('#f-name', 'Run a marathon');
        await page.selectOption('#f-level', '1');
        await page.selectOption('#f-contributes', '1');
        await page.fill('#f-note', 'The spring race.');
        await submitted(page, () => page.click('main button:has-text("Add the goal")'));
        assert.match(await main(), /Long-term, contributes to Be healthy/);
        await check('goals');
        await go('/goals/2');
        await check('goal');
        await go('/locations');
        await page.fill('#f-name', 'Office');
        await page.fill('#f-description', 'Third floor');
        await page.fill('#f-lat', '51.5074');
        await page.fill('#f-lon', '-0.1278');
        await submitted(page, () => page.click('main button:has-text("Add the location")'));
        await check('locations');
        await go('/locations/1');
        await page.fill('#f-lat', '91');
        await submitted(page, () => page.click('main button:has-text("Save")'));
        assert.match(await main(), /lat must be a number from -90 to 90/);
        await check('location-error', /input#f-lat/);

        // Notes: write one by keyboard, read it, edit it, the delete question.
        await page.click('header a:has-text("Notes")');
        await page.waitForURL(`${origin}/notes`);
        await check('notes-empty');
        await page.click('main a:has-text("Write a note")');
        await page.waitForURL(`${origin}/notes/new`);
        await check('note-new', /input#f-title/);
        await page.keyboard.type('Shopping list');
        await tabTo(page, '#f-folder');
        await page.selectOption('#f-folder', '2');
        await tabTo(page, '#f-text');
        await page.keyboard.type('Milk\nEggs\nBread');
        await tabTo(page, 'main button[type=submit]');
        assert.notEqual(await focusRing(page), 'none', 'the focused button shows its focus');
        await page.keyboard.press('Enter');
        await page.waitForURL(`${origin}/notes/1`);
        assert.match(await main(), /The note is added/);
        await check('note');
        await go('/notes/new');
        await page.fill('#f-title', 'Ideas');
        await page.fill('#f-text', 'Learn the cello.');
        await page.click('main button:has-text("Add the note")');
        await page.waitForURL(`${origin}/notes/2`);
        await go('/notes');
        await check('notes');
        // Search by keyboard: the box, a word of a text, Enter.
        await tabTo(page, 'input#q');
        await page.keyboard.type('CELLO');
        await page.keyboard.press('Enter');
        await page.waitForURL(`${origin}/notes?q=CELLO`);
        assert.match(await main(), /1 of 2 notes found/);
        assert.match(await main(), /Ideas/);
        assert.doesNotMatch(await main(), /Shopping list/);
        await check('notes-search');
        await go('/notes/1/edit');
        await page.fill('#f-title', '');
        // The browser would refuse an empty title itself: without that, the server's refusal shows.
        await page.evaluate(`document.querySelector('#f-title').removeAttribute('required')`);
        await submitted(page, () => page.click('main button:has-text("Save the note")'));
        assert.match(await main(), /Your note must have a title/);
        await check('note-error', /input#f-title/);
        await go('/notes/1/delete');
        await check('note-delete', /h1/);
        await page.click('main button:has-text("Delete the note")');
        await page.waitForURL(`${origin}/notes`);
        assert.match(await main(), /Deleted the note “Shopping list”/);
      } catch (err) {
        throw new Error(`${(err as Error).message}\nat ${page.url()}:\n${((await page.textContent('main').catch(() => '')) ?? '').slice(0, 600)}\nconsole: ${problems.join('\n')}`);
      } finally {
        await launched.close();
      }
      // Refused forms answer 422 on purpose, which Chromium reports on the console: not counted.
      assert.deepEqual(problems.filter((p) => !/status of 422/.test(p)), [], 'no console errors or CSP refusals');
    });
  }
});
