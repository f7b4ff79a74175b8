import { isIP } from 'node:net';
import { parseRateRule, type RateRule } from './lib/rate-rule.js';

/**
 * All settings come from the environment, are checked here once at start-up, and are frozen.
 * Nothing else in the code reads process.env. Every variable is documented in the README.
 */
export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly path: string; readonly synchronous: 'FULL' | 'NORMAL' }
  | { readonly kind: 'postgres'; readonly url: string; readonly poolSize: number };

export type TrustProxy = boolean | readonly string[];

export interface RateLimits {
  /** API calls per user, all apps together (error 3). */
  readonly apiPerUser: RateRule;
  /** API calls per registered app, all users together (error 3). */
  readonly apiPerClient: RateRule;
  /** Token requests per user, counting codes and tokens of the presenting app (error 103). */
  readonly tokenPerUser: RateRule;
  /** Token requests of an authenticated app, all its users together (error 103). */
  readonly tokenPerClient: RateRule;
  /** Failed client authentications at the token endpoint per client id as sent and address (error 103). */
  readonly tokenAuthFailures: RateRule;
  /** Sign-in attempts per account and device (see docs/decisions/0005-sign-in-throttling.md). */
  readonly signinPerAccount: RateRule;
  /** Sign-in attempts per client address, all accounts together; password-reset requests count here too. */
  readonly signinPerAddress: RateRule;
  /** Accounts created on the sign-up page per client address. */
  readonly signupPerAddress: RateRule;
  /** Password-reset e-mails per address typed (an inbox is not flooded). */
  readonly resetPerAccount: RateRule;
}

/**
 * Per-account maximums of notes, outlines and lists (the hosted service has them but does not
 * publish them: docs/notes-and-lists.md). An add past one is refused with the kind's error.
 */
