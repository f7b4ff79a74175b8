import type { SseLeasesRepo } from '../push-port.js';
import { textList, type Dialect, type SqlDb } from './db.js';

/**
 * The leases of server-sent event streams (push-port.ts): a slot per stream, the account and the
 * slot being the key, so that claims of two instances at once take different slots or fail.
 */
export class SqlSseLeases implements SseLeasesRepo {
  constructor(
    private readonly db: SqlDb,
    private readonly dialect: Dialect,
  ) {}

  async claim(userPk: number, holder: string, max: number, now: number, expiresAt: number): Promise<number | null> {
    const held = new Set(
      (await this.db.allRaw('SELECT slot FROM sse_leases WHERE user_pk = ? AND expires_at > ?', userPk, now)).map((r) => Number(r[0])),
    );
    for (let slot = 0; slot < max; slot++) {
      if (held.has(slot)) continue;
      // Free when read; another instance may take it first: then the key refuses this insert, or
      // the lease it finds is live and stays, and no row comes back.
      const taken = await this.db.getRaw(
        `INSERT INTO sse_leases (user_pk, slot, holder, expires_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (user_pk, slot) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
         WHERE sse_leases.expires_at <= ? RETURNING slot`,
        userPk,
        slot,
        holder,
        expiresAt,
        now,
      );
      if (taken) return slot;
    }
    return null;
  }

  async renew(holders: readonly string[], expiresAt: number): Promise<string[]> {
    if (holders.length === 0) return [];
    const rows = await this.db.allRaw(`UPDATE sse_leases SET expires_at = ? WHERE ${this.dialect.inTextList('holder')} RETURNING holder`, expiresAt, textList(holders));
    return rows.map((r) => r[0] as string);
  }

  async release(holders: readonly string[]): Promise<void> {
    if (holders.length > 0) await this.db.run(`DELETE FROM sse_leases WHERE ${this.dialect.inTextList('holder')}`, textList(holders));
  }

  async prune(now: number): Promise<number> {
    return this.db.run('DELETE FROM sse_leases WHERE expires_at <= ?', now);
  }
}
