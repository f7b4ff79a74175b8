import type { Store } from './store.js';

/**
 * Removes what can no longer matter: spent or expired codes and tokens, refresh retry answers past
 * their time, expired pending authorization requests, sessions, one-time account links,
 * Idempotency-Keys and leases of event streams, rate-limit windows that have ended, and (with
 * `changesRetentionSeconds`) the change log's deletions older than that. Every instance runs it (hourly); running it twice is
 * harmless. Counters are deleted outside the transaction: they are written without one.
 */
export async function pruneExpired(store: Store, nowSeconds: number, options: { readonly changesRetentionSeconds?: number } = {}): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.oauth.prune(nowSeconds);
    await tx.authRequests.prune(nowSeconds);
    await tx.sessions.prune(nowSeconds);
    await tx.accountLinks.prune(nowSeconds);
    await tx.idempotency.prune(nowSeconds);
    // Leases of event streams whose instance died (a live one renews its own).
    await tx.sseLeases.prune(nowSeconds);
  });
  // The change log's deletions past CHANGES_RETENTION_DAYS, in a transaction of their own: the
  // accounts' floors move with them (changes-port.ts).
  const keep = options.changesRetentionSeconds;
  if (keep !== undefined) {
    await store.transaction(async (tx) => {
      await tx.changes.prune(nowSeconds - keep);
      // Calendar objects of deleted tasks whose exits went with them: no calendar reports them any more.
      await tx.caldav.prune();
    });
  }
  await store.counters.prune(nowSeconds);
}
