import type Database from 'better-sqlite3';
import { xmlTextIfOther } from '../../lib/xml-chars.js';
import type { Migration } from '../sql/migration.js';

/** A step of SQLite's schema, with what SQL cannot do of it done in JavaScript, in its transaction. */
export interface SqliteMigration extends Migration {
  readonly afterSql?: (db: Database.Database) => void;
}

/**
 * Migration 12's second half. SQLite's GLOB and format() read text only up to a U+0000, which
 * text written before input was cleaned may hold, and replace() cannot take one out: the tasks
 * whose text holds one get their kept XML by the XML writer's own rule, which leaves it out.
 */
export function keepXmlOfTextWithNul(db: Database.Database): void {
  const fields = ['title', 'tag', 'repeat', 'note'];
  const rows = db
    .prepare(`SELECT user_pk, id, ${fields.join(', ')} FROM tasks WHERE ${fields.map((f) => `instr(${f}, char(0)) > 0`).join(' OR ')}`)
    .raw(true)
    .all() as Array<[number, number, string, string, string, string]>;
  const keep = db.prepare(`INSERT OR REPLACE INTO task_xml (user_pk, task_id, ${fields.join(', ')}) VALUES (?, ?, ?, ?, ?, ?)`);
  for (const [userPk, id, ...texts] of rows) keep.run(userPk, id, ...texts.map(xmlTextIfOther));
}

/*
 * For migration 12, fixed here as it ran (the dialect's own escaping may change; this step may not).
 * XML_WORK: a GLOB pattern matching text that holds a character XML text needs work on: & < > CR,
 * or one XML 1.0 forbids (C0 controls but TAB, LF and CR; U+FFFE, U+FFFF).
 */
const XML_FORBIDDEN_CLASS = `char(1) || '-' || char(8) || char(11, 12, 14) || '-' || char(31) || char(65534, 65535)`;
const XML_WORK = `('*[&<>' || char(13) || ${XML_FORBIDDEN_CLASS} || ']*')`;
const XML_FORBIDDEN_CODES = [1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 65534, 65535];
/** `e` as XML text: the forbidden characters dropped (where one is found), then the entities. */
function xmlText(e: string): string {
  const dropped = XML_FORBIDDEN_CODES.reduce((inner, c) => `replace(${inner}, char(${c}), '')`, e);
  const allowed = `CASE WHEN ${e} GLOB ('*[' || ${XML_FORBIDDEN_CLASS} || ']*') THEN ${dropped} ELSE ${e} END`;
  return `replace(replace(replace(replace(${allowed}, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), char(13), '&#13;')`;
}

/**
 * SQLite schema, one numbered migration per step. Numbers match the PostgreSQL adapter's.
 * A migration never changes once released; later changes are new migrations.
 * Every per-account table leads its primary key with the account (user_pk).
 */
