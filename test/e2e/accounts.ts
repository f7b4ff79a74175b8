/** Accounts, apps and tokens of a real server, made as an operator and a user make them. */
import { CookieJar, hiddenInputs } from '../browser.js';
import { cli } from './processes.js';

export interface RemoteApp {
  readonly client_id: string;
  readonly client_secret: string;
}

export interface RemoteTokens {
  readonly access_token: string;
  readonly refresh_token: string;
}

/** `bin/tickler user add`; returns the userid. */
export function addUser(env: Record<string, string>, email: string, password: string, pro: 0 | 1 | 2 = 1): string {
  const r = cli(['user', 'add', '--email', email, '--password', password, '--pro', String(pro)], env);
  if (r.code !== 0) throw new Error(`user add failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { userid: string }).userid;
}

/** `bin/tickler app add` with a loopback redirect address (plain http is allowed there). */
export function addApp(env: Record<string, string>, name = 'Fuzz'): RemoteApp & { redirect_uri: string } {
  const redirect = 'http://127.0.0.1:8000/callback';
  const r = cli(['app', 'add', '--name', name, '--redirect-uri', redirect], env);
  if (r.code !== 0) throw new Error(`app add failed: ${r.stderr}`);
  return { ...(JSON.parse(r.stdout) as RemoteApp), redirect_uri: redirect };
}

export function basicAuth(app: RemoteApp): string {
  return `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`;
}

export interface SignedInBrowser {
  /** The browser's cookies: the CSRF cookie and the session. */
  readonly jar: CookieJar;
  /** The hidden fields of the authorize page as last shown (its `_csrf` goes with the jar's cookie). */
  readonly hidden: Record<string, string>;
  /** Consent for the app with this scope: a fresh authorization code (no new sign-in). */
  code(scope?: string): Promise<string>;
  /** A form token made for the signed-in session (`hidden`'s was made before sign-in, with none). */
  sessionCsrf(): Promise<string>;
}

/** A browser signed in once on the authorize pages (sign-in is slow on purpose: do it once). */
export async function signedInBrowser(url: string, app: RemoteApp, email: string, password: string): Promise<SignedInBrowser> {
  const jar = new CookieJar();
  const page = async (scope: string): Promise<string> => {
    const query = new URLSearchParams({ response_type: 'code', client_id: app.client_id, state: 'e2e', scope });
    const res = await fetch(`${url}/3/account/authorize.php?${query.toString()}`, { headers: jar.headers() });
    jar.keep(res.headers.getSetCookie());
    return res.text();
  };
  const hidden = hiddenInputs(await page('basic'));
  const res = await fetch(`${url}/3/account/authorize.php`, { method: 'POST', headers: jar.headers(), body: new URLSearchParams({ ...hidden, email, password }), redirect: 'manual' });
  jar.keep(res.headers.getSetCookie());
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  return {
    jar,
    hidden,
    async sessionCsrf() {
      const token = hiddenInputs(await page('basic'))['_csrf'];
      if (!token) throw new Error('no CSRF token on the consent page');
      return token;
    },
    async code(scope = 'basic tasks write') {
      const consent = await page(scope);
      const allow = await fetch(`${url}/3/account/authorize.php`, {
        method: 'POST',
        headers: jar.headers(),
        body: new URLSearchParams({ ...hiddenInputs(consent), action: 'allow' }),
        redirect: 'manual',
      });
      const code = allow.status === 303 ? new URL(allow.headers.get('location') ?? '').searchParams.get('code') : null;
      if (!code) throw new Error(`consent answered ${allow.status}`);
      return code;
    },
  };
}

/** The token endpoint's answer to a code. */
export async function exchangeCode(url: string, app: RemoteApp, code: string): Promise<RemoteTokens> {
  const res = await fetch(`${url}/3/account/token.php`, {
    method: 'POST',
    headers: { authorization: basicAuth(app) },
    body: new URLSearchParams({ grant_type: 'authorization_code', code }),
  });
  const body = (await res.json()) as Partial<RemoteTokens>;
  if (!body.access_token || !body.refresh_token) throw new Error(`token request failed: ${JSON.stringify(body)}`);
  return { access_token: body.access_token, refresh_token: body.refresh_token };
}

/** Sign-in, consent and the token endpoint: the tokens an app holds for the account. */
export async function tokensFor(url: string, app: RemoteApp, email: string, password: string, scope = 'basic tasks write'): Promise<RemoteTokens> {
  const browser = await signedInBrowser(url, app, email, password);
  return exchangeCode(url, app, await browser.code(scope));
}
