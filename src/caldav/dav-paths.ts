import { holdsControls } from '../ical/ical-text.js';

/**
 * Where each CalDAV resource lives (docs/caldav.md): the service root, the account's principal and
 * calendar home, its calendars and their objects, all under `/dav/`, behind the site's base path
 * (PUBLIC_URL's path). Paths are read percent-decoded (clients send `@` raw or as %40) and written
 * with every character but unreserved ones and the sub-delimiters escaped, `@` included: Apple's
 * clients take a bare `@` in a path for credentials.
 */

export const DAV_ROOT = '/dav/';

export type DavTarget =
  | { readonly kind: 'root' }
  | { readonly kind: 'principals' }
  | { readonly kind: 'principal'; readonly userid: string }
  | { readonly kind: 'home'; readonly userid: string }
  | { readonly kind: 'calendar'; readonly userid: string; readonly segment: string }
  | { readonly kind: 'object'; readonly userid: string; readonly segment: string; readonly name: string }
  | { readonly kind: 'unknown' };

/** One path segment as a URL path writes it. */
export function encodeSegment(s: string): string {
  return encodeURIComponent(s).replace(/%(21|24|26|27|28|29|2A|2B|2C|3B|3D|3A)/g, (m) => decodeURIComponent(m));
}

function decodeSegment(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/**
 * Whether a target names something by a name holding a control character: no calendar or object
 * holds one (they are refused when made), and PostgreSQL could not even look one up (no NUL in text).
 */
export function namesControls(target: DavTarget): boolean {
  return [target.kind === 'calendar' || target.kind === 'object' ? target.segment : '', target.kind === 'object' ? target.name : ''].some(holdsControls);
}

export class DavPaths {
  /** `base`: the site's path prefix ('' or '/tickler'). */
  constructor(private readonly base: string) {}

  root(): string {
    return `${this.base}${DAV_ROOT}`;
  }
  principal(userid: string): string {
    return `${this.base}/dav/principals/${encodeSegment(userid)}/`;
  }
  home(userid: string): string {
    return `${this.base}/dav/calendars/${encodeSegment(userid)}/`;
  }
  calendar(userid: string, segment: string): string {
    return `${this.home(userid)}${encodeSegment(segment)}/`;
  }
  object(userid: string, segment: string, name: string): string {
    return `${this.calendar(userid, segment)}${encodeSegment(name)}`;
  }

  /** What an href a client sent in a body names: a path or a whole URL, with the site's base. */
  parseHref(raw: string): DavTarget {
    let path: string;
    const trimmed = raw.trim();
    if (trimmed.startsWith('/') && !trimmed.startsWith('//') && !/[?#]/.test(trimmed)) path = trimmed;
    else {
      try {
        path = new URL(trimmed, 'http://host').pathname;
      } catch {
        return { kind: 'unknown' };
      }
    }
    if (this.base !== '' && path.startsWith(`${this.base}/`)) path = path.slice(this.base.length);
    return this.parse(path);
  }

  /** What a request path (without its query) names; the site's base is not part of it (the proxy strips it). */
  parse(path: string): DavTarget {
    const raw = path.split('/').filter((s, i, all) => s !== '' || i === all.length - 1);
    const parts = raw.filter((s) => s !== '').map(decodeSegment);
    if (parts.some((p) => p === undefined || p === '.' || p === '..' || p.includes('/'))) return { kind: 'unknown' };
    const [dav, area, userid, segment, name, ...rest] = parts as string[];
    if (dav !== 'dav' || rest.length > 0) return { kind: 'unknown' };
    if (area === undefined) return { kind: 'root' };
    if (area === 'principals') return userid === undefined ? { kind: 'principals' } : segment === undefined ? { kind: 'principal', userid } : { kind: 'unknown' };
    if (area !== 'calendars' || userid === undefined) return { kind: 'unknown' };
    if (segment === undefined) return { kind: 'home', userid };
    if (name === undefined) return { kind: 'calendar', userid, segment };
    return { kind: 'object', userid, segment, name };
  }
}
