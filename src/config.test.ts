import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig, type Config } from './config.js';

type Env = Record<string, string | undefined>;

/** Asserts that `env` is refused with a ConfigError naming `key`, so the operator knows what to fix. */
function refused(env: Env, key: string): void {
  assert.throws(
    () => loadConfig(env),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError, `expected ConfigError, got ${String(e)}`);
      assert.equal(e.name, 'ConfigError');
      assert.ok(e.message.includes(`${key}=`), `message should name ${key}: ${e.message}`);
      return true;
    },
  );
}

describe('loadConfig defaults', () => {
  test('an empty environment gives the documented defaults', () => {
    const expected: Config = {
      port: 3000,
      host: '127.0.0.1',
      database: { kind: 'sqlite', path: './data/tickler.db', synchronous: 'FULL' },
      publicUrl: 'http://127.0.0.1:3000',
      publicHttps: false,
      trustProxy: false,
      logLevel: 'info',
      maintenance: false,
      bodyLimitBytes: 20 * 1024 * 1024,
      authCodeTtlSeconds: 600,
      refreshTokenMaxAgeSeconds: 365 * 86400,
      refreshTokenReuseSeconds: 30,
      tokenCacheSeconds: 5,
      accountCacheSeconds: 5,
      sessionTtlSeconds: 12 * 3600,
      rateLimits: {
        apiPerUser: { limit: 3600, windowSeconds: 3600 },
        apiPerClient: { limit: 100000, windowSeconds: 3600 },
        tokenPerUser: { limit: 30, windowSeconds: 3600 },
        tokenPerClient: { limit: 100000, windowSeconds: 3600 },
        tokenAuthFailures: { limit: 600, windowSeconds: 3600 },
        signinPerAccount: { limit: 10, windowSeconds: 900 },
        signinPerAddress: { limit: 100, windowSeconds: 900 },
        signupPerAddress: { limit: 10, windowSeconds: 3600 },
        resetPerAccount: { limit: 3, windowSeconds: 3600 },
      },
      recordLimits: { notes: 20000, outlines: 1000, outlineNodes: 1000, lists: 1000, listColumns: 50, listRows: 5000 },
      registration: 'closed',
      smtpUrl: null,
      mailFrom: 'Tickler <noreply@127.0.0.1>',
      sharingMinPro: 1,
      changesRetentionDays: 30,
      caldavMaxBytes: 1048576,
      idempotencyLeaseSeconds: 60,
      sseMaxPerAccount: 10,
      webhookAllowPrivate: false,
    };
    assert.deepEqual(loadConfig({}), expected);
  });

  test('the result cannot be changed after start-up', () => {
    const c = loadConfig({ TRUST_PROXY: '10.0.0.1' });
    assert.ok(Object.isFrozen(c));
    assert.ok(Object.isFrozen(c.rateLimits));
    assert.ok(Object.isFrozen(c.recordLimits));
    assert.ok(Object.isFrozen(c.trustProxy));
    // Strict-mode modules throw on writes to frozen objects rather than ignoring them.
    assert.throws(() => {
      (c as { port: number }).port = 1;
    }, TypeError);
    assert.equal(c.port, 3000);
  });

  // Container and service managers often set variables to '' or pad them; both mean "not set".
  const unset: Array<[string, string]> = [
    ['PORT', ''],
    ['PORT', '   '],
    ['HOST', ''],
    ['DATABASE_URL', ' '],
    ['PUBLIC_URL', ''],
    ['LOG_LEVEL', '\t'],
    ['RATE_LIMIT_API_PER_USER', ''],
  ];
  for (const [key, value] of unset) {
    test(`${key}=${JSON.stringify(value)} counts as unset`, () => {
      assert.deepEqual(loadConfig({ [key]: value }), loadConfig({}));
    });
  }

  test('white space around values is trimmed', () => {
    const c = loadConfig({
      PORT: ' 8080 ',
      HOST: ' 10.1.2.3\t',
      DATABASE_URL: ' sqlite:/var/lib/t.db ',
      PUBLIC_URL: ' https://todo.example.org/ ',
      LOG_LEVEL: ' DEBUG ',
      MAINTENANCE_MODE: ' yes ',
      SESSION_TTL_HOURS: ' 2 ',
      RATE_LIMIT_TOKEN_PER_USER: ' 5 / 1m ',
    });
    assert.equal(c.port, 8080);
    assert.equal(c.host, '10.1.2.3');
    assert.deepEqual(c.database, { kind: 'sqlite', path: '/var/lib/t.db', synchronous: 'FULL' });
    assert.equal(c.publicUrl, 'https://todo.example.org');
    assert.equal(c.logLevel, 'debug');
    assert.equal(c.maintenance, true);
    assert.equal(c.sessionTtlSeconds, 7200);
    assert.deepEqual(c.rateLimits.tokenPerUser, { limit: 5, windowSeconds: 60 });
  });
});

