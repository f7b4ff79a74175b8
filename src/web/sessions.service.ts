import { unixSeconds } from '../lib/clock.js';
import { randomUrlToken, sha256Hex } from '../lib/crypto.js';
import type { Deps } from '../deps.js';

/**
 * Browser sessions of the sign-in and consent pages. The cookie holds a random id; the database
 * holds only its hash, so a copy of the database cannot be used to sign in. Sessions live in the
 * database, not in process memory, so any instance can serve the next page.
 */
export async function startSession(
  deps: Deps,
  userPk: number,
  deviceToken: string,
): Promise<{ sessionId: string; expiresAt: number }> {
  const now = unixSeconds(deps.clock);
  const sessionId = randomUrlToken();
  const expiresAt = now + deps.config.sessionTtlSeconds;
  await deps.store.transaction(async (tx) => {
    await tx.sessions.create({ idHash: sha256Hex(sessionId), userPk, createdAt: now, expiresAt });
    await tx.accounts.rememberDevice(userPk, sha256Hex(deviceToken), now);
  });
  return { sessionId, expiresAt };
}

/** The account signed in with this session id, or null when absent, unknown or expired. */
export async function sessionAccount(deps: Deps, sessionId: string | undefined): Promise<number | null> {
  if (!sessionId) return null;
  const s = await deps.store.read.sessions.get(sha256Hex(sessionId));
  return s && s.expiresAt > unixSeconds(deps.clock) ? s.userPk : null;
}

export async function endSession(deps: Deps, sessionId: string | undefined): Promise<void> {
  if (!sessionId) return;
  await deps.store.transaction((tx) => tx.sessions.delete(sha256Hex(sessionId)));
}
