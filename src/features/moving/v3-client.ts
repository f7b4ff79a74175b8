/**
 * A client of a v3 task-sync server (the hosted service, or another Tickler), as bin/tickler
 * import v3 uses it: one request at a time, the access token in a header, and the hosted service's
 * limits respected. Its documented limit is per access token (error 3, HTTP 429, "until the app
 * refreshes"): a limited call refreshes the token, waits what Retry-After says (Tickler's limit
 * is per user and says how long), and tries again. An expired token (error 2) is refreshed once.
 */

export interface V3Tokens {
  access: string;
  refresh: string;
}

export interface V3ClientOptions {
  readonly base: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly tokens: V3Tokens;
  /** Waits; tests pass one that does not. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told of every wait, for the progress line. */
  readonly onWait?: (seconds: number, why: string) => void;
  /** Longest wait for one limited call before giving up (seconds). */
  readonly maxWaitSeconds?: number;
}

export class V3Error extends Error {
  override name = 'V3Error';
  constructor(
    readonly code: number,
    readonly desc: string,
    readonly path: string,
  ) {
    super(`${path}: error ${code}: ${desc}`);
  }
}

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Tries of one call before its failure is final (limits, maintenance, network). */
const MAX_TRIES = 8;

export class V3Client {
  /** API and token requests made, for the summary. */
  requests = 0;
  private tokens: V3Tokens;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: V3ClientOptions) {
    this.tokens = { ...options.tokens };
    this.sleep = options.sleep ?? realSleep;
  }

  /** A JSON call; `params` go in a form body (POST works for every endpoint). */
  async json(path: string, params: Record<string, string> = {}): Promise<unknown> {
    return JSON.parse(await this.call(path, params));
  }

  /** The raw answer of a call (XML when `params.f` is `xml`). */
  async call(path: string, params: Record<string, string> = {}): Promise<string> {
    let refreshedForAuth = false;
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        this.requests++;
        res = await fetch(`${this.options.base}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${this.tokens.access}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(params),
        });
      } catch (err) {
        if (attempt >= MAX_TRIES) throw err;
        await this.wait(Math.min(60, 2 ** attempt), `network error (${(err as Error).message})`);
        continue;
      }
      const body = await res.text();
      const code = errorCodeOf(body, params['f'] === 'xml');
      if (code === undefined && res.ok) return body;
      if ((res.status === 429 || code === 3) && attempt < MAX_TRIES) {
        // The hosted service counts calls per token: a new one starts afresh.
        await this.refresh();
        await this.wait(retryAfter(res) ?? Math.min(300, 5 * 2 ** attempt), 'the source asks to slow down');
        continue;
      }
      if ((res.status === 401 || code === 2) && !refreshedForAuth) {
        refreshedForAuth = true;
        await this.refresh();
        continue;
      }
      if ((res.status === 503 || code === 4) && attempt < MAX_TRIES) {
        await this.wait(retryAfter(res) ?? 30, 'the source is in maintenance');
        continue;
      }
      if (code !== undefined) throw new V3Error(code, descOf(body), path);
      throw new V3Error(0, `HTTP ${res.status}`, path);
    }
  }

  private async wait(seconds: number, why: string): Promise<void> {
    const max = this.options.maxWaitSeconds ?? 3600;
    if (seconds > max) throw new Error(`${why}: it asks to wait ${seconds} s, longer than ${max} s`);
    this.options.onWait?.(seconds, why);
    await this.sleep(seconds * 1000);
  }

  /** grant_type=refresh_token; the answer carries the next refresh token (each works once). */
  async refresh(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const res = await tokenRequest(this.options, { grant_type: 'refresh_token', refresh_token: this.tokens.refresh });
      this.requests++;
      if ('tokens' in res) {
        this.tokens = res.tokens;
        return;
      }
      if (res.code === 103 && attempt < MAX_TRIES) {
        await this.wait(res.retryAfter ?? 60, 'the source limits token requests');
        continue;
      }
      throw new V3Error(res.code, res.desc, '/3/account/token.php');
    }
  }
}

type TokenAnswer = { tokens: V3Tokens } | { code: number; desc: string; retryAfter: number | undefined };

/** A token request with the app's credentials in HTTP Basic (spec 5.4). */
export async function tokenRequest(app: { base: string; clientId: string; clientSecret: string }, form: Record<string, string>): Promise<TokenAnswer> {
  const res = await fetch(`${app.base}/3/account/token.php`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: string; refresh_token?: string; errorCode?: number; errorDesc?: string };
  if (body.access_token && body.refresh_token) return { tokens: { access: body.access_token, refresh: body.refresh_token } };
  return { code: body.errorCode ?? 0, desc: body.errorDesc ?? `HTTP ${res.status}`, retryAfter: retryAfter(res) };
}

/** Retry-After in seconds, or undefined when absent (Number(null) would read as "0 s"). */
function retryAfter(res: Response): number | undefined {
  const header = res.headers.get('retry-after');
  if (header === null || header.trim() === '') return undefined;
  const v = Number(header);
  return Number.isFinite(v) && v >= 0 ? Math.ceil(v) : undefined;
}

/** The error code of an error answer (`{"errorCode":…}`, XML `<error id="…">`), or undefined. */
function errorCodeOf(body: string, xml: boolean): number | undefined {
  if (xml) {
    const m = /^(?:<\?xml[^>]*\?>)?\s*<error id="(\d+)"/.exec(body);
    return m ? Number(m[1]) : undefined;
  }
  if (!body.startsWith('{"errorCode"') && !body.startsWith('{"errorcode"')) return undefined;
  const code = (JSON.parse(body) as { errorCode?: unknown }).errorCode;
  return typeof code === 'number' ? code : Number(code);
}

function descOf(body: string): string {
  const m = /"errorDesc":"([^"]*)"/.exec(body) ?? />([^<]*)<\/error>/.exec(body);
  return m?.[1] ?? body.slice(0, 200);
}
