/**
 * A fuzz request's bytes: method, URL, headers and body, with the credentials of the moment
 * filled in. The same bytes go through app.inject in process and through a socket to a real
 * server.
 */
import { looseUtf8, percentEncode } from './bytes.js';
import { SecretRef, Typed, type Param, type ParamValue, type Secret } from './params.js';
import type { Auth, Body, Cookies, FuzzRequest, MultipartMangle, PathVariant } from './requests.js';
import { concreteUrl } from './routes.js';

/** The credentials of the running session: an account, an app, tokens, a browser's cookies. */
export interface Secrets extends Readonly<Record<Secret, string>> {
  /** `name=value` of the CSRF cookie the csrf secret belongs to. */
  readonly csrfCookie: string;
  /**
   * A form token of the same CSRF cookie made for the signed-in session: tokens are bound to the
   * session (src/web/csrf.ts), so the `csrf` secret (made with no session) goes with the CSRF
   * cookie alone, and this one with the cookie and the session.
   */
  readonly sessionCsrf: string;
  /** `name=value` of a signed-in session. */
  readonly sessionCookie: string;
}

/** What goes on the wire. */
export interface Wire {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly payload: Buffer | undefined;
}

function resolve(v: ParamValue, s: Secrets): string | Typed {
  if (v instanceof SecretRef) return s[v.name];
  return v;
}

/** A parameter value as form text: typed values in their JSON (or plain) spelling. */
function asText(v: string | Typed): string {
  if (typeof v === 'string') return v;
  if (typeof v.value === 'string') return v.value;
  if (typeof v.value === 'number' || typeof v.value === 'boolean' || v.value === null) return String(v.value);
  return JSON.stringify(v.value) ?? '';
}

function encodeParams(ps: readonly Param[], s: Secrets): string {
  return ps.map(([k, v]) => `${percentEncode(k)}=${percentEncode(asText(resolve(v, s)))}`).join('&');
}

function pathOf(route: string, variant: PathVariant): string {
  const path = concreteUrl(route, 'x');
  switch (variant) {
    case 'exact':
      return path;
    case 'trailing-slash':
      return `${path}/`;
    case 'double-slash':
      return path.replace('/', '//');
    case 'upper':
      return path.toUpperCase();
    case 'encoded-dot':
      return path.replace('.', '%2E');
    case 'bad-percent':
      return `${path}%`;
    case 'nul':
      return `${path}%00`;
    case 'unknown':
      return path.replace(/[^/]*$/, 'nope.php');
    case 'dot-segment':
      return path.replace(/\/([^/]*)$/, '/../$1');
    case 'long':
      return `${path}${'/a'.repeat(50_000)}`;
  }
}

function authorization(auth: Auth, s: Secrets): string | undefined {
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  switch (auth) {
    case 'none':
      return undefined;
    case 'bearer':
      return `Bearer ${s.token}`;
    case 'bearer-lower':
      return `bearer  ${s.token} `;
    case 'bearer-basic-scope':
      return `Bearer ${s.basicToken}`;
    case 'bearer-unknown':
      return `Bearer ${s.unknownToken}`;
    case 'bearer-empty':
      return 'Bearer';
    case 'bearer-two-words':
      return `Bearer ${s.token} ${s.token}`;
    case 'bearer-huge':
      return `Bearer ${'A'.repeat(100_000)}`;
    case 'basic-client':
      return basic(s.clientId, s.clientSecret);
    case 'basic-wrong-secret':
      return basic(s.clientId, 'wrong');
    case 'basic-garbage':
      return 'Basic !!!not base64!!!';
    case 'other-scheme':
      return `Digest username="${s.email}"`;
  }
}

function cookieHeader(cookies: Cookies, s: Secrets): string | undefined {
  switch (cookies) {
    case 'none':
      return undefined;
    case 'csrf':
      return s.csrfCookie;
    case 'csrf-session':
      return `${s.csrfCookie}; ${s.sessionCookie}`;
    case 'garbage':
      return 'tickler_csrf=%%%; tickler_session=; =; tickler_device=%E0%A4%A';
  }
}

const BOUNDARY = 'fuzz-boundary-7d3f';

