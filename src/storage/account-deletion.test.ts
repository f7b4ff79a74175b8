import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Browser } from '../../test/browser.js';
import { api, authorize, createAccount, signIn, testContext, type TestContext } from '../../test/harness.js';
import { signedInBrowser } from '../../test/web-pages.js';
import { exportAccount } from '../features/moving/export.service.js';
import { runImport } from '../features/moving/import.service.js';
import { JsonSource } from '../features/moving/json-source.js';
import { createAppPassword, signInWithAppPassword } from '../features/users/app-passwords.service.js';
import { makeInvite, makeResetLink } from '../features/users/links.service.js';
import { deleteAccount } from '../features/users/users.service.js';
import { registerClient } from '../oauth/clients.service.js';
import { authorizeUrl } from '../oauth/authorize.test-kit.js';

/**
 * Deleting an account removes every record of it, in every table, because every table that holds
 * an account's rows reaches `accounts` through foreign keys that cascade. The schema test lists
 * the tables with a `user_pk` column from the database itself, so that a table added later (by
 * any branch) without such a key fails here instead of keeping a deleted person's data.
 */

interface ForeignKey {
  readonly table: string;
  readonly parent: string;
  readonly onDelete: string;
}

interface Schema {
  readonly tables: string[];
  /** Tables with a user_pk column. */
  readonly withUser: string[];
  readonly keys: ForeignKey[];
  count(table: string, userPk: number): Promise<number>;
  close(): Promise<void>;
}

async function schemaOf(ctx: TestContext): Promise<Schema> {
  const database = ctx.config.database;
  if (database.kind === 'sqlite') {
    const db = new Database(database.path, { readonly: true });
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
    const columns = (t: string) => (db.pragma(`table_info(${JSON.stringify(t)})`) as Array<{ name: string }>).map((c) => c.name);
    const keys = tables.flatMap((t) =>
      (db.pragma(`foreign_key_list(${JSON.stringify(t)})`) as Array<{ table: string; on_delete: string }>).map((k) => ({ table: t, parent: k.table, onDelete: k.on_delete.toUpperCase() })),
    );
    return {
      tables,
      withUser: tables.filter((t) => columns(t).includes('user_pk')),
      keys,
      count: async (t, userPk) => (db.prepare(`SELECT count(*) AS n FROM "${t}" WHERE user_pk = ?`).get(userPk) as { n: number }).n,
      close: async () => void db.close(),
    };
  }
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  const tables = (await pool.query("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name")).rows.map((r: { table_name: string }) => r.table_name);
  const withUser = (await pool.query("SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'user_pk' ORDER BY table_name")).rows.map((r: { table_name: string }) => r.table_name);
  const keys = (
    await pool.query(
      `SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent, c.confdeltype AS action
       FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE c.contype = 'f' AND n.nspname = current_schema()`,
    )
  ).rows.map((r: { child: string; parent: string; action: string }) => ({ table: r.child, parent: r.parent, onDelete: r.action === 'c' ? 'CASCADE' : r.action === 'n' ? 'SET NULL' : r.action }));
  return {
    tables,
    withUser,
    keys,
    count: async (t, userPk) => Number((await pool.query(`SELECT count(*) AS n FROM "${t}" WHERE user_pk = $1`, [userPk])).rows[0].n),
    close: () => pool.end(),
  };
}

/** The tables a deleted account's rows vanish from: reached from accounts by cascading keys. */
function cascadingFromAccounts(keys: readonly ForeignKey[]): Set<string> {
  const reached = new Set(['accounts']);
  for (let grew = true; grew; ) {
    grew = false;
    for (const k of keys) {
      if (k.onDelete === 'CASCADE' && reached.has(k.parent) && !reached.has(k.table)) {
        reached.add(k.table);
        grew = true;
      }
    }
  }
  return reached;
}

