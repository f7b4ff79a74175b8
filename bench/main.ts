/**
 * `npm run bench`: figures and ratios, each scenario beside a baseline measured in the same run.
 * Every server runs in its own child process; the load generator (autocannon) runs here. The
 * machines are shared and their speed drifts, so scenarios alternate over BENCH_ROUNDS rounds
 * (default 3) of BENCH_SECONDS each (default 5, after a 1 s warm-up) and medians are reported.
 * Besides requests per second, each server's own CPU time per request is reported: it does not
 * depend on how the two processes share the cores. BENCH_ONLY=account,tasks runs the groups whose
 * names start with one of the words (here account/get, tasks/get and tasks/add; `repeat` is the
 * in-process repeat engine group, `web` the task list page, in process too; `push` the event
 * stream's latency and memory and the webhook deliveries' rate: bench/push.ts).
 * With BENCH_DATABASE_URL (or TEST_DATABASE_URL) naming a PostgreSQL database, every Tickler
 * scenario also runs on PostgreSQL, in a fresh schema, and the two are printed side by side.
 * `writes` is the count of statements of each write call of 50 items (census.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createRequire } from 'node:module';
import { census, type CensusRow } from './census.js';
import { pushBench } from './push.js';
import { repeatBench } from './repeat.js';
import { webTasksBench } from './web-tasks.js';
import { goalRows } from './goals.js';
import { ON_POSTGRES, SCENARIOS, runOrder, withPostgres, type Scenario } from './scenarios.js';
import { stopChild } from './child.js';
import { radicaleInstalled } from './radicale.js';
import type { ServerReady } from './server.js';

// autocannon sends only RFC 7231's methods and PATCH, refusing any other by name from this list:
// CalDAV's PROPFIND and REPORT are added to it (the requests it writes are the same otherwise).
const methods = createRequire(import.meta.url)('autocannon/lib/httpMethods.js') as string[];
for (const m of ['PROPFIND', 'REPORT']) if (!methods.includes(m)) methods.push(m);

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const CONNECTIONS = 16;
const SERVER = fileURLToPath(new URL('./server.js', import.meta.url));
const ONLY = process.env['BENCH_ONLY']?.split(',').map((s) => s.trim());

function chosen(group: string): boolean {
  return !ONLY || ONLY.some((prefix) => group.startsWith(prefix));
}
const PG_URL = process.env['BENCH_DATABASE_URL'] ?? process.env['TEST_DATABASE_URL'];

interface Sample {
  readonly rps: number;
  readonly cpuMicros: number;
  /** Statements sent to the database per request (PostgreSQL: round trips). */
  readonly statements: number;
  readonly errors: number;
}

/** Answers of Tickler scenarios, served by the baselines of their group. */
const bodies = new Map<string, string>();

async function cpu(child: ChildProcess): Promise<{ micros: number; statements: number }> {
  child.send('cpu');
  const [m] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage; statements: number }];
  return { micros: m.cpu.user + m.cpu.system, statements: m.statements };
}

