import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { testContext, type TestContext } from '../harness.js';
import { axeViolations, pageFacts } from './chromium.js';

/**
 * What every browser test of the pages shares: a served test context reached under the address
 * people would use, the checks every page passes, and signing in through the page.
 */

/** With SCREENSHOTS=docs/web the pages are photographed there (docs/web.md shows them). */
export const SHOTS = process.env['SCREENSHOTS'] ? resolve(process.env['SCREENSHOTS']) : undefined;

/** The address people use (PUBLIC_URL); Chromium resolves it to the server, as a proxy would serve it. */
export const ORIGIN = 'http://todo.example.org';

async function freePort(): Promise<number> {
  const s = createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as AddressInfo).port;
  s.close();
  return port;
}

export interface Served {
  readonly ctx: TestContext;
  /** Where the server listens: the test's own requests go there. */
  readonly server: string;
  /** Chromium's --host-rules mapping ORIGIN to the server. */
  readonly hostRules: string;
}

/** A test context listening on a free port of its own, PUBLIC_URL being ORIGIN. */
export async function servedContext(env: Record<string, string> = {}): Promise<Served> {
  const port = await freePort();
  const ctx = await testContext({ PORT: String(port), PUBLIC_URL: ORIGIN, LOG_LEVEL: 'silent', ...env });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  return { ctx, server: `http://127.0.0.1:${port}`, hostRules: `MAP todo.example.org:80 127.0.0.1:${port}` };
}

/** The checks of every page: axe-core finds nothing, nothing scrolls sideways, the focus where said; a picture with SHOTS. */
export function pageCheck(page: Page, width: number): (name: string, focus?: RegExp) => Promise<void> {
  return async (name, focus) => {
    assert.deepEqual(await axeViolations(page), [], `${name}: axe-core`);
    const facts = await pageFacts(page);
    assert.ok(facts.overflow <= 0, `${name}: ${facts.overflow} px of horizontal scrolling at ${width} px`);
    if (focus) assert.match(facts.focused, focus, `${name}: the focus`);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
  };
}

/**
 * Does `act` (a click or a key that posts a form) and waits for the page the answer leads to, loaded.
 * `waitForLoadState()` alone is not enough after a post that comes back to the same address: it
 * returns at once when called before the navigation has started, and the test then reads the old
 * page (on a loaded machine, it did).
 */
export async function submitted(page: Page, act: () => Promise<unknown>): Promise<void> {
  // Together: if `act` fails, the wait is not left pending to fail later in another test.
  await Promise.all([page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame() }), act()]);
  await page.waitForLoadState('load');
}

/**
 * Waits until the field `id` has the focus its page gives it (autofocus), and fails naming what
 * has it instead. Chromium moves the focus when it next renders the page, after the load that
 * waitForURL waits for: keys typed at once on a busy machine went to the page, and a title typed
 * as "Weekend" was saved as "eekend".
 */
export async function focusedOn(page: Page, id: string): Promise<void> {
  try {
    await page.waitForFunction(`document.activeElement !== null && document.activeElement.id === ${JSON.stringify(id)}`, undefined, { timeout: 5000 });
  } catch {
    assert.fail(`#${id} should have the focus; ${(await pageFacts(page)).focused || 'nothing'} has it`);
  }
}

/** Signs in on /signin and waits for the task list. */
export async function signInOnPage(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${ORIGIN}/signin`);
  await page.fill('#f-email', email);
  await page.fill('#f-password', password);
  await page.click('main button:has-text("Sign in")');
  await page.waitForURL(`${ORIGIN}/`);
}