describe('PORT and HOST', () => {
  const goodPorts: Array<[string, number]> = [
    ['0', 0],
    ['80', 80],
    ['65535', 65535],
  ];
  for (const [value, port] of goodPorts) {
    test(`PORT=${value} is accepted`, () => assert.equal(loadConfig({ PORT: value }).port, port));
  }
  for (const value of ['abc', '70000', '65536', '-1', '+80', '80.0', '8e3', '0x50', '80 81']) {
    test(`PORT=${value} is refused`, () => refused({ PORT: value }, 'PORT'));
  }

  for (const value of ['my host', 'host_name', 'exa$mple', '<script>', 'a;b', 'host/path']) {
    test(`HOST=${JSON.stringify(value)} is refused`, () => refused({ HOST: value }, 'HOST'));
  }

  // Without PUBLIC_URL the server shows links to itself built from HOST and PORT.
  const shown: Array<[Env, string]> = [
    [{ HOST: '0.0.0.0' }, 'http://localhost:3000'],
    [{ HOST: '0.0.0.0', PORT: '8080' }, 'http://localhost:8080'],
    [{ HOST: '::' }, 'http://localhost:3000'],
    [{ HOST: '::1', PORT: '9' }, 'http://[::1]:9'],
    [{ HOST: 'todo.example.org' }, 'http://todo.example.org:3000'],
    [{ HOST: '192.168.1.5', PORT: '80' }, 'http://192.168.1.5:80'],
  ];
  for (const [env, url] of shown) {
    test(`${JSON.stringify(env)} gives PUBLIC_URL ${url}`, () => {
      const c = loadConfig(env);
      assert.equal(c.publicUrl, url);
      assert.equal(c.publicHttps, false);
    });
  }
});

describe('DATABASE_URL', () => {
  const good: Array<[string, Config['database']]> = [
    ['sqlite:./x.db', { kind: 'sqlite', path: './x.db', synchronous: 'FULL' }],
    ['sqlite:///var/lib/x.db', { kind: 'sqlite', path: '/var/lib/x.db', synchronous: 'FULL' }],
    ['SQLITE:x.db', { kind: 'sqlite', path: 'x.db', synchronous: 'FULL' }],
    ['sqlite:x.db?synchronous=normal', { kind: 'sqlite', path: 'x.db', synchronous: 'NORMAL' }],
    ['sqlite:x.db?synchronous=FULL', { kind: 'sqlite', path: 'x.db', synchronous: 'FULL' }],
    ['postgres://u@h/db', { kind: 'postgres', poolSize: 10, url: 'postgres://u@h/db' }],
    ['postgresql://u:p@h:5432/db', { kind: 'postgres', poolSize: 10, url: 'postgresql://u:p@h:5432/db' }],
  ];
  for (const [value, database] of good) {
    test(`${value} is accepted`, () => {
      const c = loadConfig({ DATABASE_URL: value });
      assert.deepEqual(c.database, database);
    });
  }
  const bad = [
    'mysql://x',
    'sqlite:',
    'sqlite:?synchronous=full',
    'sqlite:x.db?synchronous=bogus',
    'sqlite:x.db?synchronous=OFF',
    './x.db',
    'postgres://[bad',
  ];
  for (const value of bad) {
    test(`${value} is refused`, () => refused({ DATABASE_URL: value }, 'DATABASE_URL'));
  }
});

