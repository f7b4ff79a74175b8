import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { RateRule } from '../lib/rate-rule.js';
import { BatchedRateLimiter, UNWRITTEN_SHARE } from './batched-rate-limiter.js';
import type { CounterHits, CountersRepo } from './store.js';

/** The database's counters as rate_counters keeps them, in memory, counting statements. */
class Counters implements CountersRepo {
  readonly rows = new Map<string, { start: number; end: number; count: number }>();
  statements = 0;
  failing = false;
  /** Statements numbered here (from 1) fail. */
  readonly failingStatements = new Set<number>();
  /** Each statement answers a turn of the event loop later, as a database does. */
  slow = false;

  private async statement(): Promise<void> {
    this.statements++;
    const n = this.statements;
    if (this.slow) await new Promise((r) => setImmediate(r));
    if (this.failing || this.failingStatements.has(n)) throw new Error('database down');
  }

  private add(key: string, start: number, end: number, by: number): number {
    const row = this.rows.get(key);
    const next = !row || start > row.start ? { start, end, count: by } : { ...row, count: row.count + by };
    this.rows.set(key, next);
    return next.count;
  }

  async hit(key: string, start: number, end: number, by = 1): Promise<number> {
    await this.statement();
    return this.add(key, start, end, by);
  }

  async hitMany(hits: readonly CounterHits[]): Promise<number[]> {
    await this.statement();
    return hits.map((h) => this.add(h.key, h.windowStart, h.windowEnd, h.by));
  }

  async peek(key: string, start: number): Promise<number> {
    const row = this.rows.get(key);
    return row && row.start >= start ? row.count : 0;
  }

  async prune(): Promise<number> {
    return 0;
  }

  count(key: string): number {
    return this.rows.get(key)?.count ?? 0;
  }
}

const T0 = Date.UTC(2026, 0, 15, 9, 0, 0);
const HOUR: RateRule = { limit: 6400, windowSeconds: 3600 };
/** A limiter whose timer never fires within a test: flushes happen when the test says. */
const limiterOn = (counters: Counters): BatchedRateLimiter => new BatchedRateLimiter(counters, 3_600_000);

