import { createHash } from 'node:crypto';
import { ApiError } from '../errors.js';
import { unixSeconds } from '../lib/clock.js';
import type { RateDecision } from '../lib/rate-limiter.js';
import { openWith, randomHex, safeEqual, sealFor, sha256Hex } from '../lib/crypto.js';
import type { Client, ClientInfo, Grant, Repos } from '../storage/store.js';
import type { Deps } from '../deps.js';
import { PKCE_VALUE } from './authorize.service.js';
import { parseScope } from './scopes.js';

/** Spec 2.6 and 5: access tokens live two hours. */
const ACCESS_TOKEN_SECONDS = 7200;
/** Spec 3 and 5: a refresh token expires after 30 days without use (each one is used once). */
const REFRESH_IDLE_SECONDS = 30 * 86400;

export interface TokenRequest {
  readonly grantType: string | undefined;
  readonly code: string | undefined;
  readonly refreshToken: string | undefined;
  readonly redirectUri: string | undefined;
  readonly scope: string | undefined;
  /** RFC 7636 code verifier, for a code issued with a challenge. */
  readonly codeVerifier: string | undefined;
  readonly info: ClientInfo;
}

export interface IssuedTokens {
  readonly accessToken: string;
  readonly expiresIn: number;
  readonly scope: string;
  readonly refreshToken: string;
  /** Set when this answer was given again within the reuse interval: the grant, for the log. */
  readonly retriedGrant?: number;
}

type Outcome = { ok: IssuedTokens } | { fail: string; revokedGrant?: number };

const fail = (why: string): Outcome => ({ fail: why });

/**
 * The token endpoint's grants. Every failure is error 102 (spec 5.6); the description says why.
 * Replays revoke: a spent code or a spent refresh token presented again means one of the two
 * parties holding it is not the real client, so the whole token family is revoked (RFC 6749
 * 4.1.2 and 10.4, RFC 9700 4.14). The revocation commits even though the request fails. One
 * exception: the refresh token spent last, presented again within REFRESH_TOKEN_REUSE_SECONDS,
 * gets the same answer again (docs/decisions/0011). `counted` hears the per-user limit's decision,
 * when the request names a user of the app.
 */
export async function grantTokens(deps: Deps, client: Client, req: TokenRequest, counted?: (user: RateDecision) => void): Promise<IssuedTokens> {
  const userPk = await requestingUser(deps, client, req);
  if (userPk !== undefined) {
    const d = await deps.limiter.hit(`token:user:${userPk}`, deps.config.rateLimits.tokenPerUser, deps.clock.now());
    // For the answer's RateLimit fields, refused or not.
    counted?.(d);
    if (!d.allowed) throw new ApiError(103, { retryAfter: d.retryAfterSeconds });
  }
  const outcome = await deps.store.transaction((tx) => {
    switch (req.grantType) {
      case 'authorization_code':
        return exchangeCode(deps, tx, client, req);
      case 'refresh_token':
        return rotateRefresh(deps, tx, client, req);
      default:
        return Promise.resolve(
          fail(req.grantType ? `unsupported grant_type "${req.grantType}"` : 'grant_type is required'),
        );
    }
  });
  if ('fail' in outcome) {
    if (outcome.revokedGrant !== undefined) deps.accessTokens.forgetGrant(outcome.revokedGrant);
    throw new ApiError(102, { desc: `Error requesting a token: ${outcome.fail}` });
  }
  return outcome.ok;
}

/**
 * The account a token request is about, read without locking, for the per-user rate limit. Only a
 * code or token of the presenting app counts: another app holding a copy cannot spend the limit.
 * Read again under lock by the grant, on purpose: counting inside the transaction would, on
 * PostgreSQL, wait for a second pooled connection while holding one (a full pool of token requests
 * would wait forever) and count twice when a deadlock retry runs the transaction again.
 */
async function requestingUser(deps: Deps, client: Client, req: TokenRequest): Promise<number | undefined> {
  const found =
    req.grantType === 'authorization_code' && req.code
      ? await deps.store.read.oauth.code(sha256Hex(req.code))
      : req.grantType === 'refresh_token' && req.refreshToken
        ? await deps.store.read.oauth.token(sha256Hex(req.refreshToken))
        : null;
  return found && found.clientPk === client.pk ? found.userPk : undefined;
}

