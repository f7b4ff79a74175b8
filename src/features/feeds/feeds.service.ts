import { unixSeconds } from '../../lib/clock.js';
import { randomHex, sha256Hex } from '../../lib/crypto.js';
import type { Deps } from '../../deps.js';
import type { CalendarFeed } from '../../storage/store.js';
import { InvalidInput } from '../users/users.service.js';

/**
 * Calendar feeds (docs/feeds.md): read-only iCalendar subscriptions of an account's tasks with a
 * due date, or of one folder's, each at an address with a secret of its own. A person makes and
 * revokes them on the Calendar feeds page, an admin with `bin/tickler user feed`. The address is
 * shown once; only the SHA-256 of its secret is kept, as for app passwords.
 */

/** 20 random bytes as 40 lowercase hex digits: 160 bits, and nothing a calendar app could mangle in a path. */
const SECRET_BYTES = 20;
const SECRET = /^[0-9a-f]{40}$/;
export const MAX_FEEDS = 50;
/** A fetch is recorded at most this often per feed: calendars fetch every few minutes. */
export const RECORD_FETCH_SECONDS = 60;

/** A feed's address over https (or http, as PUBLIC_URL says), and as webcal, which asks the device's calendar to subscribe. */
export interface FeedAddresses {
  readonly https: string;
  readonly webcal: string;
}

export function feedAddresses(publicUrl: string, secret: string): FeedAddresses {
  const https = `${publicUrl}/feeds/${secret}.ics`;
  return { https, webcal: webcalOf(https) };
}

/** A feed's http(s) address as webcal: the same address, with the scheme calendars subscribe on. */
export function webcalOf(address: string): string {
  return address.replace(/^https?:/, 'webcal:');
}

/** The secret of a feed's file name (`<secret>.ics`), or undefined for anything that cannot be one. */
export function secretOfFile(file: string): string | undefined {
  const secret = file.endsWith('.ics') ? file.slice(0, -'.ics'.length) : '';
  return SECRET.test(secret) ? secret : undefined;
}

export const feedSecretHash = (secret: string): string => sha256Hex(secret);

/**
 * Makes a feed of the account's tasks (`folder` null) or of one of its folders: the address is
 * returned once, and only its secret's hash kept. InvalidInput for a folder the account does not
 * have, past MAX_FEEDS, or no account.
 */
export async function createFeed(
  deps: Pick<Deps, 'store' | 'clock' | 'config'>,
  userPk: number,
  input: { readonly folder: number | null },
): Promise<{ readonly feed: CalendarFeed; readonly addresses: FeedAddresses }> {
  const secret = randomHex(SECRET_BYTES);
  const feed = await deps.store.transaction(async (tx) => {
    // The account's lock: two posts at once cannot both pass the count, and a folder's deletion
    // (which takes it too) cannot slip between the check and the insert.
    if (!(await tx.accounts.lock(userPk))) throw new InvalidInput('the account no longer exists');
    if (input.folder !== null && !(await tx.organizers.exists(userPk, 'folder', input.folder))) throw new InvalidInput('that folder no longer exists');
    if ((await tx.calendarFeeds.list(userPk)).length >= MAX_FEEDS) {
      throw new InvalidInput(`an account has at most ${MAX_FEEDS} calendar feeds: revoke one you no longer use first`);
    }
    return tx.calendarFeeds.create({ userPk, folder: input.folder, secretHash: feedSecretHash(secret), createdAt: unixSeconds(deps.clock) });
  });
  return { feed, addresses: feedAddresses(deps.config.publicUrl, secret) };
}

/** The account's feeds, oldest first (never an address or its hash). */
export async function listFeeds(deps: Pick<Deps, 'store'>, userPk: number): Promise<CalendarFeed[]> {
  return deps.store.read.calendarFeeds.list(userPk);
}

/** Revokes one feed of the account: its address answers 404 from the next fetch. False when the account has none with this id. */
export async function revokeFeed(deps: Pick<Deps, 'store'>, userPk: number, id: number): Promise<boolean> {
  return deps.store.transaction((tx) => tx.calendarFeeds.delete(userPk, id));
}
