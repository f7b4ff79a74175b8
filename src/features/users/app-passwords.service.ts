import { randomBytes } from 'node:crypto';
import { unixSeconds } from '../../lib/clock.js';
import { safeEqual, sha256Hex } from '../../lib/crypto.js';
import type { Deps } from '../../deps.js';
import type { Account, AppPassword } from '../../storage/store.js';
import type { AppPasswordCache, ProvenAppPassword } from './app-password-cache.js';
import { signInCounts } from './signin.service.js';
import { emailKey, InvalidInput } from './users.service.js';

/**
 * App passwords (docs/decisions/0024-app-passwords.md): a password per app, made on the Connected
 * apps page or with `bin/tickler user app-password`, that CalDAV clients sign in with beside the
 * account's e-mail address. Never the account's own password: a lost phone is cut off by revoking
 * its app password, and the account's password stays where it is. Stored as SHA-256 only.
 */

/**
 * 32 symbols: lowercase letters and digits without l, o, 0 and 1, which people mistake for one
 * another. 32 divides 256, so each random byte gives one symbol without bias (5 bits).
 */
const SYMBOLS = 'abcdefghijkmnpqrstuvwxyz23456789';
/** 16 symbols of 5 bits: 80 bits, shown as 4 groups of 4 (`abcd-efgh-jkmn-pqrs`). */
const LENGTH = 16;
/** Longer input is no app password, and is not hashed (a Basic header may be large). */
const MAX_TYPED = 200;
export const MAX_APP_PASSWORDS = 50;
export const MAX_NAME_LENGTH = 100;
/** A use is recorded at most this often per password: CalDAV clients sign in with every request. */
export const RECORD_USE_SECONDS = 60;
/** The User-Agent kept as the last device, at most this long. */
export const MAX_DEVICE_LENGTH = 120;

/** A new app password, as shown once: 4 groups of 4 symbols joined by dashes. */
export function newAppPasswordText(): string {
  const bytes = randomBytes(LENGTH);
  const symbols = Array.from(bytes, (b) => SYMBOLS[b & 31] as string).join('');
  return (symbols.match(/.{4}/g) as string[]).join('-');
}

/**
 * The form of an app password that is hashed: lower case, without the dashes and spaces people
 * may type or leave out (a phone keyboard capitalises, or hides the dash on another layer).
 */
export function canonicalAppPassword(typed: string): string {
  return typed.length > MAX_TYPED ? '' : typed.replace(/[\s-]+/g, '').toLowerCase();
}

function hashOf(typed: string): string {
  return sha256Hex(canonicalAppPassword(typed));
}

/** A User-Agent as kept: one line of printable text, at most MAX_DEVICE_LENGTH characters; null if empty. */
export function shortDevice(userAgent: string | undefined): string | null {
  const line = [...(userAgent ?? '').replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\uFFFD]+/gu, ' ').replace(/\s+/g, ' ').trim()];
  if (line.length === 0) return null;
  return line.length > MAX_DEVICE_LENGTH ? `${line.slice(0, MAX_DEVICE_LENGTH - 1).join('').trimEnd()}…` : line.join('');
}

function checkedName(name: string): string {
  const trimmed = name.replace(/\s+/g, ' ').trim();
  const length = [...trimmed].length;
  if (length === 0 || length > MAX_NAME_LENGTH) throw new InvalidInput(`the name must have 1 to ${MAX_NAME_LENGTH} characters`);
  return trimmed;
}

/**
 * Makes an app password for the account: the password is returned once, and only its hash kept.
 * InvalidInput for a name that is empty or too long, past MAX_APP_PASSWORDS, or no account.
 */
export async function createAppPassword(
  deps: Pick<Deps, 'store' | 'clock'>,
  userPk: number,
  input: { readonly name: string; readonly readOnly: boolean },
): Promise<{ readonly appPassword: AppPassword; readonly password: string }> {
  const name = checkedName(input.name);
  const password = newAppPasswordText();
  const appPassword = await deps.store.transaction(async (tx) => {
    // The account's lock: two posts at once cannot both pass the count.
    if (!(await tx.accounts.lock(userPk))) throw new InvalidInput('the account no longer exists');
    if ((await tx.appPasswords.list(userPk)).length >= MAX_APP_PASSWORDS) {
      throw new InvalidInput(`an account has at most ${MAX_APP_PASSWORDS} app passwords: revoke one you no longer use first`);
    }
    return tx.appPasswords.create({ userPk, name, secretHash: hashOf(password), readOnly: input.readOnly, createdAt: unixSeconds(deps.clock) });
  });
  return { appPassword, password };
}

/** The account's app passwords, oldest first (never a password or its hash). */
export async function listAppPasswords(deps: Pick<Deps, 'store'>, userPk: number): Promise<AppPassword[]> {
  return deps.store.read.appPasswords.list(userPk);
}

/**
 * Revokes one app password of the account: it stops at once in this process, within
 * TOKEN_CACHE_SECONDS in others (AppPasswordCache). False when the account has none with this id.
 */
export async function revokeAppPassword(
  deps: Pick<Deps, 'store'> & { readonly appPasswords?: Pick<AppPasswordCache, 'forgetPassword'> },
  userPk: number,
  id: number,
): Promise<boolean> {
  const deleted = await deps.store.transaction((tx) => tx.appPasswords.delete(userPk, id));
  deps.appPasswords?.forgetPassword(id);
  return deleted;
}

