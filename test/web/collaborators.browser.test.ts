import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, createAccount, PASSWORD, signIn, type TestContext } from '../harness.js';
import { launchChromium, skipWithoutChromium, watchConsole } from './chromium.js';
import { ORIGIN, pageCheck, servedContext, signInOnPage, submitted } from './page-kit.js';

/**
 * The collaborators page in Chromium, at 1280 and 390 pixels, with a collaborator, an invitation
 * each way and a refused invitation: axe-core, horizontal scrolling, console errors and CSP
 * refusals. With SCREENSHOTS=docs/web the page is photographed there (docs/web.md shows it).
 */

const SCOPE = 'basic tasks write share';

describe('the collaborators page in a real browser', { skip: skipWithoutChromium() }, () => {
  let ctx: TestContext;
  const origin = ORIGIN;
  let hostRules: string;

  before(async () => {
    ({ ctx, hostRules } = await servedContext());
  });
  after(async () => {
    await ctx?.close();
  });

  for (const width of [1280, 390]) {
    it(`invitations, a collaborator and a refusal at ${width} px`, async () => {
      const ann = await createAccount(ctx, { email: `ann-${width}@example.org`, alias: 'Ann' });
      const [bob, cat, dan] = await Promise.all(['Bob', 'Cat', 'Dan'].map((alias) => createAccount(ctx, { email: `${alias.toLowerCase()}-${width}@example.org`, alias })));
      const as = async (a: typeof ann) => (await signIn(ctx, { account: a, scope: SCOPE })).token;
      const annToken = await as(ann);
      // Dan is a collaborator; Bob has invited Ann; Ann has invited Cat.
      const call = async (token: string, path: string, form: Record<string, string>) => {
        const res = await api(ctx, token, `/3/account/${path}.php`, form);
        assert.doesNotMatch(res.body, /errorCode/, res.body);
      };
      await call(annToken, 'collaborators_invite', { invite: dan?.email ?? '' });
      await call(await as(dan as typeof ann), 'collaborators_accept', { id: ann.userid, sharable: '0' });
      await call(await as(bob as typeof ann), 'collaborators_invite', { invite: ann.email });
      await call(annToken, 'collaborators_invite', { invite: cat?.email ?? '' });

      const launched = await launchChromium({ width, height: width > 600 ? 860 : 844 }, { hostRules });
      const page = await launched.context.newPage();
      const problems = watchConsole(page);
      const main = async () => (await page.textContent('main')) ?? '';

      const check = pageCheck(page, width);

      try {
        await signInOnPage(page, ann.email, PASSWORD);
        await page.goto(`${origin}/account`);
        await page.click('main a[href="/account/collaborators"]');
        await page.waitForURL(`${origin}/account/collaborators`);
        assert.match(await main(), /Invitations to you.*Bob.*Accept.*Decline/s);
        assert.match(await main(), /Invitations you sent.*Cat.*Withdraw/s);
        assert.match(await main(), /Your collaborators.*Dan/s);
        await check('collaborators');

        await page.fill('#f-who', ann.email);
        await submitted(page, () => page.click('main button:has-text("Send the invitation")'));
        assert.match(await main(), /an account cannot collaborate with itself/);
        await check('collaborators-error', /input#f-who/);

        await submitted(page, () => page.click('form[aria-label="Accept the invitation of Bob"] button'));
        assert.match(await main(), /You and Bob are now collaborators/);
        const list = (await api(ctx, annToken, '/3/account/collaborators.php')).json<Array<{ name: string }>>();
        assert.deepEqual(list.map((c) => c.name).sort(), ['Bob', 'Dan']);
      } catch (err) {
        throw new Error(`${(err as Error).message}\nat ${page.url()}:\n${((await page.textContent('main').catch(() => '')) ?? '').slice(0, 600)}\nconsole: ${problems.join('\n')}`);
      } finally {
        await launched.close();
      }
      assert.deepEqual(problems, [], 'no console errors or CSP refusals');
    });
  }
});
