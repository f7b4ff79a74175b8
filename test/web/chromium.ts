import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import axe from 'axe-core';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/**
 * Debian's Chromium, driven by playwright-core (which downloads no browser of its own). Found as
 * CHROMIUM_PATH or as `chromium` / `chromium-browser` on PATH. Without it the browser tests are
 * skipped with a reason, but fail in CI (CI set): .ci/run installs it, so a missing one is a
 * broken machine, not a reason to pass.
 */
export function chromiumPath(): string | undefined {
  const candidates = process.env['CHROMIUM_PATH'] ? [process.env['CHROMIUM_PATH']] : (process.env['PATH'] ?? '').split(delimiter).flatMap((dir) => [join(dir, 'chromium'), join(dir, 'chromium-browser')]);
  return candidates.find((p) => {
    try {
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** `skip` for node:test: false when Chromium is there; a reason otherwise; throws in CI. */
export function skipWithoutChromium(): false | string {
  if (chromiumPath()) return false;
  if (process.env['CI']) throw new Error('Chromium is missing, and CI is set: the browser tests must run (.ci/run installs chromium)');
  return 'Chromium is not installed (apt-get install -y chromium); CI fails instead of skipping';
}

export interface Launched {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Headless, with a fresh profile of its own, and without the background connections Chromium
 * makes on its own (updates, sync, field trials): the machine's network is closed, and they would
 * only add noise. One context per walk: its cookies are one person's browser.
 */
export async function launchChromium(viewport: { width: number; height: number }, options: { hostRules?: string } = {}): Promise<Launched> {
  const profile = mkdtempSync(join(tmpdir(), 'tickler-chromium-'));
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('no chromium');
  const args = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
  if (options.hostRules) args.push(`--host-resolver-rules=${options.hostRules}`);
  const context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args, viewport });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Everything a page wrote to the console as an error (CSP refusals included), and uncaught errors. */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()} (${page.url()})`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message} (${page.url()})`));
  return problems;
}

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly string[];
}

/** axe-core's violations on the page as it is now (evaluated through the DevTools protocol, which page CSP does not apply to). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axe.source);
  return page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) })))`,
  ) as Promise<AxeViolation[]>;
}

/** What every page must be: no horizontal scrolling, and the element that has the focus. */
export async function pageFacts(page: Page): Promise<{ overflow: number; focused: string }> {
  return page.evaluate(`({
    overflow: document.documentElement.scrollWidth - window.innerWidth,
    focused: document.activeElement ? document.activeElement.tagName.toLowerCase() + (document.activeElement.id ? '#' + document.activeElement.id : '') + (document.activeElement.getAttribute('name') ? '[name=' + document.activeElement.getAttribute('name') + ']' : '') : '',
  })`) as Promise<{ overflow: number; focused: string }>;
}
