import { CHANGE_KINDS, type ChangeKind } from '../changes-port.js';
import {
  ATTEMPTS_KEPT,
  type ClaimedDelivery,
  type DeliveryOutcome,
  type MovedAccount,
  type NewWebhookAttempt,
  type NewWebhookEndpoint,
  type WebhookAttempt,
  type WebhookEndpoint,
  type WebhooksRepo,
  type Watcher,
} from '../push-port.js';
import type { Dialect, SqlDb } from './db.js';

/** The kinds as a bit set, bit i for CHANGE_KINDS[i]: bursts merge with `|` in one statement. */
export function kindsMask(kinds: readonly ChangeKind[]): number {
  return kinds.reduce((mask, k) => mask | (1 << CHANGE_KINDS.indexOf(k)), 0);
}

export function kindsOfMask(mask: number): ChangeKind[] {
  return CHANGE_KINDS.filter((_, i) => (mask & (1 << i)) !== 0);
}

/**
 * A grant `g` that can still be used (as OAuthRepo.liveGrants says): not revoked, not past its
 * end, holding a refresh token that can still be spent. Two placeholders: now, twice.
 */
const LIVE_GRANT = (g: string): string =>
  `${g}.revoked_at IS NULL AND ${g}.expires_at > ? AND EXISTS (SELECT 1 FROM tokens t WHERE t.grant_id = ${g}.id AND t.kind = 'refresh' AND t.used_at IS NULL AND t.expires_at > ?)`;

/** A delivery `d` (of endpoint `e`) due at the first placeholder that no live claim holds (the second: now again). */
const DUE = `d.due_at <= ? AND (d.claimed_until IS NULL OR d.claimed_until <= ?) AND (e.disabled_at IS NULL OR d.kind = 'test')`;

interface EndpointRow {
  id: string;
  client_pk: number;
  url: string;
  secret: string;
  created_at: number;
  failing_since: number | null;
  disabled_at: number | null;
}

const ENDPOINT_COLUMNS = 'id, client_pk, url, secret, created_at, failing_since, disabled_at';

function toEndpoint(r: EndpointRow): WebhookEndpoint {
  return {
    id: r.id,
    clientPk: Number(r.client_pk),
    url: r.url,
    secret: r.secret,
    createdAt: Number(r.created_at),
    failingSince: r.failing_since === null ? null : Number(r.failing_since),
    disabledAt: r.disabled_at === null ? null : Number(r.disabled_at),
  };
}

/** Webhooks (push-port.ts): endpoints, the positions told, the outbox and its claims, attempts. */
export class SqlWebhooks implements WebhooksRepo {
  constructor(
    private readonly db: SqlDb,
    private readonly dialect: Dialect,
  ) {}

  async addEndpoint(e: NewWebhookEndpoint, now: number): Promise<WebhookEndpoint> {
    const row = await this.db.get<EndpointRow>(
      `INSERT INTO webhook_endpoints (id, client_pk, url, secret, created_at) VALUES (?, ?, ?, ?, ?) RETURNING ${ENDPOINT_COLUMNS}`,
      e.id,
      e.clientPk,
      e.url,
      e.secret,
      e.createdAt,
    );
    await this.watchClient(e.clientPk, now);
    return toEndpoint(row as EndpointRow);
  }

  async endpoints(clientPk: number): Promise<WebhookEndpoint[]> {
    return (await this.db.all<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE client_pk = ? ORDER BY created_at, id`, clientPk)).map(toEndpoint);
  }

  async endpoint(id: string): Promise<WebhookEndpoint | null> {
    const r = await this.db.get<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ?`, id);
    return r ? toEndpoint(r) : null;
  }

  async removeEndpoint(id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM webhook_endpoints WHERE id = ?', id)) > 0;
  }

  async setSecret(id: string, secret: string): Promise<boolean> {
    return (await this.db.run('UPDATE webhook_endpoints SET secret = ? WHERE id = ?', secret, id)) > 0;
  }

  async enable(id: string, now: number): Promise<boolean> {
    const r = await this.db.getRaw('UPDATE webhook_endpoints SET disabled_at = NULL, failing_since = NULL WHERE id = ? RETURNING client_pk', id);
    if (!r) return false;
    await this.watchClient(Number(r[0]), now);
    return true;
  }

  /** Watches, from their positions now, the accounts with a live grant of the app (those not watched). */
  private async watchClient(clientPk: number, now: number): Promise<void> {
    await this.db.run(
      `INSERT INTO webhook_marks (user_pk, seq)
       SELECT a.pk, a.change_seq FROM accounts a WHERE a.pk IN (SELECT g.user_pk FROM grants g WHERE g.client_pk = ? AND ${LIVE_GRANT('g')})
       ON CONFLICT (user_pk) DO NOTHING`,
      clientPk,
      now,
      now,
    );
  }