export const MIGRATIONS: readonly SqliteMigration[] = [
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
  {
    version: 3,
    name: 'tasks, folders, contexts, goals, locations',
    sql: `
-- Organisers of tasks. name_key is the name trimmed, NFC-normalised and lower-cased: names are
-- unique per account without regard to case.
CREATE TABLE folders (
  user_pk  INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  id       INTEGER NOT NULL,
  name     TEXT    NOT NULL,
  name_key TEXT    NOT NULL,
  private  INTEGER NOT NULL DEFAULT 0,
  archived INTEGER NOT NULL DEFAULT 0,
  ord      INTEGER NOT NULL,
  PRIMARY KEY (user_pk, id),
  UNIQUE (user_pk, name_key)
) STRICT, WITHOUT ROWID;

CREATE TABLE contexts (
  user_pk  INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  id       INTEGER NOT NULL,
  name     TEXT    NOT NULL,
  name_key TEXT    NOT NULL,
  private  INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (user_pk, id),
  UNIQUE (user_pk, name_key)
) STRICT, WITHOUT ROWID;

CREATE TABLE goals (
  user_pk     INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  id          INTEGER NOT NULL,
  name        TEXT    NOT NULL,
  name_key    TEXT    NOT NULL,
  level       INTEGER NOT NULL DEFAULT 0,
  contributes INTEGER NOT NULL DEFAULT 0,
  archived    INTEGER NOT NULL DEFAULT 0,
  private     INTEGER NOT NULL DEFAULT 0,
  note        TEXT    NOT NULL DEFAULT '',
  PRIMARY KEY (user_pk, id),
  UNIQUE (user_pk, name_key)
) STRICT;

CREATE TABLE locations (
  user_pk     INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  id          INTEGER NOT NULL,
  name        TEXT    NOT NULL,
  name_key    TEXT    NOT NULL,
  description TEXT    NOT NULL DEFAULT '',
  lat         REAL    NOT NULL DEFAULT 0,
  lon         REAL    NOT NULL DEFAULT 0,
  PRIMARY KEY (user_pk, id),
  UNIQUE (user_pk, name_key)
) STRICT;

-- Tasks. Dates are Unix seconds at 12:00 GMT of their day (0 = none). duetime and starttime are
-- floating clock times in seconds after midnight (NULL = no time). repeat_index counts the
-- occurrences of a repeating series used up (for COUNT).
CREATE TABLE tasks (
  user_pk      INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  id           INTEGER NOT NULL,
  title        TEXT    NOT NULL,
  tag          TEXT    NOT NULL DEFAULT '',
  folder       INTEGER NOT NULL DEFAULT 0,
  context      INTEGER NOT NULL DEFAULT 0,
  goal         INTEGER NOT NULL DEFAULT 0,
  location     INTEGER NOT NULL DEFAULT 0,
  parent       INTEGER NOT NULL DEFAULT 0,
  ord          INTEGER NOT NULL DEFAULT 0,
  duedate      INTEGER NOT NULL DEFAULT 0,
  duedatemod   INTEGER NOT NULL DEFAULT 0,
  startdate    INTEGER NOT NULL DEFAULT 0,
  duetime      INTEGER,
  starttime    INTEGER,
  remind       INTEGER NOT NULL DEFAULT 0,
  repeat       TEXT    NOT NULL DEFAULT '',
  repeat_index INTEGER NOT NULL DEFAULT 1,
  status       INTEGER NOT NULL DEFAULT 0,
  length       INTEGER NOT NULL DEFAULT 0,
  priority     INTEGER NOT NULL DEFAULT 0,
  star         INTEGER NOT NULL DEFAULT 0,
  modified     INTEGER NOT NULL,
  completed    INTEGER NOT NULL DEFAULT 0,
  added        INTEGER NOT NULL,
  timer        INTEGER NOT NULL DEFAULT 0,
  timeron      INTEGER NOT NULL DEFAULT 0,
  note         TEXT    NOT NULL DEFAULT '',
  previous     INTEGER NOT NULL DEFAULT 0,
  via          INTEGER NOT NULL DEFAULT 3,
  PRIMARY KEY (user_pk, id)
) STRICT;
-- Incremental sync (after=/before=) reads by modification time, whatever the account's size.
CREATE INDEX tasks_by_modified ON tasks (user_pk, modified);
-- Subtasks of a parent: children counts, cascading deletes, order among siblings.
CREATE INDEX tasks_by_parent ON tasks (user_pk, parent) WHERE parent <> 0;

-- meta is private to each app: one value per task and app.
CREATE TABLE task_meta (
  user_pk   INTEGER NOT NULL,
  task_id   INTEGER NOT NULL,
  client_pk INTEGER NOT NULL REFERENCES clients(pk) ON DELETE CASCADE,
  meta      TEXT    NOT NULL,
  PRIMARY KEY (user_pk, task_id, client_pk),
  FOREIGN KEY (user_pk, task_id) REFERENCES tasks(user_pk, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

-- Tombstones for tasks/deleted.php; ids are never reused, so one row per id.
CREATE TABLE deleted_tasks (
  user_pk INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  id      INTEGER NOT NULL,
  stamp   INTEGER NOT NULL,
  PRIMARY KEY (user_pk, id)
) STRICT, WITHOUT ROWID;
CREATE INDEX deleted_tasks_by_stamp ON deleted_tasks (user_pk, stamp);
`,
  },
  {
    version: 4,
    name: 'PKCE challenges on authorization codes',
    sql: `
-- RFC 7636: the S256 challenge an app sent with its authorization request, checked at exchange.
ALTER TABLE auth_codes ADD COLUMN code_challenge TEXT;
`,
  },
  {
    version: 5,
    name: 'shared rate-limit counters',
    sql: `
-- Used when counters must be shared between processes; one SQLite process keeps its rate limits in
-- memory (docs/decisions/0006-rate-limiter.md). One row per key holds its current fixed window.
CREATE TABLE rate_counters (
  key          TEXT    PRIMARY KEY,
  window_start INTEGER NOT NULL,
  window_end   INTEGER NOT NULL,
  count        INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX rate_counters_by_end ON rate_counters (window_end);
`,
  },
  {
    version: 6,
    name: 'redirect binding, refresh retries, pending authorization requests',
    sql: `
-- RFC 6749 4.1.3: the redirect_uri the authorization request carried (NULL when it had none); the
-- token request must repeat it.
ALTER TABLE auth_codes ADD COLUMN redirect_uri TEXT;

-- The answer of the rotation that spent a refresh token, sealed under a key derived from that
-- token (only its holder can open it), kept until retry_until for a retry within
-- REFRESH_TOKEN_REUSE_SECONDS (docs/decisions/0011-refresh-reuse-interval.md).
ALTER TABLE tokens ADD COLUMN retry_answer TEXT;
ALTER TABLE tokens ADD COLUMN retry_until INTEGER;
CREATE INDEX tokens_by_retry_until ON tokens (retry_until) WHERE retry_until IS NOT NULL;

-- An authorization request as the consent page showed it, kept here until it is answered: the
-- form carries only its random id (stored hashed), and only the browser session that saw the page
-- may answer it, once.
CREATE TABLE auth_requests (
  id             INTEGER PRIMARY KEY,
  id_hash        TEXT    NOT NULL UNIQUE,
  session_hash   TEXT    NOT NULL,
  user_pk        INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  client_pk      INTEGER NOT NULL REFERENCES clients(pk) ON DELETE CASCADE,
  scope          TEXT    NOT NULL,
  state          TEXT    NOT NULL,
  redirect_uri   TEXT,
  code_challenge TEXT,
  created_at     INTEGER NOT NULL,
  expires_at     INTEGER NOT NULL
) STRICT;
CREATE INDEX auth_requests_by_session ON auth_requests (session_hash);
CREATE INDEX auth_requests_by_expiry ON auth_requests (expires_at);
`,
  },
  {
    version: 7,
    name: 'notes, outlines, lists, rows, task attachments',
    sql: `
-- Notes take their ids from the per-account counters like tasks: the counters' kinds gain 'note'.
-- SQLite cannot change a CHECK in place, so the table is rebuilt with its rows.
CREATE TABLE id_counters_v7 (
  user_pk INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  kind    TEXT    NOT NULL CHECK (kind IN ('task', 'goal', 'context', 'folder', 'location', 'note')),
  next_id INTEGER NOT NULL,
  PRIMARY KEY (user_pk, kind)
) STRICT, WITHOUT ROWID;
INSERT INTO id_counters_v7 (user_pk, kind, next_id) SELECT user_pk, kind, next_id FROM id_counters;
DROP TABLE id_counters;
ALTER TABLE id_counters_v7 RENAME TO id_counters;

-- Notes (the notebook): folder is a folder of the account or 0.
CREATE TABLE notes (
  user_pk  INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  id       INTEGER NOT NULL,
  title    TEXT    NOT NULL,
  text     TEXT    NOT NULL DEFAULT '',
  folder   INTEGER NOT NULL DEFAULT 0,
  private  INTEGER NOT NULL DEFAULT 0,
  added    INTEGER NOT NULL,
  modified INTEGER NOT NULL,
  PRIMARY KEY (user_pk, id)
) STRICT;
CREATE INDEX notes_by_modified ON notes (user_pk, modified);
CREATE INDEX notes_by_folder ON notes (user_pk, folder) WHERE folder <> 0;

-- Outlines, lists and rows have hexadecimal string ids made by the server, and keep the client's
-- ref of the add (a second add with the same ref is refused). nodes, cols and cells are JSON.
CREATE TABLE outlines (
  user_pk  INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  id       TEXT    NOT NULL,
  ref      TEXT    NOT NULL,
  title    TEXT    NOT NULL,
  keywords TEXT    NOT NULL DEFAULT '',
  note     TEXT    NOT NULL DEFAULT '',
  hidden   INTEGER NOT NULL DEFAULT 0,
  version  INTEGER NOT NULL,
  added    INTEGER NOT NULL,
  modified INTEGER NOT NULL,
  nodes    TEXT    NOT NULL,
  PRIMARY KEY (user_pk, id),
  UNIQUE (user_pk, ref)
) STRICT, WITHOUT ROWID;
CREATE INDEX outlines_by_modified ON outlines (user_pk, modified);

CREATE TABLE lists (
  user_pk  INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  id       TEXT    NOT NULL,
  ref      TEXT    NOT NULL,
  title    TEXT    NOT NULL,
  keywords TEXT    NOT NULL DEFAULT '',
  note     TEXT    NOT NULL DEFAULT '',
  version  INTEGER NOT NULL,
  added    INTEGER NOT NULL,
  modified INTEGER NOT NULL,
  cols     TEXT    NOT NULL,
  next_col INTEGER NOT NULL,
  PRIMARY KEY (user_pk, id),
  UNIQUE (user_pk, ref)
) STRICT, WITHOUT ROWID;
CREATE INDEX lists_by_modified ON lists (user_pk, modified);

-- Rows belong to a list and go with it. Their refs are unique within their list.
CREATE TABLE list_rows (
  user_pk  INTEGER NOT NULL,
  list_id  TEXT    NOT NULL,
  id       TEXT    NOT NULL,
  ref      TEXT    NOT NULL,
  version  INTEGER NOT NULL,
  added    INTEGER NOT NULL,
  modified INTEGER NOT NULL,
  cells    TEXT    NOT NULL,
  PRIMARY KEY (user_pk, id),
  UNIQUE (user_pk, list_id, ref),
  FOREIGN KEY (user_pk, list_id) REFERENCES lists(user_pk, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;
CREATE INDEX list_rows_by_list ON list_rows (user_pk, list_id, modified);

-- Tombstones of deleted notes, outlines, lists and rows for <kind>/deleted.php (note ids as text;
-- list_id is the row's list, '' for the other kinds).
CREATE TABLE deleted_records (
  user_pk INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  kind    TEXT    NOT NULL CHECK (kind IN ('note', 'outline', 'list', 'row')),
  id      TEXT    NOT NULL,
  list_id TEXT    NOT NULL DEFAULT '',
  stamp   INTEGER NOT NULL,
  PRIMARY KEY (user_pk, kind, id)
) STRICT, WITHOUT ROWID;
CREATE INDEX deleted_records_by_stamp ON deleted_records (user_pk, kind, stamp);

-- A task's attachment: links to notes, outlines and lists (target is the record's id as text),
-- in the order they were made (seq). Deleting the task removes its links.
CREATE TABLE task_attachments (
  user_pk INTEGER NOT NULL,
  task_id INTEGER NOT NULL,
  kind    TEXT    NOT NULL CHECK (kind IN ('note', 'outline', 'list')),
  target  TEXT    NOT NULL,
  seq     INTEGER NOT NULL,
  PRIMARY KEY (user_pk, task_id, kind, target),
  FOREIGN KEY (user_pk, task_id) REFERENCES tasks(user_pk, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;
CREATE INDEX task_attachments_by_target ON task_attachments (user_pk, kind, target);
`,
  },
  {
    version: 8,
    name: 'admins, app owners and redirect sets, app icons, one-time account links',
    sql: `
-- Admins invite people by link and see every registered app.
ALTER TABLE accounts ADD COLUMN is_admin INTEGER NOT NULL DEFAULT 0;

-- An app registered on the web pages belongs to the account that registered it (NULL: registered
-- with the command line), and goes when that account is deleted.
ALTER TABLE clients ADD COLUMN owner_pk INTEGER REFERENCES accounts(pk) ON DELETE CASCADE;
ALTER TABLE clients ADD COLUMN website TEXT;
CREATE INDEX clients_by_owner ON clients (owner_pk) WHERE owner_pk IS NOT NULL;

-- An app may have several redirect addresses, each compared by exact string match. The one
-- address apps had so far becomes the first of their set.
CREATE TABLE client_redirects (
  client_pk INTEGER NOT NULL REFERENCES clients(pk) ON DELETE CASCADE,
  position  INTEGER NOT NULL,
  uri       TEXT    NOT NULL,
  PRIMARY KEY (client_pk, position),
  UNIQUE (client_pk, uri)
) STRICT, WITHOUT ROWID;
INSERT INTO client_redirects (client_pk, position, uri) SELECT pk, 0, redirect_uri FROM clients;
ALTER TABLE clients DROP COLUMN redirect_uri;

-- An app's icon, uploaded by its developer and served by this server (pages allow images from
-- here only). Base64 text: the same column type on both databases.
CREATE TABLE client_icons (
  client_pk  INTEGER PRIMARY KEY REFERENCES clients(pk) ON DELETE CASCADE,
  media_type TEXT    NOT NULL,
  data       TEXT    NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

-- One-time links: a password reset for user_pk, or an invitation made by the admin user_pk.
-- Only the hash of the link's secret is stored; a link is deleted when used.
CREATE TABLE account_links (
  id_hash    TEXT    PRIMARY KEY,
  kind       TEXT    NOT NULL CHECK (kind IN ('reset', 'invite')),
  user_pk    INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  note       TEXT    NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX account_links_by_user ON account_links (user_pk, kind);
CREATE INDEX account_links_by_expiry ON account_links (expires_at);
`,
  },
  {
    version: 9,
    name: 'import id map and resume state',
    sql: `
-- What bin/tickler import copied from another server (or a file) into an account: for each
-- source record (kind and its id there), the local record it became, the source's own stamp of it
-- when copied (its modified, 0 for kinds without one) and, for a task whose parent or previous
-- task had not been copied yet, those references waiting to be resolved (JSON). Keyed by the
-- account and the source, so an interrupted import resumes on any instance and a second run
-- updates instead of duplicating.
CREATE TABLE import_map (
  user_pk   INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  source    TEXT    NOT NULL,
  kind      TEXT    NOT NULL CHECK (kind IN ('folder', 'context', 'goal', 'location', 'note', 'outline', 'list', 'row', 'task')),
  source_id TEXT    NOT NULL,
  local_id  TEXT    NOT NULL,
  stamp     INTEGER NOT NULL DEFAULT 0,
  pending   TEXT,
  PRIMARY KEY (user_pk, source, kind, source_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX import_map_pending ON import_map (user_pk, source, kind) WHERE pending IS NOT NULL;

-- An import's progress per account and source (JSON): the source's stamps its last complete run
-- reached, and the run under way (its stamps and how far each kind got).
CREATE TABLE import_runs (
  user_pk    INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  source     TEXT    NOT NULL,
  state      TEXT    NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (user_pk, source)
) STRICT, WITHOUT ROWID;
`,
  },
  {
    version: 10,
    name: 'tasks counted per account',
    sql: `
-- The number of tasks an account holds, kept by every insert and delete of tasks in the same
-- transaction: the 80,000 limit is checked on every add, and count(*) walks all of an account's
-- tasks (0.5 ms at 20,000, growing with them).
ALTER TABLE accounts ADD COLUMN task_count INTEGER NOT NULL DEFAULT 0;
UPDATE accounts SET task_count = (SELECT count(*) FROM tasks WHERE tasks.user_pk = accounts.pk);
`,
  },
  {
    version: 11,
    name: 'collaborators, joint tasks, reassigned tasks, saved searches',
    sql: `
-- Two rows per pair of accounts, one per side: the side's state (it sent the invitation, received
-- it, or both accepted) and what the side lets the other do: reassign tasks to it, share with it.
CREATE TABLE collaborators (
  user_pk        INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  other_pk       INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  state          TEXT    NOT NULL CHECK (state IN ('sent', 'received', 'accepted')),
  allow_reassign INTEGER NOT NULL CHECK (allow_reassign IN (0, 1)),
  allow_share    INTEGER NOT NULL CHECK (allow_share IN (0, 1)),
  created_at     INTEGER NOT NULL,
  PRIMARY KEY (user_pk, other_pk),
  CHECK (user_pk <> other_pk)
) STRICT, WITHOUT ROWID;
CREATE INDEX collaborators_by_other ON collaborators (other_pk);

-- A joint task: one copy per participant, in each one's own account (docs/decisions/0015). The
-- share belongs to the owner's copy; deleting that copy, or the owner, ends the share.
CREATE TABLE shares (
  pk      INTEGER PRIMARY KEY,
  user_pk INTEGER NOT NULL,
  task_id INTEGER NOT NULL,
  UNIQUE (user_pk, task_id),
  FOREIGN KEY (user_pk, task_id) REFERENCES tasks(user_pk, id) ON DELETE CASCADE
) STRICT;
CREATE TABLE task_shares (
  user_pk  INTEGER NOT NULL,
  task_id  INTEGER NOT NULL,
  share_pk INTEGER NOT NULL REFERENCES shares(pk) ON DELETE CASCADE,
  PRIMARY KEY (user_pk, task_id),
  FOREIGN KEY (user_pk, task_id) REFERENCES tasks(user_pk, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;
CREATE INDEX task_shares_by_share ON task_shares (share_pk);

-- Who reassigned a task to its account (the task's addedby).
CREATE TABLE task_added_by (
  user_pk INTEGER NOT NULL,
  task_id INTEGER NOT NULL,
  by_pk   INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  PRIMARY KEY (user_pk, task_id),
  FOREIGN KEY (user_pk, task_id) REFERENCES tasks(user_pk, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

CREATE TABLE saved_searches (
  id       INTEGER PRIMARY KEY,
  user_pk  INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  name     TEXT    NOT NULL,
  bool     TEXT    NOT NULL CHECK (bool IN ('All', 'Any')),
  rules    TEXT    NOT NULL,
  modified INTEGER NOT NULL
) STRICT;
CREATE INDEX saved_searches_by_user ON saved_searches (user_pk, id);
`,
  },
  {
    version: 12,
    name: 'tasks keep their text as XML where that differs',
    sql: `
-- A task's title, tag, repeat and note as XML text (entities, CR's reference, the characters XML
-- forbids left out), each only where that differs from the text (NULL otherwise), in a row only for
-- a task that has such text: tasks/get's XML is then written by the database without escaping
-- (sql/tasks.ts, XML_KEPT), and reads of the tasks themselves do not carry it. Written with every
-- insert and update of a task; the tasks already stored get theirs here, by the XML writer's rule.
CREATE TABLE task_xml (
  user_pk INTEGER NOT NULL,
  task_id INTEGER NOT NULL,
  title   TEXT,
  tag     TEXT,
  repeat  TEXT,
  note    TEXT,
  PRIMARY KEY (user_pk, task_id),
  FOREIGN KEY (user_pk, task_id) REFERENCES tasks(user_pk, id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;
INSERT INTO task_xml (user_pk, task_id, title, tag, repeat, note)
SELECT user_pk, id,
  CASE WHEN title GLOB ${XML_WORK} THEN ${xmlText('title')} END,
  CASE WHEN tag GLOB ${XML_WORK} THEN ${xmlText('tag')} END,
  CASE WHEN repeat GLOB ${XML_WORK} THEN ${xmlText('repeat')} END,
  CASE WHEN note GLOB ${XML_WORK} THEN ${xmlText('note')} END
  FROM tasks WHERE (title || tag || repeat || note) GLOB ${XML_WORK};
`,
    afterSql: keepXmlOfTextWithNul,
  },
  {
    version: 13,
    name: 'the settled read of accounts',
    sql: `
-- Nothing to change here: PostgreSQL's step 13 gives it functions for account/get's settled reads,
-- which SQLite's store does behind its writer's queue instead (sqlite-store.ts, settledAccount).
-- The step exists so that the two schemas keep the same versions.
SELECT 1;
`,
  },
  {
    version: 14,
    name: 'notes, outlines, lists and rows counted',
    sql: `
-- The number of notes, outlines and lists an account holds, and of rows a list holds, kept by
-- every insert and delete of them in the same transaction, as task_count is (step 10): each add
-- checks its limit, and count(*) walked all of an account's notes (notes/add of 50 spent a third
-- of its time counting, growing with the account), and every read of a list counted its rows.
ALTER TABLE accounts ADD COLUMN note_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN outline_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN list_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE lists ADD COLUMN row_count INTEGER NOT NULL DEFAULT 0;
UPDATE accounts SET
  note_count = (SELECT count(*) FROM notes WHERE notes.user_pk = accounts.pk),
  outline_count = (SELECT count(*) FROM outlines WHERE outlines.user_pk = accounts.pk),
  list_count = (SELECT count(*) FROM lists WHERE lists.user_pk = accounts.pk);
UPDATE lists SET row_count = (SELECT count(*) FROM list_rows r WHERE r.user_pk = lists.user_pk AND r.list_id = lists.id);
`,
  },
  {
    version: 15,
    name: 'notes keep their text as JSON where that differs',
    sql: `
-- Nothing to change here: PostgreSQL's step 15 keeps each note's text as JSON, computed with every
-- write, because escaping it in notes/get's statement was a third of PostgreSQL's work. SQLite's
-- statement escapes in the server's own process, and its notes/get meets its goals without a copy
-- (docs/decisions/0007). The step exists so that the two schemas keep the same versions.
SELECT 1;
`,
  },
  {
    version: 16,
    name: 'lists keep their columns in the order they are answered',
    sql: `
-- A list's columns were stored with their keys in the order the code built them (id, title, type,
-- width, sort); lists/get answers them as the hosted service does (title, type, id, sort, width,
-- then choices). Every write now stores that order (document-tables.ts), so that the database
-- writes lists/get's records from the stored JSON as it is; this rewrites what is stored. Each
-- value is the stored JSON text of that key (->), so nothing is escaped again. A list any of whose
-- columns lacks one of the five keys (none is written so) keeps its columns as they are: a
-- missing key makes that column's text NULL, and the count of texts then falls short of the
-- count of columns.
UPDATE lists SET cols = coalesce((
  SELECT CASE WHEN count(*) = count(e.col) THEN '[' || group_concat(e.col, ',' ORDER BY e.key) || ']' END
  FROM (
    SELECT c.key,
      '{"title":' || (c.value -> '$.title') || ',"type":' || (c.value -> '$.type') || ',"id":' || (c.value -> '$.id')
        || ',"sort":' || (c.value -> '$.sort') || ',"width":' || (c.value -> '$.width')
        || CASE WHEN (c.value ->> '$.choices') IS NULL THEN '' ELSE ',"choices":' || (c.value -> '$.choices') END || '}' AS col
    FROM json_each(lists.cols) c
  ) e
), cols)
WHERE json_array_length(cols) > 0;
`,
  },
  {
    version: 17,
    name: 'the change log: one counter per account, the latest change of each record',
    sql: changeLogSql(),
  },
  {
    version: 18,
    name: 'idempotency keys',
    sql: `
-- The Idempotency-Key of a POST (docs/decisions/0022): per app, account and key, the request's
-- fingerprint, the attempt that holds it and its lease while it runs (status NULL), then its
-- answer, until expires_at (24 hours). Pruned with the other expired credentials.
CREATE TABLE idempotency_keys (
  user_pk      INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  client_pk    INTEGER NOT NULL REFERENCES clients(pk) ON DELETE CASCADE,
  key          TEXT    NOT NULL,
  fingerprint  TEXT    NOT NULL,
  attempt      TEXT    NOT NULL,
  locked_until INTEGER NOT NULL,
  status       INTEGER,
  content_type TEXT,
  body         TEXT,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  PRIMARY KEY (user_pk, client_pk, key)
) STRICT, WITHOUT ROWID;
CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
CREATE INDEX idempotency_keys_by_client ON idempotency_keys (client_pk);
`,
  },
  {
    version: 19,
    name: 'app passwords',
    sql: `
-- Passwords a person makes for one app each (a phone's CalDAV account; docs/decisions/0024): only
-- the SHA-256 of the password is kept (it is random, 80 bits: nothing to guess from the hash), and
-- a sign-in finds the row by it. Revoking one deletes its row; an account's go with it (cascade).
-- last_used_at and last_device are recorded at most once a minute per password.
CREATE TABLE app_passwords (
  id           INTEGER PRIMARY KEY,
  user_pk      INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  name         TEXT    NOT NULL,
  secret_hash  TEXT    NOT NULL UNIQUE,
  read_only    INTEGER NOT NULL CHECK (read_only IN (0, 1)),
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER,
  last_device  TEXT
) STRICT;
CREATE INDEX app_passwords_by_user ON app_passwords (user_pk, id);
`,
  },
  {
    version: 20,
    name: 'CalDAV: the names, UIDs and kept properties of calendar objects, and calendars\' properties',
    sql: `
-- A task a CalDAV client created or changed: the resource name and UID it chose, and what of its
-- VTODO Tickler does not model (jCal, written back as it came: src/ical/). A task without a row
-- has names of Tickler's own. A row outlives its task until the task's exit from its folder is
-- pruned, so that calendars can still report the name gone (src/storage/sql/caldav.ts).
CREATE TABLE caldav_objects (
  user_pk INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  task_id INTEGER NOT NULL,
  name    TEXT    NOT NULL,
  uid     TEXT    NOT NULL,
  kept    TEXT    NOT NULL,
  PRIMARY KEY (user_pk, task_id),
  UNIQUE (user_pk, name),
  UNIQUE (user_pk, uid)
) STRICT, WITHOUT ROWID;

-- Properties clients set on a calendar that Tickler keeps for them (a colour, an order), as XML.
-- folder 0 is the calendar of the tasks without a folder.
CREATE TABLE caldav_calendars (
  user_pk INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  folder  INTEGER NOT NULL,
  props   TEXT    NOT NULL,
  PRIMARY KEY (user_pk, folder)
) STRICT, WITHOUT ROWID;

-- What is kept of a calendar object is part of it: a change to it is a change of its task (its
-- ETag, the calendars' sync tokens), as migration 17's triggers write one.
CREATE TRIGGER caldav_objects_changed_on_insert AFTER INSERT ON caldav_objects
WHEN EXISTS (SELECT 1 FROM tasks WHERE user_pk = NEW.user_pk AND id = NEW.task_id) BEGIN
  UPDATE accounts SET change_seq = change_seq + 1 WHERE pk = NEW.user_pk;
  INSERT INTO changes (user_pk, kind, rec_id, seq, gone, at)
    SELECT pk, 'task', CAST(NEW.task_id AS TEXT), change_seq, 0, unixepoch() FROM accounts WHERE pk = NEW.user_pk
    ON CONFLICT (user_pk, kind, rec_id) DO UPDATE SET seq = excluded.seq, gone = excluded.gone, at = excluded.at;
END;
CREATE TRIGGER caldav_objects_changed_on_update AFTER UPDATE ON caldav_objects
WHEN EXISTS (SELECT 1 FROM tasks WHERE user_pk = NEW.user_pk AND id = NEW.task_id) BEGIN
  UPDATE accounts SET change_seq = change_seq + 1 WHERE pk = NEW.user_pk;
  INSERT INTO changes (user_pk, kind, rec_id, seq, gone, at)
    SELECT pk, 'task', CAST(NEW.task_id AS TEXT), change_seq, 0, unixepoch() FROM accounts WHERE pk = NEW.user_pk
    ON CONFLICT (user_pk, kind, rec_id) DO UPDATE SET seq = excluded.seq, gone = excluded.gone, at = excluded.at;
END;
`,
  },
  {
    version: 21,
    name: 'calendar feeds',
    sql: `
-- Read-only iCalendar subscriptions (docs/feeds.md): an account's tasks with a due date, or one
-- folder's (folder NULL: the whole account), at an address holding a random secret of 160 bits.
-- Only the secret's SHA-256 is kept, and a fetch finds the row by it. Revoking a feed deletes its
-- row; a folder's feeds go with the folder and an account's with the account (cascades).
-- last_fetched_at is recorded at most once a minute per feed.
CREATE TABLE calendar_feeds (
  id              INTEGER PRIMARY KEY,
  user_pk         INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  folder          INTEGER,
  secret_hash     TEXT    NOT NULL UNIQUE,
  created_at      INTEGER NOT NULL,
  last_fetched_at INTEGER,
  FOREIGN KEY (user_pk, folder) REFERENCES folders (user_pk, id) ON DELETE CASCADE
) STRICT;
CREATE INDEX calendar_feeds_by_user ON calendar_feeds (user_pk, id);
-- A deleted folder's feeds are found through the key's columns.
CREATE INDEX calendar_feeds_by_folder ON calendar_feeds (user_pk, folder);
`,
  },
  {
    version: 22,
    name: 'push: event stream leases, webhook endpoints, their outbox, attempts and the positions told',
    sql: `
-- A server-sent event stream holds one of its account's SSE_MAX_PER_ACCOUNT slots while it lasts
-- (docs/decisions/0026-push.md). Taking a slot is an insert on (user_pk, slot), so two instances
-- never both take the last one; its instance renews the lease while the stream lives, and a slot
-- whose lease ran out (its instance died) is free again.
CREATE TABLE sse_leases (
  user_pk    INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  slot       INTEGER NOT NULL,
  holder     TEXT    NOT NULL UNIQUE,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (user_pk, slot)
) STRICT, WITHOUT ROWID;

-- An app's webhook endpoints. The secret signs every delivery (Standard Webhooks), so it is kept
-- as it is: a hash could not sign. failing_since: the first failed attempt since the last that
-- succeeded; an endpoint failing for 3 days is disabled (disabled_at) until its developer enables it.
CREATE TABLE webhook_endpoints (
  id            TEXT    PRIMARY KEY,
  client_pk     INTEGER NOT NULL REFERENCES clients(pk) ON DELETE CASCADE,
  url           TEXT    NOT NULL,
  secret        TEXT    NOT NULL,
  created_at    INTEGER NOT NULL,
  failing_since INTEGER,
  disabled_at   INTEGER
) STRICT;
CREATE INDEX webhook_endpoints_by_client ON webhook_endpoints (client_pk);

-- The position of each watched account's change log up to which its changes have been turned
-- into deliveries (a worker compares it with accounts.change_seq).
CREATE TABLE webhook_marks (
  user_pk INTEGER PRIMARY KEY REFERENCES accounts(pk) ON DELETE CASCADE,
  seq     INTEGER NOT NULL
) STRICT;

-- The outbox: at most one delivery per endpoint and account (bursts coalesce: kinds is a bit set
-- of the kinds changed, in CHANGE_KINDS' order), claimed by an instance until claimed_until;
-- fresh_kinds: kinds changed while a claim was sending, told by the next delivery. A test event
-- has no account (user_pk NULL).
CREATE TABLE webhook_deliveries (
  id            INTEGER PRIMARY KEY,
  endpoint_id   TEXT    NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  user_pk       INTEGER REFERENCES accounts(pk) ON DELETE CASCADE,
  kind          TEXT    NOT NULL CHECK (kind IN ('changes', 'test')),
  kinds         INTEGER NOT NULL,
  fresh_kinds   INTEGER NOT NULL,
  attempts      INTEGER NOT NULL,
  due_at        INTEGER NOT NULL,
  claimed_by    TEXT,
  claimed_until INTEGER,
  msg_id        TEXT    NOT NULL,
  msg_body      TEXT,
  created_at    INTEGER NOT NULL,
  UNIQUE (endpoint_id, user_pk)
) STRICT;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (due_at);
CREATE INDEX webhook_deliveries_by_user ON webhook_deliveries (user_pk);

-- What each attempt met (the developer page shows an endpoint's last 100; older ones are dropped).
CREATE TABLE webhook_attempts (
  id          INTEGER PRIMARY KEY,
  endpoint_id TEXT    NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  user_pk     INTEGER REFERENCES accounts(pk) ON DELETE CASCADE,
  msg_id      TEXT    NOT NULL,
  attempt     INTEGER NOT NULL,
  at          INTEGER NOT NULL,
  status      INTEGER,
  error       TEXT,
  latency_ms  INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_attempts_by_endpoint ON webhook_attempts (endpoint_id, id);
CREATE INDEX webhook_attempts_by_user ON webhook_attempts (user_pk);
`,
  },
];

