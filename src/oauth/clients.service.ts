import { unixSeconds, type Clock } from '../lib/clock.js';
import { randomHex, safeEqual, sha256Hex } from '../lib/crypto.js';
import type { Client, Store } from '../storage/store.js';

export class InvalidClientInput extends Error {
  override name = 'InvalidClientInput';
}

/** Schemes a redirect may never use: they would run code or read local data in the browser. */
const FORBIDDEN_SCHEMES = new Set(['javascript', 'data', 'vbscript', 'file', 'about', 'blob', 'filesystem', 'view-source', 'jar']);
const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Checks a redirect address for registration. An app has one or more (MAX_REDIRECTS at most), each
 * compared later by exact string match. https anywhere; plain http only to the loopback address (RFC 8252 7.3, native apps and
 * development); custom schemes for native apps (RFC 8252 7.1); never a fragment (RFC 6749 3.1.2).
 */
export function checkRedirectUri(uri: string): string | undefined {
  if (uri.length === 0 || uri.length > 2000) return 'must have 1 to 2000 characters';
  // Printable ASCII only: the address goes into a Location header byte for byte, and a backslash
  // is read as a slash by some URL parsers and not by others (a host confusion).
  if (!/^[\x21-\x7e]+$/.test(uri)) return 'must be printable ASCII: no spaces, control characters or other characters (percent-encode them)';
  if (uri.includes('\\')) return 'must not contain a backslash';
  // Addresses are compared exactly (RFC 9700 2.1; 4.1 shows what pattern matching lets through),
  // so a star would match only itself: whoever registers one expects a pattern this server never
  // applies, and a host name cannot hold one anyway.
  if (uri.includes('*')) return 'must not contain a wildcard (*): redirect addresses are compared exactly, character for character';
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1]?.toLowerCase();
  if (!scheme) return 'must be an absolute address with a scheme (https://…, or myapp:/… for a native app)';
  if (FORBIDDEN_SCHEMES.has(scheme)) return `must not use the ${scheme}: scheme`;
  if (uri.includes('#')) return 'must not contain a fragment (#)';
  // "localhost:8000/cb" parses as scheme "localhost"; it is a forgotten http://, not a native app.
  if (/^[^:]+:\d+(\/|$)/.test(uri)) return 'looks like host:port without a scheme; write https://… or http://localhost:…';
  if (scheme === 'http' || scheme === 'https') {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return 'is not a valid URL';
    }
    if (url.username || url.password) return 'must not contain credentials';
    // A percent-encoded star becomes one in the host name.
    if (url.hostname.includes('*')) return 'must not contain a wildcard (*) in the host name';
    if (scheme === 'http' && !LOOPBACK_HOSTS.test(url.host.replace(/:\d+$/, ''))) {
      return 'must use https (plain http is allowed only for localhost, 127.0.0.1 or [::1])';
    }
  }
  return undefined;
}

export interface RegisteredApp {
  readonly client: Client;
  /** Shown once; only its hash is stored. */
  readonly clientSecret: string;
}

/** At most this many redirect addresses per app: a list to read, not a pattern by enumeration. */
export const MAX_REDIRECTS = 10;

export interface AppInput {
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly website?: string | undefined;
}

/** Checks an app's name (trimmed, 1 to 100 characters). */
export function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > 100) throw new InvalidClientInput('name must have 1 to 100 characters');
  return trimmed;
}

/** Checks a list of redirect addresses: 1 to MAX_REDIRECTS, each valid, none twice. */
export function checkedRedirects(uris: readonly string[]): string[] {
  if (uris.length === 0) throw new InvalidClientInput('at least one redirect URI is required');
  if (uris.length > MAX_REDIRECTS) throw new InvalidClientInput(`at most ${MAX_REDIRECTS} redirect URIs`);
  for (const uri of uris) {
    const problem = checkRedirectUri(uri);
    if (problem) throw new InvalidClientInput(`redirect URI ${JSON.stringify(uri.slice(0, 100))} ${problem}`);
  }
  if (new Set(uris).size !== uris.length) throw new InvalidClientInput('a redirect URI is listed twice');
  return [...uris];
}

