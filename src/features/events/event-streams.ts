import type { ServerResponse } from 'node:http';
import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { unixSeconds } from '../../lib/clock.js';
import { randomHex } from '../../lib/crypto.js';
import type { AuthContext, Forgotten } from '../../oauth/access-tokens.js';
import { CHANGE_KINDS, type ChangeKind } from '../../storage/changes-port.js';
import { encodeCursor } from '../changes/cursor.js';
import { kindsFor } from '../changes/feed-kinds.js';

/**
 * The server-sent event streams of one instance (`/3/sync/events.php`, docs/sync.md, decision
 * 0026): each tells its app, as event `changes` whose id and data carry the cursor the feed would
 * answer now, that the account's log moved past what the stream told last, with a change of a kind
 * the token reads; a comment when nothing was written for `heartbeatSeconds`.
 *
 * Nothing here keeps a second record of changes: a stream waits on the store's notices (after
 * each commit on SQLite, LISTEN on PostgreSQL: any instance's commits) and reads the account's
 * position, one read per account however many of its streams this instance holds.
 *
 * Each stream holds a lease on one of its account's SSE_MAX_PER_ACCOUNT slots in the database, so
 * the cap counts every instance's streams; this instance renews its leases every `renewSeconds`
 * (a stream whose lease was lost ends, and its app reconnects), and a dead instance's leases run
 * out after `leaseSeconds`. A stream ends when its access token expires, when its grant is revoked
 * (at once in this process; within TOKEN_CACHE_SECONDS, at least a second, on another, which checks
 * its streams' grants in the database that often), and when the server closes (nothing more is
 * sent; the response ends).
 */

export interface EventStreamOptions {
  /** A comment after this long without a write (the issue: at least one every 25 s). */
  readonly heartbeatSeconds: number;
  /** How long a lease holds without renewal: how long a dead instance's streams still count. */
  readonly leaseSeconds: number;
  readonly renewSeconds: number;
  /** How often (real time) the streams are looked over: heartbeats, expiry, renewals, grants. */
  readonly tickMs: number;
  /** Bytes a stream may have waiting for a reader that does not read before it is ended. */
  readonly maxBuffered: number;
  readonly log: (err: unknown, what: string) => void;
}

export const STREAM_DEFAULTS: EventStreamOptions = {
  heartbeatSeconds: 20,
  leaseSeconds: 60,
  renewSeconds: 20,
  tickMs: 1000,
  maxBuffered: 64 * 1024,
  log: () => undefined,
};

/** How long EventSource waits before it reconnects (the `retry` field). */
const RETRY_MS = 3000;

interface Stream {
  readonly holder: string;
  readonly auth: AuthContext;
  readonly userid: string;
  readonly kinds: readonly ChangeKind[];
  /** The token reads every kind: any change is one it reads. */
  readonly every: boolean;
  /** The response, once the route has started it; what is written before waits in `pending`. */
  out: ServerResponse | undefined;
  pending: string;
  /** The position up to which the log has been looked at for this stream. */
  checked: number;
  /** Set once the first event is decided: notices before then are for open() to handle. */
  ready: boolean;
  wroteAtMs: number;
  ended: boolean;
}

interface Group {
  readonly streams: Set<Stream>;
  readonly stop: () => void;
  running: boolean;
  again: boolean;
}

export interface OpenedStream {
  /**
   * Writes into the response from now on (its head sent by the route), beginning with what the
   * stream holds already (its first event).
   */
  start(res: ServerResponse): void;
  /** Ends the stream (its client went away). */
  end(): void;
}

export class EventStreams {
  private readonly groups = new Map<number, Group>();
  private readonly releases = new Set<Promise<void>>();
  private readonly options: EventStreamOptions;
  private ticker: NodeJS.Timeout | undefined;
  private closing = false;
  private renewing = false;
  private checkingGrants = false;
  private lastRenewMs: number;
  private lastGrantCheck = performance.now();
  private readonly stopForget: () => void;

  constructor(
    private readonly deps: Deps,
    options: Partial<EventStreamOptions> = {},
  ) {
    this.options = { ...STREAM_DEFAULTS, ...options };
    this.lastRenewMs = deps.clock.now();
    this.stopForget = deps.accessTokens.onForget((what) => this.forgotten(what));
  }

  /** Streams open on this instance. */
  get size(): number {
    let n = 0;
    for (const g of this.groups.values()) n += g.streams.size;
    return n;
  }

