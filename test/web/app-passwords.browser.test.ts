import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAppPassword, signInWithAppPassword } from '../../src/features/users/app-passwords.service.js';
import { createAccount, PASSWORD, type TestContext } from '../harness.js';
import { launchChromium, skipWithoutChromium, watchConsole } from './chromium.js';
import { ORIGIN, pageCheck, servedContext, signInOnPage, submitted } from './page-kit.js';

/**
 * App passwords on the Connected apps page in Chromium, at 1280 and 390 pixels: make one (read
 * only), see it once, reload without it, revoke it; every page checked with axe-core, for
 * horizontal scrolling, console errors and CSP refusals, and where the focus is. With
 * SCREENSHOTS=docs/web the pages are photographed there (docs/web.md shows them).
 */

const DAVX5 = 'DAVx5/4.3.14-ose (2024/03/01; dav4jvm; okhttp/4.12.0) Android/14';

describe('app passwords in a real browser', { skip: skipWithoutChromium() }, () => {
  let ctx: TestContext;
  let hostRules: string;

  before(async () => {
    ({ ctx, hostRules } = await servedContext());
  });
  after(async () => {
    await ctx?.close();
  });

  for (const width of [1280, 390]) {
    it(`make an app password, see it once, revoke it: at ${width} px`, async () => {
      ctx.clock.set(Date.UTC(2026, 2, 14, 9, 30));
      const account = await createAccount(ctx, { email: `phones-${width}@example.org`, alias: 'Ann' });
      const signInWith = (password: string) => signInWithAppPassword(ctx.deps, { email: account.email, password, address: '192.0.2.7', device: DAVX5 });
      // A password in use already: an Android phone signed in with it an hour ago.
      const android = await createAppPassword(ctx.deps, account.pk, { name: 'Android phone', readOnly: false });
      ctx.clock.advance(3600);
      assert.equal((await signInWith(android.password)).kind, 'ok');

      const launched = await launchChromium({ width, height: width > 600 ? 860 : 844 }, { hostRules });
      const page = await launched.context.newPage();
      const problems = watchConsole(page);
      const main = async () => (await page.textContent('main')) ?? '';
      const check = pageCheck(page, width);

      try {
        await signInOnPage(page, account.email, PASSWORD);
        await page.click('header a:has-text("Connected apps")');
        await page.waitForURL(`${ORIGIN}/account/apps`);
        assert.match(await main(), /Android phone\s*Access\s*Read and write\s*Made\s*2026-03-14 09:30 UTC\s*Last used\s*2026-03-14 10:30 UTC\s*Device\s*DAVx5\/4\.3\.14-ose/);
        await check('app-passwords-list');

        await page.fill('#f-name', 'iPhone');
        await page.check('input[name=access][value=read]');
        await submitted(page, () => page.click('main button:has-text("Make the app password")'));
        assert.equal(page.url(), `${ORIGIN}/account/apps`, 'Post/Redirect/Get');
        assert.match(await main(), /The app password for iPhone:/);
        const password = ((await page.textContent('code.secret')) ?? '').trim();
        assert.match(password, /^[a-km-np-z2-9]{4}(-[a-km-np-z2-9]{4}){3}$/);
        assert.match(await main(), /iPhone\s*Access\s*Read only/);
        await check('app-passwords', /div#new-password/);
        const signedIn = await signInWith(password);
        assert.equal(signedIn.kind === 'ok' && signedIn.appPassword.readOnly, true, 'it signs in, read only');

        const reloaded = await page.reload();
        assert.equal(reloaded?.request().method(), 'GET', 'a reload asks for the page, it does not post the form again');
        assert.equal(await page.locator('code.secret').count(), 0, 'shown once');

        await submitted(page, () => page.click('main button:has-text("Revoke iPhone")'));
        assert.match(await main(), /Revoked: the app password iPhone no longer signs in\./);
        assert.doesNotMatch(await main(), /Revoke iPhone/);
        await check('app-passwords-revoked');
        assert.equal((await signInWith(password)).kind, 'wrong', 'revoked at once');
        assert.equal((await signInWith(android.password)).kind, 'ok', 'the other one goes on');
      } catch (err) {
        throw new Error(`${(err as Error).message}\nat ${page.url()}:\n${((await page.textContent('main').catch(() => '')) ?? '').slice(0, 600)}\nconsole: ${problems.join('\n')}`);
      } finally {
        await launched.close();
      }
      assert.deepEqual(problems, [], 'no console errors or CSP refusals');
    });
  }
});
