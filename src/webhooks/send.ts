import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Target } from './targets.js';

/** How long a delivery waits for its answer before it counts as failed. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Of an answer's body, what is read before the connection is dropped: nobody reads it. */
const BODY_READ = 64 * 1024;

export interface SendResult {
  /** The HTTP status, or null when none came. */
  readonly status: number | null;
  /** Why none came (refused, unreachable, timed out); null when one did. */
  readonly error: string | null;
  readonly latencyMs: number;
}

/**
 * POSTs `body` to the target, connecting to the address it was checked at (never resolving its
 * name again: targets.ts) while the TLS handshake and the Host header still name the host, so that
 * its certificate is checked as for any request. One connection per delivery (no pool that could
 * hold a connection to another address), no redirect followed, the whole answer within
 * `timeoutMs`.
 */
export function postTo(target: Target, headers: Record<string, string>, body: string, timeoutMs = DELIVERY_TIMEOUT_MS): Promise<SendResult> {
  const started = performance.now();
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (err: null, addresses: Array<{ address: string; family: number }>) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const { url } = target;
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const done = (status: number | null, error: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ status, error, latencyMs: Math.round(performance.now() - started) });
    };
    const req = request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        agent: false,
        lookup: pinned,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Tickler-Webhooks/1' },
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > BODY_READ) done(res.statusCode ?? null, null);
        });
        res.on('end', () => done(res.statusCode ?? null, null));
        res.on('error', () => done(res.statusCode ?? null, null));
      },
    );
    const timer = setTimeout(() => done(null, `no answer within ${timeoutMs / 1000} s`), timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => done(null, describe(err)));
    req.end(body);
  });
}

function describe(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      return err.code ? `${err.code}: ${err.message}` : err.message;
  }
}
