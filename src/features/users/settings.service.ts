import type { Deps } from '../../deps.js';
import { PREF_NAMES, type Account, type PrefName, type Prefs } from '../../storage/store.js';
import { checkedAlias, checkedEmail, emailKey, InvalidInput } from './users.service.js';

/**
 * The settings account/get reports, as the account settings page changes them. Each preference
 * has the range the spec's meaning allows (spec 2.4); the page offers exactly these values.
 */
export const PREF_RANGES: Readonly<Record<PrefName, readonly [number, number]>> = Object.freeze({
  // 0 = M D, Y; 1 = M/D/Y; 2 = D/M/Y; 3 = Y-M-D.
  dateformat: [0, 3],
  // Half hours from the hosted service's Eastern Standard Time (UTC-5): UTC-12 to UTC+14.
  timezone: [-14, 38],
  hidemonths: [0, 120],
  // Task priorities run from -1 (negative) to 3 (top).
  hotlistpriority: [-1, 3],
  hotlistduedate: [0, 365],
  hotliststar: [0, 1],
  hotliststatus: [0, 1],
  showtabnums: [0, 1],
});

export interface SettingsInput {
  readonly alias: string;
  /** Every preference as the form sent it (text); a missing checkbox arrives as undefined, meaning 0. */
  readonly prefs: Readonly<Partial<Record<PrefName, string>>>;
}

/** The preferences of a settings form, each a whole number within its range, or InvalidInput naming it. */
export function checkedPrefs(input: SettingsInput['prefs']): Prefs {
  const out = {} as Record<PrefName, number>;
  for (const name of PREF_NAMES) {
    const [min, max] = PREF_RANGES[name];
    const raw = (input[name] ?? (min === 0 && max === 1 ? '0' : '')).trim();
    const n = /^-?\d{1,4}$/.test(raw) ? Number(raw) : NaN;
    if (!(n >= min && n <= max)) throw new InvalidInput(`${name} must be a whole number from ${min} to ${max}`);
    out[name] = n;
  }
  return out;
}

/** Changes the alias and preferences; account/get reports them from the next call. */
export async function updateSettings(deps: Deps, account: Account, input: SettingsInput): Promise<Account> {
  const changes = { alias: checkedAlias(input.alias), prefs: checkedPrefs(input.prefs) };
  const changed = await deps.store.transaction((tx) => tx.accounts.update(account.pk, changes));
  if (!changed) throw new InvalidInput('the account no longer exists');
  return changed;
}

/**
 * Changes the sign-in address. The caller has checked the current password (the address is also
 * where reset links go). Throws UniqueViolation('email') when another account has it.
 */
export async function changeEmail(deps: Deps, account: Account, email: string): Promise<Account> {
  const address = checkedEmail(email);
  const changed = await deps.store.transaction((tx) => tx.accounts.update(account.pk, { email: address, emailKey: emailKey(address) }));
  if (!changed) throw new InvalidInput('the account no longer exists');
  return changed;
}