export interface RecordLimits {
  /** Notes per account (error 703). */
  readonly notes: number;
  /** Outlines per account (error 803). */
  readonly outlines: number;
  /** Nodes in one outline (error 808). */
  readonly outlineNodes: number;
  /** Lists per account (error 903). */
  readonly lists: number;
  /** Columns of one list (error 908). */
  readonly listColumns: number;
  /** Rows of one list (error 1003). */
  readonly listRows: number;
}
/** Who may create an account on the sign-up page (docs/web.md). */
export type Registration = 'open' | 'invite' | 'closed';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly database: DatabaseConfig;
  /** Origin (and optional path prefix) users see, without trailing slash. */
  readonly publicUrl: string;
  readonly publicHttps: boolean;
  readonly trustProxy: TrustProxy;
  readonly logLevel: string;
  readonly maintenance: boolean;
  readonly bodyLimitBytes: number;
  readonly authCodeTtlSeconds: number;
  readonly refreshTokenMaxAgeSeconds: number;
  /** How long a spent refresh token may still be retried for its rotation's answer (0 = never; docs/decisions/0011). */
  readonly refreshTokenReuseSeconds: number;
  /** How long a checked access token, or an app password found right, is trusted without the database. */
  readonly tokenCacheSeconds: number;
  readonly accountCacheSeconds: number;
  readonly sessionTtlSeconds: number;
  readonly rateLimits: RateLimits;
  readonly recordLimits: RecordLimits;
  readonly registration: Registration;
  /** smtp://user:pass@host:port or smtps://…; null: no e-mail (reset links come from an admin). */
  readonly smtpUrl: string | null;
  /** The From of the e-mails sent. */
  readonly mailFrom: string;
  /**
   * The subscription level (account `pro`) an account needs to share, reassign and edit tasks
   * shared by others (error 617; docs/sharing.md). 1 as the hosted service; 0 lets everyone.
   */
  readonly sharingMinPro: 0 | 1 | 2;
  /**
   * How long the change log keeps deletions (days): a change feed cursor or CalDAV sync token
   * older than that is answered "start again" (docs/sync.md).
   */
  readonly changesRetentionDays: number;
  /** The largest calendar object (or other CalDAV request body) accepted, in bytes (413 past it). */
  readonly caldavMaxBytes: number;
  /**
   * How long a request holding an Idempotency-Key may go unheard of before a retry with the same
   * key may run it again (its process died; docs/decisions/0022). A live request renews it.
   */
  readonly idempotencyLeaseSeconds: number;
  /**
   * Server-sent event streams (/3/sync/events.php) one account may hold open at once, counted
   * across instances (error 1107 past it; docs/decisions/0026-push.md).
   */
  readonly sseMaxPerAccount: number;
  /**
   * Whether webhook endpoints may be plain http:// and reach loopback, private, link-local and
   * other non-public addresses (a private network, tests); refused otherwise, at registration and
   * at each delivery.
   */
  readonly webhookAllowPrivate: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export const DEFAULTS = {
  PORT: '3000',
  HOST: '127.0.0.1',
  DATABASE_URL: 'sqlite:./data/tickler.db',
  DATABASE_POOL_SIZE: '10',
  TRUST_PROXY: 'false',
  LOG_LEVEL: 'info',
  MAINTENANCE_MODE: 'false',
  MAX_BODY_BYTES: String(20 * 1024 * 1024),
  AUTH_CODE_TTL_SECONDS: '600',
  REFRESH_TOKEN_MAX_AGE_DAYS: '365',
  REFRESH_TOKEN_REUSE_SECONDS: '30',
  TOKEN_CACHE_SECONDS: '5',
  ACCOUNT_CACHE_SECONDS: '5',
  SESSION_TTL_HOURS: '12',
  RATE_LIMIT_API_PER_USER: '3600/1h',
  RATE_LIMIT_API_PER_CLIENT: '100000/1h',
  RATE_LIMIT_TOKEN_PER_USER: '30/1h',
  // Each user refreshes every 2 hours or so and is capped on their own; this is only a ceiling
  // for one app, high enough for 200,000 users refreshing every 2 hours (docs/decisions/0006).
  RATE_LIMIT_TOKEN_PER_CLIENT: '100000/1h',
  RATE_LIMIT_TOKEN_AUTH_FAILURES: '600/1h',
  RATE_LIMIT_SIGNIN_PER_ACCOUNT: '10/15m',
  RATE_LIMIT_SIGNIN_PER_ADDRESS: '100/15m',
  MAX_NOTES: '20000',
  MAX_OUTLINES: '1000',
  MAX_OUTLINE_NODES: '1000',
  MAX_LISTS: '1000',
  MAX_LIST_COLUMNS: '50',
  MAX_LIST_ROWS: '5000',
  RATE_LIMIT_SIGNUP_PER_ADDRESS: '10/1h',
  RATE_LIMIT_RESET_PER_ACCOUNT: '3/1h',
  REGISTRATION: 'closed',
  SHARING_MIN_PRO: '1',
  CHANGES_RETENTION_DAYS: '30',
  CALDAV_MAX_BYTES: String(1024 * 1024),
  IDEMPOTENCY_LEASE_SECONDS: '60',
  SSE_MAX_PER_ACCOUNT: '10',
  WEBHOOK_ALLOW_PRIVATE: 'false',
} as const;

/** Settings without a default value: empty means "not set". */
const OPTIONAL = ['PUBLIC_URL', 'SMTP_URL', 'MAIL_FROM'] as const;
type Key = keyof typeof DEFAULTS | (typeof OPTIONAL)[number];

function read(env: Env, key: Key): string {
  const v = env[key];
  if (v !== undefined && v.trim() !== '') return v.trim();
  return (OPTIONAL as readonly string[]).includes(key) ? '' : DEFAULTS[key as keyof typeof DEFAULTS];
}

function fail(key: string, value: string, expected: string): never {
  throw new ConfigError(`Invalid ${key}=${JSON.stringify(value)}: expected ${expected}`);
}

function int(env: Env, key: keyof typeof DEFAULTS, min: number, max: number): number {
  const v = read(env, key);
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) fail(key, v, `an integer from ${min} to ${max}`);
  return Number(v);
}

function bool(env: Env, key: keyof typeof DEFAULTS): boolean {
  const v = read(env, key).toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return fail(key, v, 'true or false');
}

function rate(env: Env, key: keyof typeof DEFAULTS): RateRule {
  const v = read(env, key);
  const rule = parseRateRule(v);
  return rule ? Object.freeze(rule) : fail(key, v, 'COUNT/PERIOD such as 100/1h, 10/15m or 30/s (period at most 7d), or 0 for no limit');
}

