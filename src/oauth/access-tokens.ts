import { BoundedMap } from '../lib/bounded-map.js';
import { unixSeconds, type Clock } from '../lib/clock.js';
import { sha256Hex } from '../lib/crypto.js';
import type { Store } from '../storage/store.js';
import { grantedScopes, parseScope } from './scopes.js';

/** Who is calling: the result of a valid access token. */
export interface AuthContext {
  readonly userPk: number;
  readonly clientPk: number;
  readonly grantId: number;
  readonly scopes: ReadonlySet<string>;
  /** Unix seconds. */
  readonly expiresAt: number;
}

/** What this process stopped trusting: a grant's, an app's or an account's tokens. */
export type Forgotten = { readonly grantId: number } | { readonly clientPk: number } | { readonly userPk: number };

interface Cached {
  readonly auth: AuthContext;
  /** Milliseconds: after this the database is asked again. */
  readonly until: number;
}

/**
 * Access-token verification. Tokens are stored only as SHA-256 hashes; a request's token is hashed
 * and looked up. A short in-process cache (TOKEN_CACHE_SECONDS) spares the database on the hot
 * path. It never extends a token's life (expiry is checked on every use), revocation in this
 * process drops the grant's entries at once, and another instance's revocation is seen within
 * the cache time at most (docs/decisions/0002-caches.md).
 */
export class AccessTokens {
  private readonly cache: BoundedMap<string, Cached>;
  private readonly forgetting = new Set<(what: Forgotten) => void>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly cacheSeconds: number,
    maxEntries = 50_000,
  ) {
    this.cache = new BoundedMap(maxEntries);
  }

  /**
   * The caller of a token, or null. A token the cache holds is answered at once (no promise): an
   * API call spends a turn less (docs/decisions/0007); any other is read from the store.
   */
  verify(token: string): AuthContext | null | Promise<AuthContext | null> {
    const hash = sha256Hex(token);
    const nowMs = this.clock.now();
    const hit = this.cache.get(hash);
    if (hit && hit.until > nowMs) return hit.auth.expiresAt > Math.floor(nowMs / 1000) ? hit.auth : null;
    if (hit) this.cache.delete(hash);
    return this.read(hash, nowMs);
  }

  private async read(hash: string, nowMs: number): Promise<AuthContext | null> {
    const row = await this.store.read.oauth.token(hash);
    const now = unixSeconds(this.clock);
    if (!row || row.kind !== 'access' || row.grantRevokedAt !== null || row.expiresAt <= now) return null;
    const auth: AuthContext = {
      userPk: row.userPk,
      clientPk: row.clientPk,
      grantId: row.grantId,
      scopes: grantedScopes(parseScope(row.scope) ?? []),
      expiresAt: row.expiresAt,
    };
    if (this.cacheSeconds > 0) this.cache.set(hash, { auth, until: nowMs + this.cacheSeconds * 1000 });
    return auth;
  }

  /** Drops every cached token of a grant; called whenever a grant is revoked in this process. */
  forgetGrant(grantId: number): void {
    for (const [hash, entry] of this.cache) if (entry.auth.grantId === grantId) this.cache.delete(hash);
    this.tell({ grantId });
  }

  /** Drops every cached token of an app; called when an app is deleted in this process. */
  forgetClient(clientPk: number): void {
    for (const [hash, entry] of this.cache) if (entry.auth.clientPk === clientPk) this.cache.delete(hash);
    this.tell({ clientPk });
  }

  /** Drops every cached token of an account; called when an account is deleted in this process. */
  forgetUser(userPk: number): void {
    for (const [hash, entry] of this.cache) if (entry.auth.userPk === userPk) this.cache.delete(hash);
    this.tell({ userPk });
  }

  /**
   * Calls `listener` whenever this process forgets tokens (a revocation made here): what holds a
   * token's authority past its check (an event stream) lets it go at once. Returns what stops it.
   */
  onForget(listener: (what: Forgotten) => void): () => void {
    this.forgetting.add(listener);
    return () => void this.forgetting.delete(listener);
  }

  private tell(what: Forgotten): void {
    for (const listener of [...this.forgetting]) listener(what);
  }
}
