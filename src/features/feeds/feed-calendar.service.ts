import type { Deps } from '../../deps.js';
import { ACCOUNT_FEED_NAME, feedText } from '../../ical/vevent-write.js';
import { utcOffsetMinutes } from '../../lib/account-clock.js';
import { unixSeconds } from '../../lib/clock.js';
import { sha256Hex } from '../../lib/crypto.js';
import type { Account, StoredCalendarFeed, TaskFilter } from '../../storage/store.js';
import { feedSecretHash, RECORD_FETCH_SECONDS } from './feeds.service.js';

/**
 * Serving a calendar feed (docs/feeds.md): the feed an address names, the validator of its text,
 * the text itself, and the record of the fetch. Cheap on purpose, since calendars poll: a fetch
 * that has not changed costs the feed's row, the account (cached) and its change-log position; one
 * that has adds one read of tasks (and of the folder, for a folder's feed).
 */

/**
 * Part of every ETag: raise it when the text written for the same tasks changes (a new property,
 * another default), so that calendars holding the old text fetch the new one.
 */
const FEED_FORMAT = 1;

export interface FoundFeed {
  readonly feed: StoredCalendarFeed;
  readonly account: Account;
  /**
   * Stands for the text (a strong validator): derived from the account's change-log position, which
   * every change of a task or folder moves whatever wrote it, and from what else goes into the text
   * (the feed, the account's clock, PUBLIC_URL, FEED_FORMAT).
   */
  readonly etag: string;
  /** Unix seconds: the account's latest change of a task or folder, as its stamps say (never before the feed was made). */
  readonly lastModified: number;
}

/** The feed of a secret and its validators; null for an unknown or revoked secret, or an account gone. */
export async function findFeed(deps: Pick<Deps, 'store' | 'config'>, secret: string): Promise<FoundFeed | null> {
  const feed = await deps.store.read.calendarFeeds.byHash(feedSecretHash(secret));
  if (!feed) return null;
  // The position is read before the tasks (feedCalendar): the text is as new as the tag or newer,
  // so a change made in between moves the tag of the next fetch, and is fetched again then.
  const [position, account] = await Promise.all([deps.store.read.changes.position(feed.userPk), deps.store.read.accounts.get(feed.userPk)]);
  if (!position || !account) return null;
  const stands = JSON.stringify([FEED_FORMAT, feed.id, feed.folder, position.seq, account.prefs.timezone, account.userid, deps.config.publicUrl]);
  const s = account.stamps;
  return {
    feed,
    account,
    etag: `"${sha256Hex(stands).slice(0, 32)}"`,
    lastModified: Math.max(s.lastedit_task, s.lastdelete_task, s.lastedit_folder, feed.createdAt),
  };
}

/**
 * The feed's iCalendar text: one event per open task with a due date, of the folder or of the
 * whole account, in one read of tasks. Null when the feed's folder is gone (its feeds go with it).
 */
export async function feedCalendar(deps: Pick<Deps, 'store' | 'config'>, found: FoundFeed): Promise<string | null> {
  const { feed, account } = found;
  const dated: TaskFilter = { column: 'duedate', op: '>', value: 0 };
  const where: TaskFilter = feed.folder === null ? dated : { all: [dated, { column: 'folder', op: '=', value: feed.folder }] };
  const [page, folder] = await Promise.all([
    deps.store.read.tasks.page(account.pk, { where, comp: 0, start: 0, num: Number.MAX_SAFE_INTEGER, withChildren: false }),
    feed.folder === null ? null : deps.store.read.organizers.get(account.pk, 'folder', feed.folder),
  ]);
  if (feed.folder !== null && !folder) return null;
  return feedText(page.tasks, {
    name: folder?.name ?? ACCOUNT_FEED_NAME,
    userid: account.userid,
    offsetMinutes: utcOffsetMinutes(account.prefs),
    taskUrl: (id) => `${deps.config.publicUrl}/tasks/${id}`,
  });
}

/** Records the fetch, at most once a RECORD_FETCH_SECONDS per feed (and once across instances: the statement checks). */
export async function recordFetch(deps: Pick<Deps, 'store' | 'clock'>, feed: StoredCalendarFeed): Promise<void> {
  const now = unixSeconds(deps.clock);
  if (feed.lastFetchedAt !== null && now - feed.lastFetchedAt < RECORD_FETCH_SECONDS) return;
  await deps.store.transaction((tx) => tx.calendarFeeds.recordFetch(feed.id, now, now - RECORD_FETCH_SECONDS + 1));
}
