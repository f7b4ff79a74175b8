/**
 * The fuzzer over real sockets, against a `bin/tickler serve` child: some faults only exist there
 * (a client hanging up mid-body, framing that is not HTTP). After every case the child must still
 * run, every whole request must be answered without a 5xx or a leak, and /healthz must answer
 * throughout. The child's log is read for fatal lines at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { freshSchema, type DatabaseChoice, type TestDatabase } from '../database.js';
import { addApp, addUser, exchangeCode, signedInBrowser } from '../e2e/accounts.js';
import { serve, type ServerProcess } from '../e2e/processes.js';
import { testContext } from '../harness.js';
import { failureReport, FUZZ_ENV } from './engine.js';
import { leakIn } from './oracle.js';
import { toWire, type Secrets } from './wire.js';
import { registeredRoutes, type RouteEntry } from './routes.js';
import { httpBytes, malformedBytes, socketCaseArbitrary, type SocketCase } from './socket-cases.js';

export interface SocketOptions {
  readonly database: DatabaseChoice;
  readonly seed: number;
  readonly requests: number;
  readonly replayPath?: string;
  readonly log?: (line: string) => void;
}

export interface SocketFigures {
  readonly requests: number;
  /** Cases cut off or malformed at the socket. */
  readonly raw: number;
  readonly seconds: number;
  readonly statuses: Readonly<Record<string, number>>;
  readonly serverErrors: number;
  /** 1 when the child exited. */
  readonly exits: number;
  /** Log lines at level error or fatal. */
  readonly errorLines: number;
  readonly failure: string | undefined;
}

const BODY_LIMIT = Number(FUZZ_ENV['MAX_BODY_BYTES']);
const PASSWORD = 'fuzzing over sockets';

/** The routes of the app the child runs: the same buildApp, built here to be listed. */
async function routesOfTheApp(): Promise<RouteEntry[]> {
  const ctx = await testContext({}, { database: { kind: 'sqlite' } });
  try {
    return registeredRoutes(ctx.app);
  } finally {
    await ctx.close();
  }
}

/** Credentials of a fresh account of the child, and a few records with small ids. */
async function remoteSession(url: string, env: Record<string, string>): Promise<Secrets> {
  const email = 'fuzz@example.org';
  const userid = addUser(env, email, PASSWORD, 1);
  const app = addApp(env);
  const browser = await signedInBrowser(url, app, email, PASSWORD);
  const main = await exchangeCode(url, app, await browser.code());
  const basic = await exchangeCode(url, app, await browser.code('basic'));
  const other = await exchangeCode(url, app, await browser.code());
  const code = await browser.code();
  const cookie = (suffix: string) => [...browser.jar].find(([name]) => name.endsWith(suffix));
  const [csrfCookie, session, csrf] = [cookie('tickler_csrf'), cookie('tickler_session'), browser.hidden['_csrf']];
  if (!csrfCookie || !session || !csrf) throw new Error('socket fuzz: no CSRF cookie or session');
  const sessionCsrf = await browser.sessionCsrf();
  const bearer = { authorization: `Bearer ${main.access_token}` };
  for (const kind of ['folders', 'contexts', 'goals', 'locations']) {
    for (let i = 1; i <= 3; i++) await fetch(`${url}/3/${kind}/add.php`, { method: 'POST', headers: bearer, body: new URLSearchParams({ name: `${kind} ${i}` }) });
  }
  const tasks = Array.from({ length: 10 }, (_, i) => ({ title: `seed ${i}`, folder: i % 4, repeat: i % 2 ? 'FREQ=WEEKLY' : '', duedate: 1_767_268_800 }));
  await fetch(`${url}/3/tasks/add.php`, { method: 'POST', headers: bearer, body: new URLSearchParams({ tasks: JSON.stringify(tasks) }) });
  return {
    token: main.access_token,
    basicToken: basic.access_token,
    unknownToken: 'f'.repeat(40),
    clientId: app.client_id,
    clientSecret: app.client_secret,
    code,
    refreshToken: other.refresh_token,
    redirectUri: app.redirect_uri,
    csrf,
    sessionCsrf,
    csrfCookie: `${csrfCookie[0]}=${csrfCookie[1]}`,
    sessionCookie: `${session[0]}=${session[1]}`,
    email,
    password: PASSWORD,
    userid,
    // No collaborator here: the in-process slice covers sharing (session.ts).
    partner: 'nobody',
  };
}

/** An event stream's head and its first lines: an answer that does not end by design (/3/sync/events.php). */
const STREAM_STARTED = /\r\ncontent-type: text\/event-stream[^\r]*\r\n[\s\S]*?\r\n\r\n[\s\S]*\n\n/i;

/**
 * Sends bytes on a new connection. With `hangUpAfterMs`, hangs up that long after writing
 * (nothing is awaited); otherwise reads until the server closes, or `waitMs` passes, or an event
 * stream has begun (then it hangs up, as a client leaving).
 */
async function exchange(port: number, bytes: Buffer, opts: { hangUpAfterMs?: number; waitMs: number }): Promise<{ text: string; closed: boolean }> {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  return new Promise((resolve) => {
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closed });
    };
    const timer = setTimeout(() => finish(false), opts.hangUpAfterMs ?? opts.waitMs);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (opts.hangUpAfterMs === undefined && STREAM_STARTED.test(Buffer.concat(chunks).toString('latin1'))) finish(true);
    });
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('connect', () => socket.write(bytes));
  });
}

