import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Account } from '../src/storage/store.js';
import { Browser, submit } from './browser.js';
import { PASSWORD, type TestContext } from './harness.js';

/** Steps the web page tests share. */

/** A browser signed in to the web pages as `account` (whose password is PASSWORD). */
export async function signedInBrowser(ctx: TestContext, account: Account, browser = new Browser(ctx.app)): Promise<Browser> {
  const res = await submit(browser, '/signin', { email: account.email, password: PASSWORD });
  assert.equal(res.statusCode, 303, res.body);
  assert.equal(res.headers['location'], '/');
  return browser;
}

/** The page a post redirected to, as the browser shows it next. */
export async function landed(browser: Browser, res: LightMyRequestResponse): Promise<LightMyRequestResponse> {
  assert.equal(res.statusCode, 303, `a post answers with a redirect (Post/Redirect/Get): ${res.statusCode} ${res.body.slice(0, 300)}`);
  return browser.follow(res);
}

/** The text of a page without its tags, for matching what a person reads. */
export function text(res: LightMyRequestResponse): string {
  return res.body.replace(/<style>[^<]*<\/style>/, '').replace(/<[^>]+>/g, ' ').replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))).replace(/\s+/g, ' ');
}