/** A web site to show beside the app's name: https (or http), no credentials; empty means none. */
export function checkedWebsite(website: string | undefined): string | null {
  const v = website?.trim() ?? '';
  if (v === '') return null;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    throw new InvalidClientInput('website must be an absolute address such as https://example.org');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || v.length > 500 || !/^[\x21-\x7e]+$/.test(v)) {
    throw new InvalidClientInput('website must be an http(s) address of at most 500 characters, without credentials');
  }
  return v;
}

/** A new secret: 40 lowercase hex characters (160 random bits), the shape of the hosted service's. */
function newSecret(): { secret: string; hash: string } {
  const secret = randomHex(20);
  return { secret, hash: sha256Hex(secret) };
}

/** Registers an app; `ownerPk` is the account that registered it on the web pages (none for the command line). */
export async function registerClient(deps: { store: Store; clock: Clock }, input: AppInput & { ownerPk?: number }): Promise<RegisteredApp> {
  const name = checkedName(input.name);
  const redirectUris = checkedRedirects(input.redirectUris);
  const website = checkedWebsite(input.website);
  const { secret, hash } = newSecret();
  const client = await deps.store.transaction((tx) =>
    tx.clients.create({
      clientId: `app${randomHex(10)}`,
      secretHash: hash,
      name,
      redirectUris,
      website,
      ownerPk: input.ownerPk ?? null,
      createdAt: unixSeconds(deps.clock),
    }),
  );
  return { client, clientSecret: secret };
}

/** Who may manage an app: its owner, and admins (every app, those of the command line included). */
export function mayManage(viewer: { readonly pk: number; readonly isAdmin: boolean }, client: Client): boolean {
  return viewer.isAdmin || client.ownerPk === viewer.pk;
}

/** A new secret for the app; the old one stops working at once. Returns the new one (shown once). */
export async function rotateSecret(deps: { store: Store }, client: Client): Promise<string> {
  const { secret, hash } = newSecret();
  const changed = await deps.store.transaction((tx) => tx.clients.update(client.pk, { secretHash: hash }));
  if (!changed) throw new InvalidClientInput('no such app');
  return secret;
}

/** Changes the app's name, web site and redirect addresses (each checked as at registration). */
export async function updateClient(deps: { store: Store }, client: Client, input: AppInput): Promise<Client> {
  const changes = { name: checkedName(input.name), redirectUris: checkedRedirects(input.redirectUris), website: checkedWebsite(input.website) };
  const changed = await deps.store.transaction((tx) => tx.clients.update(client.pk, changes));
  if (!changed) throw new InvalidClientInput('no such app');
  return changed;
}

/** Sets the app's redirect addresses alone (the command line's `app redirects`). */
export async function setRedirects(deps: { store: Store }, client: Client, uris: readonly string[]): Promise<Client> {
  const redirectUris = checkedRedirects(uris);
  const changed = await deps.store.transaction((tx) => tx.clients.update(client.pk, { redirectUris }));
  if (!changed) throw new InvalidClientInput('no such app');
  return changed;
}

/**
 * Deletes the app; its grants, tokens and codes go with it (the database cascades), so every
 * token it holds stops working: at once in this process, within TOKEN_CACHE_SECONDS elsewhere.
 */
export async function deleteClient(deps: { store: Store; accessTokens?: { forgetClient(clientPk: number): void } }, client: Client): Promise<boolean> {
  const deleted = await deps.store.transaction((tx) => tx.clients.delete(client.pk));
  deps.accessTokens?.forgetClient(client.pk);
  return deleted;
}

/** A well-formed hash that matches no secret, compared against when the client id is unknown. */
const NO_CLIENT_HASH = sha256Hex('no such client');

/** The app whose id and secret these are, or null. The secret comparison is constant-time. */
export async function authenticateClient(store: Store, clientId: string, clientSecret: string): Promise<Client | null> {
  const client = await store.read.clients.byClientId(clientId);
  const ok = safeEqual(sha256Hex(clientSecret), client?.secretHash ?? NO_CLIENT_HASH);
  return client && ok ? client : null;
}