describe('deleting an account removes every record of it', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await testContext();
  });
  after(() => ctx.close());

  it('every table with a user_pk column reaches accounts through foreign keys that cascade, and so does every key to accounts', async () => {
    const schema = await schemaOf(ctx);
    try {
      assert.ok(schema.withUser.length >= 14, `found ${schema.withUser.join(', ')}`);
      const reached = cascadingFromAccounts(schema.keys);
      const missed = schema.withUser.filter((t) => !reached.has(t));
      assert.deepEqual(missed, [], 'a table holding accounts’ rows that deleting an account would leave behind');
      const loose = schema.keys.filter((k) => k.parent === 'accounts' && k.onDelete !== 'CASCADE');
      assert.deepEqual(loose, [], 'a key to accounts that would block or outlive a deletion');
    } finally {
      await schema.close();
    }
  });

  it('an account with something in every such table: afterwards none of its rows is left, and another account keeps all of its own', async () => {
    const schema = await schemaOf(ctx);
    try {
      const fill = async () => {
        const { account, token, app } = await signIn(ctx, { pro: 1, scope: 'basic tasks notes outlines lists write share' });
        const [folder] = (await api(ctx, token, '/3/folders/add.php', { name: 'F' })).json<Array<{ id: number }>>();
        // A call made with an Idempotency-Key: its answer is kept for the app and the account.
        const keyed = await ctx.app.inject({ method: 'POST', url: '/3/folders/add.php', headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'k1' }, payload: { name: 'K' } });
        assert.equal(keyed.statusCode, 200);
        await api(ctx, token, '/3/contexts/add.php', { name: 'C' });
        await api(ctx, token, '/3/goals/add.php', { name: 'G' });
        await api(ctx, token, '/3/locations/add.php', { name: 'L' });
        const added = (await api(ctx, token, '/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'Kept & kept', meta: 'm' }, { title: 'Gone' }]) })).json<Array<{ id: number }>>();
        await api(ctx, token, '/3/tasks/delete.php', { tasks: JSON.stringify([added[1]?.id]) });
        // Notes (one deleted: a tombstone), an outline, a list with a row, a task's attachment.
        const notes = (await api(ctx, token, '/3/notes/add.php', { notes: JSON.stringify([{ title: 'Kept' }, { title: 'Gone' }]) })).json<Array<{ id: number }>>();
        await api(ctx, token, '/3/notes/delete.php', { notes: JSON.stringify([notes[1]?.id]) });
        await api(ctx, token, '/3/outlines/add.php', { outlines: JSON.stringify([{ title: 'Plan', ref: 'p', nodes: [{ content: 'a' }] }]) });
        const [list] = (await api(ctx, token, '/3/lists/add.php', { lists: JSON.stringify([{ title: 'L', ref: 'l', cols: [{ title: 'Item', type: 19 }] }]) })).json<Array<{ id: string }>>();
        await api(ctx, token, '/3/rows/add.php', { rows: JSON.stringify([{ list: list?.id, ref: 'r', cells: { c1: 'Milk' } }]) });
        await api(ctx, token, '/3/tasks/edit.php', { tasks: JSON.stringify([{ id: added[0]?.id, attach: [{ kind: 'note', id: notes[0]?.id }] }]) });
        // An import (its id map and its progress): the account's own export read back into it.
        const exported = await exportAccount(ctx.deps, account.pk);
        await runImport(ctx.deps, account.pk, JsonSource.parse(JSON.stringify(exported)));
        // A browser session, a known device, a pending consent page, an unspent code.
        const b = await signedInBrowser(ctx, account, new Browser(ctx.app));
        await b.get(authorizeUrl(app));
        const { issueCode } = await import('../../test/harness.js');
        await issueCode(ctx, account, app);
        await makeResetLink(ctx.deps, account.pk, 3600);
        // An app password (CalDAV's sign-in), used once: after the deletion it no longer signs in.
        const appPassword = (await createAppPassword(ctx.deps, account.pk, { name: 'Phone', readOnly: false })).password;
        assert.equal((await signInWithAppPassword(ctx.deps, { email: account.email, password: appPassword, address: '192.0.2.1', device: 'x' })).kind, 'ok');
        await makeInvite(ctx.deps, account.pk, 'x');
        // An app the account registered, which someone else uses.
        const own = await registerClient(ctx.deps, { name: 'Owned', redirectUris: ['https://owned.example/cb'], ownerPk: account.pk });
        const user = await createAccount(ctx);
        const ownApp = { client: own.client, clientId: own.client.clientId, clientSecret: own.clientSecret, redirectUri: 'https://owned.example/cb', basic: `Basic ${Buffer.from(`${own.client.clientId}:${own.clientSecret}`).toString('base64')}` };
        const userToken = (await authorize(ctx, user, ownApp)).access_token;
        // Sharing (docs/sharing.md): a collaborator, a joint task both hold, a task the collaborator
        // reassigned to the account (its addedby), and a saved search.
        const partner = await createAccount(ctx, { pro: 1 });
        const partnerToken = (await authorize(ctx, partner, app, 'basic tasks write share')).access_token;
        await api(ctx, token, '/3/account/collaborators_invite.php', { invite: partner.userid });
        await api(ctx, partnerToken, '/3/account/collaborators_accept.php', { id: account.userid });
        assert.equal((await api(ctx, token, '/3/tasks/share.php', { id: String(added[0]?.id), share: JSON.stringify([partner.userid]) })).statusCode, 200);
        const [given] = (await api(ctx, partnerToken, '/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'Given' }]) })).json<Array<{ id: number }>>();
        await api(ctx, partnerToken, '/3/tasks/reassign.php', { id: String(given?.id), assign: account.userid });
        // What CalDAV keeps beside a task and a calendar.
        await ctx.deps.store.transaction(async (tx) => {
          await tx.caldav.put(account.pk, { taskId: added[0]?.id as number, name: 'kept.ics', uid: `kept-${account.userid}`, kept: '' });
          await tx.caldav.setCalendarProps(account.pk, 0, { '{http://apple.com/ns/ical/}calendar-color': '#00FF00' });
        });
        // Calendar feeds, of the whole account and of a folder.
        await ctx.deps.store.transaction(async (tx) => {
          await tx.calendarFeeds.create({ userPk: account.pk, folder: null, secretHash: `all-${account.userid}`, createdAt: 1 });
          await tx.calendarFeeds.create({ userPk: account.pk, folder: folder?.id ?? 0, secretHash: `f-${account.userid}`, createdAt: 1 });
        });
        await api(ctx, token, '/3/tasks/search_add.php', { searches: JSON.stringify([{ name: 'S', search: { root: [{ field: 'star', type: 'yes' }] } }]) });
        // Push: an event stream's lease, and a webhook of the app: the account watched, a delivery
        // owed to it and an attempt made.
        await ctx.deps.store.transaction(async (tx) => {
          const now = Math.floor(ctx.clock.now() / 1000);
          const endpointId = `ep_${account.userid}`;
          await tx.webhooks.addEndpoint({ id: endpointId, clientPk: app.client.pk, url: 'https://hooks.example.org/in', secret: 'whsec_AAAA', createdAt: now }, now);
          await tx.webhooks.enqueue(endpointId, account.pk, ['task'], now, now, `msg_${account.userid}`);
          await tx.webhooks.recordAttempt({ endpointId, userPk: account.pk, msgId: `msg_${account.userid}`, attempt: 1, at: now, status: 500, error: null, latencyMs: 3 });
          await tx.sseLeases.claim(account.pk, `lease-${account.userid}`, 10, now, now + 60);
        });
        return { account, token, own, user, userToken, partner, partnerToken, appPassword };
      };
      const doomed = await fill();
      const kept = await fill();
      const before = Object.fromEntries(await Promise.all(schema.withUser.map(async (t) => [t, await schema.count(t, kept.account.pk)] as const)));
      // PostgreSQL never writes task_xml (XmlSql.readsKept): the table is there for the schemas to match.
      const written = schema.withUser.filter((t) => !(t === 'task_xml' && ctx.deps.store.dialect === 'postgres'));
      for (const t of written) assert.ok((await schema.count(t, doomed.account.pk)) > 0, `the test puts a row of the account in ${t}`);

      assert.equal(await deleteAccount(ctx.deps, doomed.account.pk), true);

      for (const t of schema.withUser) assert.equal(await schema.count(t, doomed.account.pk), 0, t);
      for (const t of schema.withUser) assert.equal(await schema.count(t, kept.account.pk), before[t], `${t} of another account`);
      assert.equal(await ctx.deps.store.read.clients.get(doomed.own.client.pk), null, 'the app it registered is gone');
      assert.equal((await api(ctx, doomed.userToken, '/3/account/get.php')).statusCode, 401, "so are its users' authorizations");
      assert.equal((await api(ctx, kept.userToken, '/3/account/get.php')).statusCode, 200);
      assert.equal((await api(ctx, doomed.token, '/3/account/get.php')).statusCode, 401);
      assert.ok(await ctx.deps.store.read.accounts.get(doomed.user.pk), 'the other user stays');
      assert.equal(await deleteAccount(ctx.deps, doomed.account.pk), false);
      const tryPassword = (who: typeof doomed) => signInWithAppPassword(ctx.deps, { email: who.account.email, password: who.appPassword, address: '192.0.2.1', device: 'x' });
      assert.equal((await tryPassword(doomed)).kind, 'wrong', 'its app password no longer signs in');
      assert.equal((await tryPassword(kept)).kind, 'ok');
      // The partner keeps its copy of the joint task, no longer shared, and no collaborator.
      const [, ...partnerTasks] = (await api(ctx, doomed.partnerToken, '/3/tasks/get.php', { fields: 'shared' })).json<Array<{ title: string; shared: number }>>();
      assert.deepEqual(partnerTasks.map((t) => [t.title, t.shared]), [['Kept & kept', 0]]);
      assert.deepEqual((await api(ctx, doomed.partnerToken, '/3/account/collaborators.php')).json(), []);
    } finally {
      await schema.close();
    }
  });
});
