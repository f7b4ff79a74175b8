/** What a browser and an app do over real HTTP, for end-to-end tests (fetch, cookies, forms). */

/** A browser's worth of cookie handling for fetch. */
export class Jar {
  private readonly cookies = new Map<string, string>();

  header(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
  }

  keep(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      const i = pair.indexOf('=');
      this.cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
  }
}

/** Hidden fields of the first form on a page, entities decoded. */
export function hidden(html: string): Record<string, string> {
  const form = html.slice(html.indexOf('<form'), html.indexOf('</form>'));
  const out: Record<string, string> = {};
  for (const m of form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    out[m[1] as string] = (m[2] as string).replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
  }
  return out;
}

/**
 * Signs in and allows, as a user in a browser would; each step may go to a different server
 * (`urls` is used in turn). Returns the authorization code from the redirect.
 */
export async function authorizeInBrowser(
  urls: readonly string[],
  clientId: string,
  email: string,
  password: string,
  scope = 'basic tasks write',
): Promise<string> {
  let turn = 0;
  const next = () => urls[turn++ % urls.length] as string;
  const jar = new Jar();
  const query = `response_type=code&client_id=${clientId}&state=e2e&scope=${encodeURIComponent(scope)}`;
  let res = await fetch(`${next()}/3/account/authorize.php?${query}`, { headers: jar.header() });
  jar.keep(res);
  const signIn = new URLSearchParams({ ...hidden(await res.text()), email, password });
  res = await fetch(`${next()}/3/account/authorize.php`, { method: 'POST', body: signIn, headers: jar.header(), redirect: 'manual' });
  jar.keep(res);
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  res = await fetch(`${next()}${res.headers.get('location')}`, { headers: jar.header() });
  jar.keep(res);
  const consent = await res.text();
  res = await fetch(`${next()}/3/account/authorize.php`, {
    method: 'POST',
    body: new URLSearchParams({ ...hidden(consent), action: 'allow' }),
    headers: jar.header(),
    redirect: 'manual',
  });
  if (res.status !== 303) throw new Error(`consent answered ${res.status}`);
  const code = new URL(res.headers.get('location') as string).searchParams.get('code');
  if (!code) throw new Error('no code in the redirect');
  return code;
}
