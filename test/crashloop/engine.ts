/**
 * The crash loop: a `bin/tickler serve` child takes batches of task adds and edits and organizer
 * adds from several concurrent clients, and is killed with SIGKILL at a random moment: after a
 * random delay, or a random fraction of a write's usual latency after that write went out (so
 * that kills land while batches are being written). It is then started again, and the ledger of
 * every acknowledged write is checked against what the server holds (ledger.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshSchema, type DatabaseChoice, type TestDatabase } from '../database.js';
import { addUser, addApp, tokensFor, type RemoteApp } from '../e2e/accounts.js';
import { serve, type ServerProcess } from '../e2e/processes.js';
import { addOrganizer, addTasks, editTasks, serverState, WrongAnswer, type AccountClient } from './client.js';
import { Ledger, ORGANIZER_KINDS, type LedgerCounts } from './ledger.js';
import { postgresProbe, sqliteProbe, withApplicationName, type WriteProbe } from './probe.js';
import { Random } from './random.js';

export interface CrashLoopOptions {
  readonly database: DatabaseChoice;
  readonly seed: number;
  /** Stop after this many kills… */
  readonly kills: number;
  /** …or after this long, whichever comes first. */
  readonly seconds: number;
  /** Concurrent clients (default 3). */
  readonly lanes?: number;
  /** A new account every this many kills (default 25), so that none grows without bound. */
  readonly killsPerAccount?: number;
  readonly log?: (line: string) => void;
}

export interface CrashFigures extends LedgerCounts {
  readonly database: 'sqlite' | 'postgres';
  readonly seed: number;
  readonly kills: number;
  /** Kills that found at least one write request in flight. */
  readonly killsMidWrite: number;
  /** Kills that found the server inside a write transaction (asked just before the kill). */
  readonly killsInTransaction: number;
  /** Write requests sent (the verification's reads not counted). */
  readonly requests: number;
  readonly accounts: number;
  /** Acknowledged writes found missing, partial or stale (each is also a failure). */
  readonly lost: number;
  readonly seconds: number;
  readonly failure: string | undefined;
}

const PASSWORD = 'crash loop password';

interface Round {
  stopped: boolean;
  writesSent: number;
  inFlight: number;
  requests: number;
  onWriteSent: (() => void) | undefined;
}

