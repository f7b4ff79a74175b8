/**
 * What only a socket can carry: requests cut off mid-way, bodies shorter than they claim, and
 * HTTP that is not HTTP (bad framing, bad headers, oversized lines, pipelining). Each case is
 * data for fast-check; `bytesOf` writes it out.
 */
import fc from 'fast-check';
import { requestArbitrary, type FuzzRequest } from './requests.js';
import type { Wire } from './wire.js';
import type { RouteEntry } from './routes.js';

export type SocketCase =
  /** A whole request (Connection: close): it must be answered. */
  | { readonly kind: 'whole'; readonly request: FuzzRequest }
  /** The same, hung up after `fraction` of its bytes and `delayMs`. */
  | { readonly kind: 'cut'; readonly request: FuzzRequest; readonly fraction: number; readonly delayMs: number }
  /** A body shorter than its Content-Length; the client waits `delayMs`, then hangs up. */
  | { readonly kind: 'short-body'; readonly request: FuzzRequest; readonly missing: number; readonly delayMs: number }
  /** Malformed HTTP: one of the templates below, with the token of the moment. */
  | { readonly kind: 'malformed'; readonly template: number; readonly junk: string };

const TEMPLATES: ReadonlyArray<(token: string, junk: string) => string> = [
  (_t, junk) => `${junk}\r\n\r\n`,
  () => 'GET / HTTP/9.9\r\nHost: x\r\n\r\n',
  () => 'GET  HTTP/1.1\r\nHost: x\r\n\r\n',
  () => 'get /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
  (t) => `GET /3/account/get.php?access_token=${t} HTTP/1.0\r\n\r\n`,
  (t) => `GET http://127.0.0.1/3/account/get.php?access_token=${t} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
  () => 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
  () => 'CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: x\r\n\r\n',
  (t) => `POST /3/tasks/add.php HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nContent-Length: 5\r\nContent-Length: 6\r\nContent-Type: text/plain\r\n\r\nhello!`,
  (t) => `POST /3/tasks/add.php HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
  (t) => `POST /3/tasks/add.php HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nzz\r\ntasks=[]\r\n0\r\n\r\n`,
  (t) => `POST /3/tasks/add.php HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nabc\r\n`,
  (t, junk) => `POST /3/tasks/add.php HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-www-form-urlencoded\r\nConnection: close\r\n\r\n6\r\ntasks=\r\n${Buffer.byteLength(junk).toString(16)}\r\n${junk}\r\n0\r\n\r\n`,
  (t) => `POST /3/tasks/add.php HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n`,
  (t) => `GET /3/account/get.php HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nX-Null: a\u0000b\r\n\r\n`,
  (t) => `GET /3/account/get.php HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nX-Folded: a\r\n b\r\n\r\n`,
  (t) => `GET /3/account/get.php HTTP/1.1\r\nHost: x\r\nAuthorization : Bearer ${t}\r\n\r\n`,
  () => 'GET /3/account/get.php HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n',
  (t) => `GET /3/account/get.php HTTP/1.1\nHost: x\nAuthorization: Bearer ${t}\nConnection: close\n\n`,
  (t) => `GET /3/account/get.php?access_token=${t}&pad=${'a'.repeat(1_100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
  (t) => `GET /3/account/get.php HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nX-Pad: ${'a'.repeat(1_100_000)}\r\n\r\n`,
  (t, junk) => `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nPOST /3/tasks/add.php HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nContent-Length: 1\r\n\r\n${junk}`,
  (t) => `POST /3/tasks/add.php HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nExpect: 100-continue\r\nContent-Length: 100\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\n`,
  (t) => `POST /3/tasks/add.php HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nContent-Length: -1\r\n\r\n`,
  (t) => `POST /3/tasks/add.php HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nContent-Length: 99999999999999999999\r\n\r\n`,
  (t, junk) => `POST /3/tasks/add.php HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nContent-Type: multipart/form-data; boundary=b\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(junk) + 60}\r\n\r\n--b\r\nContent-Disposition: form-data; name="tasks"\r\n\r\n${junk}`,
  (t) => `GET /3/account/get.php HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n`,
  () => '\r\n\r\n\r\n',
  () => 'G',
];

export function socketCaseArbitrary(routes: readonly RouteEntry[]): fc.Arbitrary<SocketCase> {
  const request = requestArbitrary(routes);
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('whole' as const), request }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('cut' as const), request, fraction: fc.double({ min: 0, max: 1, noNaN: true }), delayMs: fc.integer({ min: 0, max: 30 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('short-body' as const), request, missing: fc.integer({ min: 1, max: 100_000 }), delayMs: fc.integer({ min: 0, max: 30 }) }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('malformed' as const),
        template: fc.nat({ max: TEMPLATES.length - 1 }),
        junk: fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((n) => String.fromCharCode(n)), maxLength: 40 }),
      }),
    },
  );
}

/** HTTP/1.1 bytes of a request; `missing` bytes fewer than its Content-Length says. */
export function httpBytes(w: Wire, missing = 0): Buffer {
  const headers: Record<string, string> = { host: '127.0.0.1', connection: 'close', ...w.headers };
  if (w.payload) headers['content-length'] = String(w.payload.length + missing);
  const head = `${w.method} ${w.url} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), w.payload ?? Buffer.alloc(0)]);
}

export function malformedBytes(c: { template: number; junk: string }, token: string): Buffer {
  return Buffer.from((TEMPLATES[c.template] as (t: string, j: string) => string)(token, c.junk), 'latin1');
}
