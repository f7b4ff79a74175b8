import type { Deps } from '../../deps.js';
import { unixSeconds } from '../../lib/clock.js';
import { sha256Hex } from '../../lib/crypto.js';
import { EMAILED_RESET_SECONDS, makeResetLink } from './links.service.js';
import { accountByEmail, checkPassword, emailKey, setPassword } from './users.service.js';

export type ResetRequestResult =
  /**
   * Said the same whether the address has an account or not (no enumeration). `sending` settles
   * when the message has been handed to the SMTP server (null when none is sent): the caller logs
   * a failure but does not wait for it, so the answer takes no longer for a real account.
   */
  | { readonly kind: 'accepted'; readonly sending: Promise<void> | null }
  | { readonly kind: 'unavailable' }
  | { readonly kind: 'throttled'; readonly retryAfterSeconds: number };

/**
 * A reset link by e-mail, when SMTP_URL is set. Counted per client address (with sign-in
 * attempts, RATE_LIMIT_SIGNIN_PER_ADDRESS) and per address typed (RATE_LIMIT_RESET_PER_ACCOUNT),
 * before the account is looked up, so that unknown and known addresses behave alike and no
 * inbox is flooded.
 */
export async function requestReset(deps: Deps, input: { email: string; address: string }): Promise<ResetRequestResult> {
  const mailer = deps.mailer;
  if (!mailer) return { kind: 'unavailable' };
  const rules = deps.config.rateLimits;
  const now = deps.clock.now();
  const key = emailKey(input.email);
  for (const [k, rule] of [[`signin:address:${input.address}`, rules.signinPerAddress], [`reset:account:${sha256Hex(key)}`, rules.resetPerAccount]] as const) {
    const d = await deps.limiter.hit(k, rule, now);
    if (!d.allowed) return { kind: 'throttled', retryAfterSeconds: d.retryAfterSeconds };
  }
  const account = key === '' ? null : await accountByEmail(deps.store, key);
  if (!account) return { kind: 'accepted', sending: null };
  const link = await makeResetLink(deps, account.pk, EMAILED_RESET_SECONDS);
  const text = [
    `Someone (we hope you) asked to reset the password of your Tickler account at ${deps.config.publicUrl}.`,
    '',
    `To choose a new password, open this link within ${EMAILED_RESET_SECONDS / 60} minutes:`,
    link.url,
    '',
    'It works once. If you did not ask for it, ignore this message: your password stays as it is.',
  ].join('\n');
  return { kind: 'accepted', sending: mailer.send({ to: account.email, subject: 'Reset your Tickler password', text }) };
}

export type ResetResult = { readonly kind: 'ok'; readonly userPk: number } | { readonly kind: 'expired' };

/**
 * Sets a new password with a reset link, spending the link. Every browser session of the account
 * ends (whoever knew the old password is signed out); the person signs in afresh.
 */
export async function resetPassword(deps: Deps, secret: string, password: string): Promise<ResetResult> {
  checkPassword(password);
  const now = unixSeconds(deps.clock);
  const link = await deps.store.transaction((tx) => tx.accountLinks.take(sha256Hex(secret), 'reset', now));
  if (!link) return { kind: 'expired' };
  await setPassword(deps, link.userPk, password);
  return { kind: 'ok', userPk: link.userPk };
}
