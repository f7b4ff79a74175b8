import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createFeed } from '../../src/features/feeds/feeds.service.js';
import { createOrganizer, PASSWORD, signIn, tasksCall, type TestContext } from '../harness.js';
import { launchChromium, skipWithoutChromium, watchConsole } from './chromium.js';
import { ORIGIN, pageCheck, servedContext, signInOnPage, submitted } from './page-kit.js';

/**
 * The Calendar feeds page in Chromium, at 1280 and 390 pixels: reached from the account page,
 * make a feed of one folder, see its address once (webcal and https, in fields to copy from),
 * reload without it, revoke it; every page checked with axe-core, for horizontal scrolling,
 * console errors and CSP refusals, and where the focus is. With SCREENSHOTS=docs/web the pages
 * are photographed there (docs/web.md shows them).
 */

const DUE = Date.UTC(2026, 2, 20, 12) / 1000;

describe('calendar feeds in a real browser', { skip: skipWithoutChromium() }, () => {
  let ctx: TestContext;
  let hostRules: string;

  before(async () => {
    ({ ctx, hostRules } = await servedContext());
  });
  after(async () => {
    await ctx?.close();
  });

  for (const width of [1280, 390]) {
    it(`make a feed of a folder, see its address once, revoke it: at ${width} px`, async () => {
      ctx.clock.set(Date.UTC(2026, 2, 14, 9, 30));
      const { account, token } = await signIn(ctx);
      const work = await createOrganizer(ctx, account, 'folder', 'Work');
      await createOrganizer(ctx, account, 'folder', 'Home');
      await tasksCall(ctx, token, 'add', [{ title: 'Quarterly report', folder: work, duedate: DUE }, { title: 'Water the plants', duedate: DUE }]);
      // A feed of every task in use already: a calendar fetched it an hour ago.
      const all = await createFeed(ctx.deps, account.pk, { folder: null });
      ctx.clock.advance(3600);
      const fetch = (address: string) => ctx.app.inject({ method: 'GET', url: new URL(address).pathname });
      assert.equal((await fetch(all.addresses.https)).statusCode, 200);

      const launched = await launchChromium({ width, height: width > 600 ? 860 : 844 }, { hostRules });
      const page = await launched.context.newPage();
      const problems = watchConsole(page);
      const main = async () => (await page.textContent('main')) ?? '';
      const check = pageCheck(page, width);

      try {
        await signInOnPage(page, account.email, PASSWORD);
        await page.click('header a:has-text("Account")');
        await page.waitForURL(`${ORIGIN}/account`);
        await page.click('main a:has-text("Subscribe to your tasks in a calendar")');
        await page.waitForURL(`${ORIGIN}/account/feeds`);
        assert.match(await main(), /All tasks\s*Holds\s*Your open tasks with a due date\s*Made\s*2026-03-14 09:30 UTC\s*Last fetched\s*2026-03-14 10:30 UTC/);
        await check('feeds-list');

        await page.selectOption('#f-tasks', { label: 'Folder Work' });
        await submitted(page, () => page.click('main button:has-text("Make the feed")'));
        assert.equal(page.url(), `${ORIGIN}/account/feeds`, 'Post/Redirect/Get');
        assert.match(await main(), /The address of the feed of folder Work:/);
        const https = await page.inputValue('#feed-https');
        const webcal = await page.inputValue('#feed-webcal');
        assert.match(https, /^http:\/\/todo\.example\.org\/feeds\/[0-9a-f]{40}\.ics$/);
        assert.equal(webcal, https.replace('http:', 'webcal:'));
        assert.equal(await page.getAttribute('#feed-https', 'readonly'), '', 'read only: it can be selected and copied, not changed');
        assert.equal(await page.getAttribute('main a:has-text("Subscribe on this device")', 'href'), webcal);
        assert.match(await main(), /Folder Work\s*Holds\s*The folder's open tasks with a due date\s*Made\s*2026-03-14 10:30 UTC\s*Last fetched\s*Never/);
        await check('feeds', /div#new-feed/);
        const served = await fetch(https);
        assert.equal(served.statusCode, 200);
        assert.match(served.body, /SUMMARY:Quarterly report/);
        assert.doesNotMatch(served.body, /Water the plants/);

        const reloaded = await page.reload();
        assert.equal(reloaded?.request().method(), 'GET', 'a reload asks for the page, it does not post the form again');
        assert.equal(await page.locator('#new-feed').count(), 0, 'shown once');

        await submitted(page, () => page.click('main button:has-text("Revoke the feed of folder Work")'));
        assert.match(await main(), /Revoked: the feed of folder Work no longer answers at its address\./);
        assert.doesNotMatch(await main(), /Revoke the feed of folder Work/);
        await check('feeds-revoked');
        assert.equal((await fetch(https)).statusCode, 404, 'revoked at once');
        assert.equal((await fetch(all.addresses.https)).statusCode, 200, 'the other one goes on');
      } catch (err) {
        throw new Error(`${(err as Error).message}\nat ${page.url()}:\n${((await page.textContent('main').catch(() => '')) ?? '').slice(0, 600)}\nconsole: ${problems.join('\n')}`);
      } finally {
        await launched.close();
      }
      assert.deepEqual(problems, [], 'no console errors or CSP refusals');
    });
  }
});
