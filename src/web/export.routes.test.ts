import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse as parseCsv } from 'csv-parse/sync';
import ical from 'node-ical';
import { Browser } from '../../test/browser.js';
import { api, signIn, testContext, type TestContext } from '../../test/harness.js';
import { signedInBrowser } from '../../test/web-pages.js';
import type { Account } from '../storage/store.js';

/** The account page's downloads: the signed-in account's data only, as attachments nobody caches. */

const DOWNLOADS = [
  { path: '/account/export/json', type: 'application/json; charset=utf-8', file: 'tickler-export.json' },
  { path: '/account/export/csv', type: 'text/csv; charset=utf-8', file: 'tickler-tasks.csv' },
  { path: '/account/export/ical', type: 'text/calendar; charset=utf-8', file: 'tickler-tasks.ics' },
] as const;

let ctx: TestContext;
let ann: Account;
let bob: Account;

/** An account with a folder, a note and tasks whose titles carry the owner's name. */
async function seeded(name: string): Promise<Account> {
  const { account, token } = await signIn(ctx, { pro: 2, scope: 'basic tasks notes write' });
  const call = async (path: string, form: Record<string, string>): Promise<unknown> => (await api(ctx, token, path, form)).json();
  const [folder] = (await call('/3/folders/add.php', { name: `${name}'s folder` })) as Array<{ id: number }>;
  await call('/3/notes/add.php', { notes: JSON.stringify([{ title: `${name}'s note`, text: 'private' }]) });
  await call('/3/tasks/add.php', {
    tasks: JSON.stringify([
      { title: `${name}'s task, with "quotes"`, folder: folder?.id, duedate: 1767268800, note: 'line 1\nline 2' },
      { title: `${name}'s weekly`, repeat: 'FREQ=WEEKLY', duedate: 1767355200, duetime: 1767355200 - 12 * 3600 + 8 * 3600 },
    ]),
  });
  return account;
}

before(async () => {
  ctx = await testContext();
  ann = await seeded('Ann');
  bob = await seeded('Bob');
});
after(() => ctx.close());

describe('account exports on the web', () => {
  it('the account page links to the three downloads', async () => {
    const b = await signedInBrowser(ctx, ann);
    const page = await b.get('/account');
    assert.equal(page.statusCode, 200);
    for (const d of DOWNLOADS) assert.match(page.body, new RegExp(`href="${d.path}" download`));
  });

  it('each download is an attachment of its type, never cached', async () => {
    const b = await signedInBrowser(ctx, ann);
    for (const d of DOWNLOADS) {
      const res = await b.get(d.path);
      assert.equal(res.statusCode, 200, d.path);
      assert.equal(res.headers['content-type'], d.type);
      assert.equal(res.headers['content-disposition'], `attachment; filename="${d.file}"`);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
    }
  });

  it('the bodies parse, and hold the signed-in account and no other', async () => {
    for (const [who, other] of [
      [ann, 'Bob'],
      [bob, 'Ann'],
    ] as const) {
      const b = await signedInBrowser(ctx, who);
      const name = other === 'Bob' ? 'Ann' : 'Bob';
      const json = await b.get('/account/export/json');
      const doc = JSON.parse(json.body) as { format: string; account: { email: string }; tasks: Array<{ title: string }>; notes: Array<{ title: string }>; folders: Array<{ name: string }> };
      assert.equal(doc.format, 'tickler-export');
      assert.equal(doc.account.email, who.email);
      assert.deepEqual(doc.tasks.map((t) => t.title).sort(), [`${name}'s task, with "quotes"`, `${name}'s weekly`]);
      assert.deepEqual(doc.notes.map((n) => n.title), [`${name}'s note`]);
      assert.deepEqual(doc.folders.map((f) => f.name), [`${name}'s folder`]);

      const csv = parseCsv((await b.get('/account/export/csv')).body, { columns: true }) as Array<Record<string, string>>;
      assert.deepEqual(csv.map((r) => r['TASK']).sort(), [`${name}'s task, with "quotes"`, `${name}'s weekly`]);
      assert.equal(csv.find((r) => r['TASK']?.endsWith('quotes"'))?.['FOLDER'], `${name}'s folder`);

      const ics = (await b.get('/account/export/ical')).body;
      const todos = Object.values(ical.sync.parseICS(ics)).filter((c) => c?.type === 'VTODO') as Array<{ summary?: unknown }>;
      assert.deepEqual(todos.map((t) => String(t.summary)).sort(), [`${name}'s task, with "quotes"`, `${name}'s weekly`]);

      for (const d of DOWNLOADS) assert.doesNotMatch((await b.get(d.path)).body, new RegExp(`${other}'s`), `${d.path} of ${name}`);
    }
  });

  it('signed out, each download sends to sign in and back, and gives nothing', async () => {
    const b = new Browser(ctx.app);
    for (const d of DOWNLOADS) {
      const res = await b.get(d.path);
      assert.equal(res.statusCode, 303, d.path);
      assert.equal(res.headers['location'], `/signin?next=${encodeURIComponent(d.path)}`);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['content-disposition'], undefined);
      assert.doesNotMatch(res.body, /Ann|Bob/);
    }
    // A forged or expired session cookie is no better.
    const forged = new Browser(ctx.app);
    forged.cookies.set('tickler_session', 'not-a-session');
    assert.equal((await forged.get('/account/export/json')).statusCode, 303);
  });

  it('only GET reads them: a POST is not a route', async () => {
    const b = await signedInBrowser(ctx, ann);
    const res = await b.post('/account/export/json', {});
    assert.equal(res.statusCode, 404);
  });
});
