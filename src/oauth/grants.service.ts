import { unixSeconds } from '../lib/clock.js';
import type { Deps } from '../deps.js';
import type { Client, Grant } from '../storage/store.js';

/**
 * Authorizations people granted to apps: what connected apps lists and revokes, and what the
 * command line's `grant list|revoke` shows and ends. Revoking a grant ends its whole token family
 * in the database; this process forgets its cached access tokens at once, other instances within
 * TOKEN_CACHE_SECONDS (docs/decisions/0002-caches.md).
 */

export interface ConnectedApp {
  readonly grant: Grant;
  readonly client: Client;
}

/** The account's usable grants, newest first, each with its app. */
export async function connectedApps(deps: Pick<Deps, 'store' | 'clock'>, filter: { userPk?: number; clientPk?: number }): Promise<ConnectedApp[]> {
  const grants = await deps.store.read.oauth.liveGrants(filter, unixSeconds(deps.clock));
  const clients = new Map<number, Client | null>();
  const out: ConnectedApp[] = [];
  for (const grant of grants) {
    if (!clients.has(grant.clientPk)) clients.set(grant.clientPk, await deps.store.read.clients.get(grant.clientPk));
    const client = clients.get(grant.clientPk);
    if (client) out.push({ grant, client });
  }
  return out;
}

/**
 * Revokes one grant. With `userPk`, only a grant of that account (connected apps: a person ends
 * only their own); returns false when there is no such live grant.
 */
export async function revokeGrant(
  deps: Pick<Deps, 'store' | 'clock'> & { accessTokens: { forgetGrant(grantId: number): void } },
  grantId: number, reason: string, userPk?: number): Promise<boolean> {
  const now = unixSeconds(deps.clock);
  const revoked = await deps.store.transaction(async (tx) => {
    const grant = await tx.oauth.grant(grantId);
    if (!grant || (userPk !== undefined && grant.userPk !== userPk)) return false;
    return tx.oauth.revokeGrant(grantId, now, reason);
  });
  if (revoked) deps.accessTokens.forgetGrant(grantId);
  return revoked;
}
