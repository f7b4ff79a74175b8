import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { openFlash, type Flash } from '../src/web/flash.js';

/**
 * Cookies as a browser keeps them, by name (path, domain and expiry dates to come are not
 * modelled): a Set-Cookie adds or replaces one, and a cleared one (empty value, Max-Age of 0 or
 * less, or an Expires in the past) is dropped. Used by the in-process Browser below and by the
 * end-to-end tests over fetch (test/e2e/web-client.ts); tests may also set or delete cookies
 * directly, as an attacker or a closed tab would.
 */
export class CookieJar extends Map<string, string> {
  /** Request headers carrying the cookies: `{ cookie }`, or none. */
  headers(): Record<string, string> {
    return this.size === 0 ? {} : { cookie: [...this].map(([k, v]) => `${k}=${v}`).join('; ') };
  }

  /** Takes in the Set-Cookie header lines of a response. */
  keep(setCookie: readonly string[]): void {
    for (const line of setCookie) {
      const [pair = '', ...attributes] = line.split(';').map((s) => s.trim());
      const i = pair.indexOf('=');
      const [name, value] = [pair.slice(0, i), pair.slice(i + 1)];
      const attribute = (key: string): string | undefined =>
        attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const maxAge = attribute('max-age');
      const expires = attribute('expires');
      const cleared = value === '' || (maxAge !== undefined && Number(maxAge) <= 0) || (expires !== undefined && Date.parse(expires) < Date.now());
      if (cleared) this.delete(name);
      else this.set(name, value);
    }
  }
}

/** The origin of the default PUBLIC_URL (HOST 127.0.0.1, PORT 3000), where test pages live. */
export const DEFAULT_ORIGIN = 'http://127.0.0.1:3000';

/**
 * What a current browser sends with a form post on a page of `origin`: where the post comes from
 * (Origin, Sec-Fetch-Site). An older browser, or curl, sends neither (`origin` null).
 */
export function postHeaders(origin: string | null): Record<string, string> {
  return origin === null ? {} : { origin, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
}

/**
 * A minimal browser over app.inject: keeps cookies between requests (CookieJar) and reads hidden
 * form fields, so page tests walk the flow as a user would. Its form posts say they come from a
 * page of `origin` (PUBLIC_URL's origin), as a current browser's do; null sends no such headers.
 */
export class Browser {
  readonly cookies = new CookieJar();

  constructor(
    private readonly app: FastifyInstance,
    private readonly remoteAddress = '127.0.0.1',
    private readonly origin: string | null = DEFAULT_ORIGIN,
  ) {}

  private keep(res: LightMyRequestResponse): LightMyRequestResponse {
    const setCookie = res.headers['set-cookie'];
    this.cookies.keep(setCookie === undefined ? [] : ([] as string[]).concat(setCookie));
    return res;
  }

  /**
   * Follows a redirect to one of this server's pages (Post/Redirect/Get), as a browser does; the
   * response's cookies are kept first (it may come from a request the test made by hand).
   */
  async follow(res: LightMyRequestResponse): Promise<LightMyRequestResponse> {
    this.keep(res);
    const location = res.headers['location'];
    if (typeof location !== 'string' || ![301, 302, 303, 307, 308].includes(res.statusCode)) throw new Error(`not a redirect: ${res.statusCode}`);
    const url = new URL(location, 'http://this.server');
    if (url.origin !== 'http://this.server') throw new Error(`a redirect away from this server: ${location}`);
    return this.get(`${url.pathname}${url.search}`);
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.keep(await this.app.inject({ method: 'GET', url, remoteAddress: this.remoteAddress, headers: this.cookies.headers() }));
  }

  /**
   * The post a page of another site makes with this browser's cookies (a cross-site request
   * forgery): it says where it comes from, as a current browser does. Its answer's cookies are not kept.
   */
  async crossSitePost(url: string, form: Record<string, string>): Promise<LightMyRequestResponse> {
    return this.app.inject({
      method: 'POST',
      url,
      remoteAddress: this.remoteAddress,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', ...this.cookies.headers() },
      payload: new URLSearchParams(form).toString(),
    });
  }

  /** Posts a url-encoded form: a record, or name–value pairs when a name must appear twice. */
  async post(url: string, form: Record<string, string | undefined> | ReadonlyArray<readonly [string, string]>): Promise<LightMyRequestResponse> {
    const pairs = Array.isArray(form) ? form : Object.entries(form);
    const body = new URLSearchParams(pairs.filter((kv): kv is [string, string] => kv[1] !== undefined));
    return this.keep(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.remoteAddress,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...postHeaders(this.origin), ...this.cookies.headers() },
        payload: body.toString(),
      }),
    );
  }
}

