import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, formInputs, submit } from '../../test/browser.js';
import { api, createAccount, PASSWORD, signIn, testContext, type TestContext } from '../../test/harness.js';
import { landed, signedInBrowser, text } from '../../test/web-pages.js';
import { sha256Hex } from '../lib/crypto.js';

/** The account pages: settings that account/get reports, e-mail, password, deletion. */

/** The settings form as a browser sends it with the defaults shown (unticked boxes are not sent). */
const SETTINGS = { alias: 'Tester', timezone: '0', dateformat: '0', hidemonths: '6', hotlistpriority: '3', hotlistduedate: '2', hotliststar: '1', hotliststatus: '1', showtabnums: '1' };

let ctx: TestContext;
before(async () => {
  ctx = await testContext();
});
after(() => ctx.close());

describe('account settings', () => {
  it('every setting account/get reports can be changed, and account/get shows it at once', async () => {
    const { account, token } = await signIn(ctx);
    const b = await signedInBrowser(ctx, account);
    const before = (await api(ctx, token, '/3/account/get.php')).json<Record<string, unknown>>();
    assert.equal(before['alias'], 'Tester');
    const res = await submit(b, '/account', {
      alias: '  Ann Example ',
      timezone: '12',
      dateformat: '3',
      hidemonths: '12',
      hotlistpriority: '1',
      hotlistduedate: '7',
      // Unticked checkboxes are not sent: hotliststar and showtabnums become 0.
      hotliststatus: '1',
    }, '/account/settings');
    assert.match(text(await landed(b, res)), /Your settings are saved/);
    const after = (await api(ctx, token, '/3/account/get.php')).json<Record<string, unknown>>();
    assert.deepEqual(
      { alias: after['alias'], timezone: after['timezone'], dateformat: after['dateformat'], hidemonths: after['hidemonths'], hotlistpriority: after['hotlistpriority'], hotlistduedate: after['hotlistduedate'], hotliststar: after['hotliststar'], hotliststatus: after['hotliststatus'], showtabnums: after['showtabnums'] },
      { alias: 'Ann Example', timezone: 12, dateformat: 3, hidemonths: 12, hotlistpriority: 1, hotlistduedate: 7, hotliststar: 0, hotliststatus: 1, showtabnums: 0 },
    );
  });

  it('a value out of range is refused, naming it; the form keeps what was typed', async () => {
    const account = await createAccount(ctx);
    const b = await signedInBrowser(ctx, account);
    for (const [name, value] of [['timezone', '39'], ['dateformat', '4'], ['hidemonths', '-1'], ['hotlistpriority', '9'], ['hotliststar', '2'], ['hidemonths', 'x']] as const) {
      const page = await landed(b, await submit(b, '/account', { ...SETTINGS, [name]: value, alias: 'Kept alias' }, '/account/settings'));
      assert.match(text(page), new RegExp(`Not saved: ${name} must be a whole number`), `${name}=${value}`);
      assert.match(page.body, /value="Kept alias"/);
    }
    assert.equal((await ctx.deps.store.read.accounts.get(account.pk))?.alias, 'Tester');
  });

  it('changing the e-mail address needs the password; a taken address is refused', async () => {
    const account = await createAccount(ctx);
    const other = await createAccount(ctx);
    const b = await signedInBrowser(ctx, account);
    const wrong = await landed(b, await submit(b, '/account', { email: 'new-address@example.org', password: 'not it at all' }, '/account/email'));
    assert.match(text(wrong), /not your current password/);
    const taken = await landed(b, await submit(b, '/account', { email: other.email.toUpperCase(), password: PASSWORD }, '/account/email'));
    assert.match(text(taken), /another account has that address/);
    const ok = await landed(b, await submit(b, '/account', { email: 'New-Address@example.org', password: PASSWORD }, '/account/email'));
    assert.match(text(ok), /You now sign in as New-Address@example.org/);
    const c = new Browser(ctx.app);
    assert.equal((await submit(c, '/signin', { email: 'new-address@example.org', password: PASSWORD })).headers['location'], '/');
  });
});

describe('changing the password', () => {
  it('needs the current one; other sessions end, this one stays', async () => {
    const account = await createAccount(ctx);
    const here = await signedInBrowser(ctx, account);
    const elsewhere = await signedInBrowser(ctx, account);
    const page = await here.get('/account/password');
    assert.match(page.body, /id="f-current"[^>]*autofocus/);
    const wrong = await landed(here, await here.post('/account/password', { ...formInputs(page.body, '/account/password'), current: 'wrong one', password: 'a brand new passphrase' }));
    assert.match(text(wrong), /not your current password/);
    const short = await landed(here, await submit(here, '/account/password', { current: PASSWORD, password: 'short' }));
    assert.match(text(short), /at least 8 characters/);
    const ok = await landed(here, await submit(here, '/account/password', { current: PASSWORD, password: 'a brand new passphrase' }));
    assert.match(text(ok), /Your password is changed/);
    assert.equal((await here.get('/account')).statusCode, 200, 'this browser stays signed in');
    assert.equal((await elsewhere.get('/account')).statusCode, 303, 'the other browser is signed out');
    const c = new Browser(ctx.app);
    assert.equal((await submit(c, '/signin', { email: account.email, password: 'a brand new passphrase' })).headers['location'], '/');
  });
});

describe('deleting the account', () => {
  it('needs the password, then removes the account with every record; its tokens stop at once', async () => {
    const { account, token, app } = await signIn(ctx);
    await api(ctx, token, '/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'Mine', meta: 'x' }]) });
    await api(ctx, token, '/3/folders/add.php', { name: 'Work' });
    const b = await signedInBrowser(ctx, account);
    const page = await b.get('/account/delete');
    assert.match(text(page), /Nothing can bring it back/);
    const wrong = await landed(b, await b.post('/account/delete', { ...formInputs(page.body, '/account/delete'), password: 'not the password' }));
    assert.match(text(wrong), /not your current password/);
    assert.ok(await ctx.deps.store.read.accounts.get(account.pk));
    const done = await landed(b, await submit(b, '/account/delete', { password: PASSWORD }));
    assert.match(text(done), /Your account and all its data are deleted/);
    assert.equal(await ctx.deps.store.read.accounts.get(account.pk), null);
    assert.equal((await api(ctx, token, '/3/account/get.php')).statusCode, 401, 'the token died with the account');
    assert.equal(await ctx.deps.store.read.accounts.isKnownDevice(account.pk, sha256Hex('x')), false);
    assert.ok(await ctx.deps.store.read.clients.get(app.client.pk), 'an app registered with the command line stays');
    assert.equal((await new Browser(ctx.app).get('/account')).statusCode, 303);
  });
});
