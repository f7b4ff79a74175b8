import type { FastifyReply, FastifyRequest } from 'fastify';
import { createAppPassword, listAppPasswords, revokeAppPassword } from '../features/users/app-passwords.service.js';
import { InvalidInput } from '../features/users/users.service.js';
import type { Params } from '../http/params.js';
import { removeIcon, setIcon } from '../oauth/client-icons.js';
import { deleteClient, InvalidClientInput, mayManage, registerClient, rotateSecret, updateClient } from '../oauth/clients.service.js';
import { connectedApps, revokeGrant } from '../oauth/grants.service.js';
import type { Client } from '../storage/store.js';
import { webhooksOf } from '../webhooks/endpoints.service.js';
import { appPage, connectedAppsPage, developerPage } from './views/apps.js';
import type { SignedIn, Web } from './web-kit.js';

/** The app of the address, if this person may manage it; otherwise a 404 page was sent. */
export async function managedApp(web: Web, request: FastifyRequest, reply: FastifyReply, who: SignedIn): Promise<Client | null> {
  const client = await web.deps.store.read.clients.byClientId((request.params as { clientId: string }).clientId);
  if (client && mayManage(who.account, client)) return client;
  // The same answer for an app of someone else as for none: ids of others' apps are not confirmed.
  web.errorPage(reply, 404, 'No such app', 'There is no app of yours at this address.');
  return null;
}

/** The favicon: a check mark, drawn once; served as SVG under both names browsers ask for. */
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2456c4"/><path d="M8 16.5l5.2 5.2L24.5 10" fill="none" stroke="#fff" stroke-width="3.6" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

const APP_FIELDS = ['name', 'redirect_uris', 'website'] as const;

