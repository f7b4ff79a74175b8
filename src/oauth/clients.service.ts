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
 * Checks a redirect address for registration. Exactly one per app, compared later by exact string
 * match. https anywhere; plain http only to the loopback address (RFC 8252 7.3, native apps and
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

export async function registerClient(
  deps: { store: Store; clock: Clock },
  input: { name: string; redirectUri: string },
): Promise<RegisteredApp> {
  const name = input.name.trim();
  if (name === '' || name.length > 100) throw new InvalidClientInput('name must have 1 to 100 characters');
  const problem = checkRedirectUri(input.redirectUri);
  if (problem) throw new InvalidClientInput(`redirect URI ${problem}`);
  // Same shape as the hosted service's secrets: 40 lowercase hex characters (160 random bits).
  const clientSecret = randomHex(20);
  const client = await deps.store.transaction((tx) =>
    tx.clients.create({
      clientId: `app${randomHex(10)}`,
      secretHash: sha256Hex(clientSecret),
      name,
      redirectUri: input.redirectUri,
      createdAt: unixSeconds(deps.clock),
    }),
  );
  return { client, clientSecret };
}

/** A well-formed hash that matches no secret, compared against when the client id is unknown. */
const NO_CLIENT_HASH = sha256Hex('no such client');

/** The app whose id and secret these are, or null. The secret comparison is constant-time. */
export async function authenticateClient(store: Store, clientId: string, clientSecret: string): Promise<Client | null> {
  const client = await store.read.clients.byClientId(clientId);
  const ok = safeEqual(sha256Hex(clientSecret), client?.secretHash ?? NO_CLIENT_HASH);
  return client && ok ? client : null;
}
