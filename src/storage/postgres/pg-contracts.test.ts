import { describe, it } from 'node:test';
import { testDatabaseUrl } from '../../../test/database.js';
import { accountsAppsContract } from '../accounts-apps.contract.js';
import { caldavContract } from '../caldav.contract.js';
import { appPasswordsContract } from '../app-passwords.contract.js';
import { changesContract } from '../changes.contract.js';
import { documentsContract } from '../documents.contract.js';
import { feedsContract } from '../feeds.contract.js';
import { idempotencyContract } from '../idempotency.contract.js';
import { importsContract } from '../imports.contract.js';
import { oauthContract } from '../oauth.contract.js';
import { organizersContract } from '../organizers.contract.js';
import { pushContract } from '../push.contract.js';
import { sharingContract } from '../sharing.contract.js';
import { tasksContract } from '../tasks.contract.js';
import { openPostgres } from './open-postgres.test-kit.js';

// The storage contracts of each resource on PostgreSQL (the store's own contract and the schema
// tests are in pg-store.test.ts): a file of their own, so that the two halves run side by side.
if (testDatabaseUrl()) {
  tasksContract('postgres', openPostgres);
  organizersContract('postgres', openPostgres);
  oauthContract('postgres', openPostgres);
  documentsContract('postgres', openPostgres);
  accountsAppsContract('postgres', openPostgres);
  importsContract('postgres', openPostgres);
  sharingContract('postgres', openPostgres);
  changesContract('postgres', openPostgres);
  caldavContract('postgres', openPostgres);
  idempotencyContract('postgres', openPostgres);
  appPasswordsContract('postgres', openPostgres);
  feedsContract('postgres', openPostgres);
  pushContract('postgres', openPostgres);
} else {
  describe('postgres storage contracts', () => {
    it('are skipped: TEST_DATABASE_URL is not set', { skip: 'set TEST_DATABASE_URL (as .ci/run does) to run the PostgreSQL part' }, () => undefined);
  });
}
