import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp, type BuildOptions } from '../src/app.js';
import { freshDatabase, type DatabaseChoice } from './database.js';
import { loadConfig, type Config } from '../src/config.js';
import { createDeps, type Deps } from '../src/deps.js';
import { emailKey, DEFAULT_PREFS } from '../src/features/users/users.service.js';
import { CLOCK_SKEW_SECONDS, ManualClock, unixSeconds, type Clock } from '../src/lib/clock.js';
import { randomHex } from '../src/lib/crypto.js';
import { hashPassword } from '../src/lib/password.js';
import { createCode } from '../src/oauth/authorize.service.js';
import { registerClient } from '../src/oauth/clients.service.js';
import { parseScope } from '../src/oauth/scopes.js';
import { newOrganizer } from '../src/features/organizers/organizer-records.test-kit.js';
import { openStore } from '../src/storage/open.js';
import type { Account, Client, ProLevel, Stamps } from '../src/storage/store.js';

/**
 * The shared test harness: an app built by the production buildApp() with a config from the
 * production loadConfig(), on a fresh database in a temporary folder, with a manual clock.
 */
/**
 * scrypt's cost for the accounts tests create: the production cost takes about 0.4 s per sign-in,
 * which made the sign-in tests the slowest of the suite. The hashing itself is tested at the
 * production cost in src/lib/password.test.ts.
 */
const TEST_SCRYPT_N = 1 << 10;

const DISCARD = { write: (_line: string): void => undefined };

export interface TestContext {
  readonly app: FastifyInstance;
  readonly deps: Deps;
  readonly config: Config;
  readonly clock: ManualClock;
  close(): Promise<void>;
}

export interface ContextOptions extends BuildOptions {
  /** The database, when not the one the test runner chose (the fuzzer runs on both in one process). */
  readonly database?: DatabaseChoice;
}

