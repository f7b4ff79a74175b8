import { unixSeconds } from '../lib/clock.js';
import { randomUrlToken, sha256Hex } from '../lib/crypto.js';
import type { Deps } from '../deps.js';
import type { AuthRequest, Client } from '../storage/store.js';
import { createCode, deny, redirectTarget, type ValidAuthorizeRequest } from './authorize.service.js';
import { parseScope } from './scopes.js';

/**
 * Pending authorization requests: what a consent page showed, kept on the server until the user
 * answers. The form carries only a random id (stored hashed), so nothing it sends can change what
 * is granted, or where the browser is sent; the answer must come from the browser session the
 * page was shown to, once, within CONSENT_SECONDS. Stored in the database: the answer may reach
 * another instance than the page.
 */

/** How long a consent page waits for its answer: the code it yields lives no longer (600 s at most). */
export const CONSENT_SECONDS = 600;

/** Consent pages one session may have open at once; each view stores one, the oldest go first. */
const OPEN_PER_SESSION = 10;

export interface PendingConsent {
  /** The request as the page showed it. */
  readonly request: ValidAuthorizeRequest;
  readonly sessionHash: string;
}

/** Stores the request as the consent page is about to show it; returns the id its form carries. */
export async function openConsent(deps: Deps, req: ValidAuthorizeRequest, sessionId: string, userPk: number): Promise<string> {
  const id = randomUrlToken();
  const now = unixSeconds(deps.clock);
  const pending: AuthRequest = {
    idHash: sha256Hex(id),
    sessionHash: sha256Hex(sessionId),
    userPk,
    clientPk: req.client.pk,
    scope: req.scope,
    state: req.state,
    redirectUri: req.redirectUri,
    codeChallenge: req.codeChallenge,
    createdAt: now,
    expiresAt: now + CONSENT_SECONDS,
  };
  await deps.store.transaction((tx) => tx.authRequests.create(pending, OPEN_PER_SESSION));
  return id;
}

/** The pending request a consent form names, or null when unknown, answered or expired. */
export async function findConsent(deps: Deps, id: string | undefined): Promise<PendingConsent | null> {
  if (!id) return null;
  const pending = await deps.store.read.authRequests.get(sha256Hex(id));
  if (!pending || pending.expiresAt <= unixSeconds(deps.clock)) return null;
  const client = await deps.store.read.clients.get(pending.clientPk);
  const request = client && asShown(pending, client);
  return request ? { request, sessionHash: pending.sessionHash } : null;
}

/** Whether this browser session is the one the page was shown to (a new sign-in is a new session). */
export function shownTo(consent: PendingConsent, sessionId: string): boolean {
  return consent.sessionHash === sha256Hex(sessionId);
}

/**
 * The answer to a pending request, given once: Allow yields one code, Deny the access_denied
 * redirect. Null when it was answered already (two clicks, two tabs), has expired, or belongs to
 * another session; then nothing is issued.
 */
export async function answerConsent(deps: Deps, id: string, sessionId: string, allow: boolean): Promise<string | null> {
  const now = unixSeconds(deps.clock);
  return deps.store.transaction(async (tx) => {
    const pending = await tx.authRequests.take(sha256Hex(id), sha256Hex(sessionId), now);
    const client = pending && (await tx.clients.get(pending.clientPk));
    const req = pending && client && asShown(pending, client);
    if (!pending || !req) return null;
    return allow ? createCode(deps, tx, req, pending.userPk) : deny(req);
  });
}

/**
 * The request as the page showed it, or null when the app's addresses changed since so that its
 * answer has nowhere to go (the address it named was removed, or it named none and the app has
 * several now).
 */
function asShown(pending: AuthRequest, client: Client): ValidAuthorizeRequest | null {
  if (redirectTarget(client, pending.redirectUri) === undefined) return null;
  return {
    client,
    state: pending.state,
    scope: pending.scope,
    // Checked when the page was shown; stored as requested.
    scopeWords: parseScope(pending.scope) ?? [],
    codeChallenge: pending.codeChallenge,
    redirectUri: pending.redirectUri,
  };
}