describe('PUBLIC_URL', () => {
  const good: Array<[string, string, boolean]> = [
    ['https://todo.example.org', 'https://todo.example.org', true],
    // Links are built as publicUrl + '/path', so a trailing slash would double up.
    ['https://todo.example.org/', 'https://todo.example.org', true],
    ['https://todo.example.org/app/', 'https://todo.example.org/app', true],
    ['https://todo.example.org//', 'https://todo.example.org', true],
    ['http://todo.example.org:8080', 'http://todo.example.org:8080', false],
    ['HTTPS://Todo.Example.ORG', 'https://todo.example.org', true],
  ];
  for (const [value, url, https] of good) {
    test(`${value} gives ${url}`, () => {
      const c = loadConfig({ PUBLIC_URL: value });
      assert.equal(c.publicUrl, url);
      assert.equal(c.publicHttps, https);
    });
  }
  const bad = [
    'ftp://x',
    'javascript:alert(1)',
    'todo.example.org',
    '/tickler',
    'https://todo.example.org/?a=1',
    'https://todo.example.org/#top',
    'https://u:p@todo.example.org',
    'https://u@todo.example.org',
    // A password without a user name is still a credential in every link the server shows.
    'https://:secret@todo.example.org',
    // An empty query or fragment still leaves a stray ? or # that breaks publicUrl + '/path'.
    'https://todo.example.org/?',
    'https://todo.example.org/#',
  ];
  for (const value of bad) {
    test(`${value} is refused`, () => refused({ PUBLIC_URL: value }, 'PUBLIC_URL'));
  }
});

describe('TRUST_PROXY', () => {
  const good: Array<[string, boolean | string[]]> = [
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['yes', true],
    ['on', true],
    ['false', false],
    ['0', false],
    ['no', false],
    ['off', false],
    ['10.0.0.1', ['10.0.0.1']],
    [' 10.0.0.0/8 , 192.168.1.1,::1 , fd00::/8 ', ['10.0.0.0/8', '192.168.1.1', '::1', 'fd00::/8']],
    ['2001:db8::/128', ['2001:db8::/128']],
    ['10.0.0.0/0', ['10.0.0.0/0']],
    ['loopback', ['loopback']],
    ['loopback,linklocal,uniquelocal', ['loopback', 'linklocal', 'uniquelocal']],
    // The names are matched without regard to case; the proxy-address matcher behind the server
    // only knows them in lower case, so anything accepted here must be handed on in lower case.
    ['LOOPBACK', ['loopback']],
  ];
  for (const [value, expected] of good) {
    test(`${JSON.stringify(value)} is accepted`, () => {
      assert.deepEqual(loadConfig({ TRUST_PROXY: value }).trustProxy, expected);
    });
  }
  const bad = [
    'nonsense',
    '10.0.0.0/99',
    '10.0.0.0/33',
    '::1/129',
    '10.0.0.0/',
    '10.0.0.0/8/8',
    '10.0.0.0/-1',
    '10.0.0.0/a',
    '10.0.0.256',
    'loopback/8',
    '10.0.0.1,nonsense',
    'maybe',
  ];
  for (const value of bad) {
    test(`${JSON.stringify(value)} is refused`, () => refused({ TRUST_PROXY: value }, 'TRUST_PROXY'));
  }
});

describe('LOG_LEVEL and MAINTENANCE_MODE', () => {
  for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent', 'WARN']) {
    test(`LOG_LEVEL=${level} is accepted`, () => assert.equal(loadConfig({ LOG_LEVEL: level }).logLevel, level.toLowerCase()));
  }
  for (const level of ['bogus', 'verbose', 'info,debug']) {
    test(`LOG_LEVEL=${level} is refused`, () => refused({ LOG_LEVEL: level }, 'LOG_LEVEL'));
  }
  const modes: Array<[string, boolean]> = [
    ['yes', true],
    ['YES', true],
    ['true', true],
    ['1', true],
    ['on', true],
    ['no', false],
    ['false', false],
    ['0', false],
    ['off', false],
  ];
  for (const [value, on] of modes) {
    test(`MAINTENANCE_MODE=${value} gives ${on}`, () => assert.equal(loadConfig({ MAINTENANCE_MODE: value }).maintenance, on));
  }
  for (const value of ['bogus', 'y', '2', 'enabled']) {
    test(`MAINTENANCE_MODE=${value} is refused`, () => refused({ MAINTENANCE_MODE: value }, 'MAINTENANCE_MODE'));
  }
});

