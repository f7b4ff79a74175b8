import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { DEFAULTS } from '../../src/config.js';

/** The real command line, as an operator runs it. */
export const TICKLER = fileURLToPath(new URL('../../../bin/tickler', import.meta.url));

/**
 * The developer's environment without Tickler's settings, then the test's: an exported PUBLIC_URL,
 * MAINTENANCE_MODE or RATE_LIMIT_* must not change what a test sees. PATH and the rest stay.
 */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const settings = new Set<string>([...Object.keys(DEFAULTS), 'PUBLIC_URL', 'SMTP_URL', 'MAIL_FROM']);
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !settings.has(key)));
  return { ...inherited, ...env };
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs bin/tickler with this test's Node.js; `nodeArgs` go to Node itself (before the script);
 * `script`: another copy of bin/tickler.
 */
export function cli(args: string[], env: Record<string, string>, nodeArgs: string[] = [], script = TICKLER): CliResult {
  const r = spawnSync(process.execPath, [...nodeArgs, script, ...args], { env: childEnv(env), encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** cli(), without blocking: several commands run at once; `as` runs it as another user (root only). */
export async function cliAsync(args: string[], env: Record<string, string>, as?: { readonly uid: number; readonly gid: number }): Promise<CliResult> {
  const child = spawn(process.execPath, [TICKLER, ...args], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'], ...as });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  readonly output: () => string;
  /** SIGTERM and wait; resolves to the exit code. */
  stop(): Promise<number | null>;
  /** Resolves when the output holds `text` (the test's timeout bounds the wait). */
  printed(text: string): Promise<void>;
  /** The whole output, once the process has ended and its pipes are closed. */
  finalOutput(): Promise<string>;
  /** SIGKILL: no chance to flush or close anything. */
  kill(): Promise<void>;
}

/**
 * The address users see, as if a proxy served every instance there: pages post back to it, and
 * browsers say so (Origin). The servers themselves listen on free ports of 127.0.0.1.
 */
export const E2E_PUBLIC_URL = 'http://tickler.test';

/** Starts `bin/tickler serve` on a free port and waits until it listens. */
export async function serve(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [TICKLER, 'serve'], {
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', PUBLIC_URL: E2E_PUBLIC_URL, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 20_000);
    const look = (): void => {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    };
    child.stdout?.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
  const exited = once(child, 'exit');
  const closed = once(child, 'close');
  return {
    async printed(text: string) {
      while (!out.includes(text)) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server ended without printing ${JSON.stringify(text)}:\n${out}`);
        await Promise.race([once(child.stderr as NodeJS.EventEmitter, 'data'), once(child.stdout as NodeJS.EventEmitter, 'data'), exited]);
      }
    },
    async finalOutput() {
      await closed;
      return out;
    },
    url,
    child,
    output: () => out,
    async stop() {
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
