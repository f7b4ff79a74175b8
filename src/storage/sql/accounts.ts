import {
  PREF_NAMES,
  type AccountChanges,
  STAMP_NAMES,
  type Account,
  type AccountsRepo,
  type Credentials,
  type IdBlock,
  type LockedAccount,
  type NewAccount,
  type ProLevel,
  type RecordKind,
  type StampName,
  type Stamps,
} from '../store.js';
import { matchable, translateUnique, type Dialect, type SqlDb } from './db.js';

const COLUMN_LIST = ['pk', 'userid', 'email', 'alias', 'pro', ...PREF_NAMES, ...STAMP_NAMES, 'created_at', 'is_admin'] as const;
/** The columns toAccount reads, in its order. */
export const ACCOUNT_COLUMNS = COLUMN_LIST.join(', ');
const COLUMNS = ACCOUNT_COLUMNS;
const PREF_AT = 5;
const STAMP_AT = PREF_AT + PREF_NAMES.length;

function numbers<K extends string>(row: unknown[], at: number, names: readonly K[]): Record<K, number> {
  const out = {} as Record<K, number>;
  names.forEach((n, i) => (out[n] = row[at + i] as number));
  return out;
}

/** An account from a raw row selected with ACCOUNT_COLUMNS, in that order. */
export function toAccount(row: unknown[]): Account {
  return {
    pk: row[0] as number,
    userid: row[1] as string,
    email: row[2] as string,
    alias: row[3] as string,
    pro: row[4] as ProLevel,
    prefs: numbers(row, PREF_AT, PREF_NAMES),
    stamps: numbers(row, STAMP_AT, STAMP_NAMES),
    createdAt: row[COLUMN_LIST.length - 2] as number,
    isAdmin: Number(row[COLUMN_LIST.length - 1]) === 1,
  };
}

export class SqlAccounts implements AccountsRepo {
  constructor(
    private readonly db: SqlDb,
    private readonly dialect: Dialect,
    /** Inside a transaction, lock() locks the account for the transaction's writes. */
    private readonly inTransaction: boolean,
  ) {}

  async create(a: NewAccount): Promise<Account> {
    const cols = ['userid', 'email', 'email_key', 'password_hash', 'alias', 'pro', ...PREF_NAMES, 'created_at', 'is_admin'];
    const values = [a.userid, a.email, a.emailKey, a.passwordHash, a.alias, a.pro, ...PREF_NAMES.map((p) => a.prefs[p]), a.createdAt, a.isAdmin ? 1 : 0];
    const row = await translateUnique(this.dialect, { email_key: 'email', userid: 'userid' }, () =>
      this.db.getRaw(`INSERT INTO accounts (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) RETURNING ${COLUMNS}`, ...values),
    );
    return toAccount(row as unknown[]);
  }

  async get(pk: number): Promise<Account | null> {
    const row = await this.db.getRaw(`SELECT ${COLUMNS} FROM accounts WHERE pk = ?`, pk);
    return row ? toAccount(row) : null;
  }

  async credentialsByEmail(emailKey: string): Promise<Credentials | null> {
    if (!matchable(emailKey)) return null;
    const row = await this.db.get<{ pk: number; password_hash: string }>('SELECT pk, password_hash FROM accounts WHERE email_key = ?', emailKey);
    return row ? { pk: row.pk, passwordHash: row.password_hash } : null;
  }

  async pkByUserid(userid: string): Promise<number | null> {
    if (!matchable(userid)) return null;
    return (await this.db.get<{ pk: number }>('SELECT pk FROM accounts WHERE userid = ?', userid))?.pk ?? null;
  }

