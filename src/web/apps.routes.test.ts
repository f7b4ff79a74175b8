import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, formInputs, hiddenInputs, submit } from '../../test/browser.js';
import { api, authorize, createAccount, signIn, testContext, tokenRequest, type TestApp, type TestContext } from '../../test/harness.js';
import { landed, signedInBrowser, text } from '../../test/web-pages.js';
import { authorizeUrl, PATH } from '../oauth/authorize.test-kit.js';
import type { Account } from '../storage/store.js';

/** Connected apps (revoke), developer apps (register, edit, rotate, icon, delete), admins. */

let ctx: TestContext;
before(async () => {
  ctx = await testContext();
});
after(() => ctx.close());

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** Registers an app on the developer page; returns its client id and secret as the page showed them. */
async function registerOnPage(b: Browser, fields: Record<string, string>): Promise<{ clientId: string; secret: string; page: string }> {
  const res = await submit(b, '/developer', fields, '/developer/apps');
  const page = await landed(b, res);
  const clientId = /\/developer\/apps\/(app[0-9a-f]+)$/.exec(res.headers['location'] as string)?.[1] ?? '';
  const secret = /<code class="secret">([0-9a-f]{40})<\/code>/.exec(page.body)?.[1] ?? '';
  return { clientId, secret, page: page.body };
}

/** A multipart upload of the icon form, as a browser sends it. */
async function uploadIcon(b: Browser, clientId: string, bytes: Buffer, filename = 'icon.png'): Promise<string> {
  const page = await b.get(`/developer/apps/${clientId}`);
  const csrf = formInputs(page.body, `/developer/apps/${clientId}/icon`)['_csrf'] as string;
  const boundary = 'XyZzy';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="icon"; filename="${filename}"\r\nContent-Type: image/png\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await ctx.app.inject({
    method: 'POST',
    url: `/developer/apps/${clientId}/icon`,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, origin: 'http://127.0.0.1:3000', 'sec-fetch-site': 'same-origin', ...b.cookies.headers() },
    payload: body,
  });
  return text(await landed(b, res));
}

describe('connected apps', () => {
  it('lists what the person allowed, with device and dates; Revoke ends the tokens at once', async () => {
    const { account, token, app } = await signIn(ctx);
    await tokenRequest(ctx, app, { grant_type: 'authorization_code', code: 'nothing' });
    const b = await signedInBrowser(ctx, account);
    const page = await b.get('/account/apps');
    assert.match(text(page), /Test App/);
    assert.match(text(page), /See your tasks, goals, contexts, folders and locations/);
    assert.match(text(page), /Allowed 2026-01-15/);
    assert.match(text(page), /up to 5 seconds/, 'the token cache bound is stated');
    assert.equal((await api(ctx, token, '/3/account/get.php')).statusCode, 200);
    const res = await b.post('/account/apps/revoke', formInputs(page.body, '/account/apps/revoke'));
    assert.match(text(await landed(b, res)), /Revoked.*No app holds access/);
    const refused = await api(ctx, token, '/3/account/get.php');
    assert.equal(refused.statusCode, 401, 'this process forgot the cached token at once');
    assert.equal(refused.json<{ errorCode: number }>().errorCode, 2);
  });

  it('a person revokes only their own grants', async () => {
    const victim = await signIn(ctx);
    const attacker = await createAccount(ctx);
    const b = await signedInBrowser(ctx, attacker);
    const grant = (await ctx.deps.store.read.oauth.liveGrants({ userPk: victim.account.pk }, 2_000_000_000 - 1))[0];
    const csrf = formInputs((await b.get('/account/apps')).body, '/signout')['_csrf'] as string;
    const res = await landed(b, await b.post('/account/apps/revoke', { _csrf: csrf, grant: String(grant?.id) }));
    assert.match(text(res), /had ended already/);
    assert.equal((await api(ctx, victim.token, '/3/account/get.php')).statusCode, 200);
  });
});

