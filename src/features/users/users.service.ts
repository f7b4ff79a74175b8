import { unixSeconds, type Clock } from '../../lib/clock.js';
import { randomHex } from '../../lib/crypto.js';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../lib/password.js';
import type { Account, Prefs, ProLevel, Store } from '../../storage/store.js';

/** Preference defaults of a new account (spec 2.4); documented in docs/api-notes.md. */
export const DEFAULT_PREFS: Prefs = Object.freeze({
  dateformat: 0,
  timezone: 0,
  hidemonths: 6,
  hotlistpriority: 3,
  hotlistduedate: 2,
  hotliststar: 1,
  hotliststatus: 1,
  showtabnums: 1,
});

export class InvalidInput extends Error {
  override name = 'InvalidInput';
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The unique key of an e-mail address: trimmed and lower-cased, so logins ignore case. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

export interface NewUserInput {
  readonly email: string;
  readonly password: string;
  readonly alias?: string | undefined;
  readonly pro?: number | undefined;
  readonly isAdmin?: boolean | undefined;
}

/** An e-mail address as stored (trimmed), or InvalidInput. */
export function checkedEmail(email: string): string {
  const trimmed = email.trim();
  if (!EMAIL.test(trimmed) || trimmed.length > 254) throw new InvalidInput(`not an e-mail address: ${JSON.stringify(email)}`);
  return trimmed;
}

/** The one password rule, for sign-up, changes, resets and the command line. */
export function checkPassword(password: string): void {
  if ([...password].length < MIN_PASSWORD_LENGTH) throw new InvalidInput(`password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > MAX_PASSWORD_LENGTH) throw new InvalidInput(`password must have at most ${MAX_PASSWORD_LENGTH} characters`);
}

/** An alias as stored (trimmed), or InvalidInput. */
export function checkedAlias(alias: string): string {
  const trimmed = alias.trim();
  if (trimmed === '' || trimmed.length > 255) throw new InvalidInput('alias must have 1 to 255 characters');
  return trimmed;
}

function checkNewUser(input: NewUserInput): void {
  checkedEmail(input.email);
  checkPassword(input.password);
  if (input.alias !== undefined) checkedAlias(input.alias);
  if (input.pro !== undefined && ![0, 1, 2].includes(input.pro)) throw new InvalidInput('pro must be 0, 1 or 2');
}

/** Creates an account; throws InvalidInput for bad input and UniqueViolation for a taken e-mail. */
export async function createUser(deps: { store: Store; clock: Clock; scryptN?: number }, input: NewUserInput): Promise<Account> {
  checkNewUser(input);
  const email = input.email.trim();
  const passwordHash = await hashPassword(input.password, deps.scryptN);
  return deps.store.transaction((tx) =>
    tx.accounts.create({
      // The public id looks like the hosted service's (letters and digits) and reveals nothing.
      userid: `td${randomHex(8)}`,
      email,
      emailKey: emailKey(email),
      passwordHash,
      alias: input.alias?.trim() ?? (email.split('@')[0] as string),
      pro: (input.pro ?? 0) as ProLevel,
      prefs: DEFAULT_PREFS,
      createdAt: unixSeconds(deps.clock),
      isAdmin: input.isAdmin === true,
    }),
  );
}

/** The account with this e-mail address (any case, surrounding spaces ignored), or null. */
export async function accountByEmail(store: Store, email: string): Promise<Account | null> {
  const creds = await store.read.accounts.credentialsByEmail(emailKey(email));
  return creds && store.read.accounts.get(creds.pk);
}

/**
 * Sets a new password and ends the account's browser sessions, but the one in use when it is
 * given (its hash): whoever knew the old password is signed out everywhere else. Apps keep their
 * authorizations: they never saw the password (connected apps lists them, to revoke).
 */
export async function setPassword(
  deps: { store: Store; scryptN?: number },
  userPk: number,
  password: string,
  keepSessionHash?: string,
): Promise<void> {
  checkPassword(password);
  const hash = await hashPassword(password, deps.scryptN);
  await deps.store.transaction(async (tx) => {
    await tx.accounts.setPasswordHash(userPk, hash);
    await tx.sessions.deleteForUser(userPk, keepSessionHash);
  });
}

/**
 * Deletes the account and every record of it: tasks, organizers, tombstones, meta, grants and
 * tokens, codes, sessions, devices, links, app passwords, and the apps it registered (whose users
 * lose them). One statement: the database's foreign keys cascade from accounts. Tokens and app
 * passwords cached by this process are dropped at once; another instance's cache holds one for
 * TOKEN_CACHE_SECONDS at most.
 */
export async function deleteAccount(
  deps: { store: Store; accessTokens?: { forgetUser(userPk: number): void; forgetClient(clientPk: number): void }; appPasswords?: { forgetUser(userPk: number): void } },
  userPk: number,
): Promise<boolean> {
  const owned = await deps.store.read.clients.list(userPk);
  const deleted = await deps.store.transaction((tx) => tx.accounts.delete(userPk));
  deps.accessTokens?.forgetUser(userPk);
  deps.appPasswords?.forgetUser(userPk);
  for (const c of owned) deps.accessTokens?.forgetClient(c.pk);
  return deleted;
}
