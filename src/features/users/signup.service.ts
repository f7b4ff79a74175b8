import type { Deps } from '../../deps.js';
import { unixSeconds } from '../../lib/clock.js';
import { randomHex, sha256Hex } from '../../lib/crypto.js';
import { hashPassword } from '../../lib/password.js';
import { UniqueViolation, type Account } from '../../storage/store.js';
import { checkedAlias, checkedEmail, checkPassword, DEFAULT_PREFS, emailKey } from './users.service.js';

/**
 * Sign-up on the web pages, governed by REGISTRATION: `open` (anyone), `invite` (with a link an
 * admin made), `closed` (no sign-up page; accounts come from the command line). The first account
 * of a server, its admin, always comes from the command line (docs/decisions/0012).
 */

/** Whether the sign-up page takes a new account, given the invitation it carries (if any). */
export type SignupAccess = 'open' | 'invited' | 'needs-invite' | 'closed';

export async function signupAccess(deps: Deps, hasValidInvite: boolean): Promise<SignupAccess> {
  const mode = deps.config.registration;
  if (mode === 'closed') return 'closed';
  if (hasValidInvite) return 'invited';
  return mode === 'open' ? 'open' : 'needs-invite';
}

export interface SignupInput {
  readonly email: string;
  readonly password: string;
  readonly alias?: string | undefined;
  /** The invitation's secret, when the page was opened from one. */
  readonly invite?: string | undefined;
  /** The client's address, for the per-address limit. */
  readonly address: string;
}

export type SignupResult =
  | { readonly kind: 'ok'; readonly account: Account }
  | { readonly kind: 'refused'; readonly why: 'closed' | 'needs-invite' | 'invite-used' }
  | { readonly kind: 'taken' }
  | { readonly kind: 'throttled'; readonly retryAfterSeconds: number };

/**
 * Creates an account from the sign-up form. Counted per client address
 * (RATE_LIMIT_SIGNUP_PER_ADDRESS) before anything else, valid or not: a script cannot probe which
 * addresses have accounts, nor fill the database, faster than that. An invitation is spent in the
 * same transaction that creates the account: one invitation, one account.
 */
export async function signUp(deps: Deps, input: SignupInput): Promise<SignupResult> {
  if (deps.config.registration === 'closed') return { kind: 'refused', why: 'closed' };
  const d = await deps.limiter.hit(`signup:address:${input.address}`, deps.config.rateLimits.signupPerAddress, deps.clock.now());
  if (!d.allowed) return { kind: 'throttled', retryAfterSeconds: d.retryAfterSeconds };
  const email = checkedEmail(input.email);
  checkPassword(input.password);
  const alias = input.alias === undefined || input.alias.trim() === '' ? (email.split('@')[0] as string) : checkedAlias(input.alias);
  const inviteHash = input.invite ? sha256Hex(input.invite) : undefined;
  if (deps.config.registration === 'invite' && inviteHash === undefined) return { kind: 'refused', why: 'needs-invite' };
  const passwordHash = await hashPassword(input.password, deps.scryptN);
  const now = unixSeconds(deps.clock);
  try {
    return await deps.store.transaction(async (tx) => {
      if (inviteHash !== undefined && !(await tx.accountLinks.take(inviteHash, 'invite', now))) {
        // Open registration does not need the invitation: a stale one is no reason to refuse.
        if (deps.config.registration === 'invite') return { kind: 'refused', why: 'invite-used' } as const;
      }
      const account = await tx.accounts.create({
        userid: `td${randomHex(8)}`,
        email,
        emailKey: emailKey(email),
        passwordHash,
        alias,
        pro: 0,
        prefs: DEFAULT_PREFS,
        createdAt: now,
      });
      return { kind: 'ok', account } as const;
    });
  } catch (err) {
    // The invitation is not spent: the transaction rolled back with the failed insert.
    if (err instanceof UniqueViolation && err.what === 'email') return { kind: 'taken' };
    throw err;
  }
}
