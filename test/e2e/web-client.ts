/** What a browser does over real HTTP, for end-to-end tests: the OAuth sign-in and consent pages. */
import { CookieJar, hiddenInputs, postHeaders } from '../browser.js';
import { E2E_PUBLIC_URL } from './processes.js';

export interface Authorized {
  readonly code: string;
  /** The state the redirect carried back (the request sent 'e2e'). */
  readonly state: string | null;
  /** The consent page as shown, before Allow. */
  readonly consentPage: string;
}

/**
 * Signs in and allows, as a user in a browser would; each step may go to a different server
 * (`urls` is used in turn), and the posts say they come from a page of E2E_PUBLIC_URL, as a
 * browser behind the servers' proxy would. Throws when a step does not answer as it should.
 */
export async function authorizeInBrowser(
  urls: readonly string[],
  clientId: string,
  email: string,
  password: string,
  scope = 'basic tasks write',
): Promise<Authorized> {
  let turn = 0;
  const next = () => urls[turn++ % urls.length] as string;
  const query = `response_type=code&client_id=${clientId}&state=e2e&scope=${encodeURIComponent(scope)}`;
  const { location, consentPage } = await signInAndAllow(next, `/3/account/authorize.php?${query}`, email, password);
  const code = location.searchParams.get('code');
  if (!code) throw new Error('no code in the redirect');
  return { code, state: location.searchParams.get('state'), consentPage };
}

/**
 * What a person does with an authorize address an app printed (`url`, on one server): signs in,
 * allows, and is sent to the app's redirect address, which is returned (not fetched).
 */
export async function allowInBrowser(url: string, email: string, password: string): Promise<URL> {
  const u = new URL(url);
  return (await signInAndAllow(() => u.origin, `${u.pathname}${u.search}`, email, password)).location;
}

/** The sign-in and consent pages from `path` on: each request to the server `next()` names. */
async function signInAndAllow(next: () => string, path: string, email: string, password: string): Promise<{ location: URL; consentPage: string }> {
  const jar = new CookieJar();
  let res = await fetch(`${next()}${path}`, { headers: jar.headers() });
  jar.keep(res.headers.getSetCookie());
  const signIn = new URLSearchParams({ ...hiddenInputs(await res.text()), email, password });
  const posted = () => ({ ...postHeaders(E2E_PUBLIC_URL), ...jar.headers() });
  res = await fetch(`${next()}/3/account/authorize.php`, { method: 'POST', body: signIn, headers: posted(), redirect: 'manual' });
  jar.keep(res.headers.getSetCookie());
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  res = await fetch(`${next()}${res.headers.get('location')}`, { headers: jar.headers() });
  jar.keep(res.headers.getSetCookie());
  const consentPage = await res.text();
  res = await fetch(`${next()}/3/account/authorize.php`, {
    method: 'POST',
    body: new URLSearchParams({ ...hiddenInputs(consentPage), action: 'allow' }),
    headers: posted(),
    redirect: 'manual',
  });
  if (res.status !== 303) throw new Error(`consent answered ${res.status}`);
  return { location: new URL(res.headers.get('location') as string), consentPage };
}
