import { ApiError } from '../../errors.js';
import type { Deps } from '../../deps.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import type { Account } from '../../storage/store.js';

export async function getAccount(deps: Deps, auth: AuthContext): Promise<Account> {
  const account = await deps.store.read.accounts.get(auth.userPk);
  // A token can outlive its account only if the account was removed; it no longer authorises anything.
  if (!account) throw new ApiError(2);
  return account;
}
