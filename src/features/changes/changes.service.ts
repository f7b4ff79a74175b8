import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import type { ChangeKind, LoggedChange } from '../../storage/changes-port.js';
import type { RecordForm } from '../../storage/store.js';
import { decodePlace, encodeCursor, type Place } from './cursor.js';
import { kindsFor, type FeedKind } from './feed-kinds.js';

/** Most changes one answer holds, and its default (`num`). */
export const MAX_CHANGES = 1000;
/** Longest long poll (`wait`, seconds). */
export const MAX_WAIT_SECONDS = 60;
/** Waits one long poll takes at most: each ends with a notice or the deadline. */
const MAX_WAKES = 1000;

export interface FeedInput {
  /** As sent; undefined or empty: from the beginning. */
  readonly cursor: string | undefined;
  readonly num: number;
  /** Seconds to hold an answer that would be empty (0 to MAX_WAIT_SECONDS). */
  readonly wait: number;
  readonly form: RecordForm;
  /** Fires when the caller went away: a long poll ends at once. */
  readonly signal?: AbortSignal | undefined;
}

/** One change as answered: an upsert carries the record as its kind's get writes it. */
export interface FeedChange {
  readonly kind: ChangeKind;
  readonly op: 'upsert' | 'delete';
  readonly id: string;
  /** The record's text in the form asked for (upserts only). */
  readonly record?: string;
}

export interface FeedPage {
  readonly cursor: string;
  readonly more: boolean;
  readonly changes: readonly FeedChange[];
}

/**
 * /3/sync/changes.php (docs/sync.md, docs/decisions/0023): the latest change of each record of the
 * kinds the token can read whose position is after the cursor, in the order of the positions, as
 * of one read of the account's position; the cursor answered is that position, or, when the
 * answer is full, the position of its last change.
 *
 * The position is read first and bounds the read of the log: a change the log holds up to it has
 * committed (positions are taken under the account's lock, in commit order), so everything up to
 * the cursor answered has been seen. The records are read after the log: a record changed again
 * in between is answered as it is now (never older than the log says), and its later change is
 * answered again after the cursor; a record deleted in between is answered as deleted.
 */
export async function readChanges(deps: Deps, auth: AuthContext, input: FeedInput): Promise<FeedPage> {
  const kinds = kindsFor(auth.scopes);
  const userid = await useridOf(deps, auth);
  const fresh = input.cursor === undefined || input.cursor === '';
  let place: Place = { seq: 0, needsAfter: 0 };
  if (!fresh) {
    const decoded = decodePlace(userid, input.cursor as string);
    if (decoded === undefined) throw new ApiError(1101, { desc: 'Invalid cursor: it is not a cursor of this account (send none to start from the beginning)' });
    place = decoded;
  }
  const deadline = Date.now() + Math.min(Math.max(input.wait, 0), MAX_WAIT_SECONDS) * 1000;
  let page = await onePage(deps, auth, kinds, userid, place, fresh, input);
  if (page.changes.length > 0 || input.wait <= 0) return page;
  // Long poll: hold the answer until a notice says the account moved, then read again.
  let noticed = false;
  let wake: (() => void) | undefined;
  const stop = deps.store.notices.subscribe(auth.userPk, () => {
    noticed = true;
    wake?.();
  });
  try {
    // Read once more after subscribing: a commit between the first read and the subscription was not told.
    page = await onePage(deps, auth, kinds, userid, place, fresh, input);
    for (let i = 0; i < MAX_WAKES && page.changes.length === 0; i++) {
      if (!noticed) await untilWoken(deadline - Date.now(), input.signal, (w) => (wake = w));
      wake = undefined;
      if (!noticed || input.signal?.aborted) break;
      noticed = false;
      page = await onePage(deps, auth, kinds, userid, place, fresh, input);
    }
    return page;
  } finally {
    stop();
  }
}

/** Resolves after `ms`, when the signal aborts, or when the function handed to `setWake` is called. */
function untilWoken(ms: number, signal: AbortSignal | undefined, setWake: (wake: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    setWake(done);
  });
}

/** The account's public userid, which its cursors are tied to (cursor.ts). */
export async function useridOf(deps: Deps, auth: AuthContext): Promise<string> {
  const account = deps.store.heldSettledAccount?.(auth.userPk)?.account ?? (await deps.store.read.accounts.get(auth.userPk));
  // A token outlives nothing: the account was deleted while the call ran.
  if (!account) throw new ApiError(2);
  return account.userid;
}

async function onePage(deps: Deps, auth: AuthContext, kinds: readonly FeedKind[], userid: string, place: Place, fresh: boolean, input: FeedInput): Promise<FeedPage> {
  const read = deps.store.read.changes;
  const position = await read.position(auth.userPk);
  if (!position) throw new ApiError(2);
  // A deletion the reader needs may have been forgotten; a cursor past the position comes from
  // another history of the account (a database restored from a backup): either way, start again.
  if (!fresh && (place.needsAfter < position.floor || place.needsAfter > position.seq)) throw new ApiError(1102);
  const num = Math.min(Math.max(input.num, 1), MAX_CHANGES);
  const logged = await read.since(auth.userPk, { after: place.seq, upTo: position.seq, kinds: kinds.map((k) => k.kind), limit: num + 1, live: fresh });
  // The hourly prune may have committed between the two reads, taking deletions this answer
  // should hold: the floor read again says so (a first read needs none).
  if (!fresh && place.needsAfter < ((await read.position(auth.userPk))?.floor ?? 0)) throw new ApiError(1102);
  const more = logged.length > num;
  const shown = more ? logged.slice(0, num) : logged;
  const cursorSeq = more ? (shown[shown.length - 1] as LoggedChange).seq : position.seq;
  // A first read's pages carry where it started until they reach it: the deletions their reader
  // needs are those after it (cursor.ts).
  const start = fresh ? position.seq : place.needsAfter;
  return { cursor: encodeCursor(userid, cursorSeq, start), more, changes: await withRecords(deps, auth, kinds, shown, input.form) };
}

/** The changes with their records, read by kind, one read per kind; a record gone since the log was read is a deletion. */
async function withRecords(deps: Deps, auth: AuthContext, kinds: readonly FeedKind[], logged: readonly LoggedChange[], form: RecordForm): Promise<FeedChange[]> {
  const records = new Map<ChangeKind, Map<string, string>>();
  for (const kind of kinds) {
    const ids = logged.filter((c) => c.kind === kind.kind && !c.gone).map((c) => c.id);
    if (ids.length > 0) records.set(kind.kind, await kind.read(deps, auth, ids, form));
  }
  return logged.map((c): FeedChange => {
    const record = c.gone ? undefined : records.get(c.kind)?.get(c.id);
    return record === undefined ? { kind: c.kind, op: 'delete', id: c.id } : { kind: c.kind, op: 'upsert', id: c.id, record };
  });
}
