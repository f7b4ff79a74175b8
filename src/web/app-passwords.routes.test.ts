import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, filledForm, formInputs } from '../../test/browser.js';
import { defaultDatabase } from '../../test/database.js';
import { anotherInstance, createAccount, testContext, type TestContext } from '../../test/harness.js';
import { landed, signedInBrowser, text } from '../../test/web-pages.js';
import { signInWithAppPassword } from '../features/users/app-passwords.service.js';
import type { Deps } from '../deps.js';

/**
 * App passwords on the Connected apps page: made (shown once), listed with their last use, revoked;
 * every form behind the cross-site check and its CSRF token, Post/Redirect/Get. On both databases,
 * and on PostgreSQL a revocation reaching another instance.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testContext();
});
after(() => ctx.close());

const PAGE = '/account/apps';
const MAKE = '/account/apps/passwords';
const REVOKE = '/account/apps/passwords/revoke';
const PASSWORD_SHOWN = /<code class="secret">([a-z2-9]{4}(?:-[a-z2-9]{4}){3})<\/code>/;

/** Fills the page's form as a person would (the access as shown unless given) and posts it; the page it leads to. */
async function make(b: Browser, name: string, access?: 'read' | 'write') {
  const page = await b.get(PAGE);
  const form = filledForm(page.body, MAKE);
  return landed(b, await b.post(MAKE, { ...form, name, ...(access && { access }) }));
}

const signInAs = (deps: Deps, email: string, password: string, device?: string) =>
  signInWithAppPassword(deps, { email, password, address: '192.0.2.50', device });

