import type { Config } from '../config.js';
import { unixSeconds, type Clock } from '../lib/clock.js';
import { randomHex } from '../lib/crypto.js';
import type { Client, Store, WebhookAttempt, WebhookEndpoint } from '../storage/store.js';
import { ATTEMPTS_KEPT } from '../storage/push-port.js';
import { newMessageId, newSecret } from './signature.js';
import { parseEndpointUrl, resolveTarget, systemLookup, TargetRefused, type Lookup } from './targets.js';

/**
 * An app's webhook endpoints (docs/sync.md, docs/decisions/0026), as its developer manages them on
 * the developer page and with `bin/tickler app webhook`: added (the address checked, its name
 * resolved, a secret made and shown), removed, its secret rotated, a test event sent, enabled again
 * after it was disabled for failing. The deliveries themselves are the worker's (worker.ts).
 */

export type WebhookDeps = { readonly store: Store; readonly clock: Clock; readonly config: Pick<Config, 'webhookAllowPrivate'> };

/** Endpoints one app may have: a few environments, not a fan-out. */
export const MAX_WEBHOOKS_PER_APP = 10;

export class InvalidWebhook extends Error {
  override name = 'InvalidWebhook';
}

/**
 * Adds an endpoint to the app. The address must be https:// on a name whose every address is
 * public (WEBHOOK_ALLOW_PRIVATE=1 allows http and any address); returns it with its secret.
 */
export async function addWebhook(deps: WebhookDeps, client: Client, urlText: string, lookup: Lookup = systemLookup): Promise<WebhookEndpoint> {
  let url: URL;
  try {
    url = parseEndpointUrl(urlText, deps.config.webhookAllowPrivate);
    await resolveTarget(url, deps.config.webhookAllowPrivate, lookup);
  } catch (err) {
    if (err instanceof TargetRefused) throw new InvalidWebhook(err.message);
    throw err;
  }
  const now = unixSeconds(deps.clock);
  return deps.store.transaction(async (tx) => {
    const existing = await tx.webhooks.endpoints(client.pk);
    if (existing.length >= MAX_WEBHOOKS_PER_APP) throw new InvalidWebhook(`an app has at most ${MAX_WEBHOOKS_PER_APP} webhook endpoints`);
    return tx.webhooks.addEndpoint({ id: `ep_${randomHex(8)}`, clientPk: client.pk, url: url.href, secret: newSecret(), createdAt: now }, now);
  });
}

export function webhooksOf(deps: Pick<WebhookDeps, 'store'>, client: Client): Promise<WebhookEndpoint[]> {
  return deps.store.read.webhooks.endpoints(client.pk);
}

/** The app's endpoint with this id, or null (another app's is none of its business). */
export async function webhookOf(deps: Pick<WebhookDeps, 'store'>, client: Client, id: string): Promise<WebhookEndpoint | null> {
  const endpoint = await deps.store.read.webhooks.endpoint(id);
  return endpoint?.clientPk === client.pk ? endpoint : null;
}

export async function removeWebhook(deps: Pick<WebhookDeps, 'store'>, client: Client, id: string): Promise<boolean> {
  if (!(await webhookOf(deps, client, id))) return false;
  return deps.store.transaction((tx) => tx.webhooks.removeEndpoint(id));
}

/** A new secret for the endpoint (the old one signs nothing more); null when there is no such endpoint. */
export async function rotateWebhookSecret(deps: Pick<WebhookDeps, 'store'>, client: Client, id: string): Promise<string | null> {
  if (!(await webhookOf(deps, client, id))) return null;
  const secret = newSecret();
  return (await deps.store.transaction((tx) => tx.webhooks.setSecret(id, secret))) ? secret : null;
}

/** Queues a test event (`{"type":"test"}`), sent once, at once, even to a disabled endpoint. */
export async function sendTestEvent(deps: WebhookDeps, client: Client, id: string): Promise<boolean> {
  if (!(await webhookOf(deps, client, id))) return false;
  await deps.store.transaction((tx) => tx.webhooks.enqueueTest(id, unixSeconds(deps.clock), newMessageId()));
  return true;
}

/** Enables an endpoint disabled for failing: it is watched again from the accounts' positions now. */
export async function enableWebhook(deps: WebhookDeps, client: Client, id: string): Promise<boolean> {
  if (!(await webhookOf(deps, client, id))) return false;
  return deps.store.transaction((tx) => tx.webhooks.enable(id, unixSeconds(deps.clock)));
}

export interface WebhookState {
  readonly endpoint: WebhookEndpoint;
  /** Deliveries waiting (their accounts' changes not told yet). */
  readonly pending: number;
  /** The last ATTEMPTS_KEPT attempts, newest first. */
  readonly attempts: readonly WebhookAttempt[];
}

export async function webhookState(deps: Pick<WebhookDeps, 'store'>, endpoint: WebhookEndpoint): Promise<WebhookState> {
  return {
    endpoint,
    pending: await deps.store.read.webhooks.pending(endpoint.id),
    attempts: await deps.store.read.webhooks.attempts(endpoint.id, ATTEMPTS_KEPT),
  };
}
