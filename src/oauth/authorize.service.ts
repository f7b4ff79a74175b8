import { unixSeconds } from '../lib/clock.js';
import { randomHex, sha256Hex } from '../lib/crypto.js';
import type { Deps } from '../deps.js';
import type { Client, Repos } from '../storage/store.js';
import { parseScope } from './scopes.js';

/**
 * The parameters an authorization request may carry, those whose repeat means a page (never a
 * redirect) first. RFC 6749 3.1: none may be sent twice; unknown ones are ignored.
 */
export const AUTHORIZE_PARAMS = ['client_id', 'redirect_uri', 'state', 'response_type', 'scope', 'code_challenge', 'code_challenge_method'] as const;

/** The query of an authorization request (spec 5, step 2). */
export interface AuthorizeParams {
  /** The first of AUTHORIZE_PARAMS sent more than once, if any. */
  readonly repeated: string | undefined;
  readonly responseType: string | undefined;
  readonly clientId: string | undefined;
  readonly state: string | undefined;
  readonly scope: string | undefined;
  readonly redirectUri: string | undefined;
  readonly codeChallenge: string | undefined;
  readonly codeChallengeMethod: string | undefined;
}

export interface ValidAuthorizeRequest {
  readonly client: Client;
  readonly state: string;
  /** The scope string as requested: it is echoed by the token endpoint. */
  readonly scope: string;
  readonly scopeWords: readonly string[];
  /** RFC 7636 S256 challenge, when the app uses PKCE. */
  readonly codeChallenge: string | null;
  /** The redirect_uri the request carried (always one of the registered ones), or null when it had none. */
  readonly redirectUri: string | null;
}

/**
 * Where the answer to a request goes: the redirect_uri it carried, which must be one of the app's
 * addresses (exact string match), or without one the app's only address. With several registered
 * and none named there is no answer (RFC 6749 3.1.2.3: the request must then include one).
 */
export function redirectTarget(client: Client, sent: string | null | undefined): string | undefined {
  if (sent !== null && sent !== undefined) return client.redirectUris.includes(sent) ? sent : undefined;
  return client.redirectUris.length === 1 ? client.redirectUris[0] : undefined;
}

/** RFC 7636 4.1/4.2: 43 to 128 unreserved characters (a base64url SHA-256 is 43). */
export const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

export type AuthorizeCheck =
  /** The client or its redirect address cannot be trusted: show a page, never redirect. */
  | { readonly kind: 'page'; readonly message: string }
  /** The client is known and the redirect is its own: send the error back to it. */
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'ok'; readonly request: ValidAuthorizeRequest };

export const MAX_STATE_LENGTH = 1000;

/**
 * Checks an authorization request in the order RFC 6749 4.1.2.1 requires: problems with the
 * client or the redirect address are shown to the user and never redirected (an attacker could
 * otherwise bounce users through this server to any address); the rest go back to the app's own
 * registered address with an `error` code and the state.
 */
