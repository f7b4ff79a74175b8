import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { newAccount, newTask } from '../../test/factories.js';
import type { DeliveryOutcome } from './push-port.js';
import type { OpenStore } from './store.contract.js';
import type { Grant, Repos, Store } from './store.js';

/**
 * The push part of the storage contract (push-port.ts, docs/decisions/0026-push.md): the leases
 * that cap an account's event streams, claimed at once by many without passing the cap; webhook
 * endpoints, the watched accounts' told positions, the outbox that coalesces and that claimers
 * share without a row twice, and the attempts kept. Each adapter's test file calls it.
 */

const NOW = 1_800_000_000;
const DAY = 86400;
let seq = 0;

export function pushContract(label: string, open: OpenStore): void {
  describe(`push storage contract: ${label}`, () => {
    let store: Store;
    let cleanup: (() => Promise<void>) | undefined;
    let userPk: number;
    let clientPk: number;
    const tx = <T>(fn: (r: Repos) => Promise<T>): Promise<T> => store.transaction(fn);

    beforeEach(async () => {
      const opened = await open();
      store = opened.store;
      cleanup = opened.cleanup;
      await store.migrate();
      const n = ++seq;
      userPk = (await tx((r) => r.accounts.create(newAccount('push', n)))).pk;
      clientPk = (await tx((r) => r.clients.create({ clientId: `push${n}`, secretHash: 'h', name: 'App', redirectUris: ['https://app.example.org/cb'], createdAt: NOW }))).pk;
    });
    afterEach(async () => {
      await cleanup?.();
      cleanup = undefined;
    });

    /** A grant of the app by the account, live (with a refresh token) unless told otherwise. */
    async function grant(over: { user?: number; client?: number; scope?: string; refresh?: boolean; expiresAt?: number } = {}): Promise<Grant> {
      const user = over.user ?? userPk;
      const client = over.client ?? clientPk;
      const scope = over.scope ?? 'basic tasks';
      return tx(async (r) => {
        const g = await r.oauth.createGrant({ userPk: user, clientPk: client, scope, createdAt: NOW, expiresAt: over.expiresAt ?? NOW + 90 * DAY, vers: null, os: null, device: null, udid: null });
        if (over.refresh !== false) await r.oauth.createToken({ hash: `r-${g.id}-${seq}`, kind: 'refresh', grantId: g.id, userPk: user, clientPk: client, scope, createdAt: NOW, expiresAt: NOW + 30 * DAY });
        return g;
      });
    }
    const endpoint = (id: string, client = clientPk) => tx((r) => r.webhooks.addEndpoint({ id, clientPk: client, url: `https://hooks.example.org/${id}`, secret: `whsec_${id}`, createdAt: NOW }, NOW));
    const addTasks = (ids: number[], user = userPk) => tx((r) => r.tasks.insertMany(user, ids.map((i) => newTask(i))));
    const position = async (user = userPk) => (await store.read.changes.position(user))?.seq ?? -1;

    describe('event stream leases', () => {
      it('hold at most `max` slots of an account, free again when released or run out; other accounts apart', async () => {
        const claim = (holder: string, now = NOW, user = userPk) => tx((r) => r.sseLeases.claim(user, holder, 2, now, now + 60));
        assert.equal(await claim('a'), 0);
        assert.equal(await claim('b'), 1);
        assert.equal(await claim('c'), null, 'the cap');
        const other = (await tx((r) => r.accounts.create(newAccount('push-other', ++seq)))).pk;
        assert.equal(await claim('o', NOW, other), 0, 'another account has slots of its own');
        await tx((r) => r.sseLeases.release(['a']));
        assert.equal(await claim('c'), 0, 'a released slot is taken again');
        assert.equal(await claim('d', NOW + 59), null);
        assert.equal(await claim('d', NOW + 60), 0, 'a lease that ran out (its instance died) frees its slot');
        assert.deepEqual((await tx((r) => r.sseLeases.renew(['c', 'd', 'b', 'gone'], NOW + 200))).sort(), ['b', 'd'], 'renew tells which leases are still held');
        assert.equal(await claim('e', NOW + 100), null, 'renewed leases hold');
        assert.equal(await tx((r) => r.sseLeases.prune(NOW + 200)), 3, 'b and d ran out at NOW + 200, o at NOW + 60');
      });

      it('claimed by many at once, never more than the cap', async () => {
        const results = await Promise.all(Array.from({ length: 12 }, (_, i) => tx((r) => r.sseLeases.claim(userPk, `h${i}`, 5, NOW, NOW + 60))));
        assert.deepEqual(results.filter((s) => s !== null).sort(), [0, 1, 2, 3, 4]);
      });

      it('go with their account', async () => {
        await tx((r) => r.sseLeases.claim(userPk, 'x', 3, NOW, NOW + 60));
        await tx((r) => r.accounts.delete(userPk));
        const again = (await tx((r) => r.accounts.create(newAccount('push-again', ++seq)))).pk;
        assert.equal(await tx((r) => r.sseLeases.claim(again, 'x', 3, NOW, NOW + 60)), 0, 'the holder is free again');
      });
    });

    it('ended grants: revoked, past their end or gone', async () => {
      const live = await grant();
      const revoked = await grant();
      const past = await grant({ expiresAt: NOW - 1 });
      await tx((r) => r.oauth.revokeGrant(revoked.id, NOW, 'test'));
      assert.deepEqual(await store.read.oauth.endedGrants([live.id, revoked.id, past.id, 999_999, live.id], NOW), [revoked.id, past.id, 999_999]);
      assert.deepEqual(await store.read.oauth.endedGrants([], NOW), []);
    });

    it('the kinds changed in a range of positions, in the log’s order of kinds', async () => {
      await addTasks([1]);
      await tx((r) => r.documents.insertMany(userPk, 'note', [{ id: 1, title: 'n', text: '', folder: 0, private: 0, added: 1, modified: 1 }]));
      await tx((r) => r.organizers.insert(userPk, 'folder', { id: 1, name: 'F', private: 0, archived: 0, ord: 1 }));
      assert.deepEqual(await store.read.changes.kindsSince(userPk, 0, 3), ['task', 'folder', 'note']);
      assert.deepEqual(await store.read.changes.kindsSince(userPk, 1, 2), ['note']);
      assert.deepEqual(await store.read.changes.kindsSince(userPk, 3, 3), []);
    });

    describe('webhooks', () => {
      it('endpoints: added (watching the accounts that granted the app from their positions now), listed, found, re-keyed, removed', async () => {
        await addTasks([1, 2]);
        await grant();
        const lapsed = (await tx((r) => r.accounts.create(newAccount('push-lapsed', ++seq)))).pk;
        await grant({ user: lapsed, refresh: false });
        const e = await endpoint('ep_a');
        assert.deepEqual(e, { id: 'ep_a', clientPk, url: 'https://hooks.example.org/ep_a', secret: 'whsec_ep_a', createdAt: NOW, failingSince: null, disabledAt: null });
        assert.deepEqual(await store.read.webhooks.moved(10), [], 'watched from the position now: nothing moved yet');
        await addTasks([3]);
        await addTasks([1], lapsed);
        assert.deepEqual(await store.read.webhooks.moved(10), [{ userPk, from: 2, to: 3 }], 'a grant without a refresh token to spend is not watched');
        assert.deepEqual(await store.read.webhooks.endpoints(clientPk), [e]);
        assert.deepEqual(await store.read.webhooks.endpoint('ep_a'), e);
        assert.equal(await tx((r) => r.webhooks.setSecret('ep_a', 'whsec_new')), true);
        assert.equal((await store.read.webhooks.endpoint('ep_a'))?.secret, 'whsec_new');
        assert.equal(await tx((r) => r.webhooks.removeEndpoint('ep_a')), true);
        assert.equal(await tx((r) => r.webhooks.removeEndpoint('ep_a')), false);
        assert.equal(await store.read.webhooks.endpoint('ep_a'), null);
      });

      it('watching: a new grant of an app with an enabled endpoint; the told position moves once per move, whoever moves it', async () => {
        await endpoint('ep_w');
        const other = (await tx((r) => r.accounts.create(newAccount('push-w', ++seq)))).pk;
        await addTasks([1], other);
        await tx((r) => r.webhooks.watch(other, clientPk));
        const otherClient = (await tx((r) => r.clients.create({ clientId: `none${seq}`, secretHash: 'h', name: 'No hooks', redirectUris: ['https://x.example.org/cb'], createdAt: NOW }))).pk;
        await tx((r) => r.webhooks.watch(userPk, otherClient));
        await addTasks([2], other);
        await addTasks([1]);
        assert.deepEqual(await store.read.webhooks.moved(10), [{ userPk: other, from: 1, to: 2 }], 'an app without endpoints watches nothing');
        assert.equal(await tx((r) => r.webhooks.advance(other, 1, 2)), true);
        assert.equal(await tx((r) => r.webhooks.advance(other, 1, 2)), false, 'a second instance finds it moved');
        assert.deepEqual(await store.read.webhooks.moved(10), []);
        await tx((r) => r.webhooks.unwatch(other, 1));
        await addTasks([3], other);
        assert.equal((await store.read.webhooks.moved(10)).length, 1, 'unwatch at another position does nothing');
        await tx((r) => r.webhooks.unwatch(other, 2));
        assert.deepEqual(await store.read.webhooks.moved(10), []);
        await grant();
        assert.equal(await tx((r) => r.webhooks.watchMissing(NOW)), 1, 'the granted account, not watched, is from now');
        assert.equal(await tx((r) => r.webhooks.watchMissing(NOW)), 0);
        assert.deepEqual(await store.read.webhooks.moved(10), []);
      });

      it('watchers: the enabled endpoints of the apps the account granted, with each live grant’s scope', async () => {
        await grant({ scope: 'basic tasks' });
        await grant({ scope: 'notes' });
        await grant({ scope: 'lists', refresh: false });
        await endpoint('ep_1');
        await endpoint('ep_2');
        const w = await store.read.webhooks.watchers(userPk, NOW);
        assert.deepEqual(
          w.map((x) => `${x.endpointId} ${x.scope}`),
          ['ep_1 basic tasks', 'ep_1 notes', 'ep_2 basic tasks', 'ep_2 notes'],
        );
        await tx((r) => r.webhooks.disable('ep_1', NOW));
        assert.deepEqual([...new Set((await store.read.webhooks.watchers(userPk, NOW)).map((x) => x.endpointId))], ['ep_2']);
        assert.deepEqual(await store.read.webhooks.watchers(userPk, NOW + 91 * DAY), [], 'grants past their end');
      });

      it('the outbox: one delivery per endpoint and account, kinds merged; claimed once, the next claim waits for the lease', async () => {
        await endpoint('ep_o');
        await tx((r) => r.webhooks.enqueue('ep_o', userPk, ['task'], NOW, NOW, 'msg_1'));
        await tx((r) => r.webhooks.enqueue('ep_o', userPk, ['note', 'task'], NOW + 1, NOW + 1, 'msg_2'));
        assert.equal(await store.read.webhooks.pending('ep_o'), 1, 'a burst coalesces');
        assert.deepEqual(await tx((r) => r.webhooks.claim('early', NOW - 1, NOW + 30, 10)), [], 'not due yet');
        assert.deepEqual([await store.read.webhooks.anyDue(NOW - 1), await store.read.webhooks.anyDue(NOW)], [false, true]);
        await addTasks([1]);
        const [d, ...none] = await tx((r) => r.webhooks.claim('one', NOW, NOW + 30, 10));
        assert.deepEqual(none, []);
        const account = await store.read.accounts.get(userPk);
        assert.deepEqual(d, {
          id: d?.id,
          endpointId: 'ep_o',
          url: 'https://hooks.example.org/ep_o',
          secret: 'whsec_ep_o',
          type: 'changes',
          userPk,
          userid: account?.userid,
          position: 1,
          kinds: ['task', 'note'],
          granted: false,
          attempts: 0,
          msgId: 'msg_1',
          msgBody: null,
        });
        assert.deepEqual(await tx((r) => r.webhooks.claim('two', NOW + 29, NOW + 60, 10)), [], 'held by its claim');
        assert.equal(await store.read.webhooks.anyDue(NOW + 29), false);
        await grant();
        const lost = await tx((r) => r.webhooks.claim('two', NOW + 30, NOW + 60, 10));
        assert.deepEqual(lost.map((x) => x.id), [d?.id], 'a claim that ran out (its instance died) is claimed again');
        assert.equal(lost[0]?.granted, true, 'the account grants the app now');
        const outcome: DeliveryOutcome = { done: true, dueAt: NOW, nextMsgId: 'msg_3' };
        assert.equal(await tx((r) => r.webhooks.settle(d?.id as number, 'one', outcome)), false, 'the first claimer lost it: nothing changes');
        assert.equal(await store.read.webhooks.pending('ep_o'), 1);
        assert.equal(await tx((r) => r.webhooks.settle(d?.id as number, 'two', outcome)), true);
        assert.equal(await store.read.webhooks.pending('ep_o'), 0);
      });

      it('kinds changed while a delivery is sent make the next one; a retry takes them and keeps its attempts', async () => {
        await endpoint('ep_k');
        await tx((r) => r.webhooks.enqueue('ep_k', userPk, ['task'], NOW, NOW, 'msg_1'));
        const [d] = await tx((r) => r.webhooks.claim('c', NOW, NOW + 30, 10));
        await tx((r) => r.webhooks.enqueue('ep_k', userPk, ['list'], NOW + 1, NOW + 1, 'msg_x'));
        await tx((r) => r.webhooks.settle(d?.id as number, 'c', { done: true, dueAt: NOW + 2, nextMsgId: 'msg_2' }));
        const [next] = await tx((r) => r.webhooks.claim('c2', NOW + 2, NOW + 40, 10));
        assert.deepEqual([next?.kinds, next?.msgId, next?.attempts, next?.msgBody], [['list'], 'msg_2', 0, null]);
        await tx((r) => r.webhooks.enqueue('ep_k', userPk, ['row'], NOW + 3, NOW + 3, 'msg_y'));
        const retry: DeliveryOutcome = { done: false, dueAt: NOW + 100, attempts: 1, msgId: 'msg_2', msgBody: '{"b":1}' };
        assert.equal(await tx((r) => r.webhooks.settle(next?.id as number, 'c2', retry)), true);
        assert.deepEqual(await tx((r) => r.webhooks.claim('c3', NOW + 99, NOW + 140, 10)), []);
        const [again] = await tx((r) => r.webhooks.claim('c3', NOW + 100, NOW + 140, 10));
        assert.deepEqual([again?.kinds, again?.attempts, again?.msgId, again?.msgBody], [['list', 'row'], 1, 'msg_2', '{"b":1}']);
      });

      it('two claimers at once share the due deliveries, each row to one of them', async () => {
        await endpoint('ep_s');
        const users = [userPk];
        for (let i = 0; i < 9; i++) users.push((await tx((r) => r.accounts.create(newAccount('push-s', ++seq)))).pk);
        for (const u of users) await tx((r) => r.webhooks.enqueue('ep_s', u, ['task'], NOW, NOW, `msg_${u}`));
        await tx((r) => r.webhooks.enqueueTest('ep_s', NOW, 'msg_test'));
        const claims = await Promise.all(['a', 'b', 'c'].map((c) => tx((r) => r.webhooks.claim(c, NOW, NOW + 30, 4))));
        const ids = claims.flat().map((d) => d.id);
        assert.equal(new Set(ids).size, ids.length, 'no row claimed twice');
        assert.equal(ids.length, 11);
        const test = claims.flat().find((d) => d.type === 'test');
        assert.deepEqual([test?.userPk, test?.userid, test?.position, test?.kinds, test?.granted], [null, null, null, [], true]);
      });

      it('a disabled endpoint drops its deliveries and gets none claimed but tests; enabling it watches again', async () => {
        await grant();
        await endpoint('ep_d');
        await tx((r) => r.webhooks.enqueue('ep_d', userPk, ['task'], NOW, NOW, 'm1'));
        assert.equal(await tx((r) => r.webhooks.failed('ep_d', NOW)), NOW);
        assert.equal(await tx((r) => r.webhooks.failed('ep_d', NOW + 10)), NOW, 'failing since the first failure');
        await tx((r) => r.webhooks.succeeded('ep_d'));
        assert.equal((await store.read.webhooks.endpoint('ep_d'))?.failingSince, null);
        await tx((r) => r.webhooks.failed('ep_d', NOW + 20));
        await tx((r) => r.webhooks.disable('ep_d', NOW + 30));
        assert.deepEqual((await store.read.webhooks.endpoint('ep_d'))?.disabledAt, NOW + 30);
        assert.equal(await store.read.webhooks.pending('ep_d'), 0);
        await tx((r) => r.webhooks.enqueue('ep_d', userPk, ['task'], NOW, NOW, 'm2'));
        await tx((r) => r.webhooks.enqueueTest('ep_d', NOW, 'mt'));
        assert.deepEqual((await tx((r) => r.webhooks.claim('c', NOW, NOW + 30, 10))).map((d) => d.type), ['test']);
        await tx((r) => r.webhooks.unwatch(userPk, 0));
        assert.equal(await tx((r) => r.webhooks.enable('ep_d', NOW + 40)), true);
        assert.deepEqual(await store.read.webhooks.endpoint('ep_d'), { id: 'ep_d', clientPk, url: 'https://hooks.example.org/ep_d', secret: 'whsec_ep_d', createdAt: NOW, failingSince: null, disabledAt: null });
        await addTasks([1]);
        assert.deepEqual(await store.read.webhooks.moved(10), [{ userPk, from: 0, to: await position() }], 'watched again');
      });

      it('keeps the last 100 attempts of an endpoint, newest first; they go with the endpoint, its app, or the account', async () => {
        await endpoint('ep_r');
        await endpoint('ep_q');
        for (let i = 1; i <= 105; i++) {
          await tx((r) => r.webhooks.recordAttempt({ endpointId: 'ep_r', userPk, msgId: `m${i}`, attempt: 1, at: NOW + i, status: i % 2 ? 200 : null, error: i % 2 ? null : 'timed out', latencyMs: i }));
        }
        await tx((r) => r.webhooks.recordAttempt({ endpointId: 'ep_q', userPk: null, msgId: 'mq', attempt: 1, at: NOW, status: 500, error: null, latencyMs: 3 }));
        const kept = await store.read.webhooks.attempts('ep_r', 1000);
        assert.equal(kept.length, 100);
        assert.deepEqual([kept[0]?.msgId, kept[99]?.msgId], ['m105', 'm6']);
        assert.deepEqual(kept[1], { id: kept[1]?.id, endpointId: 'ep_r', userPk, msgId: 'm104', attempt: 1, at: NOW + 104, status: null, error: 'timed out', latencyMs: 104 });
        assert.equal((await store.read.webhooks.attempts('ep_q', 10)).length, 1);
        await tx((r) => r.accounts.delete(userPk));
        assert.deepEqual(await store.read.webhooks.attempts('ep_r', 10), [], 'an account’s attempts go with it');
        assert.equal((await store.read.webhooks.attempts('ep_q', 10)).length, 1, 'a test attempt has no account');
        await tx((r) => r.clients.delete(clientPk));
        assert.equal(await store.read.webhooks.endpoint('ep_q'), null, 'the endpoints go with their app');
        assert.deepEqual(await store.read.webhooks.attempts('ep_q', 10), []);
      });
    });
  });
}
