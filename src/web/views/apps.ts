import { describeScope } from '../../oauth/scopes.js';
import { MAX_REDIRECTS } from '../../oauth/clients.service.js';
import type { ConnectedApp } from '../../oauth/grants.service.js';
import type { Client, WebhookEndpoint } from '../../storage/store.js';
import { buttonForm, field, form, textArea } from '../forms.js';
import { day, h, layout, messages, type Nav, type Site } from '../html.js';
import { appPasswordsSection, newAppPasswordNotice, type AppPasswordsView } from './app-passwords.js';
import { webhooksSection } from './webhooks.js';

/** Connected apps (what a person allowed) and developer apps (what a developer registered). */

function iconOf(site: Site, client: Client): string {
  return client.iconUpdatedAt === null
    ? '<img src="' + h(site.base) + '/favicon.svg" alt="">'
    : `<img src="${h(site.base)}/apps/${h(client.clientId)}/icon?v=${client.iconUpdatedAt}" alt="">`;
}

export function connectedAppsPage(
  site: Site,
  nav: Nav,
  v: {
    csrf: string;
    apps: readonly ConnectedApp[];
    cacheSeconds: number;
    /** The app passwords part (views/app-passwords.ts). */
    passwords: AppPasswordsView;
    /** A new app password, shown once. */
    secret?: { label: string; value: string } | undefined;
    error?: string | undefined;
    notice?: string | undefined;
  },
): string {
  const items = v.apps
    .map(({ grant, client }) => {
      const scopes = (grant.scope.split(' ').filter(Boolean))
        .map((w) => describeScope(w))
        .filter((d) => d.known)
        .map((d) => `<li>${h(d.text)}</li>`)
        .join('');
      const device = [grant.device, grant.os, grant.vers && `version ${grant.vers}`].filter(Boolean).join(', ');
      return `<li><div class="row">${iconOf(site, client)}<div class="grow"><h2>${h(client.name)}</h2>
<ul class="scopes">${scopes || '<li>See nothing beyond its own authorization</li>'}</ul>
<dl class="facts"><dt>Allowed</dt><dd>${day(grant.createdAt)}</dd><dt>Last used</dt><dd>${day(grant.lastUsedAt)}</dd>${
        device ? `<dt>Device</dt><dd>${h(device)}</dd>` : ''
      }${client.website ? `<dt>Web site</dt><dd>${h(client.website)}</dd>` : ''}</dl>
${buttonForm(`${site.base}/account/apps/revoke`, v.csrf, `Revoke ${client.name}`, { hidden: [['grant', String(grant.id)]], danger: true })}</div></div></li>`;
    })
    .join('');
  const cache =
    v.cacheSeconds > 0
      ? `Revoking ends the app's access at once. Where this server runs as several instances, another instance may still accept an access token it checked moments before, for up to ${v.cacheSeconds} seconds.`
      : "Revoking ends the app's access at once.";
  return layout(
    site,
    'Connected apps',
    `<h1>Connected apps</h1>${messages(v)}${v.secret ? newAppPasswordNotice(v.secret) : ''}
<p>These apps can use your account, each for what you allowed. Lost a phone? Revoke the app on it: it must ask you again. ${h(cache)}</p>
<div class="card">${items ? `<ul class="items">${items}</ul>` : '<p>No app holds access to your account.</p>'}</div>
<p class="muted">"Last used" is when the app last got a token: apps renew theirs every two hours while in use.</p>
${appPasswordsSection(site, v.passwords)}`,
    { nav },
  );
}

const REDIRECT_HINT = `One per line, at most ${MAX_REDIRECTS}. Each is compared exactly, character for character. https, or http only to localhost; apps on a device may use their own scheme (com.example.app:/cb).`;

function appFields(v: { name?: string | undefined; website?: string | undefined; redirects?: string | undefined; autofocus: boolean }): string {
  return `${field({ name: 'name', label: 'Name', value: v.name, required: true, autofocus: v.autofocus, hint: 'People see it when they allow the app.' })}
${textArea({ name: 'redirect_uris', label: 'Redirect addresses', value: v.redirects, required: true, hint: REDIRECT_HINT })}
${field({ name: 'website', label: 'Web site (optional)', type: 'url', value: v.website, hint: 'Shown beside the name.' })}`;
}

