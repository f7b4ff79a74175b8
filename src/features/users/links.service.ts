import { unixSeconds } from '../../lib/clock.js';
import { randomUrlToken, sha256Hex } from '../../lib/crypto.js';
import type { Deps } from '../../deps.js';
import type { AccountLink, Store } from '../../storage/store.js';
import type { Clock } from '../../lib/clock.js';

/**
 * One-time links: password resets and invitations. The link carries a random secret (256 bits);
 * the database keeps only its SHA-256, so a copy of the database holds no usable link. A link
 * works once (taken by one DELETE … RETURNING) and until it expires.
 */

/** A reset link sent by e-mail: the inbox is the weak point, so it lives briefly. */
export const EMAILED_RESET_SECONDS = 3600;
/** A reset link an admin makes with the command line, to pass on by another channel. */
export const ADMIN_RESET_SECONDS = 24 * 3600;
export const INVITE_SECONDS = 7 * 86400;

type LinkDeps = { store: Store; clock: Clock; config: { publicUrl: string } };

/** The page a link opens, with its secret in the query (redacted from the access log). */
export function linkUrl(publicUrl: string, kind: AccountLink['kind'], secret: string): string {
  return kind === 'reset' ? `${publicUrl}/reset?token=${secret}` : `${publicUrl}/signup?invite=${secret}`;
}

export interface MadeLink {
  readonly url: string;
  readonly expiresAt: number;
}

/**
 * A new password-reset link for the account. Older reset links of the account stop working: only
 * the newest one counts, so that a link found later in an old message is dead.
 */
export async function makeResetLink(deps: LinkDeps, userPk: number, seconds: number): Promise<MadeLink> {
  const secret = randomUrlToken();
  const now = unixSeconds(deps.clock);
  const link: AccountLink = { idHash: sha256Hex(secret), kind: 'reset', userPk, note: '', createdAt: now, expiresAt: now + seconds };
  await deps.store.transaction(async (tx) => {
    await tx.accountLinks.delete(userPk, 'reset');
    await tx.accountLinks.create(link);
  });
  return { url: linkUrl(deps.config.publicUrl, 'reset', secret), expiresAt: link.expiresAt };
}

/** A new invitation by the admin `userPk`; `note` reminds them whom it was for. */
export async function makeInvite(deps: LinkDeps, userPk: number, note: string): Promise<MadeLink> {
  const secret = randomUrlToken();
  const now = unixSeconds(deps.clock);
  const link: AccountLink = { idHash: sha256Hex(secret), kind: 'invite', userPk, note: note.trim().slice(0, 200), createdAt: now, expiresAt: now + INVITE_SECONDS };
  await deps.store.transaction((tx) => tx.accountLinks.create(link));
  return { url: linkUrl(deps.config.publicUrl, 'invite', secret), expiresAt: link.expiresAt };
}

/** The unexpired link this secret opens, or null; nothing is spent. */
export async function openLink(deps: Pick<Deps, 'store' | 'clock'>, kind: AccountLink['kind'], secret: string | undefined): Promise<AccountLink | null> {
  if (!secret) return null;
  return deps.store.read.accountLinks.get(sha256Hex(secret), kind, unixSeconds(deps.clock));
}
