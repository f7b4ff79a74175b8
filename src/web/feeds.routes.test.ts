import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser, filledForm, formInputs } from '../../test/browser.js';
import { api, createAccount, createOrganizer, signIn, tasksCall, testContext, type TestContext } from '../../test/harness.js';
import { landed, signedInBrowser, text } from '../../test/web-pages.js';
import { createFeed, MAX_FEEDS } from '../features/feeds/feeds.service.js';

/**
 * The Calendar feeds page: feeds made (the address shown once, as webcal and https), listed with
 * their last fetch, revoked; every form behind the cross-site check and its CSRF token,
 * Post/Redirect/Get. On both databases.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testContext();
});
after(() => ctx.close());

const PAGE = '/account/feeds';
const REVOKE = '/account/feeds/revoke';
/** The addresses as the page shows them (PUBLIC_URL is the harness's, http://127.0.0.1:3000). */
const HTTPS_SHOWN = /<textarea id="feed-https" [^>]*\breadonly\b[^>]*>(http:\/\/127\.0\.0\.1:3000\/feeds\/[0-9a-f]{40}\.ics)<\/textarea>/;
const WEBCAL_SHOWN = /<textarea id="feed-webcal" [^>]*\breadonly\b[^>]*>(webcal:\/\/127\.0\.0\.1:3000\/feeds\/[0-9a-f]{40}\.ics)<\/textarea>/;

/** Chooses `tasks` in the page's form (as shown unless given) and posts it; the page it leads to. */
async function make(b: Browser, tasks?: string) {
  const page = await b.get(PAGE);
  return landed(b, await b.post(PAGE, { ...filledForm(page.body, PAGE), ...(tasks !== undefined && { tasks }) }));
}

const fetchFeed = (url: string) => ctx.app.inject({ method: 'GET', url: new URL(url).pathname });
const DUE = Date.UTC(2026, 11, 8, 12) / 1000;

