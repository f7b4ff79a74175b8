import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, hiddenInputs } from '../../test/browser.js';
import { createAccount, createApp, PASSWORD, testContext, type TestApp, type TestContext } from '../../test/harness.js';
import type { Account } from '../storage/store.js';

/**
 * Text that no stored value can hold (U+0000, which PostgreSQL refuses outright, and lone
 * surrogates) in the places where the OAuth server looks records up by text. The answer is the
 * ordinary "unknown" one on both databases: never a 500 (issue: PostgreSQL answered 500 here).
 */
const PATH = '/3/account/authorize.php';
const errorCode = (res: { json(): unknown }): number => (res.json() as { errorCode: number }).errorCode;

describe('text that cannot be stored, at every lookup by text', () => {
  let ctx: TestContext;
  let app: TestApp;
  let account: Account;

  before(async () => {
    ctx = await testContext();
    app = await createApp(ctx);
    account = await createAccount(ctx, { email: 'nul@example.org' });
  });
  after(() => ctx.close());

  const spoiled = (s: string): string[] => [`${s}\u0000`, `\u0000${s}`, `${s}\uD800`];

  it('authorize: a client_id with U+0000 is an unknown app (error page, no redirect)', async () => {
    for (const clientId of spoiled(app.clientId)) {
      const q = new URLSearchParams({ response_type: 'code', client_id: clientId, state: 's', scope: 'basic' });
      const res = await ctx.app.inject({ method: 'GET', url: `${PATH}?${q.toString()}` });
      assert.equal(res.statusCode, 400, JSON.stringify(clientId));
      assert.match(res.body, /not registered on this server/);
      assert.equal(res.headers['location'], undefined);
    }
  });

  it('token endpoint: such a client_id in the form or in Basic credentials is error 102', async () => {
    for (const clientId of spoiled(app.clientId)) {
      const form = await ctx.app.inject({
        method: 'POST',
        url: '/3/account/token.php',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: clientId, client_secret: app.clientSecret }).toString(),
      });
      assert.equal(form.statusCode, 200, form.body);
      assert.equal(errorCode(form), 102);
      const basic = await ctx.app.inject({
        method: 'POST',
        url: '/3/account/token.php',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${clientId}:${app.clientSecret}`).toString('base64')}`,
        },
        payload: 'grant_type=refresh_token&refresh_token=x',
      });
      assert.equal(basic.statusCode, 200, basic.body);
      assert.equal(errorCode(basic), 102);
    }
  });

  it('sign-in: an e-mail address with U+0000 matches no account (the usual message, no session)', async () => {
    for (const email of spoiled(account.email)) {
      const b = new Browser(ctx.app);
      const q = new URLSearchParams({ response_type: 'code', client_id: app.clientId, state: 's', scope: 'basic' });
      const page = await b.get(`${PATH}?${q.toString()}`);
      const posted = await b.post(PATH, { ...hiddenInputs(page.body), email, password: PASSWORD });
      assert.equal(posted.statusCode, 303, JSON.stringify(email));
      const res = await b.follow(posted);
      assert.equal(res.statusCode, 200, JSON.stringify(email));
      assert.match(res.body, /do not match an account/);
      assert.ok(!b.cookies.has('tickler_session'));
    }
  });
});
