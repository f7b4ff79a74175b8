import type { Config } from './config.js';
import type { Clock } from './lib/clock.js';
import { MemoryRateLimiter, type RateLimiter } from './lib/rate-limiter.js';
import { AccessTokens } from './oauth/access-tokens.js';
import type { Store } from './storage/store.js';

/** What services receive explicitly: no module-level singletons (conventions, habit 7). */
export interface Deps {
  readonly config: Config;
  readonly store: Store;
  readonly clock: Clock;
  readonly limiter: RateLimiter;
  readonly accessTokens: AccessTokens;
}

export function createDeps(config: Config, store: Store, clock: Clock, limiter?: RateLimiter): Deps {
  return {
    config,
    store,
    clock,
    limiter: limiter ?? new MemoryRateLimiter(),
    accessTokens: new AccessTokens(store, clock, config.tokenCacheSeconds),
  };
}
