import type { AuthCode, ClientInfo, Grant, NewAuthCode, NewGrant, NewToken, OAuthRepo, RetryAnswer, TokenKind, TokenWithGrant } from '../store.js';
import { idList, type Dialect, type LockRows, type SqlDb } from './db.js';

interface GrantRow {
  id: number;
  user_pk: number;
  client_pk: number;
  scope: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  vers: string | null;
  os: string | null;
  device: string | null;
  udid: string | null;
  info_at: number | null;
}

function toGrant(r: GrantRow): Grant {
  return {
    id: r.id,
    userPk: r.user_pk,
    clientPk: r.client_pk,
    scope: r.scope,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
    vers: r.vers,
    os: r.os,
    device: r.device,
    udid: r.udid,
    lastUsedAt: r.info_at ?? r.created_at,
  };
}

const GRANT_COLUMNS = 'id, user_pk, client_pk, scope, created_at, expires_at, revoked_at, vers, os, device, udid, info_at';

/** How long spent codes and revoked families are kept, so that a late replay is still recognised. */
const KEEP_SECONDS = 30 * 86400;

export class SqlOAuth implements OAuthRepo {
  constructor(
    private readonly db: SqlDb,
    /** Inside a transaction: codes and tokens read before they are spent are locked (PostgreSQL). */
    private readonly lockRows: LockRows,
    private readonly dialect: Dialect,
  ) {}

  async createCode(n: NewAuthCode): Promise<void> {
    await this.db.run(
      'INSERT INTO auth_codes (code_hash, client_pk, user_pk, scope, expires_at, code_challenge, redirect_uri) VALUES (?, ?, ?, ?, ?, ?, ?)',
      n.codeHash,
      n.clientPk,
      n.userPk,
      n.scope,
      n.expiresAt,
      n.codeChallenge,
      n.redirectUri,
    );
  }

  async code(codeHash: string): Promise<AuthCode | null> {
    const r = await this.db.get<{
      code_hash: string;
      client_pk: number;
      user_pk: number;
      scope: string;
      expires_at: number;
      used_at: number | null;
      grant_id: number | null;
      code_challenge: string | null;
      redirect_uri: string | null;
    }>(
      'SELECT code_hash, client_pk, user_pk, scope, expires_at, used_at, grant_id, code_challenge, redirect_uri FROM auth_codes WHERE code_hash = ?' +
        this.lockRows(),
      codeHash,
    );
    if (!r) return null;
    return {
      codeHash: r.code_hash,
      clientPk: r.client_pk,
      userPk: r.user_pk,
      scope: r.scope,
      expiresAt: r.expires_at,
      usedAt: r.used_at,
      grantId: r.grant_id,
      codeChallenge: r.code_challenge,
      redirectUri: r.redirect_uri,
    };
  }

  async markCodeUsed(codeHash: string, usedAt: number, grantId: number): Promise<void> {
    await this.db.run('UPDATE auth_codes SET used_at = ?, grant_id = ? WHERE code_hash = ?', usedAt, grantId, codeHash);
  }

  async createGrant(g: NewGrant): Promise<Grant> {
    const row = await this.db.get<GrantRow>(
      `INSERT INTO grants (user_pk, client_pk, scope, created_at, expires_at, vers, os, device, udid, info_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${GRANT_COLUMNS}`,
      g.userPk,
      g.clientPk,
      g.scope,
      g.createdAt,
      g.expiresAt,
      g.vers,
      g.os,
      g.device,
      g.udid,
      g.createdAt,
    );
    return toGrant(row as GrantRow);
  }

  async grant(id: number): Promise<Grant | null> {
    const row = await this.db.get<GrantRow>(`SELECT ${GRANT_COLUMNS} FROM grants WHERE id = ?`, id);
    return row ? toGrant(row) : null;
  }

  async liveGrants(filter: { readonly userPk?: number; readonly clientPk?: number }, nowSeconds: number): Promise<Grant[]> {
    const where: string[] = ['revoked_at IS NULL', 'expires_at > ?'];
    const values: number[] = [nowSeconds];
    if (filter.userPk !== undefined) {
      where.push('user_pk = ?');
      values.push(filter.userPk);
    }
    if (filter.clientPk !== undefined) {
      where.push('client_pk = ?');
      values.push(filter.clientPk);
    }
    // A family whose refresh tokens have all expired or been spent without a successor can issue
    // nothing more: only one holding a usable refresh token is still connected.
    const usable = `EXISTS (SELECT 1 FROM tokens t WHERE t.grant_id = grants.id AND t.kind = 'refresh' AND t.used_at IS NULL AND t.expires_at > ?)`;
    const rows = await this.db.all<GrantRow>(
      `SELECT ${GRANT_COLUMNS} FROM grants WHERE ${where.join(' AND ')} AND ${usable} ORDER BY id DESC`,
      ...values,
      nowSeconds,
    );
    return rows.map(toGrant);
  }