function multipart(ps: readonly Param[], s: Secrets, mangle: MultipartMangle, cut: number): { bytes: Buffer; contentType: string } {
  const eol = mangle === 'lf-only' ? '\n' : '\r\n';
  const parts: Buffer[] = [];
  if (mangle === 'preamble') parts.push(Buffer.from(`this is a preamble${eol}`));
  for (const [i, [k, v]] of ps.entries()) {
    const file = mangle === 'file-parts' && i % 2 === 0 ? `; filename="f${i}.txt"` : '';
    const disposition =
      mangle === 'nameless' ? 'form-data' : mangle === 'bad-disposition' ? `attachment; name=${k}` : `form-data; name="${k.replace(/"/g, '%22')}"${file}`;
    parts.push(Buffer.from(`--${BOUNDARY}${eol}Content-Disposition: `), looseUtf8(disposition), Buffer.from(`${eol}${eol}`));
    parts.push(looseUtf8(asText(resolve(v, s))), Buffer.from(eol));
  }
  if (mangle !== 'no-closing') parts.push(Buffer.from(`--${BOUNDARY}--${eol}`));
  let bytes = Buffer.concat(parts);
  if (mangle === 'cut') bytes = bytes.subarray(0, Math.floor(bytes.length * cut));
  const contentType =
    mangle === 'no-boundary' ? 'multipart/form-data' : mangle === 'other-boundary' ? 'multipart/form-data; boundary=another' : `multipart/form-data; boundary=${BOUNDARY}`;
  return { bytes, contentType };
}

/** A JSON object written by hand, so that a name may repeat. */
function jsonObject(ps: readonly Param[], s: Secrets, typedAsText: boolean): string {
  const members = ps.map(([k, v]) => {
    const value = resolve(v, s);
    const json = typeof value === 'string' ? value : typedAsText ? asText(value) : value.value;
    return `${JSON.stringify(k)}:${JSON.stringify(json) ?? 'null'}`;
  });
  return `{${members.join(',')}}`;
}

function payloadOf(b: Body, s: Secrets, bodyLimit: number): { bytes: Buffer; contentType: string } | undefined {
  switch (b.kind) {
    case 'none':
      return undefined;
    case 'form':
      return { bytes: looseUtf8(encodeParams(b.params, s) + b.tail), contentType: 'application/x-www-form-urlencoded' };
    case 'multipart':
      return multipart(b.params, s, b.mangle, b.cut);
    case 'json':
      return { bytes: looseUtf8(jsonObject(b.params, s, b.typedAsText)), contentType: 'application/json' };
    case 'json-text':
      return { bytes: looseUtf8(b.text), contentType: 'application/json' };
    case 'raw':
      return { bytes: looseUtf8(b.text), contentType: 'application/octet-stream' };
    case 'oversized': {
      const pad = 'a'.repeat(bodyLimit + 1);
      if (b.as === 'form') return { bytes: Buffer.from(`tasks=${pad}`), contentType: 'application/x-www-form-urlencoded' };
      if (b.as === 'json') return { bytes: Buffer.from(JSON.stringify({ tasks: pad })), contentType: 'application/json' };
      if (b.as === 'multipart') return multipart([['tasks', pad]], s, 'none', 1);
      return { bytes: Buffer.from(pad), contentType: 'text/plain' };
    }
  }
}

/** The request's bytes, with the session's credentials filled in. */
export function toWire(r: FuzzRequest, session: Secrets, bodyLimit: number): Wire {
  const s = r.cookies === 'csrf-session' ? { ...session, csrf: session.sessionCsrf } : session;
  const query = encodeParams(r.query, s);
  const search = [query, r.queryTail].filter((x) => x !== '').join('&');
  const url = `${pathOf(r.route, r.path)}${search === '' ? '' : `?${search}`}`;
  const headers: Record<string, string> = {};
  const auth = authorization(r.auth, s);
  if (auth !== undefined) headers['authorization'] = auth;
  const cookie = cookieHeader(r.cookies, s);
  if (cookie !== undefined) headers['cookie'] = cookie;
  for (const [k, v] of r.headers) headers[k] = v;
  const payload = payloadOf(r.body, s, bodyLimit);
  if (payload) headers['content-type'] = r.contentType ?? payload.contentType;
  else if (r.contentType !== undefined) headers['content-type'] = r.contentType;
  return { method: r.method, url, headers, payload: payload?.bytes };
}

/** The request as sent, cut short where long (for a failure's report). */
export function describeWire(w: Wire): string {
  const body = w.payload === undefined ? '' : `\n${w.payload.length > 2000 ? `${w.payload.subarray(0, 2000).toString('latin1')}… (${w.payload.length} bytes)` : w.payload.toString('latin1')}`;
  const url = w.url.length > 2000 ? `${w.url.slice(0, 2000)}… (${w.url.length} characters)` : w.url;
  const headers = Object.entries(w.headers).map(([k, v]) => `${k}: ${v.length > 200 ? `${v.slice(0, 200)}…` : v}`);
  return `${w.method} ${url}\n${headers.join('\n')}${body}`;
}