describe('numeric limits', () => {
  // [variable, value, field, expected field value]
  const good: Array<[string, string, keyof Config, number]> = [
    ['MAX_BODY_BYTES', String(4 * 1024 * 1024), 'bodyLimitBytes', 4 * 1024 * 1024],
    ['MAX_BODY_BYTES', String(512 * 1024 * 1024), 'bodyLimitBytes', 512 * 1024 * 1024],
    ['AUTH_CODE_TTL_SECONDS', '10', 'authCodeTtlSeconds', 10],
    ['AUTH_CODE_TTL_SECONDS', '600', 'authCodeTtlSeconds', 600],
    ['REFRESH_TOKEN_MAX_AGE_DAYS', '1', 'refreshTokenMaxAgeSeconds', 86400],
    ['REFRESH_TOKEN_MAX_AGE_DAYS', '3650', 'refreshTokenMaxAgeSeconds', 3650 * 86400],
    ['TOKEN_CACHE_SECONDS', '0', 'tokenCacheSeconds', 0],
    ['TOKEN_CACHE_SECONDS', '60', 'tokenCacheSeconds', 60],
    ['REFRESH_TOKEN_REUSE_SECONDS', '0', 'refreshTokenReuseSeconds', 0],
    ['REFRESH_TOKEN_REUSE_SECONDS', '300', 'refreshTokenReuseSeconds', 300],
    ['SESSION_TTL_HOURS', '1', 'sessionTtlSeconds', 3600],
    ['SESSION_TTL_HOURS', '720', 'sessionTtlSeconds', 720 * 3600],
    ['IDEMPOTENCY_LEASE_SECONDS', '3', 'idempotencyLeaseSeconds', 3],
    ['IDEMPOTENCY_LEASE_SECONDS', '3600', 'idempotencyLeaseSeconds', 3600],
    ['SSE_MAX_PER_ACCOUNT', '1', 'sseMaxPerAccount', 1],
    ['SSE_MAX_PER_ACCOUNT', '1000', 'sseMaxPerAccount', 1000],
  ];
  for (const [key, value, field, expected] of good) {
    test(`${key}=${value} gives ${field} ${expected}`, () => assert.equal(loadConfig({ [key]: value })[field], expected));
  }
  const bad: Array<[string, string]> = [
    ['MAX_BODY_BYTES', '1000'],
    ['MAX_BODY_BYTES', String(4 * 1024 * 1024 - 1)],
    ['MAX_BODY_BYTES', String(512 * 1024 * 1024 + 1)],
    ['MAX_BODY_BYTES', '20MB'],
    ['AUTH_CODE_TTL_SECONDS', '601'],
    ['AUTH_CODE_TTL_SECONDS', '9'],
    ['AUTH_CODE_TTL_SECONDS', '-5'],
    ['REFRESH_TOKEN_MAX_AGE_DAYS', '0'],
    ['REFRESH_TOKEN_MAX_AGE_DAYS', '3651'],
    ['REFRESH_TOKEN_MAX_AGE_DAYS', '1.5'],
    ['TOKEN_CACHE_SECONDS', '61'],
    ['TOKEN_CACHE_SECONDS', 'five'],
    ['REFRESH_TOKEN_REUSE_SECONDS', '301'],
    ['REFRESH_TOKEN_REUSE_SECONDS', '-1'],
    ['REFRESH_TOKEN_REUSE_SECONDS', '30s'],
    ['SESSION_TTL_HOURS', '0'],
    ['SESSION_TTL_HOURS', '721'],
    ['SESSION_TTL_HOURS', '99999999999999999999'],
    ['IDEMPOTENCY_LEASE_SECONDS', '2'],
    ['IDEMPOTENCY_LEASE_SECONDS', '3601'],
    ['IDEMPOTENCY_LEASE_SECONDS', '1m'],
    ['SSE_MAX_PER_ACCOUNT', '0'],
    ['SSE_MAX_PER_ACCOUNT', '1001'],
    ['WEBHOOK_ALLOW_PRIVATE', 'maybe'],
  ];
  for (const [key, value] of bad) {
    test(`${key}=${value} is refused`, () => refused({ [key]: value }, key));
  }
});

