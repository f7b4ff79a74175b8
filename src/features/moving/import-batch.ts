import { lockAccount } from '../account/account.service.js';
import type { LockedAccount, Repos } from '../../storage/store.js';
import type { ImportScope } from './import-report.js';

/** Carries a dry run's result out of the transaction it rolls back. */
class DryRun<T> extends Error {
  constructor(readonly result: T) {
    super('dry run');
  }
}

/**
 * One batch of an import: one transaction that locks the account first and takes the clock for
 * its stamps after the lock, as every write does (docs/decisions/0003), so the batch's changes
 * carry one stamp and syncing clients fetch them. Batches stay small (a few hundred records): a
 * long transaction would hold the account's writers back. A dry run does the same work and rolls
 * it back.
 */
export async function importBatch<T>(scope: ImportScope, fn: (tx: Repos, now: number, account: LockedAccount) => Promise<T>): Promise<T> {
  try {
    return await scope.deps.store.transaction(async (tx) => {
      const { now, account } = await lockAccount(scope.deps, tx, scope.auth.userPk);
      const result = await fn(tx, now, account);
      if (scope.dryRun) throw new DryRun(result);
      return result;
    });
  } catch (err) {
    if (err instanceof DryRun) return err.result as T;
    throw err;
  }
}
