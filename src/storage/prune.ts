import type { Store } from './store.js';

/**
 * Removes what can no longer matter: spent or expired codes and tokens, refresh retry answers past
 * their time, expired pending authorization requests, sessions, one-time account links and
 * Idempotency-Keys, and rate-limit windows that have ended. Every instance runs it (hourly);
 * running it twice is harmless. Counters are deleted outside the transaction: they are written
 * without one.
 */
export async function pruneExpired(store: Store, nowSeconds: number): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.oauth.prune(nowSeconds);
    await tx.authRequests.prune(nowSeconds);
    await tx.sessions.prune(nowSeconds);
    await tx.accountLinks.prune(nowSeconds);
    await tx.idempotency.prune(nowSeconds);
  });
  await store.counters.prune(nowSeconds);
}
