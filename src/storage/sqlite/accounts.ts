import { nextStamp } from '../../lib/clock.js';
import {
  PREF_NAMES,
  STAMP_NAMES,
  type Account,
  type AccountsRepo,
  type Credentials,
  type NewAccount,
  type ProLevel,
  type StampName,
  type Stamps,
} from '../store.js';
import { translateUnique, type Conn } from './connection.js';

type AccountRow = Record<string, number | string> & {
  pk: number;
  userid: string;
  email: string;
  alias: string;
  pro: number;
  created_at: number;
};

const COLUMNS = ['pk', 'userid', 'email', 'alias', 'pro', ...PREF_NAMES, ...STAMP_NAMES, 'created_at'].join(', ');

function pick<K extends string>(row: Record<string, unknown>, names: readonly K[]): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const n of names) out[n] = Number(row[n]);
  return out;
}

export function toAccount(row: AccountRow): Account {
  return {
    pk: row.pk,
    userid: row.userid,
    email: row.email,
    alias: row.alias,
    pro: row.pro as ProLevel,
    prefs: pick(row, PREF_NAMES),
    stamps: pick(row, STAMP_NAMES),
    createdAt: row.created_at,
  };
}

export class SqliteAccounts implements AccountsRepo {
  constructor(private readonly c: Conn) {}

  async create(a: NewAccount): Promise<Account> {
    const cols = ['userid', 'email', 'email_key', 'password_hash', 'alias', 'pro', ...PREF_NAMES, 'created_at'];
    const values = [a.userid, a.email, a.emailKey, a.passwordHash, a.alias, a.pro, ...PREF_NAMES.map((p) => a.prefs[p]), a.createdAt];
    const row = translateUnique({ 'accounts.email_key': 'email', 'accounts.userid': 'userid' }, () =>
      this.c.get<AccountRow>(
        `INSERT INTO accounts (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) RETURNING ${COLUMNS}`,
        ...values,
      ),
    );
    return toAccount(row as AccountRow);
  }

  async get(pk: number): Promise<Account | null> {
    const row = this.c.get<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE pk = ?`, pk);
    return row ? toAccount(row) : null;
  }

  async credentialsByEmail(emailKey: string): Promise<Credentials | null> {
    const row = this.c.get<{ pk: number; password_hash: string }>(
      'SELECT pk, password_hash FROM accounts WHERE email_key = ?',
      emailKey,
    );
    return row ? { pk: row.pk, passwordHash: row.password_hash } : null;
  }

  async lock(): Promise<void> {
    // SQLite transactions here are BEGIN IMMEDIATE: the whole database is already locked for writing.
  }

  async touch(pk: number, names: readonly StampName[], nowSeconds: number): Promise<Partial<Stamps>> {
    if (names.length === 0) return {};
    // Column names come from the fixed STAMP_NAMES list, never from input.
    const current = this.c.get<Record<StampName, number>>(`SELECT ${names.join(', ')} FROM accounts WHERE pk = ?`, pk);
    if (!current) throw new Error(`account ${pk} does not exist`);
    const next: Partial<Record<StampName, number>> = {};
    for (const n of names) next[n] = nextStamp(current[n], nowSeconds);
    this.c.run(`UPDATE accounts SET ${names.map((n) => `${n} = ?`).join(', ')} WHERE pk = ?`, ...names.map((n) => next[n] as number), pk);
    return next;
  }

  async isKnownDevice(pk: number, deviceHash: string): Promise<boolean> {
    return (
      this.c.get('SELECT 1 AS x FROM known_devices WHERE user_pk = ? AND device_hash = ?', pk, deviceHash) !== undefined
    );
  }

  async rememberDevice(pk: number, deviceHash: string, nowSeconds: number): Promise<void> {
    this.c.run(
      `INSERT INTO known_devices (user_pk, device_hash, created_at, last_used_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_pk, device_hash) DO UPDATE SET last_used_at = excluded.last_used_at`,
      pk,
      deviceHash,
      nowSeconds,
      nowSeconds,
    );
  }
}
