import type { Prefs } from '../storage/store.js';

/**
 * The account's clock: its `timezone` setting counts half hours from the hosted service's Eastern
 * Standard Time, UTC-5 (spec 2.4, docs/api-notes.md). The web pages read "today" in it, and CalDAV
 * places the v3 API's floating times in it.
 */

/** Minutes east of UTC of the account's clock. */
export function utcOffsetMinutes(prefs: Pick<Prefs, 'timezone'>): number {
  return prefs.timezone * 30 - 300;
}
