import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createAccount, type TestContext } from '../harness.js';
import { makeInvite, makeResetLink } from '../../src/features/users/links.service.js';
import { launchChromium, skipWithoutChromium, watchConsole } from './chromium.js';
import { ORIGIN, pageCheck, servedContext, SHOTS, submitted } from './page-kit.js';

/**
 * The whole path a person takes, in a real browser (Debian's Chromium through playwright-core),
 * at 1280 and at 390 pixels: sign up, sign in, change the password, register an app, authorize it
 * through the consent page, see it under connected apps, revoke it, watch its token fail. Every
 * page is checked for console errors (CSP refusals are console errors), axe-core violations,
 * horizontal scrolling and where the focus is. With SCREENSHOTS=docs/web the pages are
 * photographed there (README and docs/web.md show them).
 */


/** The app's own site: its redirect address answers the code with a small page, as an app would. */
async function appSite(): Promise<{ server: Server; origin: string; codes: string[] }> {
  const codes: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/favicon.ico') return void res.writeHead(204).end();
    const code = url.searchParams.get('code');
    if (code) codes.push(code);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!DOCTYPE html><html lang="en"><head><title>Example app</title></head><body><main><h1>Example app</h1><p>Signed in.</p></main></body></html>');
  });
  // A fixed port when photographing, so that the pictures show the same address every time.
  server.listen(SHOTS ? 8765 : 0, '127.0.0.1');
  await once(server, 'listening');
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, codes };
}