describe('app passwords on the Connected apps page', () => {
  it('makes one: the password is shown once, only after the post, with its name; the list shows its access and dates', async () => {
    ctx.clock.set(Date.UTC(2026, 2, 14, 9, 30));
    const account = await createAccount(ctx);
    const b = await signedInBrowser(ctx, account);
    const empty = await b.get(PAGE);
    assert.match(text(empty), /App passwords .* You have no app passwords\. .* Make an app password/);
    assert.equal(filledForm(empty.body, MAKE)['access'], 'write', 'read and write unless chosen');
    const made = await make(b, 'iPhone');
    assert.equal(made.statusCode, 200);
    const password = PASSWORD_SHOWN.exec(made.body)?.[1] ?? '';
    assert.ok(password, 'the password is on the page');
    assert.match(text(made), /The app password for iPhone: .* It is shown this once/);
    assert.match(made.body, /<div class="notice" role="status" tabindex="-1" autofocus id="new-password">/, 'the focus goes to it');
    assert.match(text(made), /iPhone Access Read and write Made 2026-03-14 09:30 UTC Last used Never/);
    assert.equal(made.headers['cache-control'], 'no-store');
    const again = await b.get(PAGE);
    assert.doesNotMatch(again.body, /class="secret"/, 'shown once: a reload does not show it');
    assert.equal(again.body.includes(password), false);
    const ok = await signInAs(ctx.deps, account.email, password);
    assert.deepEqual(ok.kind === 'ok' && [ok.account.pk, ok.appPassword.readOnly], [account.pk, false]);
  });

  it('read only when chosen; the last use and device show after the app signs in', async () => {
    ctx.clock.set(Date.UTC(2026, 2, 15, 8, 0));
    const account = await createAccount(ctx);
    const b = await signedInBrowser(ctx, account);
    const password = PASSWORD_SHOWN.exec((await make(b, 'Tablet <b>', 'read')).body)?.[1] ?? '';
    ctx.clock.advance(3600);
    const ok = await signInAs(ctx.deps, account.email, password, 'DAVx5/4.3.14-ose (2024/03/01; dav4jvm; okhttp/4.12.0) Android/14');
    assert.equal(ok.kind === 'ok' && ok.appPassword.readOnly, true);
    const page = await b.get(PAGE);
    assert.match(page.body, /<h3>Tablet &#60;b&#62;<\/h3>/, 'the name is escaped');
    assert.match(text(page), /Tablet <b> Access Read only Made 2026-03-15 08:00 UTC Last used 2026-03-15 09:00 UTC Device DAVx5\/4\.3\.14-ose \(2024\/03\/01; dav4jvm; okhttp\/4\.12\.0\) Android\/14/);
  });

  it('refuses an empty or too long name and an unknown access, keeping what was typed', async () => {
    const account = await createAccount(ctx);
    const b = await signedInBrowser(ctx, account);
    const long = await make(b, 'x'.repeat(101));
    assert.match(text(long), /Not made: the name must have 1 to 100 characters\./);
    assert.match(long.body, /value="x{101}"/);
    assert.doesNotMatch(long.body, /class="secret"/);
    assert.match(text(await make(b, '   ')), /Not made: the name must have 1 to 100 characters/);
    const odd = await make(b, 'Phone', 'admin' as 'read');
    assert.match(text(odd), /Choose the access: read and write, or read only\./);
    assert.match(odd.body, /value="Phone"/);
    assert.match(text(await b.get(PAGE)), /You have no app passwords/);
  });

  it('Revoke stops the password at once and says so; another person’s id revokes nothing', async () => {
    const owner = await createAccount(ctx);
    const b = await signedInBrowser(ctx, owner);
    const phone = PASSWORD_SHOWN.exec((await make(b, 'Phone')).body)?.[1] ?? '';
    const laptop = PASSWORD_SHOWN.exec((await make(b, 'Laptop')).body)?.[1] ?? '';
    assert.equal((await signInAs(ctx.deps, owner.email, phone)).kind, 'ok');
    const id = (await ctx.deps.store.read.appPasswords.list(owner.pk)).find((p) => p.name === 'Phone')?.id;

    const stranger = await signedInBrowser(ctx, await createAccount(ctx));
    const csrf = formInputs((await stranger.get(PAGE)).body, '/signout')['_csrf'] as string;
    assert.match(text(await landed(stranger, await stranger.post(REVOKE, { _csrf: csrf, id: String(id) }))), /That app password was revoked already/);
    assert.equal((await signInAs(ctx.deps, owner.email, phone)).kind, 'ok');

    const page = await b.get(PAGE);
    const form = page.body.slice(page.body.indexOf('Revoke Phone') - 400);
    const revoked = await landed(b, await b.post(REVOKE, formInputs(form, REVOKE)));
    assert.match(text(revoked), /Revoked: the app password Phone no longer signs in\./);
    assert.doesNotMatch(text(revoked), /Revoke Phone/);
    assert.equal((await signInAs(ctx.deps, owner.email, phone)).kind, 'wrong', 'at once');
    assert.equal((await signInAs(ctx.deps, owner.email, laptop)).kind, 'ok', 'the other one goes on');
    const twice = await landed(b, await b.post(REVOKE, formInputs(form, REVOKE)));
    assert.match(text(twice), /That app password was revoked already/);
  });

  it('every form refuses a post from another site and one without its CSRF token; signed out, it goes to sign in', async () => {
    const account = await createAccount(ctx);
    const b = await signedInBrowser(ctx, account);
    const page = await b.get(PAGE);
    const forged = await b.crossSitePost(MAKE, { ...formInputs(page.body, MAKE), name: 'Evil', access: 'write' });
    assert.equal(forged.statusCode, 403);
    const noToken = await b.post(MAKE, { name: 'No token', access: 'write' });
    assert.equal(noToken.statusCode, 403);
    assert.equal((await b.crossSitePost(REVOKE, { ...formInputs(page.body, '/signout'), id: '1' })).statusCode, 403);
    assert.deepEqual(await ctx.deps.store.read.appPasswords.list(account.pk), []);
    const twice = await b.post(MAKE, [...Object.entries(formInputs(page.body, MAKE)), ['name', 'One'], ['name', 'Two'], ['access', 'write']]);
    assert.equal(twice.statusCode, 400, 'a field sent twice');
    assert.equal((await new Browser(ctx.app).get(PAGE)).headers['location'], '/signin?next=%2Faccount%2Fapps');
    // The session ended (another tab signed out): the form's token is still good, the post makes nothing.
    b.cookies.delete('tickler_session');
    const res = await b.post(MAKE, { ...formInputs(page.body, MAKE), name: 'X', access: 'write' });
    assert.equal(res.headers['location'], '/signin');
    assert.deepEqual(await ctx.deps.store.read.appPasswords.list(account.pk), []);
  });

  it('the new password travels to the page sealed, never in the clear', async () => {
    const account = await createAccount(ctx);
    const b = await signedInBrowser(ctx, account);
    const page = await b.get(PAGE);
    const posted = await b.post(MAKE, { ...filledForm(page.body, MAKE), name: 'Sealed' });
    assert.equal(posted.statusCode, 303);
    assert.doesNotMatch(JSON.stringify(posted.headers), /[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}/);
    assert.match(text(await b.follow(posted)), /The app password for Sealed/);
  });
});

// Two instances share a PostgreSQL database; one process serves an SQLite file. Declared on the
// PostgreSQL pass only: a test skipped on the SQLite pass would fail a CI run, where nothing may be.
if (defaultDatabase().kind === 'postgres') describe('app passwords with two instances', () => {
  it('a revocation on one instance reaches the other within TOKEN_CACHE_SECONDS', async () => {
    const other = await anotherInstance(ctx, ctx.clock);
    try {
      const account = await createAccount(ctx);
      const b = await signedInBrowser(ctx, account);
      const password = PASSWORD_SHOWN.exec((await make(b, 'Phone')).body)?.[1] ?? '';
      assert.equal((await signInAs(other.deps, account.email, password)).kind, 'ok', 'the other instance finds it in the database');
      const page = await b.get(PAGE);
      await landed(b, await b.post(REVOKE, formInputs(page.body.slice(page.body.indexOf('Revoke Phone') - 400), REVOKE)));
      assert.equal((await signInAs(ctx.deps, account.email, password)).kind, 'wrong', 'this instance: at once');
      assert.equal((await signInAs(other.deps, account.email, password)).kind, 'ok', 'the other: from its cache, for now');
      ctx.clock.advance(ctx.config.tokenCacheSeconds);
      assert.equal((await signInAs(other.deps, account.email, password)).kind, 'wrong', 'the other: once its cache time has passed');
    } finally {
      await other.close();
    }
  });
});
