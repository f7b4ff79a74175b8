import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../errors.js';
import { pageHeaderValues, type Site } from '../web/html.js';
import { errorPage } from '../web/pages.js';
import { errorText } from './error-body.js';

/**
 * Requests Node.js's HTTP parser refuses before Fastify ever sees them: a head larger than
 * `maxHeaderSize` (431), a request not received within `requestTimeout` (408), bytes that are not
 * HTTP (400). Fastify's own answer to them carries no `Connection: close` although the socket is
 * closed right after, so a keep-alive client sent its next request into a closed connection and
 * got ECONNRESET. This answer says `Connection: close`, in the API's error record for `/3/` paths
 * (and when the path cannot be told), as a page for the others; then the connection is closed.
 */

/** How long what a refused client still sends is read and dropped before the socket is closed anyway. */
const LINGER_MS = 2000;

/** Sockets already answered: the parser may report the same request again (at its end, or on timeout). */
const answered = new WeakSet<Socket>();

/** What Node.js reports: a code, and the bytes the parser was reading when it failed. */
type ClientError = Error & { readonly code?: unknown; readonly rawPacket?: unknown };

function refusalOf(err: ClientError): ApiError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(0, { status: 431, desc: 'The request head (its address and headers) is too large' });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError(0, { status: 408, desc: 'The request took too long to arrive' });
    default:
      return new ApiError(0, { status: 400, desc: 'Malformed request: it could not be read as HTTP' });
  }
}

/** The target of the request line, when the failing bytes begin with it (undefined otherwise). */
function targetOf(raw: unknown): string | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  return /^[A-Z]+ (\S+)/.exec(raw.subarray(0, 8192).toString('latin1'))?.[1];
}

/** The answer's bytes: the v3 error record, or an error page for a page's path. */
export function clientErrorAnswer(err: ClientError, site: Site): Buffer {
  const refusal = refusalOf(err);
  const target = targetOf(err.rawPacket);
  const path = target?.split('?')[0];
  const isPage = path !== undefined && path.startsWith('/') && !path.startsWith('/3/') && path !== '/healthz' && path !== '/readyz';
  let headers: Record<string, string>;
  let body: string;
  if (isPage) {
    headers = { ...pageHeaderValues() };
    body = errorPage(site, 'Bad request', refusal.desc);
  } else {
    const xml = /[?&]f=xml(&|$)/i.test(target ?? '');
    headers = { 'content-type': xml ? 'text/xml; charset=utf-8' : 'application/json; charset=utf-8', 'cache-control': 'no-store' };
    body = errorText(refusal, xml ? 'xml' : 'json');
  }
  const bytes = Buffer.from(body, 'utf8');
  const head = [
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Error'}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    `content-length: ${bytes.length}`,
    'connection: close',
  ];
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), bytes]);
}

/**
 * Fastify's `clientErrorHandler`. The connection is ended after the answer, and what the client
 * still sends (the rest of an oversized head) is read and dropped for a moment: closing a socket
 * with unread bytes makes the kernel send a reset, which can reach the client before it has read
 * the answer. Node.js's own parser is detached first, so that those bytes are not parsed again.
 */
export function answerClientError(site: Site): (err: ClientError, socket: Socket) => void {
  return function clientError(err, socket) {
    if (answered.has(socket) || err.code === 'ECONNRESET' || socket.destroyed) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    // A pipelined request whose predecessor's answer has begun: writing now would cut into it
    // (Node.js's own handler makes the same check).
    const inProgress = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (!socket.writable || inProgress?.headersSent) {
      socket.destroy();
      return;
    }
    socket.removeAllListeners('data');
    socket.on('data', () => undefined);
    socket.on('end', () => socket.destroy());
    socket.end(clientErrorAnswer(err, site));
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}
