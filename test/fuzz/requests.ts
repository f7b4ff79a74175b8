/**
 * A fuzz request as data: what fast-check draws, prints and shrinks. wire.ts turns it into bytes.
 * Most requests are aimed well (a route's own method, a good token, the parameters the route
 * reads), so that they reach the rules behind the first checks; the rest are not.
 */
import fc from 'fast-check';
import { paramsFor, type Param } from './params.js';
import type { RouteEntry } from './routes.js';
import { hostileText } from './values.js';

export type Auth =
  | 'none'
  | 'bearer'
  | 'bearer-lower'
  | 'bearer-basic-scope'
  | 'bearer-unknown'
  | 'bearer-empty'
  | 'bearer-two-words'
  | 'bearer-huge'
  | 'basic-client'
  | 'basic-wrong-secret'
  | 'basic-garbage'
  | 'other-scheme';

export type Cookies = 'none' | 'csrf' | 'csrf-session' | 'garbage';

export type PathVariant = 'exact' | 'trailing-slash' | 'double-slash' | 'upper' | 'encoded-dot' | 'bad-percent' | 'nul' | 'unknown' | 'dot-segment' | 'long';

export type MultipartMangle = 'none' | 'cut' | 'no-closing' | 'lf-only' | 'no-boundary' | 'other-boundary' | 'nameless' | 'file-parts' | 'preamble' | 'bad-disposition';

export type Body =
  | { readonly kind: 'none' }
  | { readonly kind: 'form'; readonly params: Param[]; readonly tail: string }
  | { readonly kind: 'multipart'; readonly params: Param[]; readonly mangle: MultipartMangle; readonly cut: number }
  | { readonly kind: 'json'; readonly params: Param[]; readonly typedAsText: boolean }
  | { readonly kind: 'json-text'; readonly text: string }
  | { readonly kind: 'raw'; readonly text: string }
  | { readonly kind: 'oversized'; readonly as: 'form' | 'json' | 'multipart' | 'raw' };

export interface FuzzRequest {
  readonly method: string;
  readonly route: string;
  readonly path: PathVariant;
  readonly query: Param[];
  readonly queryTail: string;
  readonly auth: Auth;
  readonly cookies: Cookies;
  /** Replaces the body's own Content-Type (a lie, a typo, a missing boundary). */
  readonly contentType: string | undefined;
  readonly body: Body;
  readonly headers: ReadonlyArray<readonly [string, string]>;
}

const METHODS = ['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=latin1',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-16',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary="unterminated',
  'text/plain',
  'application/xml',
  'application/octet-stream',
  '',
  ';;;',
  'application/json, text/plain',
  'APPLICATION/JSON',
];

/** Printable header text (app.inject takes what a socket would also carry). */
const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((n) => String.fromCharCode(n)), maxLength: 40 });

const EXTRA_HEADERS: ReadonlyArray<fc.Arbitrary<readonly [string, string]>> = [
  fc.tuple(fc.constant('x-forwarded-for'), fc.oneof(headerText, fc.constantFrom('1.2.3.4', '1.2.3.4, 10.0.0.1', '::1', 'unknown', ', ,'))),
  fc.tuple(fc.constant('x-forwarded-proto'), fc.constantFrom('https', 'http', 'javascript', '')),
  fc.tuple(fc.constant('accept'), headerText),
  fc.tuple(fc.constant('accept-encoding'), fc.constantFrom('gzip', 'br', 'identity;q=0', '*')),
  fc.tuple(fc.constant('origin'), fc.constantFrom('https://evil.example', 'null')),
  fc.tuple(fc.constant('x-http-method-override'), fc.constantFrom('DELETE', 'PUT')),
  // A few keys reused across requests (replays, 1103), and any printable text (1105).
  fc.tuple(fc.constant('idempotency-key'), fc.oneof(fc.constantFrom('k1', 'k2', ''), headerText)),
];