describe('developer apps', () => {
  let dev: Account;
  let b: Browser;
  before(async () => {
    dev = await createAccount(ctx);
    b = await signedInBrowser(ctx, dev);
  });

  it('registers an app with several exact redirect addresses; the secret is shown once', async () => {
    const { clientId, secret } = await registerOnPage(b, { name: 'Notes', redirect_uris: 'https://notes.example/cb\r\n\r\ncom.example.notes:/cb\n', website: 'https://notes.example' });
    assert.match(clientId, /^app[0-9a-f]{20}$/);
    assert.match(secret, /^[0-9a-f]{40}$/);
    assert.doesNotMatch((await b.get(`/developer/apps/${clientId}`)).body, /class="secret"/, 'shown once');
    const client = await ctx.deps.store.read.clients.byClientId(clientId);
    assert.deepEqual(client?.redirectUris, ['https://notes.example/cb', 'com.example.notes:/cb']);
    assert.equal(client?.ownerPk, dev.pk);
    assert.equal(client?.website, 'https://notes.example');
    assert.match(text(await b.get('/developer')), /Notes/);
  });

  it('a bad address is refused with the reason; the form keeps what was typed', async () => {
    const page = await landed(b, await submit(b, '/developer', { name: 'Bad', redirect_uris: 'https://ok.example/cb\nhttps://*.example/cb' }, '/developer/apps'));
    assert.match(text(page), /Not registered: redirect URI "https:\/\/\*\.example\/cb" must not contain a wildcard/);
    assert.match(page.body, /value="Bad"/);
    assert.match(page.body, /https:\/\/ok\.example\/cb/);
    for (const [redirects, why] of [['', /at least one redirect URI/], ['https://a.example/cb\nhttps://a.example/cb', /listed twice/], [Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`).join('\n'), /at most 10/]] as const) {
      assert.match(text(await landed(b, await submit(b, '/developer', { name: 'X', redirect_uris: redirects }, '/developer/apps'))), why);
    }
  });

  it('with several addresses, the authorize request must name one; each works, and the token endpoint checks it', async () => {
    const { clientId, secret } = await registerOnPage(b, { name: 'Two', redirect_uris: 'https://two.example/a\nhttps://two.example/b' });
    const client = (await ctx.deps.store.read.clients.byClientId(clientId))!;
    const app: TestApp = { client, clientId, clientSecret: secret, redirectUri: 'https://two.example/a', basic: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` };
    const unnamed = await b.get(authorizeUrl(app));
    assert.equal(unnamed.statusCode, 400, 'no redirect: which address is not known');
    assert.match(text(unnamed), /several redirect addresses/);
    for (const target of ['https://two.example/a', 'https://two.example/b']) {
      const consent = await b.get(authorizeUrl(app, { redirect_uri: target }));
      assert.match(text(consent), new RegExp(`Your answer goes to ${target}`));
      const res = await b.post(PATH, { ...hiddenInputs(consent.body.slice(consent.body.indexOf('<main'))), action: 'allow' });
      const location = new URL(res.headers['location'] as string);
      assert.equal(`${location.origin}${location.pathname}`, target);
      const code = location.searchParams.get('code') as string;
      const other = target.endsWith('a') ? 'https://two.example/b' : 'https://two.example/a';
      assert.equal((await tokenRequest(ctx, app, { grant_type: 'authorization_code', code, redirect_uri: other })).json<{ errorCode: number }>().errorCode, 102);
      assert.ok((await tokenRequest(ctx, app, { grant_type: 'authorization_code', code, redirect_uri: target })).json<{ access_token?: string }>().access_token);
    }
  });

  it('edits name, site and addresses; rotates the secret (the old one stops); deletes (every grant ends)', async () => {
    const { clientId, secret } = await registerOnPage(b, { name: 'Old name', redirect_uris: 'https://e.example/cb' });
    const client = (await ctx.deps.store.read.clients.byClientId(clientId))!;
    const oldApp: TestApp = { client, clientId, clientSecret: secret, redirectUri: 'https://e.example/cb', basic: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` };
    const user = await createAccount(ctx);
    const tokens = await authorize(ctx, user, oldApp);
    const saved = await landed(b, await submit(b, `/developer/apps/${clientId}`, { name: 'New name', redirect_uris: 'https://e.example/cb\nhttps://e.example/cb2', website: '' }));
    assert.match(text(saved), /Saved/);
    assert.deepEqual((await ctx.deps.store.read.clients.byClientId(clientId))?.redirectUris, ['https://e.example/cb', 'https://e.example/cb2']);
    const rotated = await landed(b, await submit(b, `/developer/apps/${clientId}`, {}, `/developer/apps/${clientId}/secret`));
    const fresh = /<code class="secret">([0-9a-f]{40})<\/code>/.exec(rotated.body)?.[1] as string;
    assert.notEqual(fresh, secret);
    assert.equal((await tokenRequest(ctx, oldApp, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).json<{ errorCode: number }>().errorCode, 102, 'the old secret no longer works');
    const newApp = { ...oldApp, basic: `Basic ${Buffer.from(`${clientId}:${fresh}`).toString('base64')}` };
    const refreshed = (await tokenRequest(ctx, newApp, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).json<{ access_token: string }>();
    assert.ok(refreshed.access_token, 'grants survive a new secret');
    const gone = await landed(b, await submit(b, `/developer/apps/${clientId}`, {}, `/developer/apps/${clientId}/delete`));
    assert.match(text(gone), /New name is deleted/);
    assert.equal(await ctx.deps.store.read.clients.byClientId(clientId), null);
    assert.equal((await api(ctx, refreshed.access_token, '/3/account/get.php')).statusCode, 401);
  });

  it('an icon: PNG, JPEG, GIF or WebP by its bytes, at most 64 KB; served with its type', async () => {
    const { clientId } = await registerOnPage(b, { name: 'Iconic', redirect_uris: 'https://i.example/cb' });
    assert.match(await uploadIcon(b, clientId, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'x.png'), /must be a PNG, JPEG, GIF or WebP/);
    assert.match(await uploadIcon(b, clientId, Buffer.concat([PNG, Buffer.alloc(65 * 1024)])), /at most 64 KB/);
    assert.match(await uploadIcon(b, clientId, PNG), /The icon is saved/);
    const client = (await ctx.deps.store.read.clients.byClientId(clientId))!;
    const icon = await ctx.app.inject({ method: 'GET', url: `/apps/${clientId}/icon?v=${client.iconUpdatedAt}` });
    assert.equal(icon.statusCode, 200);
    assert.equal(icon.headers['content-type'], 'image/png');
    assert.equal(icon.headers['x-content-type-options'], 'nosniff');
    assert.deepEqual(icon.rawPayload, PNG);
    assert.match((await b.get(`/developer/apps/${clientId}`)).body, new RegExp(`/apps/${clientId}/icon\\?v=`));
    assert.match(text(await landed(b, await submit(b, `/developer/apps/${clientId}`, { remove: '1' }, `/developer/apps/${clientId}/icon`))), /icon is removed/);
    assert.equal((await ctx.app.inject({ method: 'GET', url: `/apps/${clientId}/icon` })).statusCode, 404);
  });

  it("another person's app is not found; an admin manages every app, the command line's included", async () => {
    const { clientId } = await registerOnPage(b, { name: 'Private', redirect_uris: 'https://p.example/cb' });
    const stranger = await signedInBrowser(ctx, await createAccount(ctx));
    assert.equal((await stranger.get(`/developer/apps/${clientId}`)).statusCode, 404);
    const csrf = formInputs((await stranger.get('/developer')).body, '/developer/apps')['_csrf'] as string;
    assert.equal((await stranger.post(`/developer/apps/${clientId}/delete`, { _csrf: csrf })).statusCode, 404);
    assert.ok(await ctx.deps.store.read.clients.byClientId(clientId));
    assert.doesNotMatch(text(await stranger.get('/developer')), /Private/);
    const admin = await createAccount(ctx);
    await ctx.deps.store.transaction((tx) => tx.accounts.setAdmin(admin.pk, true));
    const a = await signedInBrowser(ctx, admin);
    const all = text(await a.get('/developer'));
    assert.match(all, /Every app on this server.*Private/);
    assert.equal((await a.get(`/developer/apps/${clientId}`)).statusCode, 200);
  });
});
