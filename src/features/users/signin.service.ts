import { sha256Hex } from '../../lib/crypto.js';
import { decoyHash, MAX_PASSWORD_LENGTH, verifyPassword } from '../../lib/password.js';
import type { RateRule } from '../../lib/rate-rule.js';
import type { Deps } from '../../deps.js';
import type { Credentials } from '../../storage/store.js';
import { emailKey } from './users.service.js';

export type SignInResult =
  | { readonly kind: 'ok'; readonly userPk: number; readonly knownDevice: boolean }
  | { readonly kind: 'wrong' }
  | { readonly kind: 'throttled'; readonly retryAfterSeconds: number };

export interface SignInAttempt {
  readonly email: string;
  readonly password: string;
  /** The browser's device cookie, if it has one (set after an earlier successful sign-in). */
  readonly deviceToken: string | undefined;
  /** The client's address as the server sees it. */
  readonly address: string;
}

/** The account a sign-in names, and the counts its attempt is throttled by. */
export interface SignInCounts {
  /** The account of the e-mail address, or null (unknown addresses are counted all the same). */
  readonly creds: Credentials | null;
  /** The device token is one this server issued to the account at an earlier sign-in. */
  readonly knownDevice: boolean;
  /** Keys and rules, in the order they are counted: the address first, then the account. */
  readonly counts: ReadonlyArray<readonly [key: string, rule: RateRule]>;
}

/**
 * The rule of docs/decisions/0005-sign-in-throttling.md, once for every way of signing in with a
 * password (the pages' password here, app passwords in app-passwords.service.ts): attempts count
 * per client address across all accounts, and per account separately for each browser that has
 * signed in to it before and together for all others. The account key is the e-mail as typed
 * (normalised), so unknown and known addresses behave alike. The address comes first: an address
 * past its limit never adds an account key, so one source cannot fill the limiter's table with
 * made-up e-mail addresses (0006).
 */
export async function signInCounts(deps: Pick<Deps, 'store' | 'config'>, a: Pick<SignInAttempt, 'email' | 'deviceToken' | 'address'>): Promise<SignInCounts> {
  const key = emailKey(a.email);
  const creds = key === '' ? null : await deps.store.read.accounts.credentialsByEmail(key);
  const deviceHash = a.deviceToken ? sha256Hex(a.deviceToken) : undefined;
  const knownDevice = creds !== null && deviceHash !== undefined && (await deps.store.read.accounts.isKnownDevice(creds.pk, deviceHash));
  const rules = deps.config.rateLimits;
  return {
    creds,
    knownDevice,
    counts: [
      [`signin:address:${a.address}`, rules.signinPerAddress],
      [`signin:account:${sha256Hex(key)}:${knownDevice ? deviceHash : 'new'}`, rules.signinPerAccount],
    ],
  };
}

/**
 * Password sign-in, throttled without locking the real user out (OWASP's "device cookie" scheme):
 * attempts count per account separately for each browser that has signed in to it before, and
 * together for all browsers that have not. Someone guessing from elsewhere exhausts only the
 * shared count; the owner's known browser keeps its own. A per-address count limits one source
 * spraying many accounts. See docs/decisions/0005-sign-in-throttling.md.
 *
 * Every attempt is counted before the password is checked: counting only after the (slow, on
 * purpose) hash would let guesses sent in parallel all pass the check before any was counted.
 */
export async function signIn(deps: Deps, a: SignInAttempt): Promise<SignInResult> {
  const { creds, knownDevice, counts } = await signInCounts(deps, a);
  const now = deps.clock.now();
  // One after the other: an address past its limit never adds an account key. The second write
  // costs nothing beside the deliberately slow password hash.
  for (const [k, rule] of counts) {
    const d = await deps.limiter.hit(k, rule, now);
    if (!d.allowed) return { kind: 'throttled', retryAfterSeconds: d.retryAfterSeconds };
  }
  const password = a.password.length > MAX_PASSWORD_LENGTH ? '' : a.password;
  // Unknown e-mail: verify against a decoy so the answer takes as long as for a real account.
  const ok = await verifyPassword(password, creds?.passwordHash ?? (await decoyHash(deps.scryptN)));
  if (creds && ok && password !== '') return { kind: 'ok', userPk: creds.pk, knownDevice };
  return { kind: 'wrong' };
}