export async function crashLoop(options: CrashLoopOptions): Promise<CrashFigures> {
  const log = options.log ?? (() => undefined);
  const rnd = new Random(options.seed);
  const lanes = options.lanes ?? 3;
  const killsPerAccount = options.killsPerAccount ?? 25;
  const dir = mkdtempSync(join(tmpdir(), 'tickler-crash-'));
  let db: TestDatabase | undefined;
  let server: ServerProcess | undefined;
  const accounts: AccountClient[] = [];
  const started = Date.now();
  let kills = 0;
  let killsMidWrite = 0;
  let killsInTransaction = 0;
  let probe: WriteProbe | undefined;
  let requests = 0;
  let lost = 0;
  let failure: string | undefined;
  let writeLatencyMs = 20;
  let batch = 0;

  const totals = (): LedgerCounts => {
    const t: LedgerCounts = { acknowledged: 0, acknowledgedItems: 0, unacknowledged: 0, landed: 0, notLanded: 0 };
    for (const a of accounts) for (const k of Object.keys(t) as Array<keyof LedgerCounts>) t[k] += a.ledger.counts[k];
    return t;
  };

  try {
    let env: Record<string, string> = {
      DATABASE_URL: `sqlite:${join(dir, 'tickler.db')}`,
      RATE_LIMIT_API_PER_USER: '0',
      RATE_LIMIT_API_PER_CLIENT: '0',
      RATE_LIMIT_TOKEN_PER_USER: '0',
      RATE_LIMIT_TOKEN_PER_CLIENT: '0',
    };
    const applicationName = `tickler_crash_${options.seed}_${process.pid}`;
    if (options.database.kind === 'postgres') {
      db = await freshSchema(options.database.url);
      env = { ...env, ...db.env, DATABASE_URL: withApplicationName(db.url, applicationName) };
    }
    const app: RemoteApp = addApp(env, 'Crash loop');
    server = await serve(env);
    probe = db ? await postgresProbe(options.database.kind === 'postgres' ? options.database.url : '', applicationName) : sqliteProbe(join(dir, 'tickler.db'));
    const writes: WriteProbe = probe;

    const newAccount = async (url: string): Promise<AccountClient> => {
      const name = `crash${accounts.length}`;
      addUser(env, `${name}@example.org`, PASSWORD);
      const { access_token } = await tokensFor(url, app, `${name}@example.org`, PASSWORD);
      const a = { name, token: access_token, ledger: new Ledger() };
      accounts.push(a);
      return a;
    };
    let account = await newAccount(server.url);

    /** One client: writes until the round stops. */
    const lane = async (url: string, round: Round): Promise<void> => {
      while (!round.stopped) {
        const op = rnd.next();
        const write = async (send: () => Promise<boolean>): Promise<void> => {
          round.writesSent++;
          round.inFlight++;
          round.requests++;
          round.onWriteSent?.();
          const t = Date.now();
          try {
            if (await send()) writeLatencyMs = 0.8 * writeLatencyMs + 0.2 * (Date.now() - t);
          } finally {
            round.inFlight--;
          }
        };
        if (op < 0.5 || account.ledger.taskCount < 10) {
          const n = rnd.int(1, 50);
          const b = batch++;
          await write(() => addTasks(url, account, Array.from({ length: n }, (_, i) => `b${b}-${i}`)));
        } else if (op < 0.8) {
          const versions = account.ledger.claimForEdit(rnd.int(1, 50), (size) => rnd.int(0, size - 1));
          if (versions.size > 0) await write(() => editTasks(url, account, versions));
        } else {
          const kind = rnd.pick(ORGANIZER_KINDS);
          await write(() => addOrganizer(url, account, kind, `${kind}-${batch++}`));
        }
      }
    };

    const verify = async (url: string, which: readonly AccountClient[]): Promise<string[]> => {
      const problems: string[] = [];
      for (const a of which) {
        for (const p of a.ledger.reconcile(await serverState(url, a.token))) problems.push(`${a.name}: ${p}`);
      }
      return problems;
    };

    while (kills < options.kills && Date.now() - started < options.seconds * 1000) {
      const child: ServerProcess = server;
      const round: Round = { stopped: false, writesSent: 0, inFlight: 0, requests: 0, onWriteSent: undefined };
      // When to kill: after a random delay, or a random share of a write's usual latency after
      // the k-th write of the round went out (so that some kills land inside a batch's work).
      const killed = new Promise<void>((resolve, reject) => {
        const kill = (): void => {
          round.stopped = true;
          const writing = round.inFlight > 0;
          writes.inTransaction().then((inTransaction) => {
            child.child.kill('SIGKILL');
            if (writing) killsMidWrite++;
            if (inTransaction) killsInTransaction++;
            resolve();
          }, reject);
        };
        if (rnd.chance(0.5)) {
          setTimeout(kill, rnd.int(0, 400));
        } else {
          const k = rnd.int(1, 12);
          const share = rnd.next() * 1.5;
          const fallback = setTimeout(kill, 3_000);
          round.onWriteSent = () => {
            if (round.writesSent !== k) return;
            clearTimeout(fallback);
            setTimeout(kill, share * writeLatencyMs);
          };
        }
      });
      const running = Array.from({ length: lanes }, () => lane(child.url, round));
      await killed;
      await child.kill().catch(() => undefined);
      const settled = await Promise.allSettled(running);
      requests += round.requests;
      kills++;
      const wrong = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (wrong) {
        failure = wrong.reason instanceof WrongAnswer ? wrong.reason.message : String(wrong.reason);
        break;
      }

      server = await serve(env);
      const problems = await verify(server.url, [account]);
      if (problems.length > 0) {
        lost += problems.length;
        failure = `after kill ${kills}: ${problems.slice(0, 20).join('\n')}`;
        break;
      }
      if (kills % killsPerAccount === 0 && kills < options.kills) account = await newAccount(server.url);
      if (kills % 10 === 0) {
        const t = totals();
        log(`  ${kills} kills (${killsMidWrite} with writes in flight, ${killsInTransaction} inside a write transaction), ${t.acknowledged} writes acknowledged (${t.acknowledgedItems} records), ${t.unacknowledged} in flight at a kill: ${t.landed} landed whole, ${t.notLanded} not at all`);
      }
    }

    if (!failure) {
      // The last word: every account, every acknowledged write, after the last restart.
      const problems = await verify(server.url, accounts);
      if (problems.length > 0) {
        lost += problems.length;
        failure = `at the end: ${problems.slice(0, 20).join('\n')}`;
      }
      const code = await server.stop();
      server = undefined;
      if (!failure && code !== 0) failure = `the last server did not stop cleanly on SIGTERM (exit code ${code})`;
    }
    return { database: options.database.kind, seed: options.seed, kills, killsMidWrite, killsInTransaction, requests, accounts: accounts.length, lost, seconds: (Date.now() - started) / 1000, failure, ...totals() };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { database: options.database.kind, seed: options.seed, kills, killsMidWrite, killsInTransaction, requests, accounts: accounts.length, lost, seconds: (Date.now() - started) / 1000, failure: `the crash loop stopped: ${why}`, ...totals() };
  } finally {
    await probe?.close();
    await server?.kill().catch(() => undefined);
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
