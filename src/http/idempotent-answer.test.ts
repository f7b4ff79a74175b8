import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createApp, signIn, testContext, type SignedIn, type TestContext } from '../../test/harness.js';
import { unixSeconds } from '../lib/clock.js';
import type { Repos } from '../storage/store.js';
import { fingerprintOf, KEEP_SECONDS } from './idempotency.js';
import { Params } from './params.js';

type Form = Record<string, string>;

/**
 * Idempotency-Key on POSTs to the API (docs/decisions/0022), through the production app: replays,
 * keys reused with other parameters (1103), keys still running (1104), bad keys (1105), dead
 * claims taken over after their lease, and what takes no part.
 */
describe('Idempotency-Key', () => {
  let ctx: TestContext;
  let me: SignedIn;

  before(async () => {
    ctx = await testContext();
    me = await signIn(ctx, { pro: 1 });
  });
  after(() => ctx.close());

  const post = (path: string, form: Form, key?: string | string[], token = me.token, query = ''): Promise<LightMyRequestResponse> =>
    ctx.app.inject({
      method: 'POST',
      url: `${path}${query}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded', ...(key !== undefined && { 'idempotency-key': key }) },
      payload: new URLSearchParams(form).toString(),
    });
  const add = (title: string, key?: string, token = me.token) => post('/3/tasks/add.php', { tasks: JSON.stringify([{ title }]) }, key, token);
  const titles = async (token = me.token): Promise<string[]> => {
    const [, ...tasks] = (await post('/3/tasks/get.php', {}, undefined, token)).json<Array<{ title: string }>>();
    return tasks.map((t) => t.title).sort();
  };
  let n = 0;
  const freshKey = () => `key-${++n}-${Math.random().toString(36).slice(2)}`;

  it('the same key and parameters again: the kept answer, byte for byte, marked Idempotent-Replayed, and nothing changes', async () => {
    const key = freshKey();
    const first = await add('Once', key);
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await add('Once', key);
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.headers['content-type'], first.headers['content-type']);
    assert.equal(again.headers['cache-control'], 'no-store');
    assert.equal(again.body, first.body);
    assert.deepEqual((await titles()).filter((t) => t === 'Once'), ['Once']);
  });

  it('compares the parameters as read: their order and place, and the access token, do not matter', async () => {
    const key = freshKey();
    const tasks = JSON.stringify([{ title: 'Placed' }]);
    const first = await post('/3/tasks/add.php', { tasks, fields: 'note' }, key);
    const moved = await post('/3/tasks/add.php', { tasks }, key, me.token, '?fields=note');
    assert.equal(moved.headers['idempotent-replayed'], 'true');
    assert.equal(moved.body, first.body);
    // Another token of the same app and account: an app that refreshed between two tries.
    const again = await signIn(ctx, { account: me.account, app: me.app });
    const withNewToken = await post('/3/tasks/add.php', { fields: 'note', tasks }, key, again.token);
    assert.equal(withNewToken.headers['idempotent-replayed'], 'true');
    assert.deepEqual((await titles()).filter((t) => t === 'Placed'), ['Placed']);
  });

  it('the same key with other parameters or on another endpoint: 1103, HTTP 422, and nothing changes', async () => {
    const key = freshKey();
    await add('First', key);
    for (const other of [() => add('Second', key), () => post('/3/tasks/edit.php', { tasks: JSON.stringify([{ title: 'First' }]) }, key), () => post('/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'First' }]), f: 'xml' }, key)]) {
      const res = await other();
      assert.equal(res.statusCode, 422);
      assert.equal(res.headers['idempotent-replayed'], undefined);
    }
    const res = await add('Second', key);
    assert.deepEqual(res.json(), { errorCode: 1103, errorDesc: 'This Idempotency-Key was used with other parameters' });
    assert.deepEqual((await titles()).filter((t) => t === 'First' || t === 'Second'), ['First']);
  });

  it('a key is per app and per account: another app or account with the same key runs its own request', async () => {
    const key = freshKey();
    await add('Mine', key);
    const otherApp = await signIn(ctx, { account: me.account, app: await createApp(ctx, 'https://other.example.org/cb', 'Other') });
    const otherAccount = await signIn(ctx, { app: me.app });
    for (const other of [otherApp, otherAccount]) {
      const res = await add('Mine', key, other.token);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['idempotent-replayed'], undefined);
    }
    assert.deepEqual((await titles()).filter((t) => t === 'Mine'), ['Mine', 'Mine']);
    assert.deepEqual(await titles(otherAccount.token), ['Mine']);
  });

  it('a key that is not 1 to 255 visible ASCII characters: 1105, HTTP 400, in the format asked for, and nothing changes', async () => {
    for (const bad of ['', 'x'.repeat(256), 'two words', 'caf\u00e9', ['a', 'b']]) {
      const res = await add('Badly keyed', bad as string);
      assert.equal(res.statusCode, 400, JSON.stringify(bad));
      assert.equal(res.json<{ errorCode: number }>().errorCode, 1105);
    }
    const xml = await post('/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'Badly keyed' }]), f: 'xml' }, ' ');
    assert.equal(xml.statusCode, 400);
    assert.match(xml.body, /<error id="1105">Invalid Idempotency-Key/);
    assert.deepEqual((await titles()).filter((t) => t === 'Badly keyed'), []);
    assert.equal((await add('Long key', 'k'.repeat(255))).statusCode, 200);
  });

  it('error records are answers too: kept and given again; XML as XML', async () => {
    const key = freshKey();
    const tooMany = JSON.stringify(Array.from({ length: 51 }, (_, i) => ({ title: `t${i}` })));
    const first = await post('/3/tasks/add.php', { tasks: tooMany }, key);
    assert.equal(first.json<{ errorCode: number }>().errorCode, 602);
    const again = await post('/3/tasks/add.php', { tasks: tooMany }, key);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);

    const xmlKey = freshKey();
    const xml = await post('/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'In XML' }]), f: 'xml' }, xmlKey);
    const xmlAgain = await post('/3/tasks/add.php', { f: 'xml', tasks: JSON.stringify([{ title: 'In XML' }]) }, xmlKey);
    assert.equal(xmlAgain.headers['content-type'], 'text/xml; charset=utf-8');
    assert.equal(xmlAgain.body, xml.body);
    assert.match(xml.body, /<title>In XML<\/title>/);
  });

  /** Claims the key as another instance's running request would, with the fingerprint `form` on `path` gives. */
  async function heldElsewhere(key: string, path: string, form: Form, attempt = 'elsewhere'): Promise<void> {
    const fingerprint = fingerprintOf(path, 'json', [{}, form], Params.from({}, form));
    const now = unixSeconds(ctx.clock);
    const lease = ctx.config.idempotencyLeaseSeconds;
    const held = await ctx.deps.store.transaction((tx) =>
      tx.idempotency.claim({ userPk: me.account.pk, clientPk: me.app.client.pk, key, fingerprint, attempt, nowSeconds: now, lockedUntil: now + lease, expiresAt: now + KEEP_SECONDS }),
    );
    assert.equal(held, null);
  }

  it('while a request with the key runs: 1104, HTTP 409; once its lease ends without a word (its process died), a retry runs it', async () => {
    const key = freshKey();
    const form = { tasks: JSON.stringify([{ title: 'After a crash' }]) };
    await heldElsewhere(key, '/3/tasks/add.php', form);
    const busy = await post('/3/tasks/add.php', form, key);
    assert.equal(busy.statusCode, 409);
    assert.deepEqual(busy.json(), { errorCode: 1104, errorDesc: 'A request with this Idempotency-Key is still being processed' });
    assert.equal((await add('Not the same', key)).statusCode, 422, 'other parameters are 1103 even while it runs');
    ctx.clock.advance(ctx.config.idempotencyLeaseSeconds - 1);
    const held = await post('/3/tasks/add.php', form, key);
    assert.equal(held.statusCode, 409, held.body);
    ctx.clock.advance(1);
    const ran = await post('/3/tasks/add.php', form, key);
    assert.equal(ran.statusCode, 200);
    assert.equal(ran.headers['idempotent-replayed'], undefined);
    // The dead attempt, had it lived on, could keep no answer of its own.
    const scope = { userPk: me.account.pk, clientPk: me.app.client.pk, key };
    assert.equal(await ctx.deps.store.transaction((tx) => tx.idempotency.finish(scope, 'elsewhere', { status: 200, contentType: 'x', body: 'late' })), false);
    assert.equal((await post('/3/tasks/add.php', form, key)).body, ran.body);
    assert.deepEqual((await titles()).filter((t) => t === 'After a crash'), ['After a crash']);
  });

  it('two requests with one key at once: one runs, the other is told it runs (or, once it ended, gets its answer)', async () => {
    const key = freshKey();
    const both = await Promise.all([add('Raced', key), add('Raced', key)]);
    const [ran, other] = both[0].headers['idempotent-replayed'] === undefined && both[0].statusCode === 200 ? both : [both[1], both[0]];
    assert.equal(ran.statusCode, 200);
    assert.ok(other.statusCode === 409 || (other.statusCode === 200 && other.headers['idempotent-replayed'] === 'true'), `${other.statusCode} ${other.body}`);
    assert.deepEqual((await titles()).filter((t) => t === 'Raced'), ['Raced']);
  });

  it('a server fault is not kept: the key is given up, and a retry runs the request', async () => {
    const key = freshKey();
    const store = ctx.deps.store as { transaction: <T>(fn: (tx: Repos) => Promise<T>) => Promise<T> };
    const real = store.transaction.bind(store);
    // The call's write fails (the claim, before it, goes through).
    store.transaction = <T>(fn: (tx: Repos) => Promise<T>): Promise<T> =>
      real((tx) => fn({ ...tx, tasks: new Proxy(tx.tasks, { get: (t, p) => (p === 'insertMany' ? () => Promise.reject(new Error('disk full')) : Reflect.get(t, p)) }) }));
    let failed: LightMyRequestResponse;
    try {
      failed = await add('Retried after a fault', key);
    } finally {
      store.transaction = real;
    }
    assert.equal(failed.statusCode, 500);
    const retried = await add('Retried after a fault', key);
    assert.equal(retried.statusCode, 200);
    assert.equal(retried.headers['idempotent-replayed'], undefined);
    assert.deepEqual((await titles()).filter((t) => t === 'Retried after a fault'), ['Retried after a fault']);
  });

  it('a key is kept 24 hours: after that it may start anew, with any parameters', async () => {
    const key = freshKey();
    await add('Day one', key);
    ctx.clock.advance(KEEP_SECONDS - 1);
    // Access tokens live two hours: the app has refreshed meanwhile (the key is the app's and the account's).
    me = await signIn(ctx, { account: me.account, app: me.app });
    assert.equal((await add('Day two', key)).statusCode, 422);
    ctx.clock.advance(1);
    const fresh = await add('Day two', key);
    assert.equal(fresh.statusCode, 200);
    assert.equal(fresh.headers['idempotent-replayed'], undefined);
  });

  it('takes no part in GET calls, in the token and revocation endpoints, and in calls without the header', async () => {
    const get = await ctx.app.inject({ method: 'GET', url: '/3/tasks/get.php', headers: { authorization: `Bearer ${me.token}`, 'idempotency-key': 'not a key' } });
    assert.equal(get.statusCode, 200);
    assert.equal(get.headers['idempotent-replayed'], undefined);
    const token = await ctx.app.inject({
      method: 'POST',
      url: '/3/account/token.php',
      headers: { authorization: me.app.basic, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': 'not a key' },
      payload: 'grant_type=refresh_token&refresh_token=unknown',
    });
    assert.equal(token.json<{ errorCode: number }>().errorCode, 102);
    const revoke = await ctx.app.inject({
      method: 'POST',
      url: '/3/account/revoke.php',
      headers: { authorization: me.app.basic, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': 'not a key' },
      payload: 'token=unknown',
    });
    assert.equal(revoke.statusCode, 200);
    const plain = await add('Unkeyed');
    assert.equal(plain.headers['idempotent-replayed'], undefined);
    assert.equal((await add('Unkeyed')).statusCode, 200);
    assert.deepEqual((await titles()).filter((t) => t === 'Unkeyed'), ['Unkeyed', 'Unkeyed']);
  });
});
