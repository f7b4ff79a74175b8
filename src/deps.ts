import type { Config } from './config.js';
import { AppPasswordCache } from './features/users/app-password-cache.js';
import { ApiLimits } from './http/api-limits.js';
import type { Clock } from './lib/clock.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { PRODUCTION_SCRYPT_N } from './lib/password.js';
import { MemoryRateLimiter, type RateLimiter } from './lib/rate-limiter.js';
import { AccessTokens } from './oauth/access-tokens.js';
import { withAccountCache } from './storage/account-cache.js';
import { BatchedRateLimiter } from './storage/batched-rate-limiter.js';
import { StoreRateLimiter } from './storage/store-rate-limiter.js';
import type { Store } from './storage/store.js';

/** What services receive explicitly: no module-level singletons (conventions, habit 7). */
export interface Deps {
  readonly config: Config;
  readonly store: Store;
  readonly clock: Clock;
  readonly limiter: RateLimiter;
  readonly apiLimits: ApiLimits;
  readonly accessTokens: AccessTokens;
  /** App-password sign-ins this process has seen right, and the turns of their checks. */
  readonly appPasswords: AppPasswordCache;
  /** scrypt's cost for new password hashes (production's; the test harness picks a cheap one). */
  readonly scryptN: number;
  /** SMTP_URL's mailer, or null without one. */
  readonly mailer: Mailer | null;
}

/** The store services see is the adapter behind the account cache (src/storage/account-cache.ts). */
export function createDeps(config: Config, adapter: Store, clock: Clock, options: { scryptN?: number } = {}): Deps {
  const store = withAccountCache(adapter, clock, config.accountCacheSeconds);
  // One SQLite process keeps its counters in memory; instances sharing PostgreSQL share them there.
  const shared = adapter.dialect === 'postgres';
  const limiter = shared ? new StoreRateLimiter(adapter) : new MemoryRateLimiter();
  return {
    config,
    store,
    clock,
    limiter,
    // Every API call counts twice (user and app): written in batches, not two writes per call.
    apiLimits: new ApiLimits(shared ? new BatchedRateLimiter(adapter.counters) : limiter, config.rateLimits),
    accessTokens: new AccessTokens(store, clock, config.tokenCacheSeconds),
    appPasswords: new AppPasswordCache(config.tokenCacheSeconds),
    scryptN: options.scryptN ?? PRODUCTION_SCRYPT_N,
    mailer: createMailer(config.smtpUrl, config.mailFrom),
  };
}
