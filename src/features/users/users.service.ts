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
}

function checkNewUser(input: NewUserInput): void {
  const email = input.email.trim();
  if (!EMAIL.test(email) || email.length > 254) throw new InvalidInput(`not an e-mail address: ${JSON.stringify(input.email)}`);
  if ([...input.password].length < MIN_PASSWORD_LENGTH) throw new InvalidInput(`password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  if (input.password.length > MAX_PASSWORD_LENGTH) throw new InvalidInput(`password must have at most ${MAX_PASSWORD_LENGTH} characters`);
  if (input.alias !== undefined && (input.alias.trim() === '' || input.alias.length > 255)) throw new InvalidInput('alias must have 1 to 255 characters');
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
    }),
  );
}