async function measure(s: Scenario): Promise<Sample> {
  const args = s.server === 'tickler' || s.server === 'radicale' ? [s.server, JSON.stringify(s.setup)] : s.server === 'raw-add' ? ['raw-add', s.rawTable ?? 'tasks'] : [s.server];
  const served = s.server === 'tickler' || s.server === 'radicale';
  const env = { ...process.env, ...s.env, ...(PG_URL && { BENCH_DATABASE_URL: PG_URL }) };
  // The server runs as `tickler serve` runs it: without this process's --enable-source-maps, with
  // which a Tickler server took 19–20 µs of CPU per account/get in most runs instead of 12.5–13.
  const child = fork(SERVER, args, { env, execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  if (!served) child.send({ body: bodies.get(s.bodyOf ?? '') ?? '{}' });
  try {
    // A server that fails while preparing (its probe answered an error, say) ends the run, not hangs it.
    const exited = once(child, 'exit').then(([code]) => Promise.reject(new Error(`the server of "${s.name}" exited (${String(code)}) before it was ready`)));
    const [ready] = (await Promise.race([once(child, 'message'), exited])) as [ServerReady];
    exited.catch(() => undefined);
    if (ready.body !== undefined && !bodies.has(s.name)) bodies.set(s.name, ready.body);
    const auth = ready.authorizations ?? (ready.tokens ?? []).map((t) => `Bearer ${t}`);
    const fill = (text: string): string => text.replace(/\{\{(\w+)\}\}/g, (_m, k: string) => ready.substitutions?.[k] ?? '');
    let next = 0;
    const options = {
      url: `http://127.0.0.1:${ready.port}${served ? fill(s.request.path) : '/'}`,
      method: s.request.method as 'GET',
      connections: CONNECTIONS,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...s.request.headers, ...(auth.length === 1 && { authorization: auth[0] }) },
      ...(s.request.body !== undefined && { body: fill(s.request.body) }),
      // A sequence: each connection sends its requests in turn.
      ...(s.sequence &&
        served && {
          requests: s.sequence.map((r) => ({ method: r.method as 'GET', path: fill(r.path), headers: { ...r.headers, ...(auth.length === 1 && { authorization: auth[0] as string }) }, ...(r.body !== undefined && { body: fill(r.body) }) })),
        }),
      // Spread the load over the accounts (writes: no account reaches the 80,000 tasks limit). One
      // account's token is a fixed header: making each request in the load generator cost it a
      // third of the baseline's rate, and the cheap scenarios' ratios were the generator's.
      ...(auth.length > 1 && {
        requests: [
          {
            setupRequest: (req: autocannon.Request) => {
              const header = auth[next++ % auth.length] as string;
              return { ...req, headers: { ...req.headers, authorization: header } };
            },
          },
        ],
      }),
    };
    await autocannon({ ...options, duration: 1 });
    const before = await cpu(child);
    const r = await autocannon({ ...options, duration: SECONDS });
    const after = await cpu(child);
    const n = Math.max(1, r.requests.total);
    return { rps: r.requests.average, cpuMicros: (after.micros - before.micros) / n, statements: (after.statements - before.statements) / n, errors: r.errors + r.non2xx };
  } finally {
    await stopChild(child);
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

async function main(): Promise<void> {
  const radicale = radicaleInstalled();
  if (!radicale) console.log('Radicale scenarios skipped: install Radicale (Debian package radicale) to compare with it.');
  const picked = SCENARIOS.filter((s) => chosen(s.group) && (s.server !== 'radicale' || radicale));
  const scenarios = PG_URL ? withPostgres(picked) : picked;
  if (!PG_URL) console.log('PostgreSQL scenarios skipped: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to run them.');
  console.log(`Tickler benchmark: ${CONNECTIONS} connections, ${ROUNDS} rounds × ${SECONDS} s per scenario, Node ${process.version}`);
  const order = runOrder(scenarios);
  const samples = new Map<string, Sample[]>(scenarios.map((s) => [s.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of order) samples.get(s.name)?.push(await measure(s));
  }
  const med = (name: string) => {
    const xs = samples.get(name) ?? [];
    return {
      rps: median(xs.map((x) => x.rps)),
      cpu: median(xs.map((x) => x.cpuMicros)),
      statements: median(xs.map((x) => x.statements)),
      errors: xs.reduce((n, x) => n + x.errors, 0),
    };
  };
  let errors = 0;
  for (const group of [...new Set(scenarios.map((s) => s.group))]) {
    const inGroup = scenarios.filter((s) => s.group === group);
    const base = med(inGroup.find((s) => s.server === 'bare')?.name ?? '');
    console.log(`\n### ${group}\n`);
    console.log('| scenario | req/s (median) | ratio to baseline | CPU µs per request | baseline CPU / this CPU | statements per request | errors |');
    console.log('|---|---|---|---|---|---|---|');
    for (const s of inGroup) {
      const m = med(s.name);
      errors += m.errors;
      const statements = s.server === 'tickler' || s.server === 'raw-add' ? m.statements.toFixed(1) : '';
      console.log(`| ${s.name} | ${Math.round(m.rps)} | ${(m.rps / base.rps).toFixed(2)} | ${m.cpu.toFixed(1)} | ${(base.cpu / m.cpu).toFixed(2)} | ${statements} | ${m.errors} |`);
    }
  }
  const twins = scenarios.filter((s) => s.name.endsWith(ON_POSTGRES));
  if (twins.length > 0) {
    console.log('\n### SQLite and PostgreSQL side by side\n');
    console.log('CPU is the Tickler process only; PostgreSQL works in processes of its own.\n');
    console.log('| scenario | SQLite req/s | PostgreSQL req/s | PostgreSQL / SQLite | SQLite CPU µs | PostgreSQL CPU µs |');
    console.log('|---|---|---|---|---|---|');
    for (const twin of twins) {
      const name = twin.name.slice(0, -ON_POSTGRES.length);
      const l = med(name);
      const p = med(twin.name);
      console.log(`| ${name} | ${Math.round(l.rps)} | ${Math.round(p.rps)} | ${(p.rps / l.rps).toFixed(2)} | ${l.cpu.toFixed(1)} | ${p.cpu.toFixed(1)} |`);
    }
  }
  for (const [big, small] of [['after= fetch of 10 changed, account of 80,000', 'after= fetch of 10 changed, account of 100']] as const) {
    if (samples.has(big) && samples.has(small)) {
      console.log(`\nincremental fetch, 80,000 tasks / 100 tasks: CPU per request ${(med(big).cpu / med(small).cpu).toFixed(2)}, req/s ${(med(small).rps / med(big).rps).toFixed(2)} (1.00 = the account's size does not matter)`);
    }
  }
  const counts: CensusRow[] = [];
  if (chosen('writes')) {
    for (const url of [undefined, ...(PG_URL ? [PG_URL] : [])]) counts.push(...(await census(url)));
    console.log('\n### writes: statements (PostgreSQL: round trips) per call of 50 items\n');
    console.log('| call | SQLite | PostgreSQL |');
    console.log('|---|---|---|');
    for (const call of [...new Set(counts.map((c) => c.call))]) {
      const of = (database: string) => counts.find((c) => c.call === call && c.database === database)?.statements ?? '';
      console.log(`| ${call} | ${of('SQLite')} | ${of('PostgreSQL')} |`);
    }
  }
  const goals = goalRows((name) => (samples.has(name) ? med(name) : undefined), (name) => bodies.get(name), counts);
  if (goals.length > 0) {
    console.log('\n### Goals (docs/decisions/0007-http-performance.md)\n');
    console.log('| figure | database | value | goal | met |');
    console.log('|---|---|---|---|---|');
    for (const g of goals) console.log(`| ${g.figure} | ${g.database} | ${g.value} | ${g.goal} | ${g.met ? 'yes' : 'no'} |`);
  }
  if (chosen('web')) {
    console.log('\n### web: the task list, notes and list pages (in process; docs/decisions/0013)\n');
    for (const line of await webTasksBench()) console.log(line);
  }
  if (chosen('push')) {
    console.log('\n### push: event streams and webhooks (docs/decisions/0026)\n');
    for (const line of await pushBench(PG_URL)) console.log(line);
  }
  if (chosen('repeat')) {
    console.log('\n### repeat engine: next-occurrence cost (in process)\n');
    for (const line of repeatBench()) console.log(line);
  }
  if (errors > 0) {
    console.error(`\n${errors} requests failed: the figures above are not valid`);
    process.exitCode = 1;
  }
}

await main();