/** Hidden fields of the first form on a page (name → value), HTML entities decoded. */
export function hiddenInputs(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  const form = html.slice(html.indexOf('<form'), html.indexOf('</form>'));
  for (const m of form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    out[decode(m[1] as string)] = decode(m[2] as string);
  }
  return out;
}

function decode(s: string): string {
  return s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
}

/**
 * What a form post left for the page it redirects to (src/web/flash.ts), read from the post's own
 * Set-Cookie with the browser's CSRF secret: posts sent at once each get theirs.
 */
export function flashOf(res: LightMyRequestResponse, browser: Browser, csrfCookie = 'tickler_csrf'): Flash | undefined {
  const jar = new CookieJar();
  const setCookie = res.headers['set-cookie'];
  jar.keep(setCookie === undefined ? [] : ([] as string[]).concat(setCookie));
  const sealed = [...jar].find(([name]) => name.endsWith('tickler_flash'))?.[1];
  const secret = browser.cookies.get(csrfCookie);
  return sealed && secret ? openFlash(sealed, secret) : undefined;
}

/** Hidden fields (name → value) of the form on a page that posts to `action`, HTML entities decoded. */
export function formInputs(html: string, action: string): Record<string, string> {
  const at = html.indexOf(`action="${action}"`);
  if (at < 0) throw new Error(`no form posts to ${action}`);
  return hiddenInputs(html.slice(html.lastIndexOf('<form', at)));
}

/**
 * Fills and posts the form of `page` (a path) that posts to `action` (the page itself when not
 * given), with its hidden fields and `fields`; the Post/Redirect/Get answer.
 */
export async function submit(
  browser: Browser,
  page: string,
  fields: Record<string, string> = {},
  action = page.split('?')[0] as string,
): Promise<LightMyRequestResponse> {
  const shown = await browser.get(page);
  return browser.post(action, { ...formInputs(shown.body, action), ...fields });
}

/** What a browser sends for the form on `html` that posts to `action`, as shown: its hidden and filled fields, ticked boxes and radio buttons, chosen options. */
export function filledForm(html: string, action: string): Record<string, string> {
  const at = html.indexOf(`action="${action}"`);
  const form = html.slice(html.lastIndexOf('<form', at), html.indexOf('</form>', at));
  const out: Record<string, string> = {};
  for (const m of form.matchAll(/<input ([^>]*)>/g)) {
    const attrs = m[1] ?? '';
    const name = /name="([^"]*)"/.exec(attrs)?.[1];
    const value = /value="([^"]*)"/.exec(attrs)?.[1] ?? '';
    if (name === undefined || (/type="(checkbox|radio)"/.test(attrs) && !/ checked/.test(attrs))) continue;
    // A browser drops line breaks from a one-line field's value; a hidden field keeps them.
    const typed = /type="hidden"/.test(attrs) ? decode(value) : decode(value).replace(/[\r\n]/g, '');
    out[decode(name)] = typed;
  }
  for (const m of form.matchAll(/<select [^>]*name="([^"]*)"[^>]*>(.*?)<\/select>/g)) out[m[1] ?? ''] = decode(/<option value="([^"]*)" selected>/.exec(m[2] ?? '')?.[1] ?? '');
  // The line break after the tag is the parser's, not the value's.
  for (const m of form.matchAll(/<textarea [^>]*name="([^"]*)"[^>]*>\n?([^<]*)<\/textarea>/g)) out[m[1] ?? ''] = decode(m[2] ?? '');
  // And sends every line break of a form as CRLF.
  for (const k of Object.keys(out)) out[k] = (out[k] ?? '').replace(/\r?\n/g, '\r\n');
  return out;
}
