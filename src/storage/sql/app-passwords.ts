import type { AppPassword, AppPasswordsRepo, NewAppPassword, StoredAppPassword } from '../store.js';
import { matchable, translateUnique, type Dialect, type SqlDb } from './db.js';

interface Row {
  id: number;
  user_pk: number;
  name: string;
  secret_hash: string;
  read_only: number;
  created_at: number;
  last_used_at: number | null;
  last_device: string | null;
}

const COLUMNS = 'id, user_pk, name, secret_hash, read_only, created_at, last_used_at, last_device';

function toStored(r: Row): StoredAppPassword {
  return {
    id: r.id,
    userPk: r.user_pk,
    name: r.name,
    secretHash: r.secret_hash,
    readOnly: Number(r.read_only) === 1,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    lastDevice: r.last_device,
  };
}

/** The record without its hash: what leaves a list. */
function toListed(r: Row): AppPassword {
  const { secretHash: _hash, ...listed } = toStored(r);
  return listed;
}

export class SqlAppPasswords implements AppPasswordsRepo {
  constructor(
    private readonly db: SqlDb,
    private readonly dialect: Dialect,
  ) {}

  async create(n: NewAppPassword): Promise<AppPassword> {
    const row = await translateUnique(this.dialect, { secret_hash: 'app password' }, () =>
      this.db.get<Row>(
        `INSERT INTO app_passwords (user_pk, name, secret_hash, read_only, created_at) VALUES (?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
        n.userPk,
        n.name,
        n.secretHash,
        n.readOnly ? 1 : 0,
        n.createdAt,
      ),
    );
    return toListed(row as Row);
  }

  async byHash(secretHash: string): Promise<StoredAppPassword | null> {
    if (!matchable(secretHash)) return null;
    const r = await this.db.get<Row>(`SELECT ${COLUMNS} FROM app_passwords WHERE secret_hash = ?`, secretHash);
    return r ? toStored(r) : null;
  }

  async list(userPk: number): Promise<AppPassword[]> {
    const rows = await this.db.all<Row>(`SELECT ${COLUMNS} FROM app_passwords WHERE user_pk = ? ORDER BY id`, userPk);
    return rows.map(toListed);
  }

  async delete(userPk: number, id: number): Promise<boolean> {
    return (await this.db.run('DELETE FROM app_passwords WHERE user_pk = ? AND id = ?', userPk, id)) > 0;
  }

  async recordUse(id: number, nowSeconds: number, device: string | null, unlessSince: number): Promise<boolean> {
    // One statement: of two instances recording the same minute, the second changes nothing.
    const changed = await this.db.run(
      'UPDATE app_passwords SET last_used_at = ?, last_device = coalesce(?, last_device) WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
      nowSeconds,
      device,
      id,
      unlessSince,
    );
    return changed > 0;
  }
}