  async endedGrants(ids: readonly number[], nowSeconds: number): Promise<number[]> {
    const wanted = [...new Set(ids)].filter(Number.isSafeInteger);
    if (wanted.length === 0) return [];
    const live = new Set(
      (await this.db.allRaw(`SELECT id FROM grants WHERE ${this.dialect.inIdList('id')} AND revoked_at IS NULL AND expires_at > ?`, idList(wanted), nowSeconds)).map((r) => Number(r[0])),
    );
    return wanted.filter((id) => !live.has(id)).sort((a, b) => a - b);
  }

  async recordClientInfo(grantId: number, info: ClientInfo, nowSeconds: number): Promise<void> {
    await this.db.run(
      `UPDATE grants SET vers = COALESCE(?, vers), os = COALESCE(?, os), device = COALESCE(?, device),
       udid = COALESCE(?, udid), info_at = ? WHERE id = ?`,
      info.vers,
      info.os,
      info.device,
      info.udid,
      nowSeconds,
      grantId,
    );
  }

  async revokeGrant(id: number, nowSeconds: number, reason: string): Promise<boolean> {
    const changed = await this.db.run(
      'UPDATE grants SET revoked_at = ?, revoked_reason = ? WHERE id = ? AND revoked_at IS NULL',
      nowSeconds,
      reason,
      id,
    );
    return changed > 0;
  }

  async createToken(t: NewToken): Promise<void> {
    await this.db.run(
      `INSERT INTO tokens (hash, kind, grant_id, user_pk, client_pk, scope, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      t.hash,
      t.kind,
      t.grantId,
      t.userPk,
      t.clientPk,
      t.scope,
      t.createdAt,
      t.expiresAt,
    );
  }

  async token(hash: string): Promise<TokenWithGrant | null> {
    // Inside a transaction only the token's row is locked: the grant is read here, not spent.
    const r = await this.db.get<{
      hash: string;
      kind: TokenKind;
      grant_id: number;
      user_pk: number;
      client_pk: number;
      scope: string;
      created_at: number;
      expires_at: number;
      used_at: number | null;
      grant_revoked_at: number | null;
      grant_expires_at: number;
    }>(
      `SELECT t.hash, t.kind, t.grant_id, t.user_pk, t.client_pk, t.scope, t.created_at, t.expires_at, t.used_at,
              g.revoked_at AS grant_revoked_at, g.expires_at AS grant_expires_at
       FROM tokens t JOIN grants g ON g.id = t.grant_id WHERE t.hash = ?${this.lockRows('t')}`,
      hash,
    );
    if (!r) return null;
    return {
      hash: r.hash,
      kind: r.kind,
      grantId: r.grant_id,
      userPk: r.user_pk,
      clientPk: r.client_pk,
      scope: r.scope,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      usedAt: r.used_at,
      grantRevokedAt: r.grant_revoked_at,
      grantExpiresAt: r.grant_expires_at,
    };
  }

  async markTokenUsed(hash: string, usedAt: number): Promise<void> {
    await this.db.run('UPDATE tokens SET used_at = ? WHERE hash = ?', usedAt, hash);
  }

  async keepRetryAnswer(grantId: number, hash: string, answer: RetryAnswer | null): Promise<void> {
    await this.db.run(
      'UPDATE tokens SET retry_answer = NULL, retry_until = NULL WHERE grant_id = ? AND retry_until IS NOT NULL AND hash <> ?',
      grantId,
      hash,
    );
    await this.db.run('UPDATE tokens SET retry_answer = ?, retry_until = ? WHERE hash = ?', answer?.sealed ?? null, answer?.until ?? null, hash);
  }

  async retryAnswer(hash: string): Promise<RetryAnswer | null> {
    const r = await this.db.get<{ retry_answer: string | null; retry_until: number | null }>(
      'SELECT retry_answer, retry_until FROM tokens WHERE hash = ?',
      hash,
    );
    return r && r.retry_answer !== null && r.retry_until !== null ? { sealed: r.retry_answer, until: r.retry_until } : null;
  }

  async prune(nowSeconds: number): Promise<number> {
    const keepSince = nowSeconds - KEEP_SECONDS;
    // A retry answer past its time can never be used; its tokens stay (they are still in use).
    await this.db.run('UPDATE tokens SET retry_answer = NULL, retry_until = NULL WHERE retry_until < ?', nowSeconds);
    let removed = 0;
    removed += await this.db.run('DELETE FROM auth_codes WHERE expires_at < ?', keepSince);
    // Expired tokens can no longer be used; replaying one already answers 102 without the row.
    removed += await this.db.run('DELETE FROM tokens WHERE expires_at < ?', nowSeconds);
    const deadGrants = 'SELECT id FROM grants WHERE expires_at < ? OR (revoked_at IS NOT NULL AND revoked_at < ?)';
    // Deleted explicitly (not only by cascade) so that the count is true.
    removed += await this.db.run(`DELETE FROM tokens WHERE grant_id IN (${deadGrants})`, nowSeconds, keepSince);
    removed += await this.db.run(`DELETE FROM grants WHERE id IN (${deadGrants})`, nowSeconds, keepSince);
    return removed;
  }
}
