import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { Browser, flashOf, hiddenInputs } from '../../test/browser.js';
import { PASSWORD, type TestApp, type TestContext } from '../../test/harness.js';
import type { Account } from '../storage/store.js';

/** Steps of the authorize page that its tests share. */

export const PATH = '/3/account/authorize.php';

/** The authorize address for `app` with a valid request; `extra` changes or (undefined) removes parameters. */
export function authorizeUrl(app: TestApp, extra: Record<string, string | undefined> = {}): string {
  const params: Record<string, string | undefined> = { response_type: 'code', client_id: app.clientId, state: 'st4te', scope: 'basic tasks', ...extra };
  const q = new URLSearchParams(Object.entries(params).filter((kv): kv is [string, string] => kv[1] !== undefined));
  return `${PATH}?${q.toString()}`;
}

/** Walks sign-in; returns the browser, now holding a session. */
export async function signedIn(ctx: TestContext, app: TestApp, account: Account, browser = new Browser(ctx.app)): Promise<Browser> {
  const page = await browser.get(authorizeUrl(app));
  const res = await browser.post(PATH, { ...hiddenInputs(page.body), email: account.email, password: PASSWORD });
  assert.equal(res.statusCode, 303, res.body);
  return browser;
}

/**
 * What a sign-in post came to, as the status the page shows: 303 signed in (a session cookie),
 * otherwise the page it redirects back to: 429 when throttled (its flash says how long to wait),
 * 200 for a wrong password. Read from the post's own cookies, so posts sent at once each count.
 */
export function signInOutcome(res: LightMyRequestResponse, browser: Browser): number {
  assert.equal(res.statusCode, 303, 'a sign-in post always redirects (Post/Redirect/Get)');
  if (res.cookies.some((c) => c.name.endsWith('tickler_session') && c.value !== '')) return 303;
  return flashOf(res, browser)?.retryAfter !== undefined ? 429 : 200;
}

/** From a signed-in browser, submits the consent form with the given button. */
export async function decide(browser: Browser, app: TestApp, action: 'allow' | 'deny', extra: Record<string, string> = {}) {
  const consent = await browser.get(authorizeUrl(app, extra));
  assert.match(consent.body, /Allow/);
  return browser.post(PATH, { ...hiddenInputs(consent.body), action });
}
