import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { anotherInstance, api, createApp, signIn, tasksCall, testContext, type TestApp, type TestContext } from '../../test/harness.js';
import { Receiver } from '../../test/webhook-receiver.js';
import type { Deps } from '../deps.js';
import { unixSeconds } from '../lib/clock.js';
import { revokeGrant } from '../oauth/grants.service.js';
import type { WebhookEndpoint } from '../storage/store.js';
import { addWebhook, enableWebhook, InvalidWebhook, MAX_WEBHOOKS_PER_APP, removeWebhook, rotateWebhookSecret, sendTestEvent, webhookOf } from './endpoints.service.js';
import { DISABLE_AFTER_SECONDS, longestDelay, MAX_ATTEMPTS } from './schedule.js';
import type { Lookup } from './targets.js';
import { WebhookWorker } from './worker.js';

/**
 * Webhooks end to end in one process (docs/sync.md, docs/decisions/0026): an app's endpoint on a
 * receiver on loopback (WEBHOOK_ALLOW_PRIVATE=1), accounts that authorized the app, writes through
 * the API, and the worker run by hand (runOnce) while the test moves the clock for the retries.
 */

const feedCursor = async (ctx: TestContext, token: string): Promise<string> => (await api(ctx, token, '/3/sync/changes.php')).json<{ cursor: string }>().cursor;
const resolvesTo =
  (address: string): Lookup =>
  async () => [{ address, family: 4 }];

