import { sha256Hex } from '../lib/crypto.js';
import type { Deps } from '../deps.js';
import type { Client } from '../storage/store.js';
import { revokeGrant } from './grants.service.js';

export type RevokeOutcome = 'revoked' | 'unknown' | 'other-app';

/**
 * RFC 7009 token revocation, so that an app can sign out. An access or a refresh token ends its
 * whole family (the grant): an app signing out wants neither to work any more, and RFC 7009 2.1
 * lets a server revoke the family for either. An unknown, expired or already revoked token is
 * no error (2.2: the client cannot do anything about it); a token of another app is refused and
 * left alone (2.1: the server verifies the token was issued to the client asking).
 */
export async function revokeToken(deps: Deps, client: Client, token: string): Promise<RevokeOutcome> {
  const row = await deps.store.read.oauth.token(sha256Hex(token));
  if (!row) return 'unknown';
  if (row.clientPk !== client.pk) return 'other-app';
  await revokeGrant(deps, row.grantId, 'revoked by the app (RFC 7009)');
  return 'revoked';
}
