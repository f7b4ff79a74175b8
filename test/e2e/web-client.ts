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
  const jar = new CookieJar();
  const query = `response_type=code&client_id=${clientId}&state=e2e&scope=${encodeURIComponent(scope)}`;
  let res = await fetch(`${next()}/3/account/authorize.php?${query}`, { headers: jar.headers() });
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
  const location = new URL(res.headers.get('location') as string);
  const code = location.searchParams.get('code');
  if (!code) throw new Error('no code in the redirect');
  return { code, state: location.searchParams.get('state'), consentPage };
}