/**
 * Migration 17, fixed here as it ran (docs/decisions/0023-change-log.md). Every record of the nine
 * kinds the change feed and CalDAV serve has one row in `changes`: the position in its account's
 * change sequence of its latest change, and whether that change deleted it. The triggers write it
 * in the statement that changes the record, whatever wrote it (a service, an import, a cascade of
 * a list's delete to its rows), and take the position from the account's counter
 * (accounts.change_seq), so the sequence of one account follows its commits: SQLite has one
 * writer. An account's own deletion leaves nothing behind: its row is gone when the cascade to its
 * records fires these triggers, so they find no counter to move. A task that leaves a folder (moved,
 * or deleted) also leaves a row in `task_folder_exits`, which a folder's calendar reads to report
 * the task gone from it.
 */
function loggedTables(): ReadonlyArray<readonly [kind: string, table: string]> {
  return [
    ['task', 'tasks'],
    ['folder', 'folders'],
    ['context', 'contexts'],
    ['goal', 'goals'],
    ['location', 'locations'],
    ['note', 'notes'],
    ['outline', 'outlines'],
    ['list', 'lists'],
    ['row', 'list_rows'],
  ];
}

function changeTrigger(kind: string, table: string, event: 'INSERT' | 'UPDATE' | 'DELETE'): string {
  const row = event === 'DELETE' ? 'OLD' : 'NEW';
  const gone = event === 'DELETE' ? 1 : 0;
  const exit =
    kind !== 'task' || event === 'INSERT'
      ? ''
      : `
  INSERT INTO task_folder_exits (user_pk, folder, task_id, seq, at)
    SELECT pk, OLD.folder, OLD.id, change_seq, unixepoch() FROM accounts WHERE pk = OLD.user_pk${event === 'UPDATE' ? ' AND OLD.folder <> NEW.folder' : ''}
    ON CONFLICT (user_pk, folder, task_id) DO UPDATE SET seq = excluded.seq, at = excluded.at;`;
  return `
CREATE TRIGGER ${table}_changed_on_${event.toLowerCase()} AFTER ${event} ON ${table} BEGIN
  UPDATE accounts SET change_seq = change_seq + 1 WHERE pk = ${row}.user_pk;
  INSERT INTO changes (user_pk, kind, rec_id, seq, gone, at)
    SELECT pk, '${kind}', CAST(${row}.id AS TEXT), change_seq, ${gone}, unixepoch() FROM accounts WHERE pk = ${row}.user_pk
    ON CONFLICT (user_pk, kind, rec_id) DO UPDATE SET seq = excluded.seq, gone = excluded.gone, at = excluded.at;${exit}
END;`;
}