async function exchangeCode(deps: Deps, tx: Repos, client: Client, req: TokenRequest): Promise<Outcome> {
  if (!req.code) return fail('code is required');
  const now = unixSeconds(deps.clock);
  const code = await tx.oauth.code(sha256Hex(req.code));
  // A code of another app fails without being spent: it still belongs to its own app.
  if (!code || code.clientPk !== client.pk) return fail('invalid authorization code');
  if (code.usedAt !== null) {
    // With PKCE, only the holder of the verifier can have spent the code: a replay without it is
    // someone who saw the code in transit, and revoking on their word would let them end the real
    // client's authorization. Without PKCE anyone holding the code may be either (RFC 6749 4.1.2).
    if (code.codeChallenge !== null && checkVerifier(code.codeChallenge, req.codeVerifier)) return fail('authorization code was already used');
    if (code.grantId !== null && (await tx.oauth.revokeGrant(code.grantId, now, 'code replayed'))) {
      return { fail: 'authorization code was already used; the tokens issued from it are revoked', revokedGrant: code.grantId };
    }
    return fail('authorization code was already used');
  }
  if (code.expiresAt <= now) return fail('authorization code has expired');
  // What the presenter proves (the verifier, the redirect_uri) is checked before the code is
  // spent, and a failure leaves it unspent, as a code of another app is: the one party that
  // can pass the checks still can. Spending it would let whoever saw a code, without its
  // verifier, burn the real client's exchange; keeping it lets them only guess a verifier of
  // at least 256 bits, per user rate limit, for minutes (docs/oauth.md).
  const pkce = checkVerifier(code.codeChallenge, req.codeVerifier);
  if (pkce) return fail(pkce);
  const redirect = checkRedirect(code.redirectUri, client.redirectUris, req.redirectUri);
  if (redirect) return fail(redirect);
  const grant = await tx.oauth.createGrant({
    userPk: code.userPk,
    clientPk: client.pk,
    scope: code.scope,
    createdAt: now,
    expiresAt: now + deps.config.refreshTokenMaxAgeSeconds,
    ...req.info,
  });
  await tx.oauth.markCodeUsed(code.codeHash, now, grant.id);
  // An app with webhook endpoints hears of this account's changes from now on (docs/decisions/0026).
  await tx.webhooks.watch(code.userPk, client.pk);
  return { ok: await issue(tx, grant, grant.scope, now) };
}

/**
 * RFC 7636 4.6: with a challenge, the verifier must hash to it. Without one, a verifier is refused:
 * an attacker who swapped in a code issued without a challenge must not pass (RFC 9700 2.1.1).
 * A failed check does not spend the code.
 */
function checkVerifier(challenge: string | null, verifier: string | undefined): string | undefined {
  if (challenge === null) return verifier === undefined ? undefined : 'code_verifier sent, but the authorization request had no code_challenge';
  if (verifier === undefined) return 'code_verifier is required: the authorization request had a code_challenge';
  const hashed = createHash('sha256').update(verifier, 'ascii').digest('base64url');
  return PKCE_VALUE.test(verifier) && safeEqual(hashed, challenge) ? undefined : 'code_verifier does not match the code_challenge';
}

/**
 * RFC 6749 4.1.3: a redirect_uri the authorization request carried must come again, identical.
 * Without one there, it may be left out; if sent, it must still be a registered address.
 */
function checkRedirect(requested: string | null, registered: readonly string[], sent: string | undefined): string | undefined {
  if (requested !== null && sent === undefined) return 'redirect_uri is required: the authorization request had one';
  if (sent === undefined) return undefined;
  return (requested === null ? registered.includes(sent) : sent === requested) ? undefined : 'redirect_uri does not match';
}

