/**
 * The in-process fuzzer: fast-check draws requests for every route the app registers and sends
 * them through app.inject to the production buildApp (the test harness, on SQLite or
 * PostgreSQL), signed in as a real account. Every answer is judged (oracle.ts); an error that
 * escapes the request (which would end a server process), a hang or a bad answer fails the run
 * with the seed and path that replay it.
 */
import fc from 'fast-check';
import type { DatabaseChoice } from '../database.js';
import { createApp, testContext, type TestContext } from '../harness.js';
import { judge } from './oracle.js';
import { requestArbitrary, type FuzzRequest } from './requests.js';
import { describeWire, toWire, type Secrets } from './wire.js';
import { registeredRoutes } from './routes.js';
import { newSession } from './session.js';

export interface FuzzOptions {
  readonly database: DatabaseChoice;
  readonly seed: number;
  /** At most this many requests… */
  readonly requests: number;
  /** …and for at most this long (the sweep of every route always completes). */
  readonly seconds: number;
  /** Requests per route (and method) sent before the random mix, so that none is left out. */
  readonly perRoute?: number;
  /** Replays one failure as printed: the phase it happened in and fast-check's path (with the same seed). */
  readonly replay?: { readonly phase: number; readonly path: string };
  /** A new account (and session) every this many requests, so that none grows without bound. */
  readonly rotateEvery?: number;
  readonly log?: (line: string) => void;
}

export interface FuzzFigures {
  readonly database: 'sqlite' | 'postgres';
  readonly seed: number;
  readonly requests: number;
  readonly seconds: number;
  readonly statuses: Readonly<Record<string, number>>;
  /** JSON answers by error code ("ok" for records and lists, "inline N" for errors inside a batch's answer): how deep requests got. */
  readonly codes: Readonly<Record<string, number>>;
  /** Answers of 500 or above. */
  readonly serverErrors: number;
  /** Errors that escaped a request: each would have ended a server process. */
  readonly exits: number;
  readonly routes: number;
  readonly routesHit: number;
  /** Why the run failed, with what replays it; undefined when it passed. */
  readonly failure: string | undefined;
}

const REQUEST_TIMEOUT_MS = 30_000;
const BODY_LIMIT = 4 * 1024 * 1024;

/**
 * The fuzz server's settings: API calls counted (on PostgreSQL, in batches) at a ceiling never
 * reached, no token rate limits (they would answer 103 to everything after a while), the smallest
 * body limit.
 */
export const FUZZ_ENV: Readonly<Record<string, string>> = {
  LOG_LEVEL: 'error',
  MAX_BODY_BYTES: String(BODY_LIMIT),
  RATE_LIMIT_API_PER_USER: '999999999/1h',
  RATE_LIMIT_API_PER_CLIENT: '999999999/1h',
  RATE_LIMIT_TOKEN_PER_USER: '0',
  RATE_LIMIT_TOKEN_PER_CLIENT: '0',
  RATE_LIMIT_TOKEN_AUTH_FAILURES: '0',
};

/** A failure as people read it: what was wrong with the answer, the request, and fast-check's draw (cut short). */
export function failureReport<T>(details: fc.RunDetails<T>): string {
  const e = details.errorInstance;
  const why = e instanceof Error ? e.message : String(e);
  const drawn = fc.stringify(details.counterexample);
  return `${why}\n--- drawn by fast-check (after ${details.numShrinks} shrinks) ---\n${drawn.length > 3000 ? `${drawn.slice(0, 3000)}… (${drawn.length} characters)` : drawn}`;
}

