import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { unixSeconds } from '../../lib/clock.js';
import type { Collaboration, Repos } from '../../storage/store.js';
import { emailKey } from '../users/users.service.js';
import { deleteCopy, endIfAlone } from './joint-tasks.js';
import { OtherAccounts } from './other-accounts.js';

/**
 * Collaboration between two accounts of this server (docs/sharing.md): one invites the other (by
 * e-mail address or user id), who accepts or declines; either ends it. Each side chooses what
 * the other may do to it: reassign tasks to it, share tasks with it. The command line, the
 * additive API calls and (later) the web pages all call these functions.
 */
/** What these functions use of Deps: the command line has no more than this. */
export type SharingDeps = Pick<Deps, 'store' | 'clock'>;

export interface Allowed {
  readonly reassign: boolean;
  readonly share: boolean;
}

export const ALLOW_ALL: Allowed = { reassign: true, share: true };

/** The account a person means by an e-mail address or a user id; 615 when there is none. */
async function accountOf(tx: Repos, who: string): Promise<number> {
  const text = who.trim();
  const pk = text.includes('@') ? ((await tx.accounts.credentialsByEmail(emailKey(text)))?.pk ?? null) : await tx.accounts.pkByUserid(text);
  if (pk === null) throw new ApiError(615, { desc: 'Invalid collaborator: no account has this e-mail address or user id' });
  return pk;
}

/** Locks both accounts, lower key first: two calls about one pair never wait on each other in a cycle. */
async function lockPair(tx: Repos, a: number, b: number): Promise<void> {
  for (const pk of [Math.min(a, b), Math.max(a, b)]) {
    if (!(await tx.accounts.lock(pk))) throw new ApiError(pk === a ? 2 : 615);
  }
}

export async function listCollaborations(deps: SharingDeps, userPk: number): Promise<Collaboration[]> {
  return deps.store.read.sharing.collaborations(userPk);
}

/**
 * Invites `who`. Inviting someone whose invitation is waiting for this account accepts it. 615:
 * no such account, or oneself; 616: already collaborators or already invited.
 */
export async function invite(deps: SharingDeps, userPk: number, who: string, allow: Allowed = ALLOW_ALL): Promise<Collaboration> {
  return deps.store.transaction(async (tx) => {
    const otherPk = await accountOf(tx, who);
    if (otherPk === userPk) throw new ApiError(615, { desc: 'Invalid collaborator: an account cannot collaborate with itself' });
    await lockPair(tx, userPk, otherPk);
    const existing = await tx.sharing.collaboration(userPk, otherPk);
    if (existing?.state === 'received') await tx.sharing.accept(userPk, otherPk, allow);
    else if (existing) throw new ApiError(616, { desc: `Unable to invite: ${existing.state === 'sent' ? 'already invited' : 'already collaborators'}` });
    else await tx.sharing.invite(userPk, otherPk, allow, unixSeconds(deps.clock));
    return (await tx.sharing.collaboration(userPk, otherPk)) as Collaboration;
  });
}

/** Accepts the invitation `who` sent; 615 when there is none waiting. */
export async function accept(deps: SharingDeps, userPk: number, who: string, allow: Allowed = ALLOW_ALL): Promise<Collaboration> {
  return deps.store.transaction(async (tx) => {
    const otherPk = await accountOf(tx, who);
    await lockPair(tx, userPk, otherPk);
    if (!(await tx.sharing.accept(userPk, otherPk, allow))) throw new ApiError(615, { desc: 'Invalid collaborator: no invitation from this account is waiting' });
    return (await tx.sharing.collaboration(userPk, otherPk)) as Collaboration;
  });
}

/** Sets what `who` may do to this account; 615 when they are not a collaborator or invitee. */
export async function setAllowed(deps: SharingDeps, userPk: number, who: string, allow: Allowed): Promise<Collaboration> {
  return deps.store.transaction(async (tx) => {
    const otherPk = await accountOf(tx, who);
    await lockPair(tx, userPk, otherPk);
    if (!(await tx.sharing.setAllowed(userPk, otherPk, allow))) throw new ApiError(615);
    return (await tx.sharing.collaboration(userPk, otherPk)) as Collaboration;
  });
}

/**
 * Declines an invitation, withdraws one, or ends a collaboration. Joint tasks between the two end
 * with it: the owner keeps the task, the other's copy leaves their list through their deleted
 * list (nobody keeps reaching a task through a collaboration that no longer exists).
 */
export async function endCollaboration(deps: SharingDeps, userPk: number, who: string): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const otherPk = await accountOf(tx, who);
    await lockPair(tx, userPk, otherPk);
    if (!(await tx.sharing.end(userPk, otherPk))) throw new ApiError(615, { desc: 'Invalid collaborator: no collaboration or invitation with this account' });
    const others = new OtherAccounts(tx, deps.clock);
    for (const [owner, member] of [[userPk, otherPk], [otherPk, userPk]] as const) {
      for (const share of await tx.sharing.sharesBetween(owner, member)) {
        const leaving = share.members.filter((m) => m.userPk === member);
        for (const m of leaving) {
          await tx.sharing.removeMember(m);
          await deleteCopy(tx, others, m);
        }
        await endIfAlone(tx, others, share, share.members.filter((m) => m.userPk !== member));
      }
    }
  });
}
