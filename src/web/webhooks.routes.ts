import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Client, WebhookEndpoint } from '../storage/store.js';
import { addWebhook, enableWebhook, InvalidWebhook, removeWebhook, rotateWebhookSecret, sendTestEvent, webhookOf, webhookState } from '../webhooks/endpoints.service.js';
import { managedApp } from './apps.routes.js';
import { webhookPage } from './views/webhooks.js';
import type { SignedIn, Web } from './web-kit.js';

/**
 * An app's webhook endpoints on the developer pages (docs/sync.md, docs/decisions/0026): added on
 * the app's page, each with a page of its own showing its state and last attempts, from which a
 * test event is sent, the secret rotated, the endpoint enabled again or removed. Only the app's
 * developer (or an admin) reaches them, as the app's own page.
 */
export function webhooksRoutes(web: Web): void {
  const { deps } = web;
  const appPath = (client: Client) => `/developer/apps/${client.clientId}`;
  const hookPath = (client: Client, id: string) => `${appPath(client)}/webhooks/${id}`;

  /** The app and its endpoint of the address; otherwise a 404 page was sent. */
  async function managedHook(request: FastifyRequest, reply: FastifyReply, who: SignedIn): Promise<{ client: Client; endpoint: WebhookEndpoint } | null> {
    const client = await managedApp(web, request, reply, who);
    if (!client) return null;
    const endpoint = await webhookOf(deps, client, (request.params as { id: string }).id);
    if (endpoint) return { client, endpoint };
    web.errorPage(reply, 404, 'No such endpoint', 'This app has no webhook endpoint at this address.');
    return null;
  }

  web.postSignedIn('/developer/apps/:clientId/webhooks', ['url'], async function addHook(request, reply, p, who) {
    const client = await managedApp(web, request, reply, who);
    if (!client) return reply;
    const url = p.get('url') ?? '';
    try {
      const endpoint = await addWebhook(deps, client, url);
      return web.redirect(request, reply, hookPath(client, endpoint.id), { secret: { label: 'The endpoint is added. The secret that signs its deliveries:', value: endpoint.secret } });
    } catch (err) {
      if (err instanceof InvalidWebhook) return web.redirect(request, reply, appPath(client), { error: `Not added: ${err.message}.`, fields: { url } });
      throw err;
    }
  });

  web.getSignedIn('/developer/apps/:clientId/webhooks/:id', async function showHook(request, reply, who) {
    const found = await managedHook(request, reply, who);
    if (!found) return reply;
    const flash = web.flash(request, reply);
    const state = await webhookState(deps, found.endpoint);
    const v = { csrf: web.csrf(reply), client: found.client, ...state, secret: flash.secret, error: flash.error, notice: flash.notice };
    return web.page(reply, 200, webhookPage(web.site, web.nav(reply, who, '/developer'), v));
  });

  web.postSignedIn('/developer/apps/:clientId/webhooks/:id/test', [], async function testHook(request, reply, _p, who) {
    const found = await managedHook(request, reply, who);
    if (!found) return reply;
    await sendTestEvent(deps, found.client, found.endpoint.id);
    return web.redirect(request, reply, hookPath(found.client, found.endpoint.id), { notice: 'A test event is on its way: its attempt shows below within seconds (reload the page).' });
  });

  web.postSignedIn('/developer/apps/:clientId/webhooks/:id/secret', [], async function rotateHookSecret(request, reply, _p, who) {
    const found = await managedHook(request, reply, who);
    if (!found) return reply;
    const secret = await rotateWebhookSecret(deps, found.client, found.endpoint.id);
    const back = hookPath(found.client, found.endpoint.id);
    return secret === null
      ? web.redirect(request, reply, back, { error: 'The endpoint was removed meanwhile.' })
      : web.redirect(request, reply, back, { secret: { label: 'The new secret (deliveries from now on are signed with it):', value: secret } });
  });

  web.postSignedIn('/developer/apps/:clientId/webhooks/:id/enable', [], async function enableHook(request, reply, _p, who) {
    const found = await managedHook(request, reply, who);
    if (!found) return reply;
    await enableWebhook(deps, found.client, found.endpoint.id);
    return web.redirect(request, reply, hookPath(found.client, found.endpoint.id), { notice: 'Enabled: the changes of accounts from now on are delivered again.' });
  });

  web.postSignedIn('/developer/apps/:clientId/webhooks/:id/delete', [], async function removeHook(request, reply, _p, who) {
    const found = await managedHook(request, reply, who);
    if (!found) return reply;
    await removeWebhook(deps, found.client, found.endpoint.id);
    return web.redirect(request, reply, appPath(found.client), { notice: `The endpoint ${found.endpoint.url} is removed.` });
  });
}