function statusesIn(text: string): number[] {
  return [...text.matchAll(/(?:^|\r?\n)HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1]));
}

export async function fuzzOverSockets(options: SocketOptions): Promise<SocketFigures> {
  const log = options.log ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'tickler-fuzz-'));
  let db: TestDatabase | undefined;
  let server: ServerProcess | undefined;
  const started = Date.now();
  const statuses: Record<string, number> = {};
  let sent = 0;
  let raw = 0;
  let serverErrors = 0;
  let failure: string | undefined;
  try {
    const routes = await routesOfTheApp();
    let env: Record<string, string> = { ...FUZZ_ENV, LOG_LEVEL: 'info', DATABASE_URL: `sqlite:${join(dir, 'tickler.db')}` };
    if (options.database.kind === 'postgres') {
      db = await freshSchema(options.database.url);
      env = { ...env, ...db.env, DATABASE_URL: db.url };
    }
    server = await serve(env);
    const child = server;
    const port = Number(new URL(child.url).port);
    const secrets = await remoteSession(child.url, env);
    let lastReport = Date.now();

    const alive = (): string | undefined =>
      child.child.exitCode !== null || child.child.signalCode !== null
        ? `the server exited (${child.child.exitCode ?? child.child.signalCode}); its last output:\n${child.output().slice(-4000)}`
        : undefined;

    const send = async (c: SocketCase): Promise<void> => {
      sent++;
      let problem: string | undefined;
      let shown: string;
      if (c.kind === 'malformed') {
        raw++;
        const bytes = malformedBytes(c, secrets.token);
        shown = bytes.subarray(0, 600).toString('latin1');
        const r = await exchange(port, bytes, { waitMs: 100 });
        problem = judgeRaw(r.text, statuses);
      } else {
        const wire = toWire(c.request, secrets, BODY_LIMIT);
        const bytes = httpBytes(wire, c.kind === 'short-body' ? c.missing : 0);
        shown = bytes.subarray(0, 600).toString('latin1');
        if (c.kind === 'whole') {
          const r = await exchange(port, bytes, { waitMs: 30_000 });
          // A body over the limit is refused (413) while the client still sends it, and the
          // connection closed: the refusal may be lost in the reset. Not answering it is fine.
          const tooLarge = (wire.payload?.length ?? 0) > BODY_LIMIT;
          if (r.closed && (statusesIn(r.text).length > 0 || tooLarge)) problem = judgeRaw(r.text, statuses);
          else problem = `no answer${r.closed ? ' (the connection closed)' : ' within 30 s'}`;
        } else {
          raw++;
          const cut = c.kind === 'cut' ? bytes.subarray(0, Math.floor(bytes.length * c.fraction)) : bytes;
          const r = await exchange(port, cut, { hangUpAfterMs: c.delayMs, waitMs: c.delayMs });
          problem = judgeRaw(r.text, statuses);
        }
      }
      serverErrors = Object.entries(statuses).reduce((n, [s, k]) => (Number(s) >= 500 ? n + k : n), 0);
      problem ??= alive();
      if (!problem && sent % 200 === 0) problem = await healthy(child.url);
      if (Date.now() - lastReport > 15_000) {
        lastReport = Date.now();
        log(`  ${sent} requests over sockets`);
      }
      if (problem) throw new Error(`${problem}\n--- sent ---\n${shown}`);
    };

    const details = await fc.check(fc.asyncProperty(socketCaseArbitrary(routes), send), {
      seed: options.seed,
      numRuns: options.requests,
      ...(options.replayPath !== undefined && { path: options.replayPath }),
    });
    if (details.failed) failure = `socket fuzz failure; replay: FUZZ_SEED=${options.seed} FUZZ_SOCKET_REPLAY=${details.counterexamplePath ?? ''}\n${failureReport(details)}`;
    failure ??= alive() ?? (await healthy(child.url));
    const errorLines = child.output().split('\n').filter((l) => /"level":(50|60)/.test(l));
    if (!failure && errorLines.some((l) => l.includes('"level":60'))) failure = `fatal lines in the server's log:\n${errorLines.join('\n').slice(0, 4000)}`;
    return {
      requests: sent,
      raw,
      seconds: (Date.now() - started) / 1000,
      statuses,
      serverErrors,
      exits: child.child.exitCode !== null || child.child.signalCode !== null ? 1 : 0,
      errorLines: errorLines.length,
      failure,
    };
  } finally {
    await server?.kill().catch(() => undefined);
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Counts the statuses in raw response bytes; a 5xx or a leak is a problem. */
function judgeRaw(text: string, statuses: Record<string, number>): string | undefined {
  const found = statusesIn(text);
  for (const s of found) statuses[s] = (statuses[s] ?? 0) + 1;
  const bad = found.find((s) => s >= 500);
  if (bad !== undefined) return `answered HTTP ${bad}: ${JSON.stringify(text.slice(0, 600))}`;
  return leakIn(text);
}

async function healthy(url: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
    return res.status === 200 ? undefined : `/healthz answered ${res.status}`;
  } catch (err) {
    return `/healthz did not answer: ${err instanceof Error ? err.message : String(err)}`;
  }
}