export function parseDatabaseUrl(value: string, key = 'DATABASE_URL', poolSize = Number(DEFAULTS.DATABASE_POOL_SIZE)): DatabaseConfig {
  if (/^postgres(ql)?:\/\//i.test(value)) {
    try {
      new URL(value);
    } catch {
      fail(key, value, 'a postgres://user@host:port/database URL');
    }
    return Object.freeze({ kind: 'postgres', url: value, poolSize });
  }
  const m = /^sqlite:(?:\/\/)?(.+)$/i.exec(value);
  if (!m) return fail(key, value, 'sqlite:PATH or postgres://…');
  const [pathPart, query = ''] = (m[1] as string).split('?', 2) as [string, string?];
  if (pathPart === '') fail(key, value, 'sqlite:PATH with a file path');
  const params = new URLSearchParams(query);
  const sync = (params.get('synchronous') ?? 'FULL').toUpperCase();
  if (sync !== 'FULL' && sync !== 'NORMAL') fail(key, value, 'synchronous=FULL or synchronous=NORMAL');
  return Object.freeze({ kind: 'sqlite', path: pathPart, synchronous: sync });
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function trustProxy(env: Env): TrustProxy {
  const v = read(env, 'TRUST_PROXY');
  const lower = v.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
  if (['0', 'false', 'no', 'off'].includes(lower)) return false;
  const list = v.split(',').map((s) => s.trim()).filter(Boolean);
  for (const item of list) {
    const [addr = '', bits, extra] = item.split('/');
    const okAddr = PROXY_NAMES.has(addr.toLowerCase()) ? bits === undefined : isIP(addr) !== 0;
    const okBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (isIP(addr) === 6 ? 128 : 32));
    if (!okAddr || !okBits || extra !== undefined) {
      fail('TRUST_PROXY', v, 'true, false, or a comma-separated list of proxy addresses/CIDRs (or loopback, linklocal, uniquelocal)');
    }
  }
  // Names are case-insensitive here, but Fastify's proxy matcher knows only the lower-case ones.
  return Object.freeze(list.map((item) => (PROXY_NAMES.has(item.toLowerCase()) ? item.toLowerCase() : item)));
}

function publicUrl(env: Env, host: string, port: number): string {
  const v = read(env, 'PUBLIC_URL');
  if (v === '') {
    const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
    return `http://${shown}:${port}`;
  }
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return fail('PUBLIC_URL', v, 'an absolute http(s) URL such as https://todo.example.org');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || /[?#]/.test(v) || url.username || url.password) {
    fail('PUBLIC_URL', v, 'an http(s) URL without query, fragment or credentials');
  }
  return url.href.replace(/\/+$/, '');
}

function registration(env: Env): Registration {
  const v = read(env, 'REGISTRATION').toLowerCase();
  if (v === 'open' || v === 'invite' || v === 'closed') return v;
  return fail('REGISTRATION', v, 'open, invite or closed');
}

function smtpUrl(env: Env): string | null {
  const v = read(env, 'SMTP_URL');
  if (v === '') return null;
  let url: URL | undefined;
  try {
    url = new URL(v);
  } catch {
    url = undefined;
  }
  // The message names the variable but never echoes the value: it may hold a password.
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
    throw new ConfigError('Invalid SMTP_URL: expected smtp://user:password@host:port or smtps://…');
  }
  return v;
}

