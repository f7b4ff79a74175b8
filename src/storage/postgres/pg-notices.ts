import pg from 'pg';
import type { ChangeNotices } from '../changes-port.js';

/** Where migration 17's triggers tell of changed accounts (the payload: the account's pk). */
export const CHANGES_CHANNEL = 'tickler_changes';
/** How long to wait before listening again after the connection was lost. */
const RECONNECT_MS = 1000;

/**
 * Notices of PostgreSQL's change log (changes-port.ts): every instance's commits, through LISTEN
 * on one connection of its own (outside the pool: a LISTEN holds its connection for good), opened
 * when someone first listens. PostgreSQL delivers a notification at its transaction's commit, once
 * per account and transaction. While the connection is down nothing is heard: once it is back,
 * every listener is told, so that each reads its position again.
 */
export class PgNotices implements ChangeNotices {
  private readonly listeners = new Map<number, Set<() => void>>();
  /** Told of every notification, whichever account it names (subscribeAll). */
  private readonly everyAccount = new Set<() => void>();
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly url: string) {}

  subscribe(userPk: number, listener: () => void): () => void {
    let set = this.listeners.get(userPk);
    if (!set) this.listeners.set(userPk, (set = new Set()));
    set.add(listener);
    this.listen();
    return () => {
      const current = this.listeners.get(userPk);
      if (current?.delete(listener) && current.size === 0) this.listeners.delete(userPk);
    };
  }

  subscribeAll(listener: () => void): () => void {
    this.everyAccount.add(listener);
    this.listen();
    return () => void this.everyAccount.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    this.listeners.clear();
    this.everyAccount.clear();
    await client?.end().catch(() => undefined);
  }

  private listen(): void {
    if (this.client || this.connecting || this.retry || this.closed) return;
    this.connecting = this.connect().finally(() => (this.connecting = undefined));
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (msg) => {
      if (msg.channel !== CHANGES_CHANNEL) return;
      this.tell(this.listeners.get(Number(msg.payload)));
      this.tell(this.everyAccount);
    });
    const lost = (): void => {
      if (this.client !== client) return;
      this.client = undefined;
      client.end().catch(() => undefined);
      this.again();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch {
      client.end().catch(() => undefined);
      this.again();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // Whatever committed before the LISTEN took hold was not heard: everyone reads again.
    for (const set of this.listeners.values()) this.tell(set);
    this.tell(this.everyAccount);
  }

  private again(): void {
    if (this.closed || this.retry || (this.listeners.size === 0 && this.everyAccount.size === 0)) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.listen();
    }, RECONNECT_MS);
    this.retry.unref();
  }

  private tell(set: Set<() => void> | undefined): void {
    for (const listener of [...(set ?? [])]) listener();
  }
}