  async lock(pk: number, ids?: IdBlock): Promise<LockedAccount | null> {
    // One statement takes the lock and reads the account and its task count (on PostgreSQL two
    // round trips fewer for a write call).
    // The kept document counts too: an add of notes, outlines or lists reads its count from here
    // (one round trip fewer on PostgreSQL).
    const columns = `${COLUMNS}, task_count, note_count, outline_count, list_count`;
    const read = this.inTransaction ? this.dialect.lockAccount(columns) : `SELECT ${columns} FROM accounts WHERE pk = ?`;
    const block = ids && allocateSql(pk, ids.kind, ids.count);
    let row: unknown[] | undefined;
    let firstId: number | null = null;
    if (block && this.dialect.writesInWith) {
      // PostgreSQL: the block is taken in the same statement, after the lock (the counter's upsert
      // reads the locked row, so it runs once the lock is held: every transaction takes the
      // account's lock before its counter's, as allocateIds() after lock() does). Every value is
      // an integer, the kind a constant of the code: the statement can go with the transaction's
      // BEGIN (allRawOpening).
      [row] = await this.db.allRawOpening(
        `WITH a AS (${read}), ids AS (${block.fromLocked('a')}) SELECT a.*, (SELECT next_id FROM ids) AS next_id FROM a`,
        pk,
        ...block.countParams,
      );
      if (row) firstId = block.first({ next_id: row[row.length - 1] as number });
    } else {
      [row] = await this.db.allRawOpening(read, pk);
      if (row && ids) firstId = await this.allocateIds(pk, ids.kind, ids.count);
    }
    if (!row) return null;
    const at = COLUMN_LIST.length;
    const documentCounts = { note: Number(row[at + 1]), outline: Number(row[at + 2]), list: Number(row[at + 3]) };
    return { ...toAccount(row), taskCount: Number(row[at]), documentCounts, firstId };
  }

  async touch(pk: number, names: readonly StampName[], nowSeconds: number): Promise<Partial<Stamps>> {
    const t = touchSql(names, nowSeconds, pk);
    if (t === null) return {};
    return t.stamps(await this.db.get<Record<string, number>>(t.sql, ...t.params));
  }

  async allocateIds(pk: number, kind: RecordKind, count: number): Promise<number> {
    const a = allocateSql(pk, kind, count);
    return a.first(await this.db.get<Record<string, number>>(a.sql, ...a.params));
  }

  async releaseIds(pk: number, kind: RecordKind, from: number, end: number): Promise<void> {
    if (end <= from) return;
    // next_id is the id the next block starts at: `end` exactly when no block came after.
    await this.db.run('UPDATE id_counters SET next_id = ? WHERE user_pk = ? AND kind = ? AND next_id = ?', from, pk, kind, end);
  }

  async isKnownDevice(pk: number, deviceHash: string): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS x FROM known_devices WHERE user_pk = ? AND device_hash = ?', pk, deviceHash)) !== undefined;
  }

  async rememberDevice(pk: number, deviceHash: string, nowSeconds: number): Promise<void> {
    await this.db.run(
      `INSERT INTO known_devices (user_pk, device_hash, created_at, last_used_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_pk, device_hash) DO UPDATE SET last_used_at = excluded.last_used_at`,
      pk,
      deviceHash,
      nowSeconds,
      nowSeconds,
    );
  }

  async list(): Promise<Account[]> {
    return (await this.db.allRaw(`SELECT ${COLUMNS} FROM accounts ORDER BY pk`)).map(toAccount);
  }

  async hasAny(): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS x FROM accounts LIMIT 1')) !== undefined;
  }

  async update(pk: number, c: AccountChanges): Promise<Account | null> {
    const sets: string[] = [];
    const values: Array<string | number> = [];
    const set = (column: string, value: string | number): void => {
      sets.push(`${column} = ?`);
      values.push(value);
    };
    if (c.alias !== undefined) set('alias', c.alias);
    if (c.email !== undefined) {
      if (c.emailKey === undefined) throw new Error('an e-mail change needs its key');
      set('email', c.email);
      set('email_key', c.emailKey);
    }
    // Column names come from the fixed PREF_NAMES list, never from input.
    if (c.prefs !== undefined) for (const name of PREF_NAMES) set(name, c.prefs[name]);
    if (sets.length === 0) return this.get(pk);
    const row = await translateUnique(this.dialect, { email_key: 'email' }, () =>
      this.db.getRaw(`UPDATE accounts SET ${sets.join(', ')} WHERE pk = ? RETURNING ${COLUMNS}`, ...values, pk),
    );
    return row ? toAccount(row) : null;
  }

  async setPasswordHash(pk: number, passwordHash: string): Promise<void> {
    await this.db.run('UPDATE accounts SET password_hash = ? WHERE pk = ?', passwordHash, pk);
  }

  async setAdmin(pk: number, isAdmin: boolean): Promise<void> {
    await this.db.run('UPDATE accounts SET is_admin = ? WHERE pk = ?', isAdmin ? 1 : 0, pk);
  }

  async delete(pk: number): Promise<boolean> {
    // Every table holding the account's rows reaches accounts through foreign keys that cascade
    // (a test lists the tables with a user_pk column and checks it), so one statement removes all.
    return (await this.db.run('DELETE FROM accounts WHERE pk = ?', pk)) > 0;
  }
}

