import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { unixSeconds } from '../../src/lib/clock.js';
import { registerClient } from '../../src/oauth/clients.service.js';
import { WebhookWorker } from '../../src/webhooks/worker.js';
import { createAccount, PASSWORD, signIn, type TestContext } from '../harness.js';
import { Receiver } from '../webhook-receiver.js';
import { launchChromium, skipWithoutChromium, watchConsole } from './chromium.js';
import { ORIGIN, pageCheck, servedContext, signInOnPage, submitted } from './page-kit.js';

/**
 * Webhooks on the developer pages in Chromium, at 1280 and 390 pixels: add an endpoint on the
 * app's page, see its secret once, send a test event and read its attempt with others, see it
 * disabled and enable it; every page checked with axe-core, for horizontal scrolling, console
 * errors and CSP refusals, and where the focus is. With SCREENSHOTS=docs/web the pages are
 * photographed there (docs/web.md shows them).
 */

describe('webhooks on the developer pages in a real browser', { skip: skipWithoutChromium() }, () => {
  let ctx: TestContext;
  let hostRules: string;
  let receiver: Receiver;

  before(async () => {
    ({ ctx, hostRules } = await servedContext({ WEBHOOK_ALLOW_PRIVATE: '1' }));
    receiver = await Receiver.start();
  });
  after(async () => {
    await receiver?.close();
    await ctx?.close();
  });

  for (const width of [1280, 390]) {
    it(`add an endpoint, test it, read its attempts, enable it again: at ${width} px`, async () => {
      ctx.clock.set(Date.UTC(2026, 2, 14, 9, 30));
      const dev = await createAccount(ctx, { email: `hooks-${width}@example.org`, alias: 'Dev' });
      const { client, clientSecret } = await registerClient(ctx.deps, { name: 'Trip Planner', redirectUris: ['https://trips.example.org/cb'], website: 'https://trips.example.org', ownerPk: dev.pk });
      const app = { client, clientId: client.clientId, clientSecret, redirectUri: 'https://trips.example.org/cb', basic: `Basic ${Buffer.from(`${client.clientId}:${clientSecret}`).toString('base64')}` };
      const launched = await launchChromium({ width, height: width > 600 ? 860 : 844 }, { hostRules });
      const page = await launched.context.newPage();
      const problems = watchConsole(page);
      const main = async () => (await page.textContent('main')) ?? '';
      const check = pageCheck(page, width);
      try {
        await signInOnPage(page, dev.email, PASSWORD);
        await page.goto(`${ORIGIN}/developer/apps/${client.clientId}`);
        assert.match(await main(), /Webhooks\s*No endpoint yet/);
        await page.fill('#f-url', receiver.url(`/trips-${width}`));
        await submitted(page, () => page.click('main button:has-text("Add the endpoint")'));
        assert.match(page.url(), new RegExp(`/developer/apps/${client.clientId}/webhooks/ep_[0-9a-f]{16}$`), 'Post/Redirect/Get to the endpoint’s page');
        assert.match(await main(), /The endpoint is added\. The secret that signs its deliveries:/);
        const secret = ((await page.textContent('code.secret')) ?? '').trim();
        assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
        await check('webhook-new', /div#new-secret/);

        // An account uses the app, and its changes were delivered; the endpoint failed a while.
        const id = /webhooks\/(ep_[0-9a-f]+)$/.exec(page.url())?.[1] as string;
        const who = await signIn(ctx, { app });
        const at = unixSeconds(ctx.clock);
        const attempt = (i: number, message: number, n: number, status: number | null, error: string | null) =>
          ctx.deps.store.transaction((tx) => tx.webhooks.recordAttempt({ endpointId: id, userPk: who.account.pk, msgId: `msg_${(0x4a0 + message).toString(16).padStart(24, '0')}`, attempt: n, at: at - 3600 + i * 300, status, error, latencyMs: 40 + i * 7 }));
        await attempt(1, 1, 1, 200, null);
        // A second message, retried twice (the same id each time) before it was taken.
        await attempt(2, 2, 1, 503, null);
        await attempt(3, 2, 2, null, 'no answer within 10 s');
        await attempt(4, 2, 3, 200, null);

        await submitted(page, () => page.click('main button:has-text("Send a test event")'));
        assert.match(await main(), /A test event is on its way/);
        await new WebhookWorker(ctx.deps).runOnce();
        const test = receiver.received.find((d) => d.path === `/trips-${width}`);
        assert.ok(test && Receiver.verify(secret, test), 'the secret shown signs the test event');
        await page.reload();
        assert.equal(await page.locator('code.secret').count(), 0, 'the secret is shown once');
        assert.match(await main(), /The last 5 attempts, newest first/);
        assert.match(await main(), /2026-03-14 09:30 UTC\s*test, attempt 1\s*msg_[0-9a-f]{24}\s*HTTP 200\s*\d+ ms/);
        await check('webhook');

        await ctx.deps.store.transaction(async (tx) => {
          await tx.webhooks.failed(id, at - 3 * 86400);
          await tx.webhooks.disable(id, at);
        });
        await page.reload();
        assert.match(await main(), /This endpoint is disabled/);
        await check('webhook-disabled');
        await submitted(page, () => page.click('main button:has-text("Enable it again")'));
        assert.match(await main(), /Enabled: the changes of accounts from now on are delivered again\.[\s\S]*State\s*Active/);

        await page.goto(`${ORIGIN}/developer/apps/${client.clientId}`);
        assert.match(await main(), new RegExp(`Webhooks\\s*http://127\\.0\\.0\\.1:${receiver.port}/trips-${width}\\s*Active · added 2026-03-14 09:30 UTC`));
        await check('webhooks-app');
      } catch (err) {
        throw new Error(`${(err as Error).message}\nat ${page.url()}:\n${((await page.textContent('main').catch(() => '')) ?? '').slice(0, 600)}\nconsole: ${problems.join('\n')}`);
      } finally {
        await launched.close();
      }
      assert.deepEqual(problems, [], 'no console errors or CSP refusals');
    });
  }
});
