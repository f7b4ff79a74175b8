import type { Client, WebhookAttempt, WebhookEndpoint } from '../../storage/store.js';
import { MAX_WEBHOOKS_PER_APP } from '../../webhooks/endpoints.service.js';
import { buttonForm, field, form } from '../forms.js';
import { dayAndTime, h, layout, messages, type Nav, type Site } from '../html.js';

/**
 * Webhooks on the developer pages (docs/sync.md): an app's endpoints on its page, and one
 * endpoint's own page with its state, its last attempts and what can be done to it.
 */

/** An endpoint's state in a few words. */
function stateOf(e: WebhookEndpoint): string {
  if (e.disabledAt !== null) return `Disabled ${dayAndTime(e.disabledAt)}, after failing for 3 days`;
  if (e.failingSince !== null) return `Failing since ${dayAndTime(e.failingSince)}`;
  return 'Active';
}

/** The Webhooks section of an app's page: its endpoints, and a form to add one. */
export function webhooksSection(site: Site, csrf: string, client: Client, endpoints: readonly WebhookEndpoint[], url: string | undefined, allowPrivate: boolean): string {
  const base = `${site.base}/developer/apps/${client.clientId}/webhooks`;
  const items = endpoints
    .map((e) => `<li><a href="${h(base)}/${h(e.id)}"><code>${h(e.url)}</code></a><p class="muted">${h(stateOf(e))} · added ${dayAndTime(e.createdAt)}</p></li>`)
    .join('');
  const hint = allowPrivate
    ? 'https:// (or http:// on this server, which allows private addresses). Each change of an account that allowed the app is posted there, signed.'
    : 'https:// on a public address. Each change of an account that allowed the app is posted there, signed (Standard Webhooks).';
  const adding =
    endpoints.length >= MAX_WEBHOOKS_PER_APP
      ? `<p class="muted">An app has at most ${MAX_WEBHOOKS_PER_APP} endpoints.</p>`
      : form(base, csrf, `${field({ name: 'url', label: 'Endpoint address', type: 'url', value: url, required: true, hint })}<button type="submit">Add the endpoint</button>`);
  return `<section class="card" aria-labelledby="s-hooks"><h2 id="s-hooks">Webhooks</h2>
${items ? `<ul class="items">${items}</ul>` : '<p>No endpoint yet: the app learns of changes by the change feed and the event stream alone.</p>'}
${adding}</section>`;
}

function attemptRows(attempts: readonly WebhookAttempt[]): string {
  return attempts
    .map((a) => {
      const answer = a.status !== null ? `HTTP ${a.status}${a.error ? ` (${a.error})` : ''}` : (a.error ?? 'no answer');
      return `<tr><td>${dayAndTime(a.at)}</td><td>${a.userPk === null ? 'test' : 'changes'}, attempt ${a.attempt}<br><code>${h(a.msgId)}</code></td><td>${h(answer)}</td><td>${a.latencyMs} ms</td></tr>`;
    })
    .join('');
}

export function webhookPage(
  site: Site,
  nav: Nav,
  v: {
    csrf: string;
    client: Client;
    endpoint: WebhookEndpoint;
    pending: number;
    attempts: readonly WebhookAttempt[];
    secret?: { label: string; value: string } | undefined;
    error?: string | undefined;
    notice?: string | undefined;
  },
): string {
  const e = v.endpoint;
  const appPath = `${site.base}/developer/apps/${v.client.clientId}`;
  const base = `${appPath}/webhooks/${e.id}`;
  const secret = v.secret
    ? `<div class="notice" role="status" tabindex="-1" autofocus id="new-secret"><p><strong>${h(v.secret.label)}</strong></p><code class="secret">${h(v.secret.value)}</code><p>Copy it now: it is shown once. Check each delivery's <code>webhook-signature</code> with it (any Standard Webhooks library does).</p></div>`
    : '';
  const disabled =
    e.disabledAt === null
      ? ''
      : `<div class="error" role="alert"><p>This endpoint is disabled: every delivery failed for 3 days. Nothing is sent to it until it is enabled again.</p>${buttonForm(`${base}/enable`, v.csrf, 'Enable it again')}</div>`;
  const table = v.attempts.length
    ? `<div class="tablewrap" role="region" aria-labelledby="attempts-caption" tabindex="0"><table><caption id="attempts-caption">The last ${v.attempts.length} attempts, newest first</caption><thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Answer</th><th scope="col">Latency</th></tr></thead><tbody>${attemptRows(v.attempts)}</tbody></table></div>`
    : '<div class="card"><p>No attempt yet. Send a test event to try the endpoint.</p></div>';
  return layout(
    site,
    'Webhook endpoint',
    `<p class="crumbs"><a href="${h(appPath)}">${h(v.client.name)}</a> › Webhooks</p>
<h1>Webhook endpoint</h1>${messages(v)}${secret}${disabled}
<section class="card" aria-labelledby="s-endpoint"><h2 id="s-endpoint"><code>${h(e.url)}</code></h2>
<dl class="facts"><dt>State</dt><dd>${h(stateOf(e))}</dd><dt>Added</dt><dd>${dayAndTime(e.createdAt)}</dd><dt>Deliveries waiting</dt><dd>${v.pending}</dd></dl>
${buttonForm(`${base}/test`, v.csrf, 'Send a test event')}${buttonForm(`${base}/secret`, v.csrf, 'Rotate the secret')}
<p class="muted">A test event is <code>{"type":"test"}</code>, sent once. Rotating the secret signs every later delivery with the new one at once.</p></section>
${table}
<section class="card" aria-labelledby="s-remove"><h2 id="s-remove">Remove</h2>
<p>The endpoint gets nothing more, and the deliveries it still owes are dropped (the changes stay in each account's change feed).</p>
<details><summary>Remove this endpoint</summary>${buttonForm(`${base}/delete`, v.csrf, 'Remove the endpoint for good', { danger: true })}</details></section>`,
    { nav },
  );
}
