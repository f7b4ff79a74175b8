import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/**
 * A minimal browser over app.inject: keeps cookies between requests (by name; path and expiry
 * are not modelled) and reads hidden form fields, so page tests walk the flow as a user would.
 */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(private readonly app: FastifyInstance, private readonly remoteAddress = '127.0.0.1') {}

  private cookieHeader(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      const cleared = c.value === '' || c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() < Date.now());
      if (cleared) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    const cookie = this.cookieHeader();
    return this.keep(await this.app.inject({ method: 'GET', url, remoteAddress: this.remoteAddress, headers: cookie ? { cookie } : {} }));
  }

  async post(url: string, form: Record<string, string | undefined>): Promise<LightMyRequestResponse> {
    const cookie = this.cookieHeader();
    const body = new URLSearchParams(Object.entries(form).filter((kv): kv is [string, string] => kv[1] !== undefined));
    return this.keep(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.remoteAddress,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie && { cookie }) },
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