/** `Name <address>` or a bare address; by default, noreply at PUBLIC_URL's host. */
function mailFrom(env: Env, pub: string): string {
  const v = read(env, 'MAIL_FROM');
  if (v === '') return `Tickler <noreply@${new URL(pub).hostname.replace(/^\[|\]$/g, '')}>`;
  if (!/^([^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(v)) fail('MAIL_FROM', v, 'an e-mail address, or Name <address>');
  return v;
}

export function loadConfig(env: Env): Config {
  const port = int(env, 'PORT', 0, 65535);
  const host = read(env, 'HOST');
  // A dotted number that is not an address (999.1.1.1) would otherwise be looked up as a name.
  if (isIP(host) === 0 && (!/^[a-z0-9.-]+$/i.test(host) || /^[\d.]+$/.test(host))) fail('HOST', host, 'an IP address or host name');
  const logLevel = read(env, 'LOG_LEVEL').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) fail('LOG_LEVEL', logLevel, LOG_LEVELS.join(', '));
  const pub = publicUrl(env, host, port);
  const config: Config = {
    port,
    host,
    database: parseDatabaseUrl(read(env, 'DATABASE_URL'), 'DATABASE_URL', int(env, 'DATABASE_POOL_SIZE', 2, 200)),
    publicUrl: pub,
    publicHttps: pub.startsWith('https:'),
    trustProxy: trustProxy(env),
    logLevel,
    maintenance: bool(env, 'MAINTENANCE_MODE'),
    bodyLimitBytes: int(env, 'MAX_BODY_BYTES', 4 * 1024 * 1024, 512 * 1024 * 1024),
    // RFC 6749 4.1.2 recommends codes live at most 10 minutes; the issue makes that a hard cap.
    authCodeTtlSeconds: int(env, 'AUTH_CODE_TTL_SECONDS', 10, 600),
    refreshTokenMaxAgeSeconds: int(env, 'REFRESH_TOKEN_MAX_AGE_DAYS', 1, 3650) * 86400,
    // Long enough for a retry after a lost answer or a second process; at most 5 minutes, the
    // longest that other servers allow without also counting the reuses (docs/decisions/0011).
    refreshTokenReuseSeconds: int(env, 'REFRESH_TOKEN_REUSE_SECONDS', 0, 300),
    tokenCacheSeconds: int(env, 'TOKEN_CACHE_SECONDS', 0, 60),
    accountCacheSeconds: int(env, 'ACCOUNT_CACHE_SECONDS', 0, 60),
    sessionTtlSeconds: int(env, 'SESSION_TTL_HOURS', 1, 24 * 30) * 3600,
    rateLimits: Object.freeze({
      apiPerUser: rate(env, 'RATE_LIMIT_API_PER_USER'),
      apiPerClient: rate(env, 'RATE_LIMIT_API_PER_CLIENT'),
      tokenPerUser: rate(env, 'RATE_LIMIT_TOKEN_PER_USER'),
      tokenPerClient: rate(env, 'RATE_LIMIT_TOKEN_PER_CLIENT'),
      tokenAuthFailures: rate(env, 'RATE_LIMIT_TOKEN_AUTH_FAILURES'),
      signinPerAccount: rate(env, 'RATE_LIMIT_SIGNIN_PER_ACCOUNT'),
      signinPerAddress: rate(env, 'RATE_LIMIT_SIGNIN_PER_ADDRESS'),
      signupPerAddress: rate(env, 'RATE_LIMIT_SIGNUP_PER_ADDRESS'),
      resetPerAccount: rate(env, 'RATE_LIMIT_RESET_PER_ACCOUNT'),
    }),
    // Upper bounds keep one account's records within what one call can read back (a list's rows,
    // an outline's tree are read whole) and what a database handles comfortably.
    recordLimits: Object.freeze({
      notes: int(env, 'MAX_NOTES', 0, 1_000_000),
      outlines: int(env, 'MAX_OUTLINES', 0, 100_000),
      outlineNodes: int(env, 'MAX_OUTLINE_NODES', 1, 100_000),
      lists: int(env, 'MAX_LISTS', 0, 100_000),
      listColumns: int(env, 'MAX_LIST_COLUMNS', 1, 1000),
      listRows: int(env, 'MAX_LIST_ROWS', 0, 100_000),
    }),
    registration: registration(env),
    smtpUrl: smtpUrl(env),
    mailFrom: mailFrom(env, pub),
    sharingMinPro: int(env, 'SHARING_MIN_PRO', 0, 2) as 0 | 1 | 2,
    changesRetentionDays: int(env, 'CHANGES_RETENTION_DAYS', 1, 3650),
    // A task's text is at most ~33 KB; the rest of an object is what its client keeps there.
    caldavMaxBytes: int(env, 'CALDAV_MAX_BYTES', 64 * 1024, 64 * 1024 * 1024),
    // Long enough that renewing it (three times a lease) is cheap and a slow database does not
    // let a live request's key go; short enough that a retry after a crash waits little.
    idempotencyLeaseSeconds: int(env, 'IDEMPOTENCY_LEASE_SECONDS', 3, 3600),
    sseMaxPerAccount: int(env, 'SSE_MAX_PER_ACCOUNT', 1, 1000),
    webhookAllowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE'),
  };
  return Object.freeze(config);
}
