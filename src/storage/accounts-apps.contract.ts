import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { newAccount } from '../../test/factories.js';
import { pruneExpired } from './prune.js';
import type { OpenStore } from './store.contract.js';
import { UniqueViolation, type AccountLink, type Repos, type Store } from './store.js';

/**
 * The parts of the storage contract that the account and developer pages use: account changes
 * and deletion, apps with their redirect sets, owners and icons, live grants, sessions of an
 * account, one-time links. Each adapter's test file calls it with a factory for a fresh database.
 */

const NOW = 1_800_000_000;
let seq = 0;

export function accountsAppsContract(label: string, open: OpenStore): void {
  describe(`accounts and apps storage contract: ${label}`, () => {
    let store: Store;
    let cleanup: (() => Promise<void>) | undefined;
    const tx = <T>(fn: (r: Repos) => Promise<T>): Promise<T> => store.transaction(fn);

    beforeEach(async () => {
      const opened = await open();
      store = opened.store;
      cleanup = opened.cleanup;
      await store.migrate();
    });
    afterEach(async () => {
      await cleanup?.();
      cleanup = undefined;
    });

    const account = () => tx((r) => r.accounts.create(newAccount('aa', ++seq)));
    const app = (ownerPk: number | null = null, redirectUris = ['https://a.example/cb']) =>
      tx((r) => r.clients.create({ clientId: `app-aa-${++seq}`, secretHash: 'h', name: 'App', redirectUris, ownerPk, createdAt: NOW }));

    it('accounts: list, hasAny, update (e-mail unique), admin flag, password, delete', async () => {
      assert.equal(await store.read.accounts.hasAny(), false);
      const a = await account();
      const b = await account();
      assert.equal(await store.read.accounts.hasAny(), true);
      assert.deepEqual((await store.read.accounts.list()).map((x) => x.pk), [a.pk, b.pk]);
      const prefs = { ...a.prefs, timezone: -3, showtabnums: 0 };
      const changed = await tx((r) => r.accounts.update(a.pk, { alias: 'New', email: 'New@Example.org', emailKey: 'new@example.org', prefs }));
      assert.deepEqual({ alias: changed?.alias, email: changed?.email, prefs: changed?.prefs }, { alias: 'New', email: 'New@Example.org', prefs });
      assert.equal((await store.read.accounts.credentialsByEmail('new@example.org'))?.pk, a.pk);
      await assert.rejects(
        tx((r) => r.accounts.update(b.pk, { email: 'x', emailKey: 'new@example.org' })),
        (err: unknown) => err instanceof UniqueViolation && err.what === 'email',
      );
      assert.equal(await tx((r) => r.accounts.update(b.pk + 1000, { alias: 'x' })), null);
      await tx((r) => r.accounts.setAdmin(b.pk, true));
      assert.equal((await store.read.accounts.get(b.pk))?.isAdmin, true);
      await tx((r) => r.accounts.setPasswordHash(b.pk, 'scrypt$new'));
      assert.equal((await store.read.accounts.credentialsByEmail(b.email.toLowerCase()))?.passwordHash, 'scrypt$new');
      assert.equal(await tx((r) => r.accounts.delete(b.pk)), true);
      assert.equal(await tx((r) => r.accounts.delete(b.pk)), false);
      assert.equal(await store.read.accounts.get(b.pk), null);
    });

    it('apps: redirect sets in order, owners, update, icon, delete; an owner takes its apps along', async () => {
      const owner = await account();
      const c = await app(owner.pk, ['https://a.example/1', 'myapp:/cb']);
      assert.deepEqual(c.redirectUris, ['https://a.example/1', 'myapp:/cb']);
      assert.equal(c.ownerPk, owner.pk);
      const cli = await app(null);
      assert.deepEqual((await store.read.clients.list(owner.pk)).map((x) => x.pk), [c.pk]);
      assert.deepEqual((await store.read.clients.list()).map((x) => x.pk), [c.pk, cli.pk]);
      const changed = await tx((r) => r.clients.update(c.pk, { name: 'Renamed', website: 'https://a.example', redirectUris: ['myapp:/cb', 'https://a.example/2'], secretHash: 'h2' }));
      assert.deepEqual(
        { name: changed?.name, website: changed?.website, redirectUris: changed?.redirectUris, secretHash: changed?.secretHash },
        { name: 'Renamed', website: 'https://a.example', redirectUris: ['myapp:/cb', 'https://a.example/2'], secretHash: 'h2' },
      );
      assert.equal(await tx((r) => r.clients.update(c.pk + 1000, { name: 'x' })), null);
      const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]);
      await tx((r) => r.clients.setIcon(c.pk, { mediaType: 'image/png', data: bytes, updatedAt: NOW }));
      await tx((r) => r.clients.setIcon(c.pk, { mediaType: 'image/png', data: bytes, updatedAt: NOW + 1 }));
      assert.deepEqual(await store.read.clients.icon(c.pk), { mediaType: 'image/png', data: bytes, updatedAt: NOW + 1 });
      assert.equal((await store.read.clients.get(c.pk))?.iconUpdatedAt, NOW + 1);
      await tx((r) => r.clients.setIcon(c.pk, null));
      assert.equal(await store.read.clients.icon(c.pk), null);
      assert.equal(await tx((r) => r.clients.delete(cli.pk)), true);
      assert.equal(await store.read.clients.get(cli.pk), null);
      await tx((r) => r.accounts.delete(owner.pk));
      assert.equal(await store.read.clients.get(c.pk), null, 'the app goes with its owner');
    });

    it('live grants: not revoked, not past their end, with a usable refresh token; newest first', async () => {
      const a = await account();
      const c = await app();
      const grant = async (expiresAt: number, refresh: { expiresAt: number; used?: boolean } | null) => {
        const g = await tx((r) => r.oauth.createGrant({ userPk: a.pk, clientPk: c.pk, scope: 'basic', createdAt: NOW, expiresAt, vers: null, os: null, device: null, udid: null }));
        if (refresh) {
          await tx((r) => r.oauth.createToken({ hash: `rt-${g.id}`, kind: 'refresh', grantId: g.id, userPk: a.pk, clientPk: c.pk, scope: 'basic', createdAt: NOW, expiresAt: refresh.expiresAt }));
          if (refresh.used) await tx((r) => r.oauth.markTokenUsed(`rt-${g.id}`, NOW));
        }
        return g;
      };
      const live = await grant(NOW + 1000, { expiresAt: NOW + 500 });
      const newer = await grant(NOW + 1000, { expiresAt: NOW + 500 });
      await grant(NOW + 1000, null);
      await grant(NOW + 1000, { expiresAt: NOW - 1 });
      await grant(NOW + 1000, { expiresAt: NOW + 500, used: true });
      await grant(NOW - 1, { expiresAt: NOW + 500 });
      const revoked = await grant(NOW + 1000, { expiresAt: NOW + 500 });
      await tx((r) => r.oauth.revokeGrant(revoked.id, NOW, 'test'));
      assert.deepEqual((await store.read.oauth.liveGrants({ userPk: a.pk }, NOW)).map((g) => g.id), [newer.id, live.id]);
      assert.deepEqual((await store.read.oauth.liveGrants({ clientPk: c.pk }, NOW)).map((g) => g.id), [newer.id, live.id]);
      assert.deepEqual(await store.read.oauth.liveGrants({ userPk: a.pk + 1000 }, NOW), []);
    });

    it("sessions of an account end, all or all but one", async () => {
      const a = await account();
      const b = await account();
      for (const [id, pk] of [['s1', a.pk], ['s2', a.pk], ['s3', a.pk], ['s4', b.pk]] as const) {
        await tx((r) => r.sessions.create({ idHash: id, userPk: pk, createdAt: NOW, expiresAt: NOW + 100 }));
      }
      assert.equal(await tx((r) => r.sessions.deleteForUser(a.pk, 's2')), 2);
      assert.ok(await store.read.sessions.get('s2'));
      assert.equal(await store.read.sessions.get('s1'), null);
      assert.equal(await tx((r) => r.sessions.deleteForUser(a.pk)), 1);
      assert.ok(await store.read.sessions.get('s4'), "another account's session stays");
    });

    it('one-time links: taken once, only of their kind and in time; listed, withdrawn, pruned', async () => {
      const a = await account();
      const link = (idHash: string, kind: AccountLink['kind'], expiresAt: number): AccountLink => ({ idHash, kind, userPk: a.pk, note: kind === 'invite' ? 'for Bob' : '', createdAt: NOW, expiresAt });
      await tx(async (r) => {
        await r.accountLinks.create(link('r1', 'reset', NOW + 100));
        await r.accountLinks.create(link('i1', 'invite', NOW + 100));
        await r.accountLinks.create(link('i2', 'invite', NOW + 50));
        await r.accountLinks.create(link('old', 'invite', NOW - 1));
      });
      assert.equal(await store.read.accountLinks.get('r1', 'invite', NOW), null, 'another kind');
      assert.deepEqual(await store.read.accountLinks.get('r1', 'reset', NOW), link('r1', 'reset', NOW + 100));
      assert.equal(await store.read.accountLinks.get('old', 'invite', NOW), null, 'expired');
      assert.deepEqual((await store.read.accountLinks.list(a.pk, 'invite', NOW)).map((l) => l.idHash).sort(), ['i1', 'i2']);
      const takes = await Promise.all([tx((r) => r.accountLinks.take('i1', 'invite', NOW)), tx((r) => r.accountLinks.take('i1', 'invite', NOW))]);
      assert.equal(takes.filter((t) => t !== null).length, 1, 'two takes, one gets it');
      assert.equal(await tx((r) => r.accountLinks.take('r1', 'reset', NOW + 100)), null, 'not at its end');
      assert.equal(await tx((r) => r.accountLinks.delete(a.pk, 'invite', 'i2')), 1);
      assert.equal(await tx((r) => r.accountLinks.delete(a.pk, 'reset')), 1);
      await pruneExpired(store, NOW);
      assert.equal(await store.read.accountLinks.get('old', 'invite', NOW - 10), null, 'pruned');
    });
  });
}