function bodyFor(params: fc.Arbitrary<Param[]>): fc.Arbitrary<Body> {
  return fc.oneof(
  { weight: 4, arbitrary: fc.constant<Body>({ kind: 'none' }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('form' as const), params, tail: fc.constantFrom('', '&', '&%ZZ', '&a', '&=b', '&&&', '&%', '&a[b]=c', '&a=%ED%A0%80') }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('multipart' as const),
      params,
      mangle: fc.constantFrom<MultipartMangle>('none', 'none', 'none', 'cut', 'no-closing', 'lf-only', 'no-boundary', 'other-boundary', 'nameless', 'file-parts', 'preamble', 'bad-disposition'),
      cut: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('json' as const), params, typedAsText: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('json-text' as const),
      text: fc.oneof(
        fc.constantFrom('', ' ', '{', '[]', '"x"', '1', 'null', '{"tasks":', '{"a":1,"a":2}', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', '\uFEFF{}', '{"tasks":"[\\ud800]"}'),
        fc.jsonValue().map((v) => JSON.stringify(v)),
        hostileText,
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('raw' as const), text: hostileText }) },
  );
}

/** GET and POST carry every API call; the other methods only earn a 405, so they come up less often. */
function routeArbitrary(routes: readonly RouteEntry[]): fc.Arbitrary<RouteEntry> {
  const urls = [...new Set(routes.map((r) => r.url))];
  return fc.constantFrom(...urls).chain((url) => {
    const entries = routes.filter((r) => r.url === url);
    const main = entries.filter((r) => r.method === 'GET' || r.method === 'POST');
    const other = entries.filter((r) => !main.includes(r));
    if (main.length === 0 || other.length === 0) return fc.constantFrom(...entries);
    return fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...main) }, { weight: 1, arbitrary: fc.constantFrom(...other) });
  });
}

/**
 * Requests for the given routes. Most are aimed well (the route's own methods, a good token);
 * with `ownMethod` every one uses its route's method, so that a sweep of a few requests per route
 * reaches each route however the draw falls (the mix over all routes varies the method).
 */
export function requestArbitrary(routes: readonly RouteEntry[], { ownMethod = false } = {}): fc.Arbitrary<FuzzRequest> {
  return routeArbitrary(routes).chain((route) => {
    const params = paramsFor(route.url);
    return fc.record({
      method: ownMethod ? fc.constant(route.method) : fc.oneof({ weight: 9, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
      route: fc.constant(route.url),
      path: fc.oneof(
        { weight: 30, arbitrary: fc.constant<PathVariant>('exact') },
        { weight: 1, arbitrary: fc.constantFrom<PathVariant>('trailing-slash', 'double-slash', 'upper', 'encoded-dot', 'bad-percent', 'nul', 'unknown', 'dot-segment', 'long') },
      ),
      query: fc.oneof({ weight: 1, arbitrary: fc.constant<Param[]>([]) }, { weight: 1, arbitrary: params }),
      queryTail: fc.oneof({ weight: 12, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('&', '%', '%G1', '&%00', 'a[]=1&a[]=2', '=&=', '#frag', '?', 'x=%ED%A0%80', `x=${'a'.repeat(200_000)}`) }),
      auth: fc.oneof(
        { weight: 14, arbitrary: fc.constant<Auth>('bearer') },
        { weight: 2, arbitrary: fc.constant<Auth>('none') },
        {
          weight: 4,
          arbitrary: fc.constantFrom<Auth>('bearer-lower', 'bearer-basic-scope', 'bearer-unknown', 'bearer-empty', 'bearer-two-words', 'bearer-huge', 'basic-client', 'basic-wrong-secret', 'basic-garbage', 'other-scheme'),
        },
      ),
      cookies: fc.constantFrom<Cookies>('none', 'none', 'csrf', 'csrf-session', 'garbage'),
      contentType: fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
      body: fc.oneof(
        { weight: 400, arbitrary: bodyFor(params) },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('oversized' as const), as: fc.constantFrom('form', 'json', 'multipart', 'raw') as fc.Arbitrary<'form' | 'json' | 'multipart' | 'raw'> }) },
      ),
      headers: fc.oneof({ weight: 6, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(fc.oneof(...EXTRA_HEADERS), { maxLength: 2 }) }),
    });
  });
}