describe('BatchedRateLimiter', () => {
  it('far from the limit, writes one statement per limit/64 hits, and the flush writes the rest', async () => {
    const counters = new Counters();
    const rl = limiterOn(counters);
    for (let i = 0; i < 1000; i++) assert.equal((await rl.hit('api:user:1', HOUR, T0 + i)).allowed, true);
    // The first hit of the window is written at once; then 100 are held before each write.
    assert.equal(counters.statements, 1 + Math.floor(999 / 101));
    assert.ok(counters.count('api:user:1') < 1000);
    await rl.flush();
    assert.equal(counters.count('api:user:1'), 1000, 'every hit is written, none twice');
    await rl.close();
  });

  it("says what is left of the window as this instance sees it, hits held here included, and the database's count once written", async () => {
    const counters = new Counters();
    const rl = limiterOn(counters);
    const remaining = [];
    for (let i = 0; i < 5; i++) remaining.push((await rl.hit('api:user:1', HOUR, T0 + 1000 * i)).quota);
    assert.deepEqual(remaining, [0, 1, 2, 3, 4].map((i) => ({ remaining: 6399 - i, resetSeconds: 3600 - i })));
    assert.equal(counters.statements, 1, 'the last four were held');
    // Other instances counted 104 meanwhile (the database holds 105); the next write brings them in.
    counters.rows.set('api:user:1', { start: T0 / 1000, end: T0 / 1000 + 3600, count: 105 });
    await rl.flush();
    for (let i = 0; i < 96; i++) await rl.hit('api:user:1', HOUR, T0 + 10_000);
    assert.equal((await rl.hit('api:user:1', HOUR, T0 + 10_000)).quota?.remaining, 6400 - 105 - 4 - 97);
    await rl.close();
  });

  it('writes every hit once the count is within limit/64 of the limit, and refuses past it', async () => {
    const counters = new Counters();
    const rl = limiterOn(counters);
    const decisions = [];
    for (let i = 0; i < 6500; i++) decisions.push((await rl.hit('k', HOUR, T0)).allowed);
    assert.equal(decisions.filter(Boolean).length, 6400);
    assert.equal(decisions.indexOf(false), 6400);
    await rl.flush();
    assert.equal(counters.count('k'), 6500);
    const statements = counters.statements;
    await rl.hit('k', HOUR, T0);
    assert.equal(counters.statements, statements + 1, 'past the limit, each hit is a write');
  });

  it('a limit below 64 is written hit by hit', async () => {
    const counters = new Counters();
    const rl = limiterOn(counters);
    for (let i = 0; i < 10; i++) await rl.hit('k', { limit: 63, windowSeconds: 60 }, T0);
    assert.equal(counters.statements, 10);
  });

  it('a new window is written at once and counted afresh; held hits of an ended window are dropped', async () => {
    const counters = new Counters();
    const rl = limiterOn(counters);
    for (let i = 0; i < 50; i++) await rl.hit('k', HOUR, T0);
    assert.equal(counters.count('k'), 1);
    const statements = counters.statements;
    await rl.hit('k', HOUR, T0 + 3_600_000);
    assert.equal(counters.statements, statements + 1);
    assert.equal(counters.count('k'), 1, 'the later window starts at its own count');
    await rl.flush();
    assert.equal(counters.count('k'), 1, 'what the ended window held limits nothing and is not written');
  });

  it('forgets ended windows as keys come and go, written hit by hit or not', async () => {
    const counters = new Counters();
    const rl = limiterOn(counters);
    const small: RateRule = { limit: 10, windowSeconds: 60 };
    for (let w = 0; w < 5; w++) {
      for (let i = 0; i < 3000; i++) await rl.hit(`api:user:${w}-${i}`, i % 2 ? small : HOUR, T0 + w * 3_600_000);
    }
    assert.ok(rl.size <= 2 * 3000 + 1024, `${rl.size} keys held`);
    await rl.close();
  });

  it('sees hits written by another instance at its next write', async () => {
    const counters = new Counters();
    const [a, b] = [limiterOn(counters), limiterOn(counters)];
    await a.hit('k', HOUR, T0);
    for (let i = 0; i < 6398; i++) await b.hit('k', HOUR, T0);
    await b.flush();
    // 6,399 allowed so far. a last read 1: it holds 100 more without knowing, and its next write
    // learns the truth and refuses. 6,499 in all: past the limit by less than limit/64 (100).
    const allowed = [];
    for (let i = 0; i < 120; i++) allowed.push((await a.hit('k', HOUR, T0)).allowed);
    assert.equal(allowed.indexOf(false), 100);
    assert.equal(allowed.filter(Boolean).length, 100);
  });

  it('a failed flush gives its hits back, and the next flush writes them', async () => {
    const counters = new Counters();
    const rl = limiterOn(counters);
    for (let i = 0; i < 30; i++) await rl.hit('k', HOUR, T0);
    counters.failing = true;
    await assert.rejects(rl.flush(), /database down/);
    await rl.close();
    assert.equal(counters.count('k'), 1, 'close() does not fail when the database does');
    counters.failing = false;
    await rl.flush();
    assert.equal(counters.count('k'), 30);
  });

  it('calls arriving together while writes are on their way: still exactly the limit', async () => {
    const counters = new Counters();
    counters.slow = true;
    const rl = limiterOn(counters);
    const decisions = await Promise.all(Array.from({ length: 6500 }, () => rl.hit('k', HOUR, T0)));
    assert.equal(decisions.filter((d) => d.allowed).length, 6400);
    await rl.close();
    assert.equal(counters.count('k'), 6500);
  });

  it('a flush of many keys whose second statement fails writes the rest once, later', async () => {
    const counters = new Counters();
    const rl = limiterOn(counters);
    const keys = Array.from({ length: 600 }, (_, i) => `api:user:${i}`);
    for (const k of keys) for (let i = 0; i < 3; i++) await rl.hit(k, HOUR, T0);
    counters.failingStatements.add(counters.statements + 2);
    await assert.rejects(rl.flush(), /database down/);
    await rl.flush();
    for (const k of keys) assert.equal(counters.count(k), 3, k);
  });

  it('a write that fails gives back the hits held before it', async () => {
    const counters = new Counters();
    const rl = limiterOn(counters);
    for (let i = 0; i < 101; i++) await rl.hit('k', HOUR, T0);
    counters.failing = true;
    await assert.rejects(rl.hit('k', HOUR, T0), /database down/);
    counters.failing = false;
    await rl.flush();
    assert.equal(counters.count('k'), 101, 'the first hit and the 100 held; the failed call itself was answered with an error');
  });

  it('close() waits for a flush on its way, and writes every later hit at once', async () => {
    const counters = new Counters();
    counters.slow = true;
    const rl = limiterOn(counters);
    for (let i = 0; i < 30; i++) await rl.hit('k', HOUR, T0);
    const flushing = rl.flush();
    await rl.close();
    assert.equal(counters.count('k'), 30);
    await flushing;
    const statements = counters.statements;
    await rl.hit('k', HOUR, T0);
    assert.equal(counters.statements, statements + 1);
    assert.equal(counters.count('k'), 31);
  });

  it('writes what it holds by itself within its flush interval', async () => {
    const counters = new Counters();
    const rl = new BatchedRateLimiter(counters, 20);
    for (let i = 0; i < 30; i++) await rl.hit('k', HOUR, T0);
    const until = Date.now() + 5_000;
    while (counters.count('k') < 30 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    assert.equal(counters.count('k'), 30);
    await rl.close();
  });

  it('drawn: one instance allows exactly the limit; n instances at most limit/64 more per further instance; no hit is lost', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.array(fc.tuple(fc.nat(3), fc.nat(40)), { minLength: 1, maxLength: 400 }),
        async (instances, limit, steps) => {
          const counters = new Counters();
          const limiters = Array.from({ length: instances }, () => limiterOn(counters));
          const rule: RateRule = { limit, windowSeconds: 3600 };
          let hits = 0;
          let allowed = 0;
          // Each step: one instance takes a run of hits (0 = a flush of that instance).
          for (const [who, run] of steps) {
            const rl = limiters[who % instances] as BatchedRateLimiter;
            if (run === 0) await rl.flush();
            for (let i = 0; i < run * 10; i++) {
              hits++;
              if ((await rl.hit('k', rule, T0)).allowed) allowed++;
            }
          }
          const spare = Math.floor(limit / UNWRITTEN_SHARE);
          if (instances === 1) assert.equal(allowed, Math.min(hits, limit));
          else assert.ok(allowed <= limit + (instances - 1) * spare && allowed >= Math.min(hits, limit - instances * spare), `${allowed} of ${hits}`);
          for (const rl of limiters) await rl.close();
          assert.equal(counters.count('k'), hits);
        },
      ),
      { numRuns: 200 },
    );
  });
});
