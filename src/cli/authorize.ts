import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { createInterface } from 'node:readline/promises';
import { randomHex } from '../lib/crypto.js';
import { tokenRequest, V3Error, type V3Tokens } from '../features/moving/v3-client.js';

/** What import v3 asks of the source account: reading everything; nothing is written there. */
export const IMPORT_SCOPE = 'basic tasks notes outlines lists';

export interface AuthorizeOptions {
  readonly base: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The app's registered redirect address; a loopback one (http://127.0.0.1:PORT/…) is listened on. */
  readonly redirectUri: string | undefined;
  /** Where to tell the person what to do (stderr). */
  readonly say: (line: string) => void;
  readonly input?: NodeJS.ReadableStream;
}

/**
 * The OAuth authorization-code flow of spec 5, as a command-line app does it: prints the authorize
 * address for the person to open; then either catches the browser's redirect on the loopback
 * address the app registered (RFC 8252 §7.3), or reads the code the person pastes (from the
 * redirect's address bar). The state is checked when the redirect is caught.
 */
export async function authorize(options: AuthorizeOptions): Promise<V3Tokens> {
  const state = randomHex(16);
  const url = `${options.base}/3/account/authorize.php?${new URLSearchParams({ response_type: 'code', client_id: options.clientId, state, scope: IMPORT_SCOPE })}`;
  const loopback = loopbackOf(options.redirectUri);
  let code: string;
  if (loopback) {
    const server = createServer();
    server.listen(Number(loopback.port), loopback.hostname.replace(/^\[|\]$/g, ''));
    await once(server, 'listening');
    options.say(`Open this address in a browser, sign in and allow access:\n${url}\nWaiting for the browser to come back to ${options.redirectUri} …`);
    try {
      code = await catchRedirect(server, loopback.pathname, state);
    } finally {
      server.close();
    }
  } else {
    options.say(`Open this address in a browser, sign in and allow access:\n${url}\nThen paste the code from the address the browser was sent to (…?code=…):`);
    const rl = createInterface({ input: options.input ?? process.stdin });
    const line = await rl.question('');
    rl.close();
    code = line.trim().replace(/^.*[?&]code=([^&]+).*$/, '$1');
  }
  const answer = await tokenRequest(options, { grant_type: 'authorization_code', code });
  if ('code' in answer) throw new V3Error(answer.code, answer.desc, '/3/account/token.php');
  return answer.tokens;
}

function loopbackOf(uri: string | undefined): URL | undefined {
  if (!uri) return undefined;
  const u = URL.canParse(uri) ? new URL(uri) : undefined;
  return u && u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname) && u.port !== '' ? u : undefined;
}

/** The code of the first request to `path` that carries this state (or the error it carries). */
function catchRedirect(server: Server, path: string, state: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.on('request', (req, res) => {
      const u = new URL(req.url ?? '/', 'http://loopback');
      if (u.pathname !== path || u.searchParams.get('state') !== state) {
        res.writeHead(404).end();
        return;
      }
      const code = u.searchParams.get('code');
      const error = u.searchParams.get('error');
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(code ? 'Tickler has what it needs: you can close this window.\n' : `Not authorized: ${error ?? 'no code'}\n`);
      if (code) resolve(code);
      else reject(new Error(`the source did not authorize the import: ${error ?? 'no code'}`));
    });
  });
}