describe('the web pages in a real browser', { skip: skipWithoutChromium() }, () => {
  let ctx: TestContext;
  const origin = ORIGIN;
  /** Where the server listens: the test's own requests (token exchange, API calls) go there. */
  let server: string;
  let hostRules: string;
  let site: Awaited<ReturnType<typeof appSite>>;

  before(async () => {
    ({ ctx, server, hostRules } = await servedContext({ REGISTRATION: 'open' }));
    ctx.clock.set(Date.UTC(2026, 2, 14, 9, 30));
    site = await appSite();
  });
  after(async () => {
    site?.server.close();
    await ctx?.close();
  });

  for (const width of [1280, 390]) {
    it(`sign up, sign in, change the password, register an app, allow it, revoke it: at ${width} px`, async () => {
      const launched = await launchChromium({ width, height: width > 600 ? 860 : 844 }, { hostRules });
      const page = await launched.context.newPage();
      const problems = watchConsole(page);
      const email = `walker-${width}@example.org`;

      /** Every page: no axe violation, no horizontal scrolling, the focus where it belongs, a photo. */
      const checkPage = pageCheck(page, width);
      // Besides every page's checks: the product name and the server's address in the banner.
      async function check(name: string, focus?: RegExp): Promise<void> {
        assert.match(await page.textContent('header') ?? '', /Tickler/, `${name}: the product name`);
        assert.match(await page.textContent('header') ?? '', /todo\.example\.org/, `${name}: the server's address`);
        await checkPage(name, focus);
      }
      const go = (path: string) => page.goto(`${origin}${path}`);

      try {
        // The start page of a visitor, then sign-up.
        await go('/');
        await check('landing');
        await page.click('text=Create an account');
        await check('signup', /input#f-email/);
        await page.fill('#f-email', email);
        await page.fill('#f-alias', `Walker ${width}`);
        await page.fill('#f-password', 'a first passphrase');
        await page.click('button:has-text("Create the account")');
        await page.waitForURL(`${origin}/`);
        await check('home');
        // Signed in, the start page is the task list.
        assert.match(await page.textContent('main') ?? '', /Welcome! Your account is ready.[\s\S]*Add a task/);

        // Sign out; a wrong password comes back as a page of its own (a reload sends nothing again).
        await page.click('header button:has-text("Sign out")');
        await page.waitForURL(/\/signin/);
        await page.fill('#f-email', email);
        await page.fill('#f-password', 'not the passphrase');
        const answer = page.waitForResponse((r) => r.request().method() === 'POST');
        await submitted(page, () => page.click('main button:has-text("Sign in")'));
        assert.equal((await answer).status(), 303);
        await check('signin-error', /div#problem/);
        const reloaded = await page.reload();
        assert.equal(reloaded?.request().method(), 'GET', 'a reload asks for the page, it does not post the form again');
        await check('signin', /input#f-email/);
        await page.fill('#f-email', email);
        await page.fill('#f-password', 'a first passphrase');
        await page.click('main button:has-text("Sign in")');
        await page.waitForURL(`${origin}/`);

        // Change the password.
        await go('/account/password');
        await check('password', /input#f-current/);
        await page.fill('#f-current', 'a first passphrase');
        await page.fill('#f-password', 'a second passphrase');
        await page.click('main button:has-text("Change the password")');
        await page.waitForURL(`${origin}/account`);
        assert.match(await page.textContent('main') ?? '', /Your password is changed/);
        await check('account');

        // The account page's downloads: each link saves a file of this account's data.
        const downloads: ReadonlyArray<readonly [string, string, (text: string) => void]> = [
          ['The whole account as JSON', 'tickler-export.json', (text) => assert.equal((JSON.parse(text) as { account: { email: string } }).account.email, email)],
          ['Tasks as CSV', 'tickler-tasks.csv', (text) => assert.match(text, /^TASK,FOLDER,CONTEXT/)],
          ['Tasks as iCalendar', 'tickler-tasks.ics', (text) => assert.match(text, /^BEGIN:VCALENDAR\r\n[\s\S]*END:VCALENDAR\r\n$/)],
        ];
        for (const [label, file, looksRight] of downloads) {
          const [download] = await Promise.all([page.waitForEvent('download'), page.click(`main a:has-text("${label}")`)]);
          assert.equal(download.suggestedFilename(), file);
          looksRight(readFileSync(await download.path(), 'utf8'));
        }
        assert.equal(page.url(), `${origin}/account`, 'a download leaves the page where it is');

        // Register an app with two redirect addresses.
        await go('/developer');
        await check('developer', /input#f-name|body/);
        await page.fill('#f-name', 'Example app');
        await page.fill('#f-redirect_uris', `${site.origin}/callback\n${site.origin}/other`);
        await page.fill('#f-website', 'https://app.example.org');
        await page.click('main button:has-text("Register the app")');
        await page.waitForURL(/\/developer\/apps\/app[0-9a-f]+$/);
        await check('app', /div|code/);
        const clientId = (await page.textContent('dl.facts dd code')) ?? '';
        const secret = (await page.textContent('code.secret')) ?? '';
        assert.match(clientId, /^app[0-9a-f]{20}$/);
        assert.match(secret, /^[0-9a-f]{40}$/);
        await page.reload();
        assert.equal(await page.locator('code.secret').count(), 0, 'the secret is shown once');

        // Authorize it: the consent page says where the answer goes.
        const query = new URLSearchParams({ response_type: 'code', client_id: clientId, state: 'walk', scope: 'basic tasks write', redirect_uri: `${site.origin}/callback` });
        await go(`/3/account/authorize.php?${query.toString()}`);
        // The question has the focus, not Allow: a stray Enter must not grant access.
        await check('consent', /h1/);
        assert.match(await page.textContent('main') ?? '', new RegExp(`Your answer goes to ${site.origin}/callback`));
        await page.click('button:has-text("Allow")');
        await page.waitForURL(`${site.origin}/callback?**`);
        const code = new URL(page.url()).searchParams.get('code') ?? '';
        const basic = `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
        const tokenAnswer = await fetch(`${server}/3/account/token.php`, {
          method: 'POST',
          headers: { authorization: basic },
          body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: `${site.origin}/callback` }),
        });
        const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
        const accountGet = () => fetch(`${server}/3/account/get.php`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal((await accountGet()).status, 200);

        // Connected apps shows it; Revoke ends it, and its token fails.
        await go('/account/apps');
        assert.match(await page.textContent('main') ?? '', /Example app/);
        await check('connected-apps');
        await page.click('button:has-text("Revoke Example app")');
        await page.waitForURL(`${origin}/account/apps`);
        assert.match(await page.textContent('main') ?? '', /Revoked/);
        assert.match(await page.textContent('main') ?? '', /No app holds access/);
        const refused = await accountGet();
        assert.equal(refused.status, 401);
        assert.equal(((await refused.json()) as { errorCode: number }).errorCode, 2);

        // The remaining pages, each checked once per width.
        await go('/account/delete');
        await check('delete', /input#f-password/);
        await ctx.deps.store.transaction(async (tx) => {
          const creds = await tx.accounts.credentialsByEmail(email);
          if (creds) await tx.accounts.setAdmin(creds.pk, true);
        });
        await go('/admin/invites');
        await check('invites', /input#f-note/);
        await page.click('main button:has-text("Make an invitation link")');
        await page.waitForURL(`${origin}/admin/invites`);
        await check('invite-made', /div/);
        const invite = (await page.textContent('code.secret')) ?? '';
        assert.match(invite, /\/signup\?invite=/);

        // Signed out: the authorize page's sign-in step (with Cancel), reset pages, error page.
        await page.click('header button:has-text("Sign out")');
        await page.waitForURL(/\/signin/);
        await go(`/3/account/authorize.php?${query.toString()}`);
        await check('authorize-signin', /input#email/);
        await page.click('button:has-text("Cancel")');
        await page.waitForURL(`${site.origin}/callback?**`);
        assert.equal(new URL(page.url()).searchParams.get('error'), 'access_denied');
        await go('/reset');
        await check('reset', /body|input/);
        const other = await createAccount(ctx, { email: `reset-${width}@example.org` });
        const link = await makeResetLink(ctx.deps, other.pk, 3600);
        await page.goto(link.url);
        await check('reset-password', /input#f-password/);
        const made = await makeInvite(ctx.deps, other.pk, '');
        await page.goto(made.url);
        await check('signup-invited', /input#f-email/);
        // An error page answers 400 on purpose, which Chromium reports on the console: not counted.
        const before = problems.length;
        await go('/3/account/authorize.php?client_id=nobody');
        await check('error');
        problems.splice(before, problems.filter((p, i) => i >= before && /status of 400 .*client_id=nobody/.test(p)).length);
      } catch (err) {
        throw new Error(`${(err as Error).message}\nat ${page.url()}:\n${((await page.textContent('main').catch(() => '')) ?? '').slice(0, 600)}\nconsole: ${problems.join('\n')}`);
      } finally {
        await launched.close();
      }
      assert.deepEqual(problems, [], 'no console errors or CSP refusals');
    });
  }
});
