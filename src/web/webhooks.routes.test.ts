import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formInputs, submit, type Browser } from '../../test/browser.js';
import { createAccount, signIn, testContext, type TestContext } from '../../test/harness.js';
import { landed, signedInBrowser, text } from '../../test/web-pages.js';
import { Receiver } from '../../test/webhook-receiver.js';
import { unixSeconds } from '../lib/clock.js';
import { registerClient } from '../oauth/clients.service.js';
import type { Client } from '../storage/store.js';
import { WebhookWorker } from '../webhooks/worker.js';

/** Webhook endpoints on the developer pages (docs/web.md): add, see, test, rotate, enable, remove. */

describe('webhooks on the developer pages', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  let client: Client;
  let b: Browser;
  let appPage: string;

  before(async () => {
    ctx = await testContext({ WEBHOOK_ALLOW_PRIVATE: '1' });
    receiver = await Receiver.start();
    const dev = await createAccount(ctx, { email: 'dev@example.org' });
    client = (await registerClient(ctx.deps, { name: 'Hooked App', redirectUris: ['https://app.example.org/cb'], ownerPk: dev.pk })).client;
    b = await signedInBrowser(ctx, dev);
    appPage = `/developer/apps/${client.clientId}`;
  });
  after(async () => {
    await receiver.close();
    await ctx.close();
  });

  /** Adds an endpoint on the app's page; its page as landed on, and its id. */
  async function addOnPage(url: string): Promise<{ page: string; id: string; location: string }> {
    const res = await submit(b, appPage, { url }, `${appPage}/webhooks`);
    const location = String(res.headers['location']);
    return { page: text(await landed(b, res)), id: /\/webhooks\/(ep_[0-9a-f]+)$/.exec(location)?.[1] ?? '', location };
  }
  const secretOn = (html: string) => /<code class="secret">(whsec_[^<]+)<\/code>/.exec(html)?.[1];

  it('the app’s page lists no endpoint at first; one added shows its secret once, and is listed', async () => {
    assert.match(text(await b.get(appPage)), /Webhooks\s*No endpoint yet/);
    const added = await addOnPage(receiver.url('/page'));
    assert.match(added.id, /^ep_/);
    assert.match(added.page, /The endpoint is added\. The secret that signs its deliveries:/);
    const shown = await b.get(added.location);
    assert.equal(secretOn(shown.body), undefined, 'shown once');
    assert.match(text(shown), new RegExp(`${receiver.url('/page').replace(/[/.]/g, '\\$&')}\\s*State\\s*Active\\s*Added\\s*2026-01-15 09:30 UTC\\s*Deliveries waiting\\s*0`));
    assert.match(text(shown), /No attempt yet/);
    assert.match(text(await b.get(appPage)), new RegExp(`${receiver.url('/page').replace(/[/.]/g, '\\$&')}\\s*Active · added 2026-01-15 09:30 UTC`));
  });

  it('refuses an address that is not one, keeping what was typed', async () => {
    const res = await submit(b, appPage, { url: 'ftp://hooks.example.org/x' }, `${appPage}/webhooks`);
    assert.equal(res.headers['location'], appPage);
    const page = await landed(b, res);
    assert.match(text(page), /Not added: the address must start with https:\/\/\./);
    assert.match(page.body, /value="ftp:\/\/hooks\.example\.org\/x"/);
  });

  it('sends a test event; the attempt shows with its time, answer and latency; the secret the page showed signs it', async () => {
    const { id, page } = await addOnPage(receiver.url('/tested'));
    const secret = secretOn((await b.get(`${appPage}/webhooks/${id}`)).body) ?? /whsec_[A-Za-z0-9+/=]+/.exec(page)?.[0];
    const hookPage = `${appPage}/webhooks/${id}`;
    const res = await submit(b, hookPage, {}, `${hookPage}/test`);
    assert.match(text(await landed(b, res)), /A test event is on its way/);
    await new WebhookWorker(ctx.deps).runOnce();
    const d = receiver.received.find((r) => r.path === '/tested');
    assert.deepEqual(d?.json, { type: 'test' });
    assert.ok(d && secret && Receiver.verify(secret, d));
    assert.match(text(await b.get(hookPage)), new RegExp(`The last 1 attempts, newest first\\s*Time\\s*Event\\s*Answer\\s*Latency\\s*2026-01-15 09:30 UTC\\s*test, attempt 1\\s*${d.id}\\s*HTTP 200\\s*\\d+ ms`));
  });

  it('rotates the secret: the new one is shown once and signs what follows', async () => {
    const { id } = await addOnPage(receiver.url('/rotated'));
    const hookPage = `${appPage}/webhooks/${id}`;
    const before = (await ctx.deps.store.read.webhooks.endpoint(id))?.secret;
    const shown = await landed(b, await submit(b, hookPage, {}, `${hookPage}/secret`));
    const secret = secretOn(shown.body);
    assert.match(text(shown), /The new secret \(deliveries from now on are signed with it\):/);
    assert.ok(secret && secret !== before);
    assert.equal((await ctx.deps.store.read.webhooks.endpoint(id))?.secret, secret);
  });

  it('an endpoint disabled for failing says so, and is enabled again', async () => {
    const { id } = await addOnPage(receiver.url('/disabled'));
    const hookPage = `${appPage}/webhooks/${id}`;
    await ctx.deps.store.transaction(async (tx) => {
      await tx.webhooks.failed(id, unixSeconds(ctx.clock) - 3 * 86400);
      await tx.webhooks.disable(id, unixSeconds(ctx.clock));
    });
    const page = await b.get(hookPage);
    assert.match(text(page), /This endpoint is disabled: every delivery failed for 3 days\./);
    assert.match(text(page), /State\s*Disabled 2026-01-15 09:30 UTC, after failing for 3 days/);
    assert.match(text(await b.get(appPage)), /Disabled 2026-01-15 09:30 UTC, after failing for 3 days/);
    const enabled = await landed(b, await submit(b, hookPage, {}, `${hookPage}/enable`));
    assert.match(text(enabled), /Enabled: the changes of accounts from now on are delivered again\.\s*/);
    assert.match(text(enabled), /State\s*Active/);
  });

  it('shows the last 100 attempts, newest first', async () => {
    const { id } = await addOnPage(receiver.url('/many'));
    const who = await signIn(ctx);
    for (let i = 1; i <= 105; i++) {
      await ctx.deps.store.transaction((tx) =>
        tx.webhooks.recordAttempt({ endpointId: id, userPk: who.account.pk, msgId: `msg_${String(i).padStart(3, '0')}`, attempt: 1, at: unixSeconds(ctx.clock) + i * 60, status: i % 3 ? 200 : null, error: i % 3 ? null : 'connection refused', latencyMs: i }),
      );
    }
    const page = await b.get(`${appPage}/webhooks/${id}`);
    assert.equal(page.body.match(/<tr><td>/g)?.length, 100);
    assert.match(text(page), /The last 100 attempts, newest first/);
    assert.match(text(page), /2026-01-15 11:15 UTC\s*changes, attempt 1\s*msg_105\s*connection refused\s*105 ms/);
    assert.doesNotMatch(page.body, /msg_005/);
  });

  it('removes an endpoint; its page is gone', async () => {
    const { id } = await addOnPage(receiver.url('/removed'));
    const hookPage = `${appPage}/webhooks/${id}`;
    const res = await submit(b, hookPage, {}, `${hookPage}/delete`);
    assert.equal(res.headers['location'], appPage);
    assert.match(text(await landed(b, res)), /The endpoint .*\/removed is removed\./);
    assert.equal((await b.get(hookPage)).statusCode, 404);
  });

  it('another developer reaches neither the endpoints nor their forms', async () => {
    const { id } = await addOnPage(receiver.url('/mine'));
    const other = await signedInBrowser(ctx, await createAccount(ctx));
    const hookPage = `${appPage}/webhooks/${id}`;
    assert.equal((await other.get(hookPage)).statusCode, 404);
    const csrf = formInputs((await other.get('/developer')).body, '/developer/apps')['_csrf'] as string;
    for (const action of ['test', 'secret', 'enable', 'delete']) assert.equal((await other.post(`${hookPage}/${action}`, { _csrf: csrf })).statusCode, 404, action);
    assert.equal((await other.post(`${appPage}/webhooks`, { _csrf: csrf, url: receiver.url('/theirs') })).statusCode, 404);
    assert.ok(await ctx.deps.store.read.webhooks.endpoint(id));
    assert.equal((await b.get(`/developer/apps/${client.clientId}/webhooks/ep_0000000000000000`)).statusCode, 404);
  });
});

describe('webhooks on the developer pages, private targets refused', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await testContext();
  });
  after(() => ctx.close());

  it('refuses plain http and private addresses, and says why', async () => {
    const dev = await createAccount(ctx);
    const client = (await registerClient(ctx.deps, { name: 'Strict', redirectUris: ['https://app.example.org/cb'], ownerPk: dev.pk })).client;
    const b = await signedInBrowser(ctx, dev);
    const page = `/developer/apps/${client.clientId}`;
    for (const [url, why] of [
      ['http://hooks.example.org/x', /Not added: the address must start with https:\/\/\./],
      ['https://127.0.0.1/x', /Not added: 127\.0\.0\.1 is not a public address/],
      ['https://localhost:8443/x', /Not added: localhost resolves to .*, which is not a public address/],
    ] as const) {
      assert.match(text(await landed(b, await submit(b, page, { url }, `${page}/webhooks`))), why, url);
    }
    assert.deepEqual(await ctx.deps.store.read.webhooks.endpoints(client.pk), []);
  });
});