  async watch(userPk: number, clientPk: number): Promise<void> {
    await this.db.run(
      `INSERT INTO webhook_marks (user_pk, seq)
       SELECT pk, change_seq FROM accounts WHERE pk = ? AND EXISTS (SELECT 1 FROM webhook_endpoints WHERE client_pk = ? AND disabled_at IS NULL)
       ON CONFLICT (user_pk) DO NOTHING`,
      userPk,
      clientPk,
    );
  }

  async watchMissing(now: number): Promise<number> {
    return this.db.run(
      `INSERT INTO webhook_marks (user_pk, seq)
       SELECT a.pk, a.change_seq FROM accounts a
       WHERE a.pk IN (SELECT g.user_pk FROM grants g JOIN webhook_endpoints e ON e.client_pk = g.client_pk WHERE e.disabled_at IS NULL AND ${LIVE_GRANT('g')})
         AND NOT EXISTS (SELECT 1 FROM webhook_marks m WHERE m.user_pk = a.pk)
       ON CONFLICT (user_pk) DO NOTHING`,
      now,
      now,
    );
  }

  async moved(limit: number): Promise<MovedAccount[]> {
    const rows = await this.db.allRaw(
      'SELECT m.user_pk, m.seq, a.change_seq FROM webhook_marks m JOIN accounts a ON a.pk = m.user_pk WHERE a.change_seq <> m.seq ORDER BY m.user_pk LIMIT ?',
      limit,
    );
    return rows.map((r) => ({ userPk: Number(r[0]), from: Number(r[1]), to: Number(r[2]) }));
  }

  async advance(userPk: number, from: number, to: number): Promise<boolean> {
    return (await this.db.run('UPDATE webhook_marks SET seq = ? WHERE user_pk = ? AND seq = ?', to, userPk, from)) > 0;
  }

  async unwatch(userPk: number, seq: number): Promise<void> {
    await this.db.run('DELETE FROM webhook_marks WHERE user_pk = ? AND seq = ?', userPk, seq);
  }

  async watchers(userPk: number, now: number): Promise<Watcher[]> {
    const rows = await this.db.allRaw(
      `SELECT e.id, g.scope FROM grants g JOIN webhook_endpoints e ON e.client_pk = g.client_pk
       WHERE g.user_pk = ? AND e.disabled_at IS NULL AND ${LIVE_GRANT('g')} ORDER BY e.id, g.id`,
      userPk,
      now,
      now,
    );
    return rows.map((r) => ({ endpointId: r[0] as string, scope: r[1] as string }));
  }

  async enqueue(endpointId: string, userPk: number, kinds: readonly ChangeKind[], now: number, dueAt: number, msgId: string): Promise<void> {
    const mask = kindsMask(kinds);
    // A delivery an instance is sending (its claim runs) has told its kinds already: what changed
    // since waits in fresh_kinds for the next one. A waiting one takes the kinds into its own.
    await this.db.run(
      `INSERT INTO webhook_deliveries (endpoint_id, user_pk, kind, kinds, fresh_kinds, attempts, due_at, msg_id, created_at)
       VALUES (?, ?, 'changes', ?, 0, 0, ?, ?, ?)
       ON CONFLICT (endpoint_id, user_pk) DO UPDATE SET
         kinds = CASE WHEN webhook_deliveries.claimed_until > ? THEN webhook_deliveries.kinds ELSE webhook_deliveries.kinds | excluded.kinds END,
         fresh_kinds = CASE WHEN webhook_deliveries.claimed_until > ? THEN webhook_deliveries.fresh_kinds | excluded.kinds ELSE webhook_deliveries.fresh_kinds END`,
      endpointId,
      userPk,
      mask,
      dueAt,
      msgId,
      now,
      now,
      now,
    );
  }

  async enqueueTest(endpointId: string, now: number, msgId: string): Promise<void> {
    await this.db.run(
      `INSERT INTO webhook_deliveries (endpoint_id, user_pk, kind, kinds, fresh_kinds, attempts, due_at, msg_id, created_at) VALUES (?, NULL, 'test', 0, 0, 0, ?, ?, ?)`,
      endpointId,
      now,
      msgId,
      now,
    );
  }

  async anyDue(now: number): Promise<boolean> {
    return (await this.db.getRaw(`SELECT 1 FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE ${DUE} LIMIT 1`, now, now)) !== undefined;
  }

