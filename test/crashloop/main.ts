/**
 * `npm run crashloop`: the crash loop on SQLite, and on PostgreSQL when CRASHLOOP_DATABASE_URL
 * (or TEST_DATABASE_URL) names a database. Bounded by kills and time; prints its figures and
 * the seed.
 *
 *   CRASHLOOP_KILLS            kills on SQLite (default 200)
 *   CRASHLOOP_POSTGRES_KILLS   kills on PostgreSQL (default 50)
 *   CRASHLOOP_SECONDS          time bound per database (default 1200)
 *   CRASHLOOP_SEED             the seed (default: drawn, and printed)
 *   CRASHLOOP_ONLY             sqlite or postgres
 * The same as arguments: npm run crashloop -- --kills 20 --postgres-kills 5 --seconds 120 --seed 7
 */
import { parseArgs } from 'node:util';
import type { DatabaseChoice } from '../database.js';
import { crashLoop, type CrashFigures } from './engine.js';
import { wholeSetting } from '../settings.js';

const { values: args } = parseArgs({
  options: {
    kills: { type: 'string' },
    'postgres-kills': { type: 'string' },
    seconds: { type: 'string' },
    seed: { type: 'string' },
    only: { type: 'string' },
  },
});

const setting = (arg: string | undefined, env: string, fallback: number): number => wholeSetting('crashloop', arg, env, fallback);

const seed = setting(args.seed, 'CRASHLOOP_SEED', Math.floor(Math.random() * 2 ** 31));
const seconds = setting(args.seconds, 'CRASHLOOP_SECONDS', 1_200);
const only = args.only ?? process.env['CRASHLOOP_ONLY'];
const pgUrl = (process.env['CRASHLOOP_DATABASE_URL'] ?? process.env['TEST_DATABASE_URL'])?.trim();

const runs: Array<{ database: DatabaseChoice; kills: number }> = [];
if (only !== 'postgres') runs.push({ database: { kind: 'sqlite' }, kills: setting(args.kills, 'CRASHLOOP_KILLS', 200) });
if (only !== 'sqlite' && pgUrl) runs.push({ database: { kind: 'postgres', url: pgUrl }, kills: setting(args['postgres-kills'], 'CRASHLOOP_POSTGRES_KILLS', 50) });
if (!pgUrl) console.log('PostgreSQL skipped: set CRASHLOOP_DATABASE_URL (or TEST_DATABASE_URL) to run it there too.');

console.log(`crashloop: seed ${seed}, at most ${seconds} s per database, Node ${process.version}`);
const results: CrashFigures[] = [];
for (const { database, kills } of runs) {
  console.log(`\n## ${database.kind}: ${kills} kills`);
  const f = await crashLoop({ database, seed, kills, seconds, log: console.log });
  results.push(f);
  if (f.failure) console.log(`\nFAILED (replay: CRASHLOOP_SEED=${seed}):\n${f.failure}`);
}

console.log('\n| database | seed | kills | with writes in flight | inside a write transaction | write requests | acknowledged (records) | in flight at a kill: landed / not | acknowledged writes lost | seconds |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const f of results) {
  console.log(`| ${f.database} | ${f.seed} | ${f.kills} | ${f.killsMidWrite} | ${f.killsInTransaction} | ${f.requests} | ${f.acknowledged} (${f.acknowledgedItems}) | ${f.landed} / ${f.notLanded} | ${f.lost} | ${f.seconds.toFixed(0)} |`);
}
if (results.some((f) => f.failure)) {
  console.error('\ncrashloop: FAILED (see above)');
  process.exitCode = 1;
}
