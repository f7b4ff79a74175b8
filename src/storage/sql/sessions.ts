import type { Session, SessionsRepo } from '../store.js';
import type { SqlDb } from './db.js';

export class SqlSessions implements SessionsRepo {
  constructor(private readonly db: SqlDb) {}

  async create(s: Session): Promise<void> {
    await this.db.run('INSERT INTO sessions (id_hash, user_pk, created_at, expires_at) VALUES (?, ?, ?, ?)', s.idHash, s.userPk, s.createdAt, s.expiresAt);
  }

  async get(idHash: string): Promise<Session | null> {
    const r = await this.db.get<{ id_hash: string; user_pk: number; created_at: number; expires_at: number }>(
      'SELECT id_hash, user_pk, created_at, expires_at FROM sessions WHERE id_hash = ?',
      idHash,
    );
    return r ? { idHash: r.id_hash, userPk: r.user_pk, createdAt: r.created_at, expiresAt: r.expires_at } : null;
  }

  async delete(idHash: string): Promise<void> {
    await this.db.run('DELETE FROM sessions WHERE id_hash = ?', idHash);
  }

  async deleteForUser(userPk: number, keepIdHash?: string): Promise<number> {
    return keepIdHash === undefined
      ? this.db.run('DELETE FROM sessions WHERE user_pk = ?', userPk)
      : this.db.run('DELETE FROM sessions WHERE user_pk = ? AND id_hash <> ?', userPk, keepIdHash);
  }

  async prune(nowSeconds: number): Promise<number> {
    return this.db.run('DELETE FROM sessions WHERE expires_at < ?', nowSeconds);
  }
}