function changeLogSql(): string {
  const kinds = loggedTables().map(([k]) => `'${k}'`).join(', ');
  const everyRecord = loggedTables().map(
    ([kind, table]) => `SELECT user_pk, '${kind}' AS kind, CAST(id AS TEXT) AS rec_id, ${['tasks', 'notes', 'outlines', 'lists', 'list_rows'].includes(table) ? 'modified' : '0'} AS modified FROM ${table}`,
  ).join('\n  UNION ALL ');
  return `
-- The change counter of each account: the position of its latest change. changes_floor: the
-- highest position of a deletion that was pruned (CHANGES_RETENTION_DAYS); a cursor below it may
-- have missed that deletion, and is answered "start again".
ALTER TABLE accounts ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN changes_floor INTEGER NOT NULL DEFAULT 0;

-- The latest change of each record: its position, whether it deleted the record (gone), and when
-- (database clock, for pruning deletions). Records that exist appear once, whatever their age.
CREATE TABLE changes (
  user_pk INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  kind    TEXT    NOT NULL CHECK (kind IN (${kinds})),
  rec_id  TEXT    NOT NULL,
  seq     INTEGER NOT NULL,
  gone    INTEGER NOT NULL CHECK (gone IN (0, 1)),
  at      INTEGER NOT NULL,
  PRIMARY KEY (user_pk, kind, rec_id)
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX changes_by_seq ON changes (user_pk, seq);
CREATE INDEX changes_gone_by_time ON changes (at) WHERE gone = 1;

-- The latest time a task left a folder (moved to another, or deleted), at its change's position.
CREATE TABLE task_folder_exits (
  user_pk INTEGER NOT NULL REFERENCES accounts(pk) ON DELETE CASCADE,
  folder  INTEGER NOT NULL,
  task_id INTEGER NOT NULL,
  seq     INTEGER NOT NULL,
  at      INTEGER NOT NULL,
  PRIMARY KEY (user_pk, folder, task_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX task_folder_exits_by_seq ON task_folder_exits (user_pk, folder, seq);
CREATE INDEX task_folder_exits_by_time ON task_folder_exits (at);

-- What is stored now: every record, oldest change first (by its modified stamp where it has one).
INSERT INTO changes (user_pk, kind, rec_id, seq, gone, at)
SELECT user_pk, kind, rec_id, row_number() OVER (PARTITION BY user_pk ORDER BY modified, kind, rec_id), 0, unixepoch()
FROM (
  ${everyRecord}
);
UPDATE accounts SET change_seq = coalesce((SELECT max(seq) FROM changes WHERE changes.user_pk = accounts.pk), 0);
${loggedTables().flatMap(([kind, table]) => (['INSERT', 'UPDATE', 'DELETE'] as const).map((e) => changeTrigger(kind, table, e))).join('\n')}
`;
}