describe('webhooks', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  let down: string;

  before(async () => {
    ctx = await testContext({ WEBHOOK_ALLOW_PRIVATE: '1' });
    receiver = await Receiver.start();
    // A port nobody listens on: a receiver that is down.
    const gone = await Receiver.start();
    down = gone.url('/down');
    await gone.close();
  });
  after(async () => {
    await receiver.close();
    await ctx.close();
  });

  /** A new app with an endpoint at `url`, and an account that authorized it. */
  async function appWithHook(url = receiver.url(`/${Math.random().toString(36).slice(2)}`), scope = 'basic tasks notes write') {
    const app = await createApp(ctx);
    const endpoint = await addWebhook(ctx.deps, app.client, url);
    const who = await signIn(ctx, { app, scope });
    return { app, endpoint, who };
  }
  const deliveriesTo = (endpoint: WebhookEndpoint) => receiver.received.filter((d) => receiver.url(d.path) === endpoint.url);
  const attemptsOf = (endpoint: WebhookEndpoint) => ctx.deps.store.read.webhooks.attempts(endpoint.id, 100);

  it('a burst of changes makes one delivery per endpoint and account, signed, with the cursor the feed answers and the kinds changed', async () => {
    const { endpoint, who } = await appWithHook();
    const second = await addWebhook(ctx.deps, (await ctx.deps.store.read.clients.get(endpoint.clientPk))!, receiver.url('/second'));
    await tasksCall(ctx, who.token, 'add', [{ title: 'One' }, { title: 'Two' }]);
    await api(ctx, who.token, '/3/folders/add.php', { name: 'Work' });
    await tasksCall(ctx, who.token, 'add', [{ title: 'Three' }]);
    const worker = new WebhookWorker(ctx.deps);
    await worker.runOnce();
    await worker.runOnce();
    const [d, ...more] = deliveriesTo(endpoint);
    assert.deepEqual(more, [], 'one delivery for the burst');
    assert.ok(d);
    assert.deepEqual(d.json, { type: 'changes', userid: who.account.userid, cursor: await feedCursor(ctx, who.token), kinds: ['task', 'folder'] });
    assert.equal(d.contentType, 'application/json');
    assert.match(d.id, /^msg_[0-9a-f]{24}$/);
    assert.equal(d.timestamp, String(unixSeconds(ctx.clock)));
    assert.ok(Receiver.verify(endpoint.secret, d), 'signed with the endpoint’s secret');
    assert.ok(!Receiver.verify(second.secret, d));
    assert.equal(deliveriesTo(second).length, 1, 'each endpoint of the app gets its own');
    const [attempt] = await attemptsOf(endpoint);
    assert.deepEqual([attempt?.status, attempt?.error, attempt?.attempt, attempt?.msgId, attempt?.userPk], [200, null, 1, d.id, who.account.pk]);
  });

  it('only kinds the grant’s scope reads; nothing for an account that did not authorize the app, or whose grant was revoked', async () => {
    const { endpoint, who, app } = await appWithHook(undefined, 'basic notes write');
    const stranger = await signIn(ctx);
    // The account's other app writes a task; this app reads notes only.
    const other = await signIn(ctx, { account: who.account, scope: 'basic tasks notes write' });
    await tasksCall(ctx, other.token, 'add', [{ title: 'Task' }]);
    await tasksCall(ctx, stranger.token, 'add', [{ title: 'Not granted' }]);
    const worker = new WebhookWorker(ctx.deps);
    await worker.runOnce();
    assert.deepEqual(deliveriesTo(endpoint), [], 'a task change: not for a notes app');
    await api(ctx, other.token, '/3/notes/add.php', { notes: JSON.stringify([{ title: 'Note' }]) });
    await worker.runOnce();
    assert.deepEqual(deliveriesTo(endpoint).map((d) => d.json['kinds']), [['note']]);
    const grant = (await ctx.deps.store.read.oauth.liveGrants({ userPk: who.account.pk, clientPk: app.client.pk }, unixSeconds(ctx.clock)))[0];
    assert.ok(grant && (await revokeGrant(ctx.deps, grant.id, 'test')));
    await api(ctx, other.token, '/3/notes/add.php', { notes: JSON.stringify([{ title: 'After' }]) });
    await worker.runOnce();
    assert.equal(deliveriesTo(endpoint).length, 1, 'revoked: nothing more');
  });

  it('retries after a 500 with the same message id, after the back-off of the clock', async () => {
    const { endpoint, who } = await appWithHook(receiver.url('/flaky'));
    let fail = true;
    receiver.status = (d) => (d.path === '/flaky' && fail ? 500 : 200);
    try {
      await tasksCall(ctx, who.token, 'add', [{ title: 'Once' }]);
      const worker = new WebhookWorker(ctx.deps);
      await worker.runOnce();
      await worker.runOnce();
      assert.equal(deliveriesTo(endpoint).length, 1, 'not again before its time');
      assert.equal((await ctx.deps.store.read.webhooks.endpoint(endpoint.id))?.failingSince, unixSeconds(ctx.clock));
      fail = false;
      ctx.clock.advance(longestDelay(1));
      await worker.runOnce();
      const [first, second] = deliveriesTo(endpoint);
      assert.equal(second?.id, first?.id, 'a retry is the same message');
      assert.equal(second?.body, first?.body);
      assert.ok(second && Receiver.verify(endpoint.secret, second));
      assert.deepEqual((await attemptsOf(endpoint)).map((a) => [a.attempt, a.status]), [[2, 200], [1, 500]]);
      assert.equal((await ctx.deps.store.read.webhooks.endpoint(endpoint.id))?.failingSince, null, 'failing no more');
      assert.equal(await ctx.deps.store.read.webhooks.pending(endpoint.id), 0);
    } finally {
      receiver.status = 200;
    }
  });

  it('a delivery owed to an account that has revoked the app since is dropped, not sent', async () => {
    const { endpoint, who, app } = await appWithHook(receiver.url('/revoked'));
    receiver.status = (d) => (d.path === '/revoked' ? 500 : 200);
    try {
      await tasksCall(ctx, who.token, 'add', [{ title: 'Before' }]);
      const worker = new WebhookWorker(ctx.deps);
      await worker.runOnce();
      assert.equal(await ctx.deps.store.read.webhooks.pending(endpoint.id), 1, 'waiting for its retry');
      const grant = (await ctx.deps.store.read.oauth.liveGrants({ userPk: who.account.pk, clientPk: app.client.pk }, unixSeconds(ctx.clock)))[0];
      assert.ok(grant && (await revokeGrant(ctx.deps, grant.id, 'test')));
      ctx.clock.advance(longestDelay(1));
      await worker.runOnce();
      assert.equal(deliveriesTo(endpoint).length, 1, 'the retry is not sent');
      assert.equal((await attemptsOf(endpoint)).length, 1);
      assert.equal(await ctx.deps.store.read.webhooks.pending(endpoint.id), 0);
    } finally {
      receiver.status = 200;
    }
  });

  it('a receiver that is down: tried MAX_ATTEMPTS times over more than a day, then given up', async () => {
    const { endpoint, who } = await appWithHook(down);
    await tasksCall(ctx, who.token, 'add', [{ title: 'Nobody hears' }]);
    const worker = new WebhookWorker(ctx.deps);
    const start = unixSeconds(ctx.clock);
    await worker.runOnce();
    for (let n = 1; n < MAX_ATTEMPTS; n++) {
      ctx.clock.advance(longestDelay(n));
      await worker.runOnce();
    }
    const attempts = await attemptsOf(endpoint);
    assert.equal(attempts.length, MAX_ATTEMPTS);
    assert.ok((attempts[0]?.at as number) - start >= 24 * 3600, 'over at least a day');
    assert.deepEqual(new Set(attempts.map((a) => a.msgId)).size, 1, 'one message');
    assert.ok(attempts.every((a) => a.status === null));
    assert.match(attempts[1]?.error ?? '', /^connection refused$/);
    assert.match(attempts[0]?.error ?? '', /given up after 10 attempts/);
    ctx.clock.advance(86400);
    await worker.runOnce();
    assert.equal((await attemptsOf(endpoint)).length, MAX_ATTEMPTS, 'nothing more');
    assert.equal(await ctx.deps.store.read.webhooks.pending(endpoint.id), 0);
    ctx.clock.advance(-(unixSeconds(ctx.clock) - start));
  });

  it('an endpoint failing for three days is disabled and gets nothing until enabled again', async () => {
    const { app, endpoint, who } = await appWithHook(receiver.url('/broken'));
    receiver.status = (d) => (d.path === '/broken' ? 503 : 200);
    try {
      await tasksCall(ctx, who.token, 'add', [{ title: 'One' }]);
      const worker = new WebhookWorker(ctx.deps);
      await worker.runOnce();
      ctx.clock.advance(DISABLE_AFTER_SECONDS);
      await worker.runOnce();
      const disabled = await ctx.deps.store.read.webhooks.endpoint(endpoint.id);
      assert.equal(disabled?.disabledAt, unixSeconds(ctx.clock));
      assert.match((await attemptsOf(endpoint))[0]?.error ?? '', /failing for 3 days: the endpoint is disabled/);
      receiver.status = 200;
      // Three days on, the access token has long expired: the app signs in again.
      const token = (await signIn(ctx, { account: who.account, app })).token;
      await tasksCall(ctx, token, 'add', [{ title: 'Two' }]);
      await worker.runOnce();
      assert.equal(deliveriesTo(endpoint).length, 2, 'nothing for a disabled endpoint');
      assert.equal(await enableWebhook(ctx.deps, app.client, endpoint.id), true);
      await tasksCall(ctx, token, 'add', [{ title: 'Three' }]);
      await worker.runOnce();
      assert.equal(deliveriesTo(endpoint).length, 3);
      assert.deepEqual(deliveriesTo(endpoint).at(-1)?.json['cursor'], await feedCursor(ctx, token));
    } finally {
      receiver.status = 200;
      ctx.clock.advance(-DISABLE_AFTER_SECONDS);
    }
  });

  it('changes while a delivery is under way make the next delivery, a message of its own', async () => {
    const { endpoint, who } = await appWithHook();
    const worker = new WebhookWorker(ctx.deps);
    const another = new WebhookWorker(ctx.deps);
    await tasksCall(ctx, who.token, 'add', [{ title: 'First' }]);
    receiver.holding = true;
    const sending = worker.runOnce();
    while (receiver.holdingCount === 0) await sleep(10);
    await api(ctx, who.token, '/3/notes/add.php', { notes: JSON.stringify([{ title: 'Meanwhile' }]) });
    await another.runOnce();
    receiver.release();
    await sending;
    await worker.runOnce();
    const [first, next] = deliveriesTo(endpoint);
    assert.deepEqual([first?.json['kinds'], next?.json['kinds']], [['task'], ['note']]);
    assert.notEqual(first?.id, next?.id);
    assert.equal(next?.json['cursor'], await feedCursor(ctx, who.token));
  });

  it('two workers (two instances) deliver each once', async () => {
    const { endpoint, app } = await appWithHook();
    const accounts = [];
    for (let i = 0; i < 6; i++) accounts.push(await signIn(ctx, { app }));
    for (const who of accounts) await tasksCall(ctx, who.token, 'add', [{ title: 'x' }]);
    const second = ctx.deps.store.dialect === 'postgres' ? await anotherInstance(ctx, ctx.clock) : undefined;
    try {
      const workers = [new WebhookWorker(ctx.deps, { batch: 2 }), new WebhookWorker(second?.deps ?? ctx.deps, { batch: 2 })];
      await Promise.all(workers.flatMap((w) => [w.runOnce(), w.runOnce()]));
      await Promise.all(workers.map((w) => w.runOnce()));
      const byAccount = deliveriesTo(endpoint).map((d) => d.json['userid']);
      assert.deepEqual([...byAccount].sort(), accounts.map((a) => a.account.userid).sort());
    } finally {
      await second?.close();
    }
  });

  it('a test event: sent once at once, even when it fails, which leaves the endpoint’s state alone', async () => {
    const { app, endpoint } = await appWithHook();
    assert.equal(await sendTestEvent(ctx.deps, app.client, endpoint.id), true);
    const worker = new WebhookWorker(ctx.deps);
    await worker.runOnce();
    const [d] = deliveriesTo(endpoint);
    assert.deepEqual(d?.json, { type: 'test' });
    assert.ok(d && Receiver.verify(endpoint.secret, d));
    const broken = await addWebhook(ctx.deps, app.client, down);
    await sendTestEvent(ctx.deps, app.client, broken.id);
    await worker.runOnce();
    ctx.clock.advance(3600);
    await worker.runOnce();
    ctx.clock.advance(-3600);
    assert.deepEqual((await attemptsOf(broken)).map((a) => [a.userPk, a.error]), [[null, 'connection refused']], 'one attempt');
    assert.equal((await ctx.deps.store.read.webhooks.endpoint(broken.id))?.failingSince, null);
  });

  it('a rotated secret signs what follows; a removed endpoint gets nothing; an app manages only its own', async () => {
    const { app, endpoint, who } = await appWithHook();
    const other = await createApp(ctx);
    assert.equal(await rotateWebhookSecret(ctx.deps, other.client, endpoint.id), null);
    assert.equal(await removeWebhook(ctx.deps, other.client, endpoint.id), false);
    assert.equal(await webhookOf(ctx.deps, other.client, endpoint.id), null);
    const secret = await rotateWebhookSecret(ctx.deps, app.client, endpoint.id);
    assert.match(secret ?? '', /^whsec_/);
    await tasksCall(ctx, who.token, 'add', [{ title: 'x' }]);
    const worker = new WebhookWorker(ctx.deps);
    await worker.runOnce();
    const [d] = deliveriesTo(endpoint);
    assert.ok(d && Receiver.verify(secret as string, d) && !Receiver.verify(endpoint.secret, d));
    assert.equal(await removeWebhook(ctx.deps, app.client, endpoint.id), true);
    await tasksCall(ctx, who.token, 'add', [{ title: 'y' }]);
    await worker.runOnce();
    assert.equal(deliveriesTo(endpoint).length, 1);
  });

  it('started with the server, it delivers after a commit by itself, and stops', async () => {
    const { endpoint, who } = await appWithHook();
    const worker = new WebhookWorker(ctx.deps);
    worker.start();
    try {
      await tasksCall(ctx, who.token, 'add', [{ title: 'x' }]);
      const deadline = Date.now() + 5000;
      while (deliveriesTo(endpoint).length === 0 && Date.now() < deadline) await sleep(20);
      assert.equal(deliveriesTo(endpoint).length, 1);
    } finally {
      await worker.stop();
    }
  });

  it('an idle worker only reads: no transaction of its own turns into a notice that runs it again', async () => {
    let transactions = 0;
    const store = new Proxy(ctx.deps.store, {
      get(target, name) {
        if (name === 'transaction') return (fn: Parameters<typeof target.transaction>[0]) => (transactions++, target.transaction(fn));
        const value = Reflect.get(target, name) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const worker = new WebhookWorker({ ...ctx.deps, store }, { tickMs: 50 });
    worker.start();
    try {
      await sleep(1000);
    } finally {
      await worker.stop();
    }
    // Its one write: the look for accounts granted but not watched, once a minute.
    assert.ok(transactions <= 1, `${transactions} transactions in a second`);
  });

  it('connects to the address it resolved and checked: a name only its lookup knows reaches the receiver', async () => {
    const app = await createApp(ctx);
    const endpoint = await addWebhook(ctx.deps, app.client, `http://hooks.invalid:${receiver.port}/pinned`, resolvesTo('127.0.0.1'));
    const who = await signIn(ctx, { app });
    await tasksCall(ctx, who.token, 'add', [{ title: 'x' }]);
    await new WebhookWorker(ctx.deps, { lookup: resolvesTo('127.0.0.1') }).runOnce();
    assert.equal(receiver.received.filter((d) => d.path === '/pinned').length, 1);
    assert.equal(endpoint.url, `http://hooks.invalid:${receiver.port}/pinned`);
  });

  it('refuses private targets at delivery when they are not allowed, after resolving the name (DNS rebinding included)', async () => {
    const strict: Deps = { ...ctx.deps, config: { ...ctx.config, webhookAllowPrivate: false } };
    const app = await createApp(ctx);
    const literal = await addWebhook(ctx.deps, app.client, receiver.url('/private'));
    // Registered while its name resolved to a public address; it resolves to loopback now.
    const rebound = await addWebhook(strict, app.client, 'https://rebind.invalid/hook', resolvesTo('93.184.215.14'));
    const who = await signIn(ctx, { app });
    await tasksCall(ctx, who.token, 'add', [{ title: 'x' }]);
    await new WebhookWorker(strict, { lookup: resolvesTo('127.0.0.1') }).runOnce();
    assert.equal(receiver.received.filter((d) => d.path === '/private').length, 0);
    const [a] = await attemptsOf(literal);
    assert.deepEqual([a?.status, a?.error], [null, 'refused: 127.0.0.1 is not a public address (loopback, private, link-local, multicast or reserved)']);
    const [b] = await attemptsOf(rebound);
    assert.match(b?.error ?? '', /^refused: rebind\.invalid resolves to 127\.0\.0\.1, which is not a public address/);
  });
});

describe('registering webhook endpoints', () => {
  let ctx: TestContext;
  let app: TestApp;
  before(async () => {
    ctx = await testContext();
    app = await createApp(ctx);
  });
  after(() => ctx.close());

  it('refuses plain http and targets that are not public (after resolving names), and more than ten', async () => {
    const refused: Array<[string, Lookup | undefined, RegExp]> = [
      ['http://hooks.example.org/x', resolvesTo('93.184.215.14'), /https/],
      ['https://127.0.0.1/x', undefined, /127\.0\.0\.1 is not a public address/],
      ['https://10.1.2.3/x', undefined, /not a public address/],
      ['https://[::1]/x', undefined, /not a public address/],
      ['https://169.254.169.254/latest/meta-data', undefined, /not a public address/],
      ['https://224.0.0.1/x', undefined, /not a public address/],
      ['https://localhost/x', undefined, /not a public address/],
      ['https://inside.invalid/x', resolvesTo('192.168.1.20'), /inside\.invalid resolves to 192\.168\.1\.20/],
      ['https://nowhere.invalid/x', async () => Promise.reject(new Error('ENOTFOUND')), /does not resolve/],
    ];
    for (const [url, lookup, why] of refused) {
      await assert.rejects(addWebhook(ctx.deps, app.client, url, lookup), (err: unknown) => err instanceof InvalidWebhook && why.test(err.message), url);
    }
    assert.deepEqual(await ctx.deps.store.read.webhooks.endpoints(app.client.pk), []);
    for (let i = 0; i < MAX_WEBHOOKS_PER_APP; i++) await addWebhook(ctx.deps, app.client, `https://hooks.example.org/${i}`, resolvesTo('93.184.215.14'));
    await assert.rejects(addWebhook(ctx.deps, app.client, 'https://hooks.example.org/11', resolvesTo('93.184.215.14')), /at most 10/);
  });
});