/** The error codes of a JSON answer: its own, or those inside a list; "ok" when there are none. */
function codesOf(body: string, type: unknown): string[] {
  if (typeof type !== 'string' || !type.startsWith('application/json') || body === '') return [];
  const value = JSON.parse(body) as unknown;
  const codeOf = (v: unknown) => (v !== null && typeof v === 'object' && 'errorCode' in v ? (v as { errorCode: unknown }).errorCode : undefined);
  const own = codeOf(value);
  if (own !== undefined) return [String(own)];
  const inline = Array.isArray(value) ? value.map(codeOf).filter((c) => c !== undefined).map((c) => `inline ${String(c)}`) : [];
  return inline.length > 0 ? inline : ['ok'];
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

interface Answered {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  readonly body: string;
}

/**
 * Sends one request through inject and reads its answer. An answer that does not end by design
 * (an event stream, /3/sync/events.php) is judged by its head and first chunk, then its
 * response is dropped, as a client that leaves: its stream ends and frees its slot.
 */
async function answerOf(app: TestContext['app'], wire: ReturnType<typeof toWire>): Promise<Answered> {
  const res = await app.inject({ method: wire.method as 'GET', url: wire.url, headers: wire.headers, ...(wire.payload && { payload: wire.payload }), payloadAsStream: true });
  const stream = res.stream();
  if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
    const first = await new Promise<string>((resolve) => {
      stream.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      stream.once('end', () => resolve(''));
    });
    stream.on('error', () => undefined);
    (res.raw.res as { destroy(): void }).destroy();
    return { statusCode: res.statusCode, headers: res.headers, body: first };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return { statusCode: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() };
}

export async function fuzzInProcess(options: FuzzOptions): Promise<FuzzFigures> {
  const log = options.log ?? (() => undefined);
  const errorLines: string[] = [];
  const ctx: TestContext = await testContext(FUZZ_ENV, { database: options.database, logStream: { write: (line) => void errorLines.push(line) } });
  const escaped: unknown[] = [];
  const onEscape = (err: unknown): void => void escaped.push(err);
  process.on('uncaughtException', onEscape);
  process.on('unhandledRejection', onEscape);
  const started = Date.now();
  const statuses: Record<string, number> = {};
  const codes: Record<string, number> = {};
  const hit = new Set<string>();
  let sent = 0;
  let serverErrors = 0;
  let exits = 0;
  let failure: string | undefined;
  try {
    const routes = registeredRoutes(ctx.app);
    const app = await createApp(ctx);
    const rotateEvery = options.rotateEvery ?? 2_000;
    let sessions = 0;
    let secrets: Secrets = await newSession(ctx, app, sessions++);
    let nextSession = rotateEvery;
    let nextTick = 10;
    let lastReport = Date.now();

    /** One request: its problem (with the request, as sent), or undefined. */
    const sendOne = async (r: FuzzRequest): Promise<string | undefined> => {
      sent++;
      hit.add(`${r.method} ${r.route}`);
      const wire = toWire(r, secrets, BODY_LIMIT);
      const res = await withTimeout(answerOf(ctx.app, wire), REQUEST_TIMEOUT_MS);
      let problem: string | undefined;
      if (res === 'timeout') problem = `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
      else {
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode >= 500) serverErrors++;
        problem = judge({ method: wire.method, status: res.statusCode, contentType: res.headers['content-type'] as string | undefined, body: res.body });
        if (!problem) for (const code of codesOf(res.body, res.headers['content-type'])) codes[code] = (codes[code] ?? 0) + 1;
      }
      return problem && `${problem}\n--- request ---\n${describeWire(wire)}`;
    };

    /** Requests sent one after the other, or all at once (races are part of the attack); fails on the first problem. */
    const send = async (group: readonly FuzzRequest[], together = false): Promise<void> => {
      if (sent >= nextSession) {
        secrets = await newSession(ctx, app, sessions++);
        nextSession = sent + rotateEvery;
      }
      if (sent >= nextTick) {
        ctx.clock.advance(1);
        nextTick = sent + 10;
      }
      errorLines.length = 0;
      const problems: Array<string | undefined> = [];
      if (together) problems.push(...(await Promise.all(group.map(sendOne))));
      else for (const r of group) problems.push(await sendOne(r));
      // Let a stray rejection or exception of these requests surface before judging them.
      await new Promise((resolve) => setImmediate(resolve));
      let problem = problems.find((p) => p !== undefined);
      if (escaped.length > 0) {
        exits += escaped.length;
        const err = escaped.splice(0);
        problem = `an error escaped a request (a server process would exit): ${err.map((e) => (e instanceof Error ? (e.stack ?? e.message) : String(e))).join('\n')}`;
      }
      if (Date.now() - lastReport > 15_000) {
        lastReport = Date.now();
        log(`  ${sent} requests, ${Math.round(sent / ((Date.now() - started) / 1000))}/s`);
      }
      if (problem) {
        const others = group.length > 1 ? `\n(sent ${together ? 'at the same time as' : 'in turn with'} the other request of the draw below)` : '';
        const logged = errorLines.length > 0 ? `\n--- server log ---\n${errorLines.join('').slice(0, 4000)}` : '';
        throw new Error(`${problem}${others}${logged}`);
      }
    };

    // Phases: first a few requests per route and method (so that none is left out, however the
    // draw falls), then the random mix over all routes until the count or the time is spent.
    const perRoute = options.perRoute ?? 3;
    const phases = [
      ...routes.map((r) => ({ name: `${r.method} ${r.url}`, routes: [r], runs: perRoute, timed: false })),
      { name: 'all routes', routes, runs: Math.max(0, options.requests - routes.length * perRoute), timed: true },
    ];
    const deadline = started + options.seconds * 1000;
    for (const [i, phase] of phases.entries()) {
      if (options.replay !== undefined && options.replay.phase !== i) continue;
      const remaining = deadline - Date.now();
      if (phase.runs === 0 || (phase.timed && remaining <= 0)) continue;
      // The sweep sends one request per run; the mix two, in turn or at the same time, and now and
      // then the same one twice (two adds of one name, one code exchanged twice: races to lose).
      const requests = requestArbitrary(phase.routes, { ownMethod: !phase.timed });
      const pairs = fc.oneof({ weight: 4, arbitrary: fc.tuple(requests, requests) }, { weight: 1, arbitrary: requests.map((r) => [r, r] as [FuzzRequest, FuzzRequest]) });
      const property = phase.timed
        ? fc.asyncProperty(pairs, fc.boolean(), (pair, together) => send(pair, together))
        : fc.asyncProperty(requests, (r) => send([r]));
      const details = await fc.check(property as fc.IAsyncProperty<unknown>, {
        seed: (options.seed + i) | 0,
        numRuns: phase.timed ? Math.ceil(phase.runs / 2) : phase.runs,
        ...(options.replay !== undefined && { path: options.replay.path }),
        ...(phase.timed && { plugins: [fc.interruptAfterTimeLimit(remaining)] }),
      });
      if (details.failed) {
        failure = `fuzz failure in phase ${i} (${phase.name}); replay: FUZZ_SEED=${options.seed} FUZZ_REPLAY=${i}:${details.counterexamplePath ?? ''}\n${failureReport(details)}`;
        break;
      }
    }
    const unreached = routes.filter((r) => !hit.has(`${r.method} ${r.url}`));
    if (!failure && options.replay === undefined && unreached.length > 0) {
      failure = `routes never fuzzed: ${unreached.map((r) => `${r.method} ${r.url}`).join(', ')}`;
    }
    return {
      database: options.database.kind,
      seed: options.seed,
      requests: sent,
      seconds: (Date.now() - started) / 1000,
      statuses,
      codes,
      serverErrors,
      exits,
      routes: routes.length,
      routesHit: routes.length - unreached.length,
      failure,
    };
  } finally {
    process.off('uncaughtException', onEscape);
    process.off('unhandledRejection', onEscape);
    await ctx.close();
  }
}