/**
 * The assignment of an UPDATE of accounts that moves stamp `name` as touch() does: to its two
 * values (the same second, twice) if that is later than the stored stamp. Used by touch() and by
 * the inserts that move a stamp with the count they keep (tasks.insertMany, documents.insertMany).
 */
export function movedStamp(name: StampName): string {
  if (!STAMP_NAMES.includes(name)) throw new Error(`no such stamp: ${String(name)}`);
  return `${name} = CASE WHEN ? > ${name} THEN ? ELSE ${name} END`;
}

/**
 * touch()'s statement: one UPDATE … RETURNING. Each stamp moves by the rule of nextStamp() in
 * lib/clock.ts: to the clock's second if that is later than the stored stamp; it never moves
 * back. Column names come from the fixed STAMP_NAMES list, never from input. Null: no stamp.
 */
function touchSql(names: readonly StampName[], nowSeconds: number, pk: number) {
  // A name given twice would be two assignments of one column, which PostgreSQL refuses.
  const columns = [...new Set(names)];
  if (columns.length === 0) return null;
  const set = columns.map(movedStamp).join(', ');
  return {
    sql: `UPDATE accounts SET ${set} WHERE pk = ? RETURNING ${columns.join(', ')}`,
    params: [...columns.flatMap(() => [nowSeconds, nowSeconds]), pk],
    stamps(row: Record<string, number> | undefined): Partial<Stamps> {
      if (!row) throw new Error(`account ${pk} does not exist`);
      const next: Partial<Record<StampName, number>> = {};
      for (const n of columns) next[n] = Number(row[n]);
      return next;
    },
  };
}

/**
 * allocateIds()'s statement: insert the counter on first use, or move it on; the old value is the
 * first id. The upsert takes the row lock, so concurrent writers get disjoint blocks.
 */
function allocateSql(pk: number, kind: RecordKind, count: number) {
  if (!Number.isInteger(count) || count < 1) throw new Error(`cannot allocate ${count} ids`);
  // Written into lock()'s text; a RecordKind is a word of the code, checked all the same.
  if (!/^[a-z]+$/.test(kind)) throw new Error(`no such kind of record: ${kind}`);
  const upsert = 'ON CONFLICT (user_pk, kind) DO UPDATE SET next_id = id_counters.next_id + excluded.next_id - 1 RETURNING next_id';
  return {
    sql: `INSERT INTO id_counters (user_pk, kind, next_id) VALUES (?, ?, ?) ${upsert}`,
    params: [pk, kind, count + 1],
    /** The same upsert for the account that `from` (a locked row with a pk column) holds; its one value is countParams. */
    fromLocked: (from: string) => `INSERT INTO id_counters (user_pk, kind, next_id) SELECT pk, '${kind}', ? FROM ${from} ${upsert}`,
    countParams: [count + 1] as number[],
    first: (row: Record<string, number> | undefined): number => Number((row as { next_id: number }).next_id) - count,
  };
}
