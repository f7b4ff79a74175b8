import type { HeldKey, IdempotencyClaim, IdempotencyRepo, IdempotencyScope, StoredAnswer } from '../store.js';
import { matchable, type SqlDb } from './db.js';

interface KeyRow {
  fingerprint: string;
  locked_until: number;
  status: number | null;
  content_type: string | null;
  body: string | null;
}

const WHERE_KEY = 'user_pk = ? AND client_pk = ? AND key = ?';
const keyParams = (s: IdempotencyScope): [number, number, string] => [s.userPk, s.clientPk, s.key];

/**
 * The claim, in one statement: a new key is inserted; a held one is taken over only where it is
 * free (expired, or running with the same fingerprint past its lease: docs/decisions/0022), and
 * otherwise left as it is, in which case no row comes back. The conflicting row stays locked
 * until the transaction ends, so the read that follows sees the key as the other claim left it.
 */
const CLAIM = `INSERT INTO idempotency_keys
  (user_pk, client_pk, key, fingerprint, attempt, locked_until, status, content_type, body, created_at, expires_at)
  VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?, ?)
  ON CONFLICT (user_pk, client_pk, key) DO UPDATE SET
    fingerprint = excluded.fingerprint, attempt = excluded.attempt, locked_until = excluded.locked_until,
    status = NULL, content_type = NULL, body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at
  WHERE idempotency_keys.expires_at <= excluded.created_at
    OR (idempotency_keys.status IS NULL AND idempotency_keys.locked_until <= excluded.created_at
        AND idempotency_keys.fingerprint = excluded.fingerprint)
  RETURNING attempt`;

function held(r: KeyRow): HeldKey {
  if (r.status === null) return { state: 'running', fingerprint: r.fingerprint, lockedUntil: Number(r.locked_until) };
  return { state: 'done', fingerprint: r.fingerprint, answer: { status: Number(r.status), contentType: r.content_type ?? '', body: r.body ?? '' } };
}

export class SqlIdempotency implements IdempotencyRepo {
  constructor(private readonly db: SqlDb) {}

  async claim(c: IdempotencyClaim): Promise<HeldKey | null> {
    // A key the database would store otherwise than sent (lib/text.ts) could meet another's row;
    // the header's rule (visible ASCII) keeps such keys out before they get here.
    if (!matchable(c.key)) throw new RangeError('an Idempotency-Key must be storable text');
    for (let tries = 0; tries < 3; tries++) {
      const taken = await this.db.get<{ attempt: string }>(CLAIM, ...keyParams(c), c.fingerprint, c.attempt, c.lockedUntil, c.nowSeconds, c.expiresAt);
      if (taken) return null;
      const now = await this.get(c, c.nowSeconds);
      if (now) return now;
      // Gone between the two statements (pruned as it expired): free again, claimed anew.
    }
    throw new Error('an Idempotency-Key could not be claimed or read');
  }

  async renew(s: IdempotencyScope, attempt: string, lockedUntil: number): Promise<boolean> {
    return (await this.db.run(`UPDATE idempotency_keys SET locked_until = ? WHERE ${WHERE_KEY} AND attempt = ? AND status IS NULL`, lockedUntil, ...keyParams(s), attempt)) > 0;
  }

  async finish(s: IdempotencyScope, attempt: string, a: StoredAnswer): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE idempotency_keys SET status = ?, content_type = ?, body = ? WHERE ${WHERE_KEY} AND attempt = ? AND status IS NULL`,
      a.status,
      a.contentType,
      a.body,
      ...keyParams(s),
      attempt,
    );
    return changed > 0;
  }

  async release(s: IdempotencyScope, attempt: string): Promise<boolean> {
    return (await this.db.run(`DELETE FROM idempotency_keys WHERE ${WHERE_KEY} AND attempt = ? AND status IS NULL`, ...keyParams(s), attempt)) > 0;
  }

  async get(s: IdempotencyScope, nowSeconds: number): Promise<HeldKey | null> {
    if (!matchable(s.key)) return null;
    const r = await this.db.get<KeyRow>(
      `SELECT fingerprint, locked_until, status, content_type, body FROM idempotency_keys WHERE ${WHERE_KEY} AND expires_at > ?`,
      ...keyParams(s),
      nowSeconds,
    );
    return r ? held(r) : null;
  }

  async prune(nowSeconds: number): Promise<number> {
    return this.db.run('DELETE FROM idempotency_keys WHERE expires_at <= ?', nowSeconds);
  }
}