  /**
   * Opens a stream for the caller, its first event told at once when the account is past `from`
   * (a cursor's position: Last-Event-ID) with a change the token reads, or when there is no `from`.
   * Throws 1107 when the account's slots are all held.
   */
  async open(auth: AuthContext, userid: string, from: number | undefined): Promise<OpenedStream> {
    const { deps } = this;
    if (this.closing) throw new ApiError(0, { status: 503, desc: 'The server is closing: reconnect in a moment' });
    const now = unixSeconds(deps.clock);
    const holder = randomHex(16);
    const slot = await deps.store.transaction((tx) => tx.sseLeases.claim(auth.userPk, holder, deps.config.sseMaxPerAccount, now, now + this.options.leaseSeconds));
    if (slot === null) {
      throw new ApiError(1107, { retryAfter: this.options.leaseSeconds, desc: `Too many event streams are open for this account (at most ${deps.config.sseMaxPerAccount}): close one, or retry later` });
    }
    const kinds = kindsFor(auth.scopes).map((k) => k.kind);
    const stream: Stream = {
      holder,
      auth,
      userid,
      kinds,
      every: CHANGE_KINDS.every((k) => kinds.includes(k)),
      out: undefined,
      pending: '',
      checked: 0,
      ready: false,
      wroteAtMs: deps.clock.now(),
      ended: false,
    };
    // Listening first: a commit after this is told, and read below or by the check that follows.
    const group = this.join(stream);
    try {
      const position = await deps.store.read.changes.position(auth.userPk);
      if (!position) throw new ApiError(2);
      this.write(stream, `: open\nretry: ${RETRY_MS}\n\n`);
      const behind = from === undefined || from > position.seq || (from < position.seq && (await this.readable(stream, from, position.seq)));
      if (behind) this.send(stream, position.seq);
      stream.checked = position.seq;
      stream.ready = true;
    } catch (err) {
      this.end(stream);
      throw err;
    }
    // The server began closing while this one opened: it ends with the others.
    if (this.closing) this.end(stream);
    this.startTicker();
    void this.check(auth.userPk, group);
    return { start: (res) => this.start(stream, res), end: () => this.end(stream) };
  }

  /** Ends every stream (the server closes): nothing more is sent, each response ends. */
  async close(): Promise<void> {
    this.closing = true;
    for (const g of [...this.groups.values()]) for (const s of [...g.streams]) this.end(s);
    this.stopTicker();
    this.stopForget();
    await Promise.all([...this.releases]);
  }

  private join(stream: Stream): Group {
    const userPk = stream.auth.userPk;
    let group = this.groups.get(userPk);
    if (!group) {
      const created: Group = { streams: new Set(), stop: this.deps.store.notices.subscribe(userPk, () => void this.check(userPk, created)), running: false, again: false };
      this.groups.set(userPk, created);
      group = created;
    }
    group.streams.add(stream);
    return group;
  }

  private start(stream: Stream, res: ServerResponse): void {
    if (stream.ended) {
      res.end();
      return;
    }
    stream.out = res;
    if (stream.pending !== '') res.write(stream.pending);
    stream.pending = '';
  }

  private end(stream: Stream): void {
    if (stream.ended) return;
    stream.ended = true;
    const userPk = stream.auth.userPk;
    const group = this.groups.get(userPk);
    if (group?.streams.delete(stream) && group.streams.size === 0) {
      group.stop();
      this.groups.delete(userPk);
    }
    if (stream.out && !stream.out.destroyed) stream.out.end();
    const release = this.deps.store
      .transaction((tx) => tx.sseLeases.release([stream.holder]))
      .catch((err: unknown) => this.options.log(err, 'releasing an event stream lease'))
      .finally(() => this.releases.delete(release));
    this.releases.add(release);
    if (this.groups.size === 0) this.stopTicker();
  }

  /** Reads the account's position once and tells each of its streams that is behind. */
  private async check(userPk: number, group: Group): Promise<void> {
    if (group.running) {
      group.again = true;
      return;
    }
    group.running = true;
    try {
      do {
        group.again = false;
        if (group.streams.size === 0 || this.closing) return;
        const position = await this.deps.store.read.changes.position(userPk);
        if (!position) {
          // The account was deleted: its streams have nothing more to tell.
          for (const s of [...group.streams]) this.end(s);
          return;
        }
        for (const s of [...group.streams]) {
          if (!s.ready || s.ended || s.checked === position.seq) continue;
          if (position.seq < s.checked || (await this.readable(s, s.checked, position.seq))) this.send(s, position.seq);
          s.checked = position.seq;
        }
      } while (group.again);
    } catch (err) {
      this.options.log(err, 'telling event streams of a change');
    } finally {
      group.running = false;
    }
  }