async function rotateRefresh(deps: Deps, tx: Repos, client: Client, req: TokenRequest): Promise<Outcome> {
  if (!req.refreshToken) return fail('refresh_token is required');
  const now = unixSeconds(deps.clock);
  const old = await tx.oauth.token(sha256Hex(req.refreshToken));
  if (!old || old.kind !== 'refresh' || old.clientPk !== client.pk) return fail('invalid refresh token');
  if (old.grantRevokedAt !== null) return fail('refresh token has been revoked');
  if (old.usedAt !== null) {
    const again = await retriedAnswer(deps, tx, old.hash, old.usedAt, req.refreshToken, now);
    if (again) return { ok: { ...again, retriedGrant: old.grantId } };
    await tx.oauth.revokeGrant(old.grantId, now, 'refresh token replayed');
    return { fail: 'refresh token was already used; this authorization is revoked', revokedGrant: old.grantId };
  }
  if (old.expiresAt <= now || old.grantExpiresAt <= now) return fail('refresh token has expired');
  const grant = await tx.oauth.grant(old.grantId);
  if (!grant) return fail('invalid refresh token');
  // RFC 6749 6: a refresh may narrow the scope, never widen it; an omitted scope means the one
  // originally granted (also after an earlier refresh narrowed it).
  let scope = grant.scope;
  if (req.scope !== undefined && req.scope.trim() !== '') {
    const asked = parseScope(req.scope);
    const had = new Set(parseScope(grant.scope) ?? []);
    if (!asked || !asked.every((w) => had.has(w))) return fail('scope exceeds the original authorization');
    scope = req.scope;
  }
  await tx.oauth.markTokenUsed(old.hash, now);
  await tx.oauth.recordClientInfo(grant.id, req.info, now);
  const issued = await issue(tx, grant, scope, now);
  await keepForRetry(deps, tx, grant.id, old.hash, req.refreshToken, issued, now);
  return { ok: issued };
}

/**
 * The refresh reuse interval (docs/decisions/0011-refresh-reuse-interval.md). Whoever presents the
 * refresh token just spent, within REFRESH_TOKEN_REUSE_SECONDS, gets the answer its rotation gave,
 * again: a client whose answer was lost, or a second process sharing its token file, carries on,
 * and the family stays one line. The answer is kept sealed under a key derived from the spent
 * token, which the database does not hold (only its hash): a copy of the database opens nothing.
 */
export const RETRY_PURPOSE = 'refresh retry answer';

interface KeptAnswer {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly scope: string;
  /** Unix seconds: the access token's end, so that a retry says how long it has left. */
  readonly accessExpiresAt: number;
}

/** Keeps this rotation's answer for a retry, and forgets the family's older one (no longer the newest). */
async function keepForRetry(deps: Deps, tx: Repos, grantId: number, spentHash: string, spent: string, issued: IssuedTokens, now: number): Promise<void> {
  const seconds = deps.config.refreshTokenReuseSeconds;
  const kept: KeptAnswer = { accessToken: issued.accessToken, refreshToken: issued.refreshToken, scope: issued.scope, accessExpiresAt: now + issued.expiresIn };
  const answer = seconds > 0 ? { sealed: sealFor(spent, RETRY_PURPOSE, JSON.stringify(kept)), until: now + seconds } : null;
  await tx.oauth.keepRetryAnswer(grantId, spentHash, answer);
}

/**
 * The first answer again, when `spent` is the newest spent token of its family (only that one
 * keeps an answer: each rotation forgets the one before) and its interval has not run out, by the
 * time kept or by the setting now, whichever is shorter. Undefined means a replay. The requested
 * scope is not read: a retry is the same request again, and gets the same answer.
 */
async function retriedAnswer(deps: Deps, tx: Repos, spentHash: string, usedAt: number, spent: string, now: number): Promise<IssuedTokens | undefined> {
  if (now - usedAt >= deps.config.refreshTokenReuseSeconds) return undefined;
  const kept = await tx.oauth.retryAnswer(spentHash);
  if (!kept || now >= kept.until) return undefined;
  const text = openWith(spent, RETRY_PURPOSE, kept.sealed);
  const answer = text === undefined ? undefined : (JSON.parse(text) as KeptAnswer);
  if (!answer || answer.accessExpiresAt <= now) return undefined;
  return { accessToken: answer.accessToken, expiresIn: answer.accessExpiresAt - now, scope: answer.scope, refreshToken: answer.refreshToken };
}

async function issue(tx: Repos, grant: Grant, scope: string, now: number): Promise<IssuedTokens> {
  // 40 lowercase hex characters (160 random bits), the shape of the hosted service's tokens.
  const accessToken = randomHex(20);
  const refreshToken = randomHex(20);
  const accessExpires = Math.min(now + ACCESS_TOKEN_SECONDS, grant.expiresAt);
  const base = { grantId: grant.id, userPk: grant.userPk, clientPk: grant.clientPk, scope, createdAt: now };
  await tx.oauth.createToken({ ...base, hash: sha256Hex(accessToken), kind: 'access', expiresAt: accessExpires });
  await tx.oauth.createToken({
    ...base,
    hash: sha256Hex(refreshToken),
    kind: 'refresh',
    expiresAt: Math.min(now + REFRESH_IDLE_SECONDS, grant.expiresAt),
  });
  return { accessToken, expiresIn: accessExpires - now, scope, refreshToken };
}
