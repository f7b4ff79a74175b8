import type { CalendarFeed, CalendarFeedsRepo, NewCalendarFeed, StoredCalendarFeed } from '../store.js';
import { matchable, translateUnique, type Dialect, type SqlDb } from './db.js';

interface Row {
  id: number;
  user_pk: number;
  folder: number | null;
  secret_hash: string;
  created_at: number;
  last_fetched_at: number | null;
}

const COLUMNS = 'id, user_pk, folder, secret_hash, created_at, last_fetched_at';

function toStored(r: Row): StoredCalendarFeed {
  return { id: r.id, userPk: r.user_pk, folder: r.folder, secretHash: r.secret_hash, createdAt: r.created_at, lastFetchedAt: r.last_fetched_at };
}

/** The record without its hash: what leaves a list. */
function toListed(r: Row): CalendarFeed {
  const { secretHash: _hash, ...listed } = toStored(r);
  return listed;
}

export class SqlCalendarFeeds implements CalendarFeedsRepo {
  constructor(
    private readonly db: SqlDb,
    private readonly dialect: Dialect,
  ) {}

  async create(n: NewCalendarFeed): Promise<CalendarFeed> {
    const row = await translateUnique(this.dialect, { secret_hash: 'calendar feed' }, () =>
      this.db.get<Row>(
        `INSERT INTO calendar_feeds (user_pk, folder, secret_hash, created_at) VALUES (?, ?, ?, ?) RETURNING ${COLUMNS}`,
        n.userPk,
        n.folder,
        n.secretHash,
        n.createdAt,
      ),
    );
    return toListed(row as Row);
  }

  async byHash(secretHash: string): Promise<StoredCalendarFeed | null> {
    if (!matchable(secretHash)) return null;
    const r = await this.db.get<Row>(`SELECT ${COLUMNS} FROM calendar_feeds WHERE secret_hash = ?`, secretHash);
    return r ? toStored(r) : null;
  }

  async list(userPk: number): Promise<CalendarFeed[]> {
    const rows = await this.db.all<Row>(`SELECT ${COLUMNS} FROM calendar_feeds WHERE user_pk = ? ORDER BY id`, userPk);
    return rows.map(toListed);
  }

  async delete(userPk: number, id: number): Promise<boolean> {
    return (await this.db.run('DELETE FROM calendar_feeds WHERE user_pk = ? AND id = ?', userPk, id)) > 0;
  }

  async recordFetch(id: number, nowSeconds: number, unlessSince: number): Promise<boolean> {
    // One statement: of two instances recording the same minute, the second changes nothing.
    const changed = await this.db.run(
      'UPDATE calendar_feeds SET last_fetched_at = ? WHERE id = ? AND (last_fetched_at IS NULL OR last_fetched_at < ?)',
      nowSeconds,
      id,
      unlessSince,
    );
    return changed > 0;
  }
}