export async function testContext(env: Record<string, string> = {}, { database: choice, ...options }: ContextOptions = {}): Promise<TestContext> {
  const dir = mkdtempSync(join(tmpdir(), 'tickler-test-'));
  const database = await freshDatabase(dir, choice, { migrated: true });
  // The production default LOG_LEVEL (info: a line per request), so that the logging path is the
  // one tested; the lines go to a stream that discards them unless the test passes its own.
  const config = loadConfig({ DATABASE_URL: database.url, ...database.env, ...env });
  const store = await openStore(config.database);
  await store.migrate();
  const clock = new ManualClock();
  const deps = createDeps(config, store, clock, { scryptN: TEST_SCRYPT_N });
  const app = await buildApp(deps, { logStream: DISCARD, ...options });
  await app.ready();
  return {
    app,
    deps,
    config,
    clock,
    async close() {
      await app.close();
      await store.close().catch((err: unknown) => {
        // Closed already by the test itself, to see a database that does not answer (PostgreSQL's
        // pool says so; SQLite's second close does nothing). Its schema must still go.
        if (!/more than once/.test(String(err))) throw err;
      });
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Another instance of Tickler on the context's database, with its own caches and its own clock,
 * as a second server process would be. PostgreSQL only: one process serves an SQLite file.
 */
export async function anotherInstance(ctx: TestContext, clock: Clock): Promise<{ app: FastifyInstance; deps: Deps; close(): Promise<void> }> {
  if (ctx.deps.store.dialect !== 'postgres') throw new Error('a second instance needs PostgreSQL');
  const store = await openStore(ctx.config.database);
  const deps = createDeps(ctx.config, store, clock, { scryptN: TEST_SCRYPT_N });
  const app = await buildApp(deps, { logStream: DISCARD });
  await app.ready();
  return {
    app,
    deps,
    async close() {
      await app.close();
      await store.close();
    },
  };
}

export const PASSWORD = 'correct horse battery';
let passwordHash: Promise<string> | undefined;

/** An account whose password is PASSWORD (hashed once per process: scrypt is slow on purpose). */
export async function createAccount(ctx: TestContext, opts: { email?: string; pro?: ProLevel; alias?: string } = {}): Promise<Account> {
  passwordHash ??= hashPassword(PASSWORD, TEST_SCRYPT_N);
  const email = opts.email ?? `user-${randomHex(4)}@example.org`;
  return ctx.deps.store.transaction(async (tx) =>
    tx.accounts.create({
      userid: `td${randomHex(8)}`,
      email,
      emailKey: emailKey(email),
      passwordHash: await passwordHash!,
      alias: opts.alias ?? 'Tester',
      pro: opts.pro ?? 0,
      prefs: DEFAULT_PREFS,
      createdAt: unixSeconds(ctx.clock),
    }),
  );
}

export interface TestApp {
  readonly client: Client;
  /** The app's (first) registered redirect address. */
  readonly redirectUri: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** `Authorization: Basic …` for this app. */
  readonly basic: string;
}

export async function createApp(ctx: TestContext, redirectUri = 'https://app.example.org/callback', name = 'Test App'): Promise<TestApp> {
  const r = await registerClient(ctx.deps, { name, redirectUris: [redirectUri] });
  return {
    client: r.client,
    redirectUri,
    clientId: r.client.clientId,
    clientSecret: r.clientSecret,
    basic: `Basic ${Buffer.from(`${r.client.clientId}:${r.clientSecret}`).toString('base64')}`,
  };
}

/**
 * An authorization code as the consent page would issue it; `redirectUri` is the redirect_uri the
 * authorization request carried (none by default).
 */
export async function issueCode(
  ctx: TestContext,
  account: Account,
  app: TestApp,
  scope = 'basic tasks write',
  opts: { redirectUri?: string } = {},
): Promise<string> {
  const words = parseScope(scope);
  if (!words) throw new Error(`bad scope ${scope}`);
  const req = { client: app.client, state: 's', scope, scopeWords: words, codeChallenge: null, redirectUri: opts.redirectUri ?? null };
  const location = await ctx.deps.store.transaction((tx) => createCode(ctx.deps, tx, req, account.pk));
  const code = new URL(location).searchParams.get('code');
  if (!code) throw new Error('no code');
  return code;
}

export interface TokenPair {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly expires_in: number;
  readonly scope: string;
  readonly token_type: string;
}

export async function tokenRequest(ctx: TestContext, app: TestApp, form: Record<string, string>): Promise<LightMyRequestResponse> {
  return ctx.app.inject({
    method: 'POST',
    url: '/3/account/token.php',
    headers: { authorization: app.basic, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });
}

/** Full authorization: consent → code → token endpoint. Returns the token response. */
export async function authorize(ctx: TestContext, account: Account, app: TestApp, scope = 'basic tasks write'): Promise<TokenPair> {
  const code = await issueCode(ctx, account, app, scope);
  const res = await tokenRequest(ctx, app, { grant_type: 'authorization_code', code });
  const body = res.json() as TokenPair;
  if (!body.access_token) throw new Error(`token exchange failed: ${res.body}`);
  return body;
}

export interface SignedIn {
  readonly account: Account;
  readonly app: TestApp;
  readonly token: string;
}

/**
 * An account signed in to an app through consent, code and token: the start of most API tests.
 * The account and the app are new unless given (another app of one account, another account of one app).
 */
export async function signIn(
  ctx: TestContext,
  opts: { pro?: ProLevel; scope?: string; account?: Account; app?: TestApp } = {},
): Promise<SignedIn> {
  const account = opts.account ?? (await createAccount(ctx, { pro: opts.pro }));
  const app = opts.app ?? (await createApp(ctx));
  const token = (await authorize(ctx, account, app, opts.scope)).access_token;
  return { account, app, token };
}

/** A signed-in API call with a Bearer token; `form` goes in a url-encoded POST body. */
export async function api(
  ctx: TestContext,
  token: string,
  path: string,
  form: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return ctx.app.inject({
    method: 'POST',
    url: path,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });
}

/**
 * Moves the clock on until every write made so far is in a second that account/get reports: it
 * reports no second whose writes may still be landing (docs/decisions/0003-change-stamps.md).
 */
export function settle(ctx: TestContext): void {
  ctx.clock.advance(1 + CLOCK_SKEW_SECONDS);
}

/** account/get once the writes so far have settled (see settle()). */
export async function settledStamps(ctx: TestContext, token: string): Promise<Stamps> {
  settle(ctx);
  return (await api(ctx, token, '/3/account/get.php')).json() as Stamps;
}

/** tasks/{add,edit,delete}.php with a `tasks` array; `extra` adds parameters (fields, f, reschedule). */
export async function tasksCall(
  ctx: TestContext,
  token: string,
  action: 'add' | 'edit' | 'delete',
  tasks: unknown,
  extra: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return api(ctx, token, `/3/tasks/${action}.php`, { tasks: JSON.stringify(tasks), ...extra });
}

/** A folder, context, goal or location written through the store (not the endpoints). */
export async function createOrganizer(
  ctx: TestContext,
  account: Account,
  kind: 'folder' | 'context' | 'goal' | 'location',
  name: string,
  extra: Record<string, number | string> = {},
): Promise<number> {
  return ctx.deps.store.transaction(async (tx) => {
    const id = await tx.accounts.allocateIds(account.pk, kind, 1);
    await tx.organizers.insert(account.pk, kind, { ...newOrganizer(kind, id, name), ...extra } as never);
    return id;
  });
}
