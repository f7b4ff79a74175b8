import type { Account } from '../../storage/store.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * The day of a Unix time as the account reads dates: in its timezone (half hours from the hosted
 * service's Eastern Standard Time, UTC-5: account/get's `timezone`) and its date format
 * (`dateformat`: 0 "Jan 31, 2026", 1 "01/31/2026", 2 "31/01/2026", 3 "2026-01-31").
 */
export function accountDay(account: Pick<Account, 'prefs'>, seconds: number): string {
  const offset = (account.prefs.timezone - 10) * 1800;
  const d = new Date((seconds + offset) * 1000);
  const [y, m, day] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
  const two = (n: number) => String(n).padStart(2, '0');
  switch (account.prefs.dateformat) {
    case 1:
      return `${two(m + 1)}/${two(day)}/${y}`;
    case 2:
      return `${two(day)}/${two(m + 1)}/${y}`;
    case 3:
      return `${y}-${two(m + 1)}-${two(day)}`;
    default:
      return `${MONTHS[m] ?? ''} ${day}, ${y}`;
  }
}
