/**
 * `npm run fuzz`: the fuzzer on SQLite, and on PostgreSQL when FUZZ_DATABASE_URL (or
 * TEST_DATABASE_URL) names a database; in process through app.inject, then over sockets against
 * a `bin/tickler serve` child. Bounded by count and time; prints its figures and the seed.
 *
 *   FUZZ_REQUESTS   in-process requests per database (default 100000)
 *   FUZZ_SECONDS    time bound per database, in process (default 1800)
 *   FUZZ_SOCKET_REQUESTS   requests over sockets per database (default 3000)
 *   FUZZ_SEED       the seed (default: drawn, and printed)
 *   FUZZ_REPLAY     PHASE:PATH as printed by an in-process failure (replays it, with the same FUZZ_SEED)
 *   FUZZ_SOCKET_REPLAY   PATH as printed by a failure over sockets (the same)
 *   FUZZ_ONLY       sqlite or postgres
 * The same as arguments: npm run fuzz -- --requests 5000 --seconds 60 --seed 42
 */
import { parseArgs } from 'node:util';
import type { DatabaseChoice } from '../database.js';
import { fuzzInProcess, type FuzzFigures } from './engine.js';
import { fuzzOverSockets, type SocketFigures } from './socket.js';
import { wholeSetting } from '../settings.js';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string' },
    seconds: { type: 'string' },
    'socket-requests': { type: 'string' },
    seed: { type: 'string' },
    replay: { type: 'string' },
    'socket-replay': { type: 'string' },
    only: { type: 'string' },
  },
});

const setting = (arg: string | undefined, env: string, fallback: number): number => wholeSetting('fuzz', arg, env, fallback);

const seed = setting(args.seed, 'FUZZ_SEED', Math.floor(Math.random() * 2 ** 31));
const requests = setting(args.requests, 'FUZZ_REQUESTS', 100_000);
const seconds = setting(args.seconds, 'FUZZ_SECONDS', 1_800);
const socketRequests = setting(args['socket-requests'], 'FUZZ_SOCKET_REQUESTS', 3_000);
const replayText = args.replay ?? process.env['FUZZ_REPLAY'];
const replay = replayText ? { phase: Number(replayText.slice(0, replayText.indexOf(':'))), path: replayText.slice(replayText.indexOf(':') + 1) } : undefined;
const socketReplay = args['socket-replay'] ?? process.env['FUZZ_SOCKET_REPLAY'];
const only = args.only ?? process.env['FUZZ_ONLY'];
const pgUrl = (process.env['FUZZ_DATABASE_URL'] ?? process.env['TEST_DATABASE_URL'])?.trim();

const databases: DatabaseChoice[] = [];
if (only !== 'postgres') databases.push({ kind: 'sqlite' });
if (only !== 'sqlite' && pgUrl) databases.push({ kind: 'postgres', url: pgUrl });
if (!pgUrl) console.log('PostgreSQL skipped: set FUZZ_DATABASE_URL (or TEST_DATABASE_URL) to fuzz it too.');

console.log(`fuzz: seed ${seed}, up to ${requests} requests or ${seconds} s per database in process, ${socketRequests} over sockets, Node ${process.version}`);
const results: Array<{ inProcess: FuzzFigures; sockets: SocketFigures | undefined }> = [];
let failed = false;
for (const database of databases) {
  console.log(`\n## ${database.kind}: in process (app.inject)`);
  const inProcess = await fuzzInProcess({ database, seed, requests: socketReplay ? 0 : requests, seconds, ...(replay && { replay }), log: console.log });
  const statuses = Object.entries(inProcess.statuses).map(([s, n]) => `${s}: ${n}`).join(', ');
  console.log(`  ${inProcess.requests} requests in ${inProcess.seconds.toFixed(0)} s; routes ${inProcess.routesHit}/${inProcess.routes}; answers ${statuses}`);
  const codes = Object.entries(inProcess.codes).sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c}: ${n}`).join(', ');
  console.log(`  JSON answers by error code: ${codes}`);
  console.log(`  answers of 500 or more: ${inProcess.serverErrors}; errors that would end the process: ${inProcess.exits}`);
  if (inProcess.failure) {
    console.log(`\n${inProcess.failure}`);
    failed = true;
  }
  let sockets: SocketFigures | undefined;
  if (!replay && socketRequests > 0) {
    console.log(`\n## ${database.kind}: over sockets against bin/tickler serve`);
    sockets = await fuzzOverSockets({ database, seed, requests: socketRequests, ...(socketReplay && { replayPath: socketReplay }), log: console.log });
    console.log(`  ${sockets.requests} requests (${sockets.raw} malformed or cut off at the socket) in ${sockets.seconds.toFixed(0)} s; answers ${Object.entries(sockets.statuses).map(([s, n]) => `${s}: ${n}`).join(', ')}`);
    console.log(`  answers of 500 or more: ${sockets.serverErrors}; server exits: ${sockets.exits}; error lines logged: ${sockets.errorLines}`);
    if (sockets.failure) {
      console.log(`\n${sockets.failure}`);
      failed = true;
    }
  }
  results.push({ inProcess, sockets });
}

console.log('\n| database | seed | requests in process | over sockets | answers of 500 | process exits | seconds |');
console.log('|---|---|---|---|---|---|---|');
for (const { inProcess: f, sockets: s } of results) {
  const seconds = f.seconds + (s?.seconds ?? 0);
  console.log(`| ${f.database} | ${f.seed} | ${f.requests} | ${s?.requests ?? 0} | ${f.serverErrors + (s?.serverErrors ?? 0)} | ${f.exits + (s?.exits ?? 0)} | ${seconds.toFixed(0)} |`);
}
if (failed) {
  console.error('\nfuzz: FAILED (see above; the seed and FUZZ_REPLAY replay it)');
  process.exitCode = 1;
}
