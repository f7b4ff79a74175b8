import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { api, createAccount, createOrganizer, PASSWORD, settle, signIn, tasksCall, type TestContext } from '../harness.js';
import { launchChromium, skipWithoutChromium, watchConsole } from './chromium.js';
import { ORIGIN, pageCheck, servedContext, signInOnPage } from './page-kit.js';

/**
 * The to-do pages in a real browser, at 1280 and 390 pixels: quick add with the syntax and its
 * live preview, filters and search, completing a repeating task, the editor of every field, bulk
 * edit, keyboard-only use, and an edit made through the API appearing on the open page. Every
 * page is checked with axe-core, for horizontal scrolling and for console errors (CSP refusals
 * included). With SCREENSHOTS=docs/web the pages are photographed there.
 */


type ApiTask = Record<string, unknown> & { id: number; title: string };


describe('the to-do pages in a real browser', { skip: skipWithoutChromium() }, () => {
  let ctx: TestContext;
  const origin = ORIGIN;
  let hostRules: string;

  before(async () => {
    ({ ctx, hostRules } = await servedContext());
    // Saturday 14 March 2026, 15:00 UTC (10:00 in the account's timezone).
    ctx.clock.set(Date.UTC(2026, 2, 14, 15, 0));
  });
  after(async () => {
    await ctx?.close();
  });

  for (const width of [1280, 390]) {
    it(`plans a day with quick add, views, search, the editor, bulk edit and the keyboard: at ${width} px`, async () => {
      const account = await createAccount(ctx, { email: `planner-${width}@example.org`, pro: 1, alias: 'Planner' });
      const { token } = await signIn(ctx, { account });
      const home = await createOrganizer(ctx, account, 'folder', 'Home');
      const work = await createOrganizer(ctx, account, 'folder', 'Work');
      await createOrganizer(ctx, account, 'context', 'Phone');
      await createOrganizer(ctx, account, 'context', 'Errands');
      await createOrganizer(ctx, account, 'goal', 'Keep the house running');
      await createOrganizer(ctx, account, 'location', 'Hardware store');
      const noon = (d: number): number => Date.UTC(2026, 2, d, 12) / 1000;
      await tasksCall(ctx, token, 'add', [
        { title: 'Water the plants', folder: home, duedate: noon(14), repeat: 'FREQ=WEEKLY;BYDAY=SA', star: 1 },
        { title: 'Quarterly report', folder: work, priority: 3, duedate: noon(12), tag: 'finance', note: 'Numbers from the spreadsheet' },
        { title: 'Book dentist appointment', priority: 2, duedate: noon(16), status: 1 },
        { title: 'Renew passport', duedate: noon(28), tag: 'admin, travel' },
        { title: 'Plan the garden', folder: home, star: 1 },
      ]);
      const all = async (extra: Record<string, string> = {}): Promise<ApiTask[]> =>
        ((await api(ctx, token, '/3/tasks/get.php', { fields: 'folder,context,goal,location,tag,priority,star,duedate,duetime,repeat,status,note,length,remind,parent,startdate,starttime,duedatemod', ...extra })).json() as ApiTask[]).slice(1);
      const garden = (await all()).find((t) => t.title === 'Plan the garden') as ApiTask;
      await tasksCall(ctx, token, 'add', [{ title: 'Buy seeds', parent: garden.id, folder: home }, { title: 'Dig the beds', parent: garden.id, folder: home }]);

      const launched = await launchChromium({ width, height: width > 600 ? 900 : 844 }, { hostRules });
      const page: Page = await launched.context.newPage();
      const problems = watchConsole(page);
      const cspReports: string[] = [];
      // The last requests, for the failure message: what the page (and its script) asked for.
      const requests: string[] = [];
      page.on('request', (r) => void requests.push(`${r.method()} ${r.url().replace(origin, '')}`));
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) cspReports.push(m.text());
      });

      const check = pageCheck(page, width);
      const go = (path: string) => page.goto(`${origin}${path}`);
      const main = async (): Promise<string> => (await page.textContent('main')) ?? '';

      try {
        await signInOnPage(page, account.email, PASSWORD);

        // The hotlist: overdue, due soon, starred, top priority, Next Action.
        assert.match(await main(), /Quarterly report.*overdue/);
        await check('tasks-hotlist', /input#qa/);

        // Quick add with the syntax; the live preview is the server's reading of the line.
        await page.fill('#qa', 'Call the plumber #home @phone +house !2 * tomorrow 9am every week');
        await page.waitForSelector('#qa-preview:has-text("Folder: Home")');
        const preview = (await page.textContent('#qa-preview')) ?? '';
        for (const part of ['Call the plumber', 'Context: Phone', 'Tag: house', 'Priority: 2', 'Starred', 'Due: Mar 15, 2026', 'at 09:00', 'Repeats: Every week']) assert.ok(preview.includes(part), `preview shows ${part}: ${preview}`);
        await check('tasks-quick-add');
        await page.press('#qa', 'Enter');
        await page.waitForSelector('text=Added “Call the plumber”');
        const plumber = (await all()).find((t) => t.title === 'Call the plumber');
        assert.deepEqual([plumber?.['folder'], plumber?.['priority'], plumber?.['star'], plumber?.['repeat'], plumber?.['duedate']], [home, 2, 1, 'FREQ=WEEKLY', noon(15)]);
        // An unknown folder: refused, and the line is kept for correcting.
        await page.fill('#qa', 'Paint the fence #garage');
        await page.waitForSelector('#qa-preview:has-text("no folder named")');
        await page.press('#qa', 'Enter');
        await page.waitForSelector('text=Not added: There is no folder named “garage”');
        assert.equal(await page.inputValue('#qa'), 'Paint the fence #garage');
        // The kept line's preview comes back, then goes with the line: the links below move up
        // with it, so the next click waits for the page to be still.
        await page.waitForSelector('#qa-preview:has-text("no folder named")');
        await page.fill('#qa', '');
        await page.waitForSelector('#qa-preview:empty', { state: 'attached' });

        // Filter: by folder (groups), one folder, starred; search over notes.
        await page.click('nav.views a:has-text("Folders")');
        await page.waitForURL(/view=folder/);
        assert.match(await main(), /Home.*Water the plants.*Work.*Quarterly report/);
        await check('tasks-by-folder');
        await page.click('h2.group a:has-text("Home")');
        await page.waitForURL(/value=/);
        assert.doesNotMatch(await main(), /Quarterly report/);
        await go('/?view=all');
        assert.match(await main(), /Plan the garden.*2 subtasks.*Buy seeds.*Dig the beds/);
        await check('tasks-all');
        await page.fill('#q', 'spreadsheet');
        await page.press('#q', 'Enter');
        await page.waitForURL(/q=spreadsheet/);
        assert.match(await main(), /Quarterly report/);
        assert.doesNotMatch(await main(), /Renew passport/);
        await check('tasks-search');

        // A saved search an app made: a view of its own, reached from its link.
        const [saved] = (await api(ctx, token, '/3/tasks/search_add.php', { searches: JSON.stringify([{ name: 'Starred or urgent', bool: 'Any', search: { root: [{ field: 'star', type: 'yes' }, { field: 'priority', type: 'is', value: '3' }] } }]) })).json() as Array<{ id: number }>;
        await go('/?view=all');
        await page.click('nav[aria-label="Saved searches"] a:has-text("Starred or urgent")');
        await page.waitForURL(/view=search/);
        assert.match(await main(), /Saved search: Starred or urgent/);
        assert.match(await main(), /Water the plants/);
        assert.match(await main(), /Quarterly report/);
        assert.doesNotMatch(await main(), /Renew passport/);
        await check('tasks-saved-search');
        await api(ctx, token, '/3/tasks/search_delete.php', { searches: JSON.stringify([saved?.id]) });

        // Complete a repeating task: it moves to its next Saturday, as reschedule=1 does.
        await go('/?view=all');
        await page.getByRole('button', { name: 'Complete “Water the plants”' }).click();
        await page.waitForSelector('text=“Water the plants” repeats: next due Mar 21, 2026');
        const plants = (await all()).find((t) => t.title === 'Water the plants');
        assert.equal(plants?.['duedate'], noon(21));

        // Bulk edit: two tasks to Work with top priority.
        await page.getByRole('checkbox', { name: 'Select “Renew passport”' }).check();
        await page.getByRole('checkbox', { name: 'Select “Book dentist appointment”' }).check();
        await page.selectOption('#bulk-folder', { label: 'Work' });
        await page.selectOption('#bulk-priority', { label: 'Top' });
        await check('tasks-bulk');
        await page.click('button[name=action][value=move]');
        await page.waitForSelector('text=2 tasks changed');
        for (const title of ['Renew passport', 'Book dentist appointment']) {
          const t = (await all()).find((x) => x.title === title);
          assert.deepEqual([t?.['folder'], t?.['priority']], [work, 3], title);
        }

        // The editor: every field, then the API sees each one.
        await page.click('a.title:has-text("Renew passport")');
        await page.waitForURL(/\/tasks\/\d+$/);
        await check('task-editor', /input#f-title/);
        await page.fill('#f-title', 'Renew both passports');
        await page.selectOption('#f-folder', { label: 'Home' });
        await page.selectOption('#f-context', { label: 'Errands' });
        await page.selectOption('#f-goal', { label: 'Keep the house running' });
        await page.selectOption('#f-location', { label: 'Hardware store' });
        await page.selectOption('#f-priority', '1');
        await page.selectOption('#f-status', { label: 'Waiting' });
        await page.fill('#f-duedate', '2026-04-02');
        await page.fill('#f-duetime', '14:30');
        await page.selectOption('#f-duedatemod', { label: 'Due on' });
        await page.selectOption('#f-remind', { label: '1 day before' });
        await page.fill('#f-startdate', '2026-03-30');
        await page.fill('#f-starttime', '08:00');
        await page.fill('#f-length', '90');
        await page.fill('#f-tag', 'admin, travel, family');
        await page.check('input[name=star]');
        await page.selectOption('#f-parent', { label: 'Plan the garden' });
        await page.fill('#f-note', 'Photos first.\nThen the form.');
        await page.fill('#f-rb_interval', '2');
        await page.selectOption('#f-rb_freq', { label: 'Years' });
        await page.check('input[name=rb_fromcomp]');
        await page.click('main button:has-text("Save")');
        await page.waitForSelector('text=Saved.');
        assert.match(await main(), /Every 2 years after each completion/);
        const edited = (await all()).find((t) => t.title === 'Renew both passports') as ApiTask;
        assert.deepEqual(
          [edited['folder'], edited['priority'], edited['status'], edited['duedate'], edited['duetime'], edited['duedatemod'], edited['remind'], edited['startdate'], edited['starttime'], edited['length'], edited['tag'], edited['star'], edited['parent'], edited['note'], edited['repeat']],
          [home, 1, 5, noon(2 + 31), Date.UTC(2026, 3, 2, 14, 30) / 1000, 1, 1440, noon(30), Date.UTC(2026, 2, 30, 8) / 1000, 90, 'admin, travel, family', 1, garden.id, 'Photos first.\nThen the form.', 'FREQ=YEARLY;INTERVAL=2;FROMCOMP'],
        );
        // A wrong value is named beside its field.
        await page.fill('#f-length', '-3');
        await page.click('main button:has-text("Save")');
        await page.waitForSelector('#f-length-error');
        await check('task-editor-error', /div#problem/);

        // Keyboard only: ? lists the keys; j moves to a task; s stars it; x completes it; n adds.
        await go('/?view=all');
        await page.locator('#qa').blur();
        await page.keyboard.press('?');
        await page.waitForSelector('dialog#keys[open]');
        await check('tasks-keys', /h2#keys-title/);
        await page.keyboard.press('Escape');
        await page.keyboard.press('j');
        let focused = await page.evaluate('document.activeElement.textContent');
        const first = String(focused);
        assert.ok(first.length > 0, 'j focuses the first task');
        const focusStyle = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
        assert.notEqual(focusStyle, 'none', 'the focus is visible');
        await page.keyboard.press('j');
        focused = await page.evaluate('document.activeElement.textContent');
        const second = String(focused);
        assert.notEqual(second, first);
        await page.keyboard.press('s');
        await page.waitForSelector(`text=Starred “${second}”`);
        // The notice shows while the page still loads; its script (keys, focus) runs by the load event.
        await page.waitForLoadState('load');
        assert.equal(await page.evaluate('document.activeElement.textContent'), second, 'the focus comes back to the task');
        await page.keyboard.press('x');
        // The completion's own notice: “Starred …” above already holds the title in quotes.
        await page.waitForSelector(`div.notice:has-text("Completed “${second}”"), div.notice:has-text("“${second}” repeats")`);
        await page.waitForLoadState('load');
        assert.ok((await all({ comp: '1' })).some((t) => t.title === second) || (await all()).some((t) => t.title === second && t['repeat'] !== ''), `x completed ${second}`);
        await page.keyboard.press('n');
        await page.keyboard.type('Typed with keys only @errands');
        await page.keyboard.press('Enter');
        await page.waitForSelector('text=Added “Typed with keys only”');
        await page.waitForLoadState('load');

        // Delete with undo (the bulk form, also at 390 px).
        await page.getByRole('checkbox', { name: 'Select “Typed with keys only”' }).check();
        await page.click('button[name=action][value=delete]');
        await page.waitForSelector('text=Deleted “Typed with keys only”');
        await page.waitForLoadState('load');
        assert.equal((await all()).some((t) => t.title === 'Typed with keys only'), false);
        await check('tasks-undo');
        await page.keyboard.press('u');
        await page.waitForSelector('text=The task is back.');
        await page.waitForLoadState('load');
        assert.equal((await all()).some((t) => t.title === 'Typed with keys only'), true);

        // An edit made through the API appears on the open page within seconds, without a reload.
        let navigations = 0;
        page.on('framenavigated', () => navigations++);
        settle(ctx);
        await tasksCall(ctx, token, 'add', [{ title: 'Added from a phone app', priority: 3 }]);
        await page.waitForSelector('li.task:has-text("Added from a phone app")', { timeout: 30_000 });
        assert.equal(navigations, 0, 'the list changed without a reload');
        assert.match((await page.textContent('#fresh')) ?? '', /updated with changes made elsewhere/);
        await check('tasks-live');
      } catch (err) {
        throw new Error(`${(err as Error).message}\nat ${page.url()}:\n${(await main().catch(() => '')).slice(0, 800)}\nconsole: ${problems.join('\n')}\nrequests: ${requests.slice(-15).join('\n')}`);
      } finally {
        await launched.close();
      }
      assert.deepEqual(problems, [], 'no console errors');
      assert.deepEqual(cspReports, [], 'no CSP refusals');
    });
  }
});