export interface AppPasswordAttempt {
  /** As the client sent it (HTTP Basic's user name): matched as the sign-in page matches it. */
  readonly email: string;
  readonly password: string;
  /** The client's address as the server sees it (request.ip). */
  readonly address: string;
  /** The User-Agent as the client sent it; kept shortened as the password's last device. */
  readonly device: string | undefined;
  /**
   * A device token this server gave the account at a sign-in (the pages' device cookie), if the
   * client sent one: its failures then count apart from strangers', as on the sign-in page.
   */
  readonly deviceKey?: string | undefined;
}

export type AppPasswordSignIn =
  /**
   * `account` as read when the password was last checked in the database (TOKEN_CACHE_SECONDS ago
   * at most): its key, address and settings; a caller that needs its stamps reads them itself.
   */
  | { readonly kind: 'ok'; readonly account: Account; readonly appPassword: { readonly id: number; readonly readOnly: boolean } }
  | { readonly kind: 'wrong' }
  /** Past the sign-in limits: the password was not checked. Answer 429 with Retry-After. */
  | { readonly kind: 'throttled'; readonly retryAfterSeconds: number };

const WRONG: AppPasswordSignIn = Object.freeze({ kind: 'wrong' });

/**
 * Signs in with an app password. Cheap when it was right a moment ago (no database: the cache);
 * otherwise the e-mail's account, the counts of the sign-in page and one lookup by the hash.
 *
 * Throttled by the sign-in page's own counts and rules (signInCounts): one budget of guesses per
 * account and per address, whichever way they come. Past it, the password is not checked, as on
 * the page. Unlike the page, only failures are counted (checked before, counted after), because a
 * CalDAV client signs in with every request; the checks of one address and account run one at a
 * time in this process, so guesses sent at once are still counted exactly. A password this
 * process has seen right is checked again without the counts: it is no guess, and an attacker
 * spending the account's count does not cut the owner's phone off. Unknown e-mail addresses take
 * the same steps and count the same. See docs/decisions/0024-app-passwords.md.
 */
export async function signInWithAppPassword(deps: Deps, a: AppPasswordAttempt): Promise<AppPasswordSignIn> {
  const key = emailKey(a.email);
  const hash = hashOf(a.password);
  const cache = deps.appPasswords;
  const held = cache.get(hash);
  if (held && held.emailKey === key) {
    if (held.until > deps.clock.now()) return signedIn(deps, held, a.device);
    const [row, account] = await Promise.all([deps.store.read.appPasswords.byHash(hash), deps.store.read.accounts.get(held.account.pk)]);
    if (row && account && row.id === held.id && row.userPk === account.pk && emailKey(account.email) === key) {
      return signedIn(deps, prove(deps, hash, key, row, account), a.device);
    }
    // Revoked, or the account deleted or its address changed: from here on, an attempt like any other.
    cache.delete(hash);
  }
  const { creds, counts } = await signInCounts(deps, { email: a.email, deviceToken: a.deviceKey, address: a.address });
  const checked = await cache.turns.runAll(
    counts.map(([k]) => k),
    async function countedCheck(): Promise<AppPasswordSignIn | ProvenAppPassword> {
      const nowMs = deps.clock.now();
      for (const [k, rule] of counts) {
        // Failing closed: a key the limiter could not count (0006) is refused, as the page's hit is.
        const d = await deps.limiter.check(k, rule, nowMs, { failClosed: true });
        if (!d.allowed) return { kind: 'throttled', retryAfterSeconds: d.retryAfterSeconds };
      }
      // The same lookup whether or not the address has an account: the same time, the same count.
      const row = await deps.store.read.appPasswords.byHash(hash);
      if (!row || !creds || row.userPk !== creds.pk || !safeEqual(row.secretHash, hash)) {
        // The address first: past its limit, the account's count is not spent.
        for (const [k, rule] of counts) if (!(await deps.limiter.hit(k, rule, nowMs)).allowed) break;
        return WRONG;
      }
      const account = await deps.store.read.accounts.get(row.userPk);
      return account ? prove(deps, hash, key, row, account) : WRONG;
    },
  );
  // Out of the turn: the last use's write does not hold up the next check of this address.
  return 'kind' in checked ? checked : signedIn(deps, checked, a.device);
}

/** Remembers a right password; its last use as the database has it, unless this process knows a later one. */
function prove(deps: Deps, hash: string, key: string, row: AppPassword, account: Account): ProvenAppPassword {
  const cache = deps.appPasswords;
  const known = cache.get(hash);
  const usedAt = Math.max((row.lastUsedAt ?? -Infinity) * 1000, known?.id === row.id ? known.usedAt : -Infinity);
  const until = deps.clock.now() + cache.cacheSeconds * 1000;
  const entry: ProvenAppPassword = { emailKey: key, account, id: row.id, readOnly: row.readOnly, until, usedAt };
  cache.set(hash, entry);
  return entry;
}

/** The answer to a right password, its last use recorded if a minute has passed since the last. */
async function signedIn(deps: Deps, entry: ProvenAppPassword, device: string | undefined): Promise<AppPasswordSignIn> {
  const nowMs = deps.clock.now();
  if (nowMs - entry.usedAt >= RECORD_USE_SECONDS * 1000) {
    // Marked first: the requests that arrive during the write do not write as well.
    entry.usedAt = nowMs;
    const now = Math.floor(nowMs / 1000);
    await deps.store.transaction((tx) => tx.appPasswords.recordUse(entry.id, now, shortDevice(device), now - RECORD_USE_SECONDS + 1));
  }
  return { kind: 'ok', account: entry.account, appPassword: { id: entry.id, readOnly: entry.readOnly } };
}