export function developerPage(
  site: Site,
  nav: Nav,
  v: { csrf: string; apps: readonly Client[]; allApps: boolean; fields?: Readonly<Record<string, string>> | undefined; error?: string | undefined; notice?: string | undefined },
): string {
  const items = v.apps
    .map(
      (c) => `<li><div class="row">${iconOf(site, c)}<div class="grow"><h3><a href="${h(site.base)}/developer/apps/${h(c.clientId)}">${h(c.name)}</a></h3>
<p class="muted">Client id <code>${h(c.clientId)}</code> · registered ${day(c.createdAt)}${v.allApps && c.ownerPk === null ? ' · from the command line' : ''}</p></div></div></li>`,
    )
    .join('');
  return layout(
    site,
    'Developer',
    `<h1>Developer</h1>${messages(v)}
<section class="card" aria-labelledby="s-apps"><h2 id="s-apps">${v.allApps ? 'Every app on this server' : 'Your apps'}</h2>
${items ? `<ul class="items">${items}</ul>` : '<p>You have not registered an app yet.</p>'}</section>
<section class="card" aria-labelledby="s-new"><h2 id="s-new">Register an app</h2>
<p class="muted">You get a client id and a secret for the OAuth 2.0 flow of the v3 API. The secret is shown once.</p>
${form(`${site.base}/developer/apps`, v.csrf, `${appFields({ name: v.fields?.['name'], website: v.fields?.['website'], redirects: v.fields?.['redirect_uris'], autofocus: v.error !== undefined })}<button type="submit">Register the app</button>`)}</section>`,
    { nav },
  );
}

export function appPage(
  site: Site,
  nav: Nav,
  v: {
    csrf: string;
    client: Client;
    users: number;
    webhooks: { readonly endpoints: readonly WebhookEndpoint[]; readonly allowPrivate: boolean };
    secret?: { label: string; value: string } | undefined;
    fields?: Readonly<Record<string, string>> | undefined;
    error?: string | undefined;
    notice?: string | undefined;
  },
): string {
  const c = v.client;
  const base = `${site.base}/developer/apps/${c.clientId}`;
  const secret = v.secret
    ? `<div class="notice" role="status" tabindex="-1" autofocus><p><strong>${h(v.secret.label)}</strong></p><code class="secret">${h(v.secret.value)}</code><p>Copy it now: it is shown once, and only its hash is kept.</p></div>`
    : '';
  return layout(
    site,
    c.name,
    `<h1>${h(c.name)}</h1>${messages(v)}${secret}
<section class="card" aria-labelledby="s-ids"><div class="row">${iconOf(site, c)}<div class="grow"><h2 id="s-ids">Credentials</h2>
<dl class="facts"><dt>Client id</dt><dd><code>${h(c.clientId)}</code></dd><dt>Registered</dt><dd>${day(c.createdAt)}</dd><dt>People using it</dt><dd>${v.users}</dd></dl></div></div>
<p class="muted">Rotating the secret stops the old one at once: the app must be given the new one.</p>
${buttonForm(`${base}/secret`, v.csrf, 'Rotate the secret')}</section>
<section class="card" aria-labelledby="s-edit"><h2 id="s-edit">Details</h2>
${form(
  base,
  v.csrf,
  `${appFields({ name: v.fields?.['name'] ?? c.name, website: v.fields?.['website'] ?? c.website ?? '', redirects: v.fields?.['redirect_uris'] ?? c.redirectUris.join('\n'), autofocus: v.error !== undefined && v.fields?.['name'] !== undefined })}
<button type="submit">Save</button>`,
)}</section>
${webhooksSection(site, v.csrf, c, v.webhooks.endpoints, v.fields?.['url'], v.webhooks.allowPrivate)}
<section class="card" aria-labelledby="s-icon"><h2 id="s-icon">Icon</h2>
<p class="muted">PNG, JPEG, GIF or WebP, at most 64 KB; shown square, 40 pixels. People see it when they allow the app.</p>
${form(
  `${base}/icon`,
  v.csrf,
  `<label for="f-icon">Icon file</label><input id="f-icon" name="icon" type="file" accept="image/png,image/jpeg,image/gif,image/webp" required><button type="submit">Upload</button>`,
  { multipart: true },
)}
${c.iconUpdatedAt === null ? '' : buttonForm(`${base}/icon`, v.csrf, 'Remove the icon', { hidden: [['remove', '1']] })}</section>
<section class="card" aria-labelledby="s-delete"><h2 id="s-delete">Delete</h2>
<p>Deleting the app ends every authorization people gave it, at once; its id and secret stop working.</p>
<details><summary>Delete ${h(c.name)}</summary>${buttonForm(`${base}/delete`, v.csrf, `Delete ${c.name} for good`, { danger: true })}</details></section>`,
    { nav },
  );
}