/** The lines of the redirect-address box, blanks dropped. */
function redirectLines(p: Params): string[] {
  return (p.get('redirect_uris') ?? '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

function appFields(p: Params): Record<string, string> {
  return Object.fromEntries(APP_FIELDS.map((n) => [n, p.get(n) ?? '']));
}

/**
 * Connected apps (with app passwords), developer apps, app icons and the favicon. A person revokes
 * only their own grants and app passwords; a developer manages only their own apps, an admin every
 * app (clients.service mayManage).
 */
export function appsRoutes(web: Web): void {
  const { deps } = web;

  for (const url of ['/favicon.svg', '/favicon.ico']) {
    web.get(url, async function favicon(_request, reply) {
      return reply.header('cache-control', 'public, max-age=86400').header('x-content-type-options', 'nosniff').type('image/svg+xml').send(FAVICON);
    });
  }

  web.get('/apps/:clientId/icon', async function appIcon(request, reply) {
    const client = await deps.store.read.clients.byClientId((request.params as { clientId: string }).clientId);
    const icon = client && (await deps.store.read.clients.icon(client.pk));
    if (!icon) return web.errorPage(reply, 404, 'Not found', 'This app has no icon.');
    // The type is the one its bytes were checked to be; nosniff and a sandboxing policy in case a
    // browser is ever shown it as a page.
    return reply
      .header('cache-control', 'public, max-age=86400')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .type(icon.mediaType)
      .send(icon.data);
  });

  web.getSignedIn('/account/apps', async function showConnected(request, reply, who) {
    const flash = web.flash(request, reply);
    const apps = await connectedApps(deps, { userPk: who.account.pk });
    const csrf = web.csrf(reply);
    const cacheSeconds = deps.config.tokenCacheSeconds;
    const passwords = { csrf, passwords: await listAppPasswords(deps, who.account.pk), fields: flash.fields, cacheSeconds };
    const v = { csrf, apps, cacheSeconds, passwords, secret: flash.secret, error: flash.error, notice: flash.notice };
    return web.page(reply, 200, connectedAppsPage(web.site, web.nav(reply, who, '/account/apps'), v));
  });

  web.postSignedIn('/account/apps/passwords', ['name', 'access'], async function makeAppPassword(request, reply, p, who) {
    const fields = { name: p.get('name') ?? '', access: p.get('access') ?? '' };
    // The form always sends one of the two; anything else is not guessed at.
    if (fields.access !== 'read' && fields.access !== 'write') return web.redirect(request, reply, '/account/apps', { error: 'Choose the access: read and write, or read only.', fields });
    try {
      const { appPassword, password } = await createAppPassword(deps, who.account.pk, { name: fields.name, readOnly: fields.access === 'read' });
      return web.redirect(request, reply, '/account/apps', { secret: { label: `The app password for ${appPassword.name}:`, value: password } });
    } catch (err) {
      if (err instanceof InvalidInput) return web.redirect(request, reply, '/account/apps', { error: `Not made: ${err.message}.`, fields });
      throw err;
    }
  });

  web.postSignedIn('/account/apps/passwords/revoke', ['id'], async function revokePassword(request, reply, p, who) {
    const id = Number(p.text('id'));
    // Only the account's own: another's id is answered as one that is gone.
    const named = Number.isSafeInteger(id) ? (await listAppPasswords(deps, who.account.pk)).find((a) => a.id === id) : undefined;
    const ok = named !== undefined && (await revokeAppPassword(deps, who.account.pk, id));
    return web.redirect(request, reply, '/account/apps', ok ? { notice: `Revoked: the app password ${named.name} no longer signs in.` } : { error: 'That app password was revoked already.' });
  });

  web.postSignedIn('/account/apps/revoke', ['grant'], async function revoke(request, reply, p, who) {
    const id = Number(p.text('grant'));
    const ok = Number.isSafeInteger(id) && (await revokeGrant(deps, id, 'revoked by the user (connected apps)', who.account.pk));
    return web.redirect(request, reply, '/account/apps', ok ? { notice: 'Revoked: the app can no longer use your account.' } : { error: 'That authorization had ended already.' });
  });

  web.getSignedIn('/developer', async function showDeveloper(request, reply, who) {
    const flash = web.flash(request, reply);
    const apps = await deps.store.read.clients.list(who.account.isAdmin ? undefined : who.account.pk);
    const v = { csrf: web.csrf(reply), apps, allApps: who.account.isAdmin, fields: flash.fields, error: flash.error, notice: flash.notice };
    return web.page(reply, 200, developerPage(web.site, web.nav(reply, who, '/developer'), v));
  });

  web.postSignedIn('/developer/apps', APP_FIELDS, async function register(request, reply, p, who) {
    try {
      const input = { name: p.get('name') ?? '', redirectUris: redirectLines(p), website: p.get('website'), ownerPk: who.account.pk };
      const { client, clientSecret } = await registerClient(deps, input);
      return web.redirect(request, reply, `/developer/apps/${client.clientId}`, { secret: { label: 'The app is registered. Its client secret:', value: clientSecret } });
    } catch (err) {
      if (err instanceof InvalidClientInput) return web.redirect(request, reply, '/developer', { error: `Not registered: ${err.message}.`, fields: appFields(p) });
      throw err;
    }
  });

  const managed = (request: FastifyRequest, reply: FastifyReply, who: SignedIn) => managedApp(web, request, reply, who);

  web.getSignedIn('/developer/apps/:clientId', async function showApp(request, reply, who) {
    const client = await managed(request, reply, who);
    if (!client) return reply;
    const flash = web.flash(request, reply);
    const users = (await connectedApps(deps, { clientPk: client.pk })).length;
    const webhooks = { endpoints: await webhooksOf(deps, client), allowPrivate: deps.config.webhookAllowPrivate };
    const v = { csrf: web.csrf(reply), client, users, webhooks, secret: flash.secret, fields: flash.fields, error: flash.error, notice: flash.notice };
    return web.page(reply, 200, appPage(web.site, web.nav(reply, who, '/developer'), v));
  });

  web.postSignedIn('/developer/apps/:clientId', APP_FIELDS, async function saveApp(request, reply, p, who) {
    const client = await managed(request, reply, who);
    if (!client) return reply;
    const back = `/developer/apps/${client.clientId}`;
    try {
      await updateClient(deps, client, { name: p.get('name') ?? '', redirectUris: redirectLines(p), website: p.get('website') });
      return web.redirect(request, reply, back, { notice: 'Saved.' });
    } catch (err) {
      if (err instanceof InvalidClientInput) return web.redirect(request, reply, back, { error: `Not saved: ${err.message}.`, fields: appFields(p) });
      throw err;
    }
  });

  web.postSignedIn('/developer/apps/:clientId/secret', [], async function newSecret(request, reply, _p, who) {
    const client = await managed(request, reply, who);
    if (!client) return reply;
    const secret = await rotateSecret(deps, client);
    return web.redirect(request, reply, `/developer/apps/${client.clientId}`, { secret: { label: 'The new client secret (the old one no longer works):', value: secret } });
  });

  web.postSignedIn('/developer/apps/:clientId/icon', ['icon', 'remove'], async function saveIcon(request, reply, p, who) {
    const client = await managed(request, reply, who);
    if (!client) return reply;
    const back = `/developer/apps/${client.clientId}`;
    if (p.has('remove')) {
      await removeIcon(deps, client);
      return web.redirect(request, reply, back, { notice: 'The icon is removed.' });
    }
    const raw = (request.body as Record<string, unknown> | undefined)?.['icon'];
    try {
      await setIcon(deps, client, Buffer.isBuffer(raw) ? raw : Buffer.alloc(0));
      return web.redirect(request, reply, back, { notice: 'The icon is saved.' });
    } catch (err) {
      if (err instanceof InvalidClientInput) return web.redirect(request, reply, back, { error: `Not saved: ${err.message}.` });
      throw err;
    }
  });

  web.postSignedIn('/developer/apps/:clientId/delete', [], async function removeApp(request, reply, _p, who) {
    const client = await managed(request, reply, who);
    if (!client) return reply;
    await deleteClient(deps, client);
    return web.redirect(request, reply, '/developer', { notice: `${client.name} is deleted; every authorization of it has ended.` });
  });
}
