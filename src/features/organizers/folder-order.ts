import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import { lockAccount } from '../account/account.service.js';

/**
 * Moving a folder up or down the folder list: the web pages' way to set `ord`, which no API call
 * sets (docs/organizers.md). The folders take the positions 1, 2, 3… of the new order; only those
 * whose `ord` changes are written, and `lastedit_folder` moves, so apps fetch the new order at
 * their next sync. Ties and gaps left by deletes or imports are resolved by the same renumbering.
 */
export type Direction = 'up' | 'down';

/** True when the folder moved; false at the top (up) or the bottom (down). 205 when it is no folder of the account. */
export async function moveFolder(deps: Deps, auth: AuthContext, id: number, direction: Direction): Promise<boolean> {
  const userPk = auth.userPk;
  return deps.store.transaction(async (tx) => {
    const { now } = await lockAccount(deps, tx, userPk);
    // Listed by ord, then id: the order every client shows.
    const folders = await tx.organizers.list(userPk, 'folder');
    const from = folders.findIndex((f) => f.id === id);
    if (from < 0) throw new ApiError(205, { ref: String(id) });
    const to = direction === 'up' ? from - 1 : from + 1;
    const moved = folders[from];
    if (to < 0 || to >= folders.length || !moved) return false;
    const order = folders.filter((f) => f.id !== id);
    order.splice(to, 0, moved);
    for (const [i, folder] of order.entries()) {
      if (folder.ord !== i + 1) await tx.organizers.update(userPk, 'folder', { ...folder, ord: i + 1 });
    }
    await tx.accounts.touch(userPk, ['lastedit_folder'], now);
    return true;
  });
}