export async function checkAuthorizeRequest(deps: Deps, p: AuthorizeParams): Promise<AuthorizeCheck> {
  // With two client ids or two redirect addresses, which app and where to is exactly what cannot
  // be trusted: a page, as for a wrong one.
  if (p.repeated === 'client_id') return { kind: 'page', message: 'The link that brought you here names more than one client_id.' };
  if (!p.clientId) return { kind: 'page', message: 'The link that brought you here has no client_id.' };
  const client = await deps.store.read.clients.byClientId(p.clientId);
  if (!client) return { kind: 'page', message: 'The application that sent you here is not registered on this server.' };
  if (p.repeated === 'redirect_uri') return { kind: 'page', message: 'The link that brought you here names more than one redirect address.' };
  const target = redirectTarget(client, p.redirectUri);
  if (target === undefined) {
    return p.redirectUri === undefined
      ? { kind: 'page', message: 'This application has several redirect addresses, and the link that brought you here does not say which (redirect_uri).' }
      : { kind: 'page', message: 'The redirect address in the link is not one registered for this application.' };
  }
  const back = (error: string, description: string, state?: string): AuthorizeCheck => ({
    kind: 'redirect',
    location: withQuery(target, [
      ['error', error],
      ['error_description', description],
      ['state', state],
    ]),
  });
  // A state that is missing, repeated or unusable cannot be echoed; the error still goes back to the app.
  if (p.repeated === 'state') return back('invalid_request', 'state was sent more than once');
  if (p.state === undefined || p.state === '') return back('invalid_request', 'state is required');
  // eslint-disable-next-line no-control-regex
  if (p.state.length > MAX_STATE_LENGTH || /[\x00-\x1f\x7f]/.test(p.state)) {
    return back('invalid_request', `state must be 1 to ${MAX_STATE_LENGTH} printable characters`);
  }
  if (p.repeated !== undefined) return back('invalid_request', `${p.repeated} was sent more than once`, p.state);
  if (p.responseType === undefined || p.responseType === '') return back('invalid_request', 'response_type is required', p.state);
  if (p.responseType !== 'code') return back('unsupported_response_type', 'response_type must be code', p.state);
  const scopeWords = parseScope(p.scope);
  if (!scopeWords) return back('invalid_scope', 'scope is required: space-separated words such as basic tasks write', p.state);
  // PKCE is optional (the spec does not have it); when used, only S256: `plain` protects nothing
  // against an attacker who can read the authorization request (RFC 9700 2.1.1).
  if (p.codeChallenge !== undefined || p.codeChallengeMethod !== undefined) {
    if (p.codeChallengeMethod !== 'S256') return back('invalid_request', 'code_challenge_method must be S256', p.state);
    if (p.codeChallenge === undefined || !PKCE_VALUE.test(p.codeChallenge)) {
      return back('invalid_request', 'code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~', p.state);
    }
  }
  // Kept exactly as requested: the token endpoint echoes it, and some clients compare byte for byte.
  const request = { client, state: p.state, scope: p.scope as string, scopeWords, codeChallenge: p.codeChallenge ?? null, redirectUri: p.redirectUri ?? null };
  return { kind: 'ok', request };
}

/** Appends query parameters to a registered address, keeping whatever query it already has. */
export function withQuery(base: string, params: ReadonlyArray<readonly [string, string | undefined]>): string {
  const q = params
    .filter((kv): kv is readonly [string, string] => kv[1] !== undefined)
    .map(([k, v]) => `${encodeURIComponent(wellFormed(k))}=${encodeURIComponent(wellFormed(v))}`)
    .join('&');
  if (q === '') return base;
  return base + (base.includes('?') ? (base.endsWith('?') || base.endsWith('&') ? '' : '&') : '?') + q;
}

/** Lone surrogates cannot be percent-encoded; they become U+FFFD instead of an exception. */
function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/**
 * The user allowed the request: a single-use code bound to the app, the user, the PKCE challenge
 * and the redirect_uri the request carried (which the exchange must then repeat, RFC 6749 4.1.3).
 * Written in the caller's transaction; returns where the browser goes next.
 */
export async function createCode(deps: Deps, tx: Repos, req: ValidAuthorizeRequest, userPk: number): Promise<string> {
  // 40 lowercase hex characters like the hosted service's codes ("alphanumeric", spec 5.3).
  const code = randomHex(20);
  await tx.oauth.createCode({
    codeHash: sha256Hex(code),
    clientPk: req.client.pk,
    userPk,
    scope: req.scope,
    expiresAt: unixSeconds(deps.clock) + deps.config.authCodeTtlSeconds,
    codeChallenge: req.codeChallenge,
    redirectUri: req.redirectUri,
  });
  return withQuery(targetOf(req), [
    ['code', code],
    ['state', req.state],
  ]);
}

/** The target of a request that was checked; the callers check again when the app may have changed since. */
function targetOf(req: ValidAuthorizeRequest): string {
  const target = redirectTarget(req.client, req.redirectUri);
  if (target === undefined) throw new Error('the request has no redirect address: it was not checked');
  return target;
}

export function deny(req: ValidAuthorizeRequest): string {
  return withQuery(targetOf(req), [
    ['error', 'access_denied'],
    ['error_description', 'the user denied access'],
    ['state', req.state],
  ]);
}