  /** Whether a change of a kind the stream's token reads is in (after, upTo]. */
  private async readable(stream: Stream, after: number, upTo: number): Promise<boolean> {
    if (stream.every) return true;
    if (stream.kinds.length === 0) return false;
    const found = await this.deps.store.read.changes.since(stream.auth.userPk, { after, upTo, kinds: stream.kinds, limit: 1, live: false });
    return found.length > 0;
  }

  private send(stream: Stream, seq: number): void {
    const cursor = encodeCursor(stream.userid, seq);
    this.write(stream, `id: ${cursor}\nevent: changes\ndata: {"cursor":"${cursor}"}\n\n`);
  }

  private write(stream: Stream, text: string): void {
    if (stream.ended || this.closing) return;
    if (!stream.out) {
      stream.pending += text;
    } else {
      // A reader that stopped reading: its stream ends rather than holding memory without bound.
      if (stream.out.writableLength > this.options.maxBuffered) return this.end(stream);
      stream.out.write(text);
    }
    stream.wroteAtMs = this.deps.clock.now();
  }

  private forgotten(what: Forgotten): void {
    for (const g of [...this.groups.values()]) {
      for (const s of [...g.streams]) {
        const a = s.auth;
        if (('grantId' in what && a.grantId === what.grantId) || ('clientPk' in what && a.clientPk === what.clientPk) || ('userPk' in what && a.userPk === what.userPk)) this.end(s);
      }
    }
  }

  private startTicker(): void {
    if (this.ticker || this.closing) return;
    this.ticker = setInterval(() => this.tick(), this.options.tickMs);
    this.ticker.unref();
  }

  private stopTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }

  private tick(): void {
    const nowMs = this.deps.clock.now();
    const nowSeconds = Math.floor(nowMs / 1000);
    const streams = [...this.groups.values()].flatMap((g) => [...g.streams]);
    for (const s of streams) {
      if (s.auth.expiresAt <= nowSeconds) {
        // The token it was opened with has expired: the app reconnects with a fresh one.
        this.end(s);
      } else if (nowMs < s.wroteAtMs) {
        s.wroteAtMs = nowMs;
      } else if (nowMs - s.wroteAtMs >= this.options.heartbeatSeconds * 1000) {
        this.write(s, ': keep-alive\n\n');
      }
    }
    if (nowMs < this.lastRenewMs || nowMs - this.lastRenewMs >= this.options.renewSeconds * 1000) void this.renew(nowMs);
    const grantEvery = Math.max(1, this.deps.config.tokenCacheSeconds) * 1000;
    if (performance.now() - this.lastGrantCheck >= grantEvery) void this.checkGrants(nowSeconds);
  }

  /** Renews this instance's leases; a stream whose lease is gone (it ran out during a stall) ends. */
  private async renew(nowMs: number): Promise<void> {
    if (this.renewing) return;
    this.renewing = true;
    this.lastRenewMs = nowMs;
    try {
      const streams = [...this.groups.values()].flatMap((g) => [...g.streams]);
      const kept = new Set(
        await this.deps.store.transaction((tx) => tx.sseLeases.renew(streams.map((s) => s.holder), Math.floor(nowMs / 1000) + this.options.leaseSeconds)),
      );
      for (const s of streams) if (!kept.has(s.holder)) this.end(s);
    } catch (err) {
      this.options.log(err, 'renewing event stream leases');
    } finally {
      this.renewing = false;
    }
  }

  /** Ends the streams whose grants were revoked or ended, wherever that happened. */
  private async checkGrants(nowSeconds: number): Promise<void> {
    if (this.checkingGrants) return;
    this.checkingGrants = true;
    this.lastGrantCheck = performance.now();
    try {
      const streams = [...this.groups.values()].flatMap((g) => [...g.streams]);
      const ended = new Set(await this.deps.store.read.oauth.endedGrants([...new Set(streams.map((s) => s.auth.grantId))], nowSeconds));
      for (const s of streams) if (ended.has(s.auth.grantId)) this.end(s);
    } catch (err) {
      this.options.log(err, 'checking the grants of event streams');
    } finally {
      this.checkingGrants = false;
    }
  }
}
