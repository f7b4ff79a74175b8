/**
 * SQLite schema, one numbered migration per step. Numbers match the PostgreSQL adapter's.
 * A migration never changes once released; later changes are new migrations.
 * Every per-account table leads its primary key with the account (user_pk).
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, apps, oauth, sessions',
    sql: `
CREATE TABLE accounts (
  pk               INTEGER PRIMARY KEY,
  userid           TEXT    NOT NULL UNIQUE,
  email            TEXT    NOT NULL,
  email_key        TEXT    NOT NULL UNIQUE,
  password_hash    TEXT    NOT NULL,
  alias            TEXT    NOT NULL,
  pro              INTEGER NOT NULL CHECK (pro IN (0, 1, 2)),
  dateformat       INTEGER NOT NULL,
  timezone         INTEGER NOT NULL,
  hidemonths       INTEGER NOT NULL,
  hotlistpriority  INTEGER NOT NULL,
  hotlistduedate   INTEGER NOT NULL,
  hotliststar      INTEGER NOT NULL,
  hotliststatus    INTEGER NOT NULL,
  showtabnums      INTEGER NOT NULL,
  lastedit_task     INTEGER NOT NULL DEFAULT 0,
  lastdelete_task   INTEGER NOT NULL DEFAULT 0,
  lastedit_folder   INTEGER NOT NULL DEFAULT 0,
  lastedit_context  INTEGER NOT NULL DEFAULT 0,
  lastedit_goal     INTEGER NOT NULL DEFAULT 0,
  lastedit_location INTEGER NOT NULL DEFAULT 0,
  lastedit_note     INTEGER NOT NULL DEFAULT 0,
  lastdelete_note   INTEGER NOT NULL DEFAULT 0,
  lastedit_list     INTEGER NOT NULL DEFAULT 0,
  lastedit_outline  INTEGER NOT NULL DEFAULT 0,
  created_at       INTEGER NOT NULL
) STRICT;

CREATE TABLE known_devices (
  user_pk      INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  device_hash  TEXT    NOT NULL,
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER NOT NULL,
  PRIMARY KEY (user_pk, device_hash)
) STRICT, WITHOUT ROWID;

CREATE TABLE clients (
  pk           INTEGER PRIMARY KEY,
  client_id    TEXT    NOT NULL UNIQUE,
  secret_hash  TEXT    NOT NULL,
  name         TEXT    NOT NULL,
  redirect_uri TEXT    NOT NULL,
  created_at   INTEGER NOT NULL
) STRICT;

CREATE TABLE grants (
  id             INTEGER PRIMARY KEY,
  user_pk        INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  client_pk      INTEGER NOT NULL REFERENCES clients(pk) ON DELETE CASCADE,
  scope          TEXT    NOT NULL,
  created_at     INTEGER NOT NULL,
  expires_at     INTEGER NOT NULL,
  revoked_at     INTEGER,
  revoked_reason TEXT,
  vers           TEXT,
  os             TEXT,
  device         TEXT,
  udid           TEXT,
  info_at        INTEGER
) STRICT;
CREATE INDEX grants_by_user ON grants (user_pk);
CREATE INDEX grants_by_expiry ON grants (expires_at);

CREATE TABLE auth_codes (
  code_hash  TEXT    PRIMARY KEY,
  client_pk  INTEGER NOT NULL REFERENCES clients(pk) ON DELETE CASCADE,
  user_pk    INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  scope      TEXT    NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at    INTEGER,
  grant_id   INTEGER REFERENCES grants(id) ON DELETE SET NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX auth_codes_by_expiry ON auth_codes (expires_at);

CREATE TABLE tokens (
  hash       TEXT    PRIMARY KEY,
  kind       TEXT    NOT NULL CHECK (kind IN ('access', 'refresh')),
  grant_id   INTEGER NOT NULL REFERENCES grants(id) ON DELETE CASCADE,
  user_pk    INTEGER NOT NULL,
  client_pk  INTEGER NOT NULL,
  scope      TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at    INTEGER
) STRICT, WITHOUT ROWID;
CREATE INDEX tokens_by_grant ON tokens (grant_id);
CREATE INDEX tokens_by_expiry ON tokens (expires_at);

CREATE TABLE sessions (
  id_hash    TEXT    PRIMARY KEY,
  user_pk    INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX sessions_by_expiry ON sessions (expires_at);
`,
  },
  {
    version: 2,
    name: 'per-account id counters',
    sql: `
-- Ids of tasks, goals, contexts, folders and locations are per account (spec 2.1). Each account
-- has its own counter per kind; ids are handed out in blocks and never reused, deleted ones included.
CREATE TABLE id_counters (
  user_pk INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  kind    TEXT    NOT NULL CHECK (kind IN ('task', 'goal', 'context', 'folder', 'location')),
  next_id INTEGER NOT NULL,
  PRIMARY KEY (user_pk, kind)
) STRICT, WITHOUT ROWID;
`,
  },
];
