import type { Repos } from '../store.js';
import { SqlAccountLinks } from './account-links.js';
import { SqlAccounts } from './accounts.js';
import { SqlAppPasswords } from './app-passwords.js';
import { SqlAuthRequests } from './auth-requests.js';
import { SqlAttachments } from './attachments.js';
import { SqlCaldav } from './caldav.js';
import { SqlChanges } from './changes.js';
import { SqlClients } from './clients.js';
import type { Dialect, LockRows, SqlDb } from './db.js';
import { SqlDocuments } from './documents.js';
import { SqlCalendarFeeds } from './feeds.js';
import { SqlIdempotency } from './idempotency.js';
import { SqlImports } from './imports.js';
import { SqlOAuth } from './oauth.js';
import { SqlOrganizers } from './organizers.js';
import { SqlSessions } from './sessions.js';
import { SqlSseLeases } from './sse-leases.js';
import { SqlSharing } from './sharing.js';
import { SqlTasks } from './tasks.js';
import { SqlWebhooks } from './webhooks.js';

/**
 * The repositories of the storage port, written once in SQL for every database. `inTransaction`
 * makes reads that precede a write lock their rows where the database needs it (PostgreSQL).
 */
export function makeRepos(db: SqlDb, dialect: Dialect, inTransaction: boolean): Repos {
  const lockRows: LockRows = inTransaction ? (of) => dialect.lockRows(of) : () => '';
  return {
    accounts: new SqlAccounts(db, dialect, inTransaction),
    clients: new SqlClients(db, dialect),
    oauth: new SqlOAuth(db, lockRows, dialect),
    authRequests: new SqlAuthRequests(db),
    sessions: new SqlSessions(db),
    accountLinks: new SqlAccountLinks(db),
    tasks: new SqlTasks(db, dialect),
    organizers: new SqlOrganizers(db, dialect),
    documents: new SqlDocuments(db, dialect),
    attachments: new SqlAttachments(db, dialect),
    imports: new SqlImports(db),
    sharing: new SqlSharing(db, dialect),
    changes: new SqlChanges(db, dialect),
    caldav: new SqlCaldav(db, dialect),
    idempotency: new SqlIdempotency(db),
    appPasswords: new SqlAppPasswords(db, dialect),
    calendarFeeds: new SqlCalendarFeeds(db, dialect),
    sseLeases: new SqlSseLeases(db, dialect),
    webhooks: new SqlWebhooks(db, dialect),
  };
}
