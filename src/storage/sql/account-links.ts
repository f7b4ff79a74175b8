import type { AccountLink, AccountLinksRepo } from '../store.js';
import { matchable, type SqlDb } from './db.js';

interface LinkRow {
  id_hash: string;
  kind: AccountLink['kind'];
  user_pk: number;
  note: string;
  created_at: number;
  expires_at: number;
}

const COLUMNS = 'id_hash, kind, user_pk, note, created_at, expires_at';

function toLink(r: LinkRow): AccountLink {
  return { idHash: r.id_hash, kind: r.kind, userPk: r.user_pk, note: r.note, createdAt: r.created_at, expiresAt: r.expires_at };
}

export class SqlAccountLinks implements AccountLinksRepo {
  constructor(private readonly db: SqlDb) {}

  async create(l: AccountLink): Promise<void> {
    await this.db.run(
      `INSERT INTO account_links (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`,
      l.idHash,
      l.kind,
      l.userPk,
      l.note,
      l.createdAt,
      l.expiresAt,
    );
  }

  async get(idHash: string, kind: AccountLink['kind'], nowSeconds: number): Promise<AccountLink | null> {
    if (!matchable(idHash)) return null;
    const r = await this.db.get<LinkRow>(`SELECT ${COLUMNS} FROM account_links WHERE id_hash = ? AND kind = ? AND expires_at > ?`, idHash, kind, nowSeconds);
    return r ? toLink(r) : null;
  }

  async take(idHash: string, kind: AccountLink['kind'], nowSeconds: number): Promise<AccountLink | null> {
    if (!matchable(idHash)) return null;
    // One statement: of two uses racing for one link, the database lets one delete it.
    const r = await this.db.get<LinkRow>(
      `DELETE FROM account_links WHERE id_hash = ? AND kind = ? AND expires_at > ? RETURNING ${COLUMNS}`,
      idHash,
      kind,
      nowSeconds,
    );
    return r ? toLink(r) : null;
  }

  async list(userPk: number, kind: AccountLink['kind'], nowSeconds: number): Promise<AccountLink[]> {
    const rows = await this.db.all<LinkRow>(
      `SELECT ${COLUMNS} FROM account_links WHERE user_pk = ? AND kind = ? AND expires_at > ? ORDER BY created_at DESC, id_hash`,
      userPk,
      kind,
      nowSeconds,
    );
    return rows.map(toLink);
  }

  async delete(userPk: number, kind: AccountLink['kind'], idHash?: string): Promise<number> {
    return idHash === undefined
      ? this.db.run('DELETE FROM account_links WHERE user_pk = ? AND kind = ?', userPk, kind)
      : this.db.run('DELETE FROM account_links WHERE user_pk = ? AND kind = ? AND id_hash = ?', userPk, kind, idHash);
  }

  async prune(nowSeconds: number): Promise<number> {
    return this.db.run('DELETE FROM account_links WHERE expires_at <= ?', nowSeconds);
  }
}