describe('rate limits', () => {
  const keys: Array<[string, keyof Config['rateLimits']]> = [
    ['RATE_LIMIT_API_PER_USER', 'apiPerUser'],
    ['RATE_LIMIT_API_PER_CLIENT', 'apiPerClient'],
    ['RATE_LIMIT_TOKEN_PER_USER', 'tokenPerUser'],
    ['RATE_LIMIT_TOKEN_PER_CLIENT', 'tokenPerClient'],
    ['RATE_LIMIT_TOKEN_AUTH_FAILURES', 'tokenAuthFailures'],
    ['RATE_LIMIT_SIGNIN_PER_ACCOUNT', 'signinPerAccount'],
    ['RATE_LIMIT_SIGNIN_PER_ADDRESS', 'signinPerAddress'],
  ];
  for (const [key, field] of keys) {
    test(`${key} is read into rateLimits.${field}`, () => {
      assert.deepEqual(loadConfig({ [key]: '7/2m' }).rateLimits[field], { limit: 7, windowSeconds: 120 });
      assert.deepEqual(loadConfig({ [key]: 'off' }).rateLimits[field], { limit: 0, windowSeconds: 1 });
    });
    for (const value of ['abc', '10', '10/8d', '0/1h', '-1/1h', '1.5/1h']) {
      test(`${key}=${value} is refused`, () => refused({ [key]: value }, key));
    }
  }
});

describe('per-account maximums of notes, outlines and lists', () => {
  test('each is read from its variable', () => {
    const c = loadConfig({ MAX_NOTES: '5', MAX_OUTLINES: '6', MAX_OUTLINE_NODES: '7', MAX_LISTS: '8', MAX_LIST_COLUMNS: '9', MAX_LIST_ROWS: '10' });
    assert.deepEqual(c.recordLimits, { notes: 5, outlines: 6, outlineNodes: 7, lists: 8, listColumns: 9, listRows: 10 });
  });
  for (const [key, value] of [['MAX_NOTES', '-1'], ['MAX_NOTES', '1000001'], ['MAX_OUTLINE_NODES', '0'], ['MAX_LIST_COLUMNS', '1001'], ['MAX_LISTS', 'many'], ['MAX_LIST_ROWS', '1.5']] as const) {
    test(`${key}=${value} is refused`, () => refused({ [key]: value }, key));
  }
});

describe('REGISTRATION, SMTP_URL and MAIL_FROM', () => {
  test('REGISTRATION is open, invite or closed (any case)', () => {
    assert.equal(loadConfig({ REGISTRATION: 'Open' }).registration, 'open');
    assert.equal(loadConfig({ REGISTRATION: 'invite' }).registration, 'invite');
    refused({ REGISTRATION: 'yes' }, 'REGISTRATION');
  });

  test('SMTP_URL takes smtp:// and smtps://; a bad one is named without echoing it (it may hold a password)', () => {
    assert.equal(loadConfig({ SMTP_URL: 'smtps://u:p@mail.example.org:465' }).smtpUrl, 'smtps://u:p@mail.example.org:465');
    for (const bad of ['http://mail.example.org', 'smtp://', 'mail.example.org:25']) {
      assert.throws(
        () => loadConfig({ SMTP_URL: `${bad}?secret-pw` }),
        (e: unknown) => e instanceof ConfigError && /SMTP_URL/.test(e.message) && !e.message.includes('secret-pw'),
        bad,
      );
    }
  });

  test('MAIL_FROM defaults to noreply at PUBLIC_URL’s host; an address or Name <address>', () => {
    assert.equal(loadConfig({ PUBLIC_URL: 'https://todo.example.org/x' }).mailFrom, 'Tickler <noreply@todo.example.org>');
    assert.equal(loadConfig({ MAIL_FROM: 'Todo <todo@example.org>' }).mailFrom, 'Todo <todo@example.org>');
    assert.equal(loadConfig({ MAIL_FROM: 'todo@example.org' }).mailFrom, 'todo@example.org');
    refused({ MAIL_FROM: 'not an address' }, 'MAIL_FROM');
  });
});
