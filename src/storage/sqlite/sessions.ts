import type { Session, SessionsRepo } from '../store.js';
import type { Conn } from './connection.js';

export class SqliteSessions implements SessionsRepo {
  constructor(private readonly c: Conn) {}

  async create(s: Session): Promise<void> {
    this.c.run(
      'INSERT INTO sessions (id_hash, user_pk, created_at, expires_at) VALUES (?, ?, ?, ?)',
      s.idHash,
      s.userPk,
      s.createdAt,
      s.expiresAt,
    );
  }

  async get(idHash: string): Promise<Session | null> {
    const r = this.c.get<{ id_hash: string; user_pk: number; created_at: number; expires_at: number }>(
      'SELECT id_hash, user_pk, created_at, expires_at FROM sessions WHERE id_hash = ?',
      idHash,
    );
    return r ? { idHash: r.id_hash, userPk: r.user_pk, createdAt: r.created_at, expiresAt: r.expires_at } : null;
  }

  async delete(idHash: string): Promise<void> {
    this.c.run('DELETE FROM sessions WHERE id_hash = ?', idHash);
  }

  async prune(nowSeconds: number): Promise<number> {
    return this.c.run('DELETE FROM sessions WHERE expires_at < ?', nowSeconds).changes;
  }
}