  async claim(claimer: string, now: number, until: number, limit: number): Promise<ClaimedDelivery[]> {
    const claimed = await this.db.run(
      `UPDATE webhook_deliveries SET claimed_by = ?, claimed_until = ? WHERE id IN (
         SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
         WHERE ${DUE} ORDER BY d.due_at, d.id LIMIT ?${this.dialect.skipLocked('d')}
       )`,
      claimer,
      until,
      now,
      now,
      limit,
    );
    if (claimed === 0) return [];
    const rows = await this.db.allRaw(
      `SELECT d.id, d.endpoint_id, e.url, e.secret, d.kind, d.user_pk, a.userid, a.change_seq, d.kinds, d.attempts, d.msg_id, d.msg_body,
         CASE WHEN d.kind = 'test' OR EXISTS (SELECT 1 FROM grants g WHERE g.user_pk = d.user_pk AND g.client_pk = e.client_pk AND ${LIVE_GRANT('g')}) THEN 1 ELSE 0 END
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id LEFT JOIN accounts a ON a.pk = d.user_pk
       WHERE d.claimed_by = ? ORDER BY d.due_at, d.id`,
      now,
      now,
      claimer,
    );
    return rows.map((r) => ({
      id: Number(r[0]),
      endpointId: r[1] as string,
      url: r[2] as string,
      secret: r[3] as string,
      type: r[4] as 'changes' | 'test',
      userPk: r[5] === null ? null : Number(r[5]),
      userid: (r[6] as string | null) ?? null,
      position: r[7] === null ? null : Number(r[7]),
      kinds: kindsOfMask(Number(r[8])),
      granted: Number(r[12]) === 1,
      attempts: Number(r[9]),
      msgId: r[10] as string,
      msgBody: (r[11] as string | null) ?? null,
    }));
  }

  async settle(id: number, claimer: string, outcome: DeliveryOutcome): Promise<boolean> {
    if (!outcome.done) {
      const again = await this.db.run(
        `UPDATE webhook_deliveries SET kinds = kinds | fresh_kinds, fresh_kinds = 0, attempts = ?, due_at = ?, claimed_by = NULL, claimed_until = NULL, msg_id = ?, msg_body = ?
         WHERE id = ? AND claimed_by = ?`,
        outcome.attempts,
        outcome.dueAt,
        outcome.msgId,
        outcome.msgBody,
        id,
        claimer,
      );
      return again > 0;
    }
    if ((await this.db.run('DELETE FROM webhook_deliveries WHERE id = ? AND claimed_by = ? AND fresh_kinds = 0', id, claimer)) > 0) return true;
    // Kinds changed while it was sent: they make the next delivery, a message of its own.
    const next = await this.db.run(
      `UPDATE webhook_deliveries SET kinds = fresh_kinds, fresh_kinds = 0, attempts = 0, due_at = ?, claimed_by = NULL, claimed_until = NULL, msg_id = ?, msg_body = NULL
       WHERE id = ? AND claimed_by = ?`,
      outcome.dueAt,
      outcome.nextMsgId,
      id,
      claimer,
    );
    return next > 0;
  }

  async recordAttempt(a: NewWebhookAttempt): Promise<void> {
    await this.db.run(
      'INSERT INTO webhook_attempts (endpoint_id, user_pk, msg_id, attempt, at, status, error, latency_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      a.endpointId,
      a.userPk,
      a.msgId,
      a.attempt,
      a.at,
      a.status,
      a.error,
      a.latencyMs,
    );
    // The oldest beyond the last ATTEMPTS_KEPT go (none while there are fewer: the bound is NULL).
    await this.db.run(
      `DELETE FROM webhook_attempts WHERE endpoint_id = ? AND id < (SELECT id FROM webhook_attempts WHERE endpoint_id = ? ORDER BY id DESC LIMIT 1 OFFSET ${ATTEMPTS_KEPT - 1})`,
      a.endpointId,
      a.endpointId,
    );
  }

  async attempts(endpointId: string, limit: number): Promise<WebhookAttempt[]> {
    const rows = await this.db.allRaw(
      'SELECT id, endpoint_id, user_pk, msg_id, attempt, at, status, error, latency_ms FROM webhook_attempts WHERE endpoint_id = ? ORDER BY id DESC LIMIT ?',
      endpointId,
      limit,
    );
    return rows.map((r) => ({
      id: Number(r[0]),
      endpointId: r[1] as string,
      userPk: r[2] === null ? null : Number(r[2]),
      msgId: r[3] as string,
      attempt: Number(r[4]),
      at: Number(r[5]),
      status: r[6] === null ? null : Number(r[6]),
      error: (r[7] as string | null) ?? null,
      latencyMs: Number(r[8]),
    }));
  }

  async pending(endpointId: string): Promise<number> {
    const r = await this.db.getRaw("SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = ? AND kind = 'changes'", endpointId);
    return Number(r?.[0] ?? 0);
  }

  async succeeded(endpointId: string): Promise<void> {
    await this.db.run('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL', endpointId);
  }

  async failed(endpointId: string, now: number): Promise<number> {
    const r = await this.db.getRaw('UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, ?) WHERE id = ? RETURNING failing_since', now, endpointId);
    return r ? Number(r[0]) : now;
  }

  async disable(endpointId: string, now: number): Promise<void> {
    await this.db.run('UPDATE webhook_endpoints SET disabled_at = ? WHERE id = ? AND disabled_at IS NULL', now, endpointId);
    await this.db.run("DELETE FROM webhook_deliveries WHERE endpoint_id = ? AND kind = 'changes'", endpointId);
  }
}