describe('the Calendar feeds page', () => {
  it('the account page links to it', async () => {
    const b = await signedInBrowser(ctx, await createAccount(ctx));
    const account = await b.get('/account');
    assert.match(account.body, /<h2 id="s-feeds">Calendar feeds<\/h2><p><a href="\/account\/feeds">Subscribe to your tasks in a calendar<\/a>/);
  });

  it('makes a feed of all tasks: its address is shown once, after the post, as webcal and https; it serves the tasks', async () => {
    ctx.clock.set(Date.UTC(2026, 2, 14, 9, 30));
    const { account, token } = await signIn(ctx);
    await tasksCall(ctx, token, 'add', [{ title: 'Pay rent', duedate: DUE }]);
    const b = await signedInBrowser(ctx, account);
    const empty = await b.get(PAGE);
    assert.match(text(empty), /Calendar feeds .* Your feeds .* You have no calendar feeds\. .* Make a feed Tasks in the feed/);
    assert.equal(filledForm(empty.body, PAGE)['tasks'], 'all', 'all tasks unless chosen');
    const made = await make(b);
    assert.equal(made.statusCode, 200);
    const https = HTTPS_SHOWN.exec(made.body)?.[1] ?? '';
    assert.ok(https, 'the https address is on the page');
    assert.equal(WEBCAL_SHOWN.exec(made.body)?.[1], https.replace('http:', 'webcal:'));
    assert.ok(made.body.includes(`<a href="${https.replace('http:', 'webcal:')}">Subscribe on this device</a>`));
    assert.match(text(made), /The address of the feed of all tasks: Subscription address \(webcal\) .* The same address over http .* Copy it now: it is shown this once/);
    assert.match(made.body, /<div class="notice" role="status" tabindex="-1" autofocus id="new-feed">/, 'the focus goes to it');
    assert.match(text(made), /All tasks Holds Your open tasks with a due date Made 2026-03-14 09:30 UTC Last fetched Never/);
    assert.equal(made.headers['cache-control'], 'no-store');
    const again = await b.get(PAGE);
    assert.equal(again.body.includes(https.slice(-44)), false, 'shown once: a reload does not show it');
    const feed = await fetchFeed(https);
    assert.equal(feed.statusCode, 200);
    assert.match(feed.body, /SUMMARY:Pay rent/);
    ctx.clock.advance(3600);
    await fetchFeed(https);
    assert.match(text(await b.get(PAGE)), /Last fetched 2026-03-14 10:30 UTC/);
  });

  it('makes a feed of one folder, chosen among the account’s folders; it holds only that folder', async () => {
    const { account, token } = await signIn(ctx);
    const work = await createOrganizer(ctx, account, 'folder', 'Work & play');
    await createOrganizer(ctx, account, 'folder', 'Old', { archived: 1 });
    await tasksCall(ctx, token, 'add', [{ title: 'At work', folder: work, duedate: DUE }, { title: 'Elsewhere', duedate: DUE }]);
    const b = await signedInBrowser(ctx, account);
    const page = await b.get(PAGE);
    assert.match(page.body, /<option value="all" selected>All tasks<\/option><option value="\d+">Folder Work &#38; play<\/option><option value="\d+">Folder Old \(archived\)<\/option>/);
    const made = await make(b, String(work));
    assert.match(text(made), /The address of the feed of folder Work & play:/);
    assert.match(text(made), /Folder Work & play Holds The folder's open tasks with a due date/);
    const body = (await fetchFeed(HTTPS_SHOWN.exec(made.body)?.[1] ?? '')).body;
    assert.match(body, /SUMMARY:At work/);
    assert.doesNotMatch(body, /Elsewhere/);
    assert.match(body, /X-WR-CALNAME:Work & play/);
  });

  it('refuses a choice that is not all tasks or a folder of the account, keeping nothing; and past the most feeds an account may have', async () => {
    const account = await createAccount(ctx);
    const stranger = await createAccount(ctx);
    const theirs = await createOrganizer(ctx, stranger, 'folder', 'Theirs');
    const b = await signedInBrowser(ctx, account);
    for (const tasks of ['', 'some', '0', '-1', '1.5', String(theirs), '99999999999']) {
      const refused = await make(b, tasks);
      assert.doesNotMatch(refused.body, /id="new-feed"/, tasks);
      assert.match(text(refused), /Choose the tasks: all of them, or one folder\.|Not made: that folder no longer exists\./, tasks);
    }
    assert.deepEqual(await ctx.deps.store.read.calendarFeeds.list(account.pk), []);
    for (let i = 0; i < MAX_FEEDS; i++) await createFeed(ctx.deps, account.pk, { folder: null });
    assert.match(text(await make(b)), new RegExp(`Not made: an account has at most ${MAX_FEEDS} calendar feeds: revoke one you no longer use first\\.`));
    assert.equal((await ctx.deps.store.read.calendarFeeds.list(account.pk)).length, MAX_FEEDS);
  });

  it('Revoke stops the address at once and says so; another person’s id revokes nothing', async () => {
    const { account, token } = await signIn(ctx);
    const home = (await api(ctx, token, '/3/folders/add.php', { name: 'Home' })).json<Array<{ id: number }>>()[0]?.id as number;
    const b = await signedInBrowser(ctx, account);
    const all = HTTPS_SHOWN.exec((await make(b)).body)?.[1] ?? '';
    const folder = HTTPS_SHOWN.exec((await make(b, String(home))).body)?.[1] ?? '';
    const id = (await ctx.deps.store.read.calendarFeeds.list(account.pk)).find((f) => f.folder === home)?.id;

    const stranger = await signedInBrowser(ctx, await createAccount(ctx));
    const csrf = formInputs((await stranger.get(PAGE)).body, '/signout')['_csrf'] as string;
    assert.match(text(await landed(stranger, await stranger.post(REVOKE, { _csrf: csrf, id: String(id) }))), /That feed was revoked already/);
    assert.equal((await fetchFeed(folder)).statusCode, 200);

    const page = await b.get(PAGE);
    const form = page.body.slice(page.body.indexOf('Revoke the feed of folder Home') - 400);
    const revoked = await landed(b, await b.post(REVOKE, formInputs(form, REVOKE)));
    assert.match(text(revoked), /Revoked: the feed of folder Home no longer answers at its address\./);
    assert.doesNotMatch(text(revoked), /Revoke the feed of folder Home/);
    assert.equal((await fetchFeed(folder)).statusCode, 404, 'at once');
    assert.equal((await fetchFeed(all)).statusCode, 200, 'the other one goes on');
    assert.match(text(await landed(b, await b.post(REVOKE, formInputs(form, REVOKE)))), /That feed was revoked already/);
  });

  it('every form refuses a post from another site and one without its CSRF token; signed out, it goes to sign in', async () => {
    const account = await createAccount(ctx);
    const b = await signedInBrowser(ctx, account);
    const page = await b.get(PAGE);
    assert.equal((await b.crossSitePost(PAGE, { ...formInputs(page.body, PAGE), tasks: 'all' })).statusCode, 403);
    assert.equal((await b.post(PAGE, { tasks: 'all' })).statusCode, 403);
    assert.equal((await b.crossSitePost(REVOKE, { ...formInputs(page.body, '/signout'), id: '1' })).statusCode, 403);
    assert.deepEqual(await ctx.deps.store.read.calendarFeeds.list(account.pk), []);
    const twice = await b.post(PAGE, [...Object.entries(formInputs(page.body, PAGE)), ['tasks', 'all'], ['tasks', 'all']]);
    assert.equal(twice.statusCode, 400, 'a field sent twice');
    assert.equal((await new Browser(ctx.app).get(PAGE)).headers['location'], '/signin?next=%2Faccount%2Ffeeds');
    // The session ended (another tab signed out): the form's token is still good, the post makes nothing.
    b.cookies.delete('tickler_session');
    const res = await b.post(PAGE, { ...formInputs(page.body, PAGE), tasks: 'all' });
    assert.equal(res.headers['location'], '/signin');
    assert.deepEqual(await ctx.deps.store.read.calendarFeeds.list(account.pk), []);
  });

  it('the new address travels to the page sealed, never in the clear', async () => {
    const account = await createAccount(ctx);
    const b = await signedInBrowser(ctx, account);
    const page = await b.get(PAGE);
    const posted = await b.post(PAGE, filledForm(page.body, PAGE));
    assert.equal(posted.statusCode, 303);
    assert.doesNotMatch(JSON.stringify(posted.headers), /[0-9a-f]{40}/);
    assert.match(text(await b.follow(posted)), /The address of the feed of all tasks/);
  });
});
