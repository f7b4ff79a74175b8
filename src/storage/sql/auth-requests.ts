import type { AuthRequest, AuthRequestsRepo } from '../store.js';
import type { SqlDb } from './db.js';

interface AuthRequestRow {
  id_hash: string;
  session_hash: string;
  user_pk: number;
  client_pk: number;
  scope: string;
  state: string;
  redirect_uri: string | null;
  code_challenge: string | null;
  created_at: number;
  expires_at: number;
}

const COLUMNS = 'id_hash, session_hash, user_pk, client_pk, scope, state, redirect_uri, code_challenge, created_at, expires_at';

function toAuthRequest(r: AuthRequestRow): AuthRequest {
  return {
    idHash: r.id_hash,
    sessionHash: r.session_hash,
    userPk: r.user_pk,
    clientPk: r.client_pk,
    scope: r.scope,
    state: r.state,
    redirectUri: r.redirect_uri,
    codeChallenge: r.code_challenge,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
}

export class SqlAuthRequests implements AuthRequestsRepo {
  constructor(private readonly db: SqlDb) {}

  async create(r: AuthRequest, keep: number): Promise<void> {
    await this.db.run(
      `INSERT INTO auth_requests (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      r.idHash,
      r.sessionHash,
      r.userPk,
      r.clientPk,
      r.scope,
      r.state,
      r.redirectUri,
      r.codeChallenge,
      r.createdAt,
      r.expiresAt,
    );
    // Every view of the consent page stores a request: a session keeps only its newest few, so
    // reloading the page cannot fill the table. Ids grow, so the newest have the largest.
    await this.db.run(
      'DELETE FROM auth_requests WHERE session_hash = ? AND id NOT IN (SELECT id FROM auth_requests WHERE session_hash = ? ORDER BY id DESC LIMIT ?)',
      r.sessionHash,
      r.sessionHash,
      keep,
    );
  }

  async get(idHash: string): Promise<AuthRequest | null> {
    const row = await this.db.get<AuthRequestRow>(`SELECT ${COLUMNS} FROM auth_requests WHERE id_hash = ?`, idHash);
    return row ? toAuthRequest(row) : null;
  }

  async take(idHash: string, sessionHash: string, nowSeconds: number): Promise<AuthRequest | null> {
    // One statement: of two answers racing for one request, the database lets one delete it.
    const row = await this.db.get<AuthRequestRow>(
      `DELETE FROM auth_requests WHERE id_hash = ? AND session_hash = ? AND expires_at > ? RETURNING ${COLUMNS}`,
      idHash,
      sessionHash,
      nowSeconds,
    );
    return row ? toAuthRequest(row) : null;
  }

  async prune(nowSeconds: number): Promise<number> {
    return this.db.run('DELETE FROM auth_requests WHERE expires_at < ?', nowSeconds);
  }
}
