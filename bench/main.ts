/**
 * `npm run bench`: figures and ratios, each scenario beside a baseline measured in the same run.
 * Every server runs in its own child process; the load generator (autocannon) runs here. The
 * machines are shared and their speed drifts, so scenarios alternate over BENCH_ROUNDS rounds
 * (default 3) of BENCH_SECONDS each (default 5, after a 1 s warm-up) and medians are reported.
 * Besides requests per second, each server's own CPU time per request is reported: it does not
 * depend on how the two processes share the cores.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { ServerReady } from './server.js';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const CONNECTIONS = 16;
const SERVER = fileURLToPath(new URL('./server.js', import.meta.url));

interface Scenario {
  readonly name: string;
  /** `bare` answers the body of the scenario named by `bodyOf`. */
  readonly server: 'tickler' | 'bare' | 'fastify';
  readonly env?: Record<string, string>;
  readonly path: string;
  readonly bodyOf?: string;
}

interface Sample {
  readonly rps: number;
  readonly cpuMicros: number;
  readonly errors: number;
}

/** Default settings, except that the access log is off (the baseline writes no log either). */
const ACCOUNT_GET = 'account/get, valid token (defaults, log off)';

const SCENARIOS: readonly Scenario[] = [
  { name: 'bare node:http, same JSON (baseline)', server: 'bare', path: '/', bodyOf: ACCOUNT_GET },
  { name: ACCOUNT_GET, server: 'tickler', path: '/3/account/get.php' },
  { name: 'plain Fastify, same JSON (framework floor)', server: 'fastify', path: '/', bodyOf: ACCOUNT_GET },
  { name: 'account/get, account cache off', server: 'tickler', env: { ACCOUNT_CACHE_SECONDS: '0' }, path: '/3/account/get.php' },
  { name: 'account/get, account and token caches off', server: 'tickler', env: { ACCOUNT_CACHE_SECONDS: '0', TOKEN_CACHE_SECONDS: '0' }, path: '/3/account/get.php' },
  { name: 'account/get, access log on (LOG_LEVEL=info, the default)', server: 'tickler', env: { LOG_LEVEL: 'info' }, path: '/3/account/get.php' },
];

const bodies = new Map<string, string>();

async function cpu(child: ChildProcess): Promise<number> {
  child.send('cpu');
  const [m] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage }];
  return m.cpu.user + m.cpu.system;
}

async function measure(s: Scenario): Promise<Sample> {
  const args = s.server === 'tickler' ? ['tickler'] : [s.server, bodies.get(s.bodyOf ?? '') ?? '{}'];
  const child = fork(SERVER, args, { env: { ...process.env, ...s.env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    const [ready] = (await once(child, 'message')) as [ServerReady];
    if (ready.body && !bodies.has(s.name)) bodies.set(s.name, ready.body);
    const options = {
      url: `http://127.0.0.1:${ready.port}${s.path}`,
      headers: ready.token ? { authorization: `Bearer ${ready.token}` } : {},
      connections: CONNECTIONS,
    };
    await autocannon({ ...options, duration: 1 });
    const before = await cpu(child);
    const r = await autocannon({ ...options, duration: SECONDS });
    const after = await cpu(child);
    return { rps: r.requests.average, cpuMicros: (after - before) / Math.max(1, r.requests.total), errors: r.errors + r.non2xx };
  } finally {
    const exited = once(child, 'exit');
    child.disconnect();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

async function main(): Promise<void> {
  console.log(`Tickler benchmark: ${CONNECTIONS} connections, ${ROUNDS} rounds × ${SECONDS} s per scenario, Node ${process.version}\n`);
  // The baseline answers the body Tickler answers, so Tickler's scenario runs first once to learn it.
  const order = [SCENARIOS[1] as Scenario, ...SCENARIOS.filter((_, i) => i !== 1)];
  const samples = new Map<string, Sample[]>(SCENARIOS.map((s) => [s.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of order) samples.get(s.name)?.push(await measure(s));
  }
  const base = samples.get(SCENARIOS[0]?.name ?? '') ?? [];
  const baseRps = median(base.map((x) => x.rps));
  const baseCpu = median(base.map((x) => x.cpuMicros));
  console.log('| scenario | req/s (median) | ratio to baseline | CPU µs per request | baseline CPU / this CPU | errors |');
  console.log('|---|---|---|---|---|---|');
  let errors = 0;
  for (const s of SCENARIOS) {
    const xs = samples.get(s.name) ?? [];
    const rps = median(xs.map((x) => x.rps));
    const cpuMicros = median(xs.map((x) => x.cpuMicros));
    const errs = xs.reduce((n, x) => n + x.errors, 0);
    errors += errs;
    console.log(`| ${s.name} | ${Math.round(rps)} | ${(rps / baseRps).toFixed(2)} | ${cpuMicros.toFixed(1)} | ${(baseCpu / cpuMicros).toFixed(2)} | ${errs} |`);
  }
  if (errors > 0) {
    console.error(`\n${errors} requests failed: the figures above are not valid`);
    process.exitCode = 1;
  }
}

await main();
