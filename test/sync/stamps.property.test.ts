import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { CLOCK_SKEW_SECONDS } from '../../src/lib/clock.js';
import type { Deps } from '../../src/deps.js';
import type { Repos, Store } from '../../src/storage/store.js';
import { anotherInstance, signIn, testContext, type TestContext } from '../harness.js';
import { propertySeed } from '../seed.js';

/**
 * The sync recipe of spec 1.6/1.7, followed to the letter by several clients of one account, under
 * arbitrary interleavings: bursts of writes within one second, writes and syncs running at the same
 * time, a clock that moves while requests run (so a second can end in the middle of a write), and,
 * on PostgreSQL, two instances whose clocks differ by up to CLOCK_SKEW_SECONDS. Whatever happens,
 * once time has passed every client holds exactly what the server holds, and no write is stamped
 * later than its instance's clock (docs/decisions/0003-change-stamps.md).
 */

type Task = { id: number; title: string; modified: number };
type Json = Record<string, unknown>;

/** A client that knows only the recipe: account/get, then tasks/get after= and deleted.php after=. */
class RecipeClient {
  readonly tasks = new Map<number, Task>();
  private lastEdit = 0;
  private lastDelete = 0;

  constructor(
    private readonly app: FastifyInstance,
    private readonly token: string,
    /** The clock of the instance this client talks to, in ms, read after each write's answer. */
    private readonly clockMs: () => number,
    /** How much later than that clock a stamp may be: another instance's clock may be ahead. */
    private readonly toleranceSeconds: number,
  ) {}

  private async call(path: string, form: Record<string, string> = {}): Promise<unknown> {
    const res = await this.app.inject({
      method: 'POST',
      url: path,
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }

  /** Every task written in this call, checked against the writer's clock. */
  private keep(rows: Json[]): void {
    const nowSeconds = Math.floor(this.clockMs() / 1000);
    for (const row of rows) {
      if (typeof row['id'] !== 'number') continue;
      const t = row as unknown as Task;
      assert.ok(t.modified <= nowSeconds + this.toleranceSeconds, `modified ${t.modified} is later than the writer's clock (${nowSeconds})`);
      this.tasks.set(t.id, { id: t.id, title: t.title, modified: t.modified });
    }
  }

  async add(titles: string[]): Promise<number[]> {
    const rows = (await this.call('/3/tasks/add.php', { tasks: JSON.stringify(titles.map((title) => ({ title }))) })) as Json[];
    this.keep(rows);
    return rows.map((r) => r['id']).filter((id): id is number => typeof id === 'number');
  }

  async edit(id: number, title: string): Promise<void> {
    this.keep((await this.call('/3/tasks/edit.php', { tasks: JSON.stringify([{ id, title }]) })) as Json[]);
  }

  async remove(id: number): Promise<void> {
    const rows = (await this.call('/3/tasks/delete.php', { tasks: JSON.stringify([id]) })) as Json[];
    if (rows.some((r) => r['id'] === id)) this.tasks.delete(id);
  }

  async sync(): Promise<void> {
    const account = (await this.call('/3/account/get.php')) as Record<string, number>;
    const edit = account['lastedit_task'] as number;
    const del = account['lastdelete_task'] as number;
    if (edit !== this.lastEdit) {
      for (let start = 0; ; start += 1000) {
        const [head, ...rows] = (await this.call('/3/tasks/get.php', { after: String(this.lastEdit), start: String(start) })) as Json[];
        for (const t of rows as unknown as Task[]) this.tasks.set(t.id, { id: t.id, title: t.title, modified: t.modified });
        if (start + 1000 >= ((head?.['total'] as number) ?? 0)) break;
      }
    }
    if (del !== this.lastDelete) {
      const [, ...gone] = (await this.call('/3/tasks/deleted.php', { after: String(this.lastDelete) })) as Json[];
      for (const g of gone) this.tasks.delete(g['id'] as number);
    }
    this.lastEdit = edit;
    this.lastDelete = del;
  }

  /** What the server holds now, read whole (not part of the recipe: the judge). */
  async serverTasks(): Promise<Task[]> {
    const [, ...rows] = (await this.call('/3/tasks/get.php')) as Json[];
    return (rows as unknown as Task[]).map((t) => ({ id: t.id, title: t.title, modified: t.modified })).sort((a, b) => a.id - b.id);
  }

  held(): Task[] {
    return [...this.tasks.values()].sort((a, b) => a.id - b.id);
  }
}

type Step =
  | { readonly op: 'add'; readonly client: number; readonly count: number }
  | { readonly op: 'edit' | 'delete'; readonly client: number; readonly pick: number }
  | { readonly op: 'sync'; readonly client: number };

/** One moment of the run: time passes (ms), then one step, or several at once (one per client). */
interface Moment {
  readonly waitMs: number;
  readonly steps: readonly Step[];
  /**
   * A slow write (a large batch on a busy disk): one client's add holds its transaction open, its
   * stamp already taken, while `heldMs` pass and another client syncs; then it commits.
   */
  readonly slow?: { readonly writer: number; readonly reader: number; readonly heldMs: number };
}

const CLIENTS = 3;

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), client: fc.nat(CLIENTS - 1), count: fc.integer({ min: 1, max: 5 }) }),
  fc.record({ op: fc.constantFrom('edit' as const, 'delete' as const), client: fc.nat(CLIENTS - 1), pick: fc.nat(1000) }),
  fc.record({ op: fc.constant('sync' as const), client: fc.nat(CLIENTS - 1) }),
  fc.record({ op: fc.constant('sync' as const), client: fc.nat(CLIENTS - 1) }),
);

const moment: fc.Arbitrary<Moment> = fc.record(
  {
    // Mostly bursts within one second; now and then a second boundary, or a longer pause.
    waitMs: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 50 }) }, { weight: 3, arbitrary: fc.integer({ min: 300, max: 1200 }) }, { weight: 1, arbitrary: fc.integer({ min: 1500, max: 7000 }) }),
    steps: fc.array(step, { minLength: 1, maxLength: 3 }),
    slow: fc.option(fc.record({ writer: fc.nat(CLIENTS - 1), reader: fc.nat(CLIENTS - 1), heldMs: fc.integer({ min: 500, max: 4000 }) }), { freq: 6 }),
  },
  { requiredKeys: ['waitMs', 'steps'] },
);

const run = fc.record({
  moments: fc.array(moment, { minLength: 5, maxLength: 40 }),
  // Milliseconds that pass at each reading of a clock: requests take time.
  ticks: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 20 }),
  // The second instance's clock, ahead or behind (PostgreSQL only).
  skewMs: fc.integer({ min: -CLOCK_SKEW_SECONDS * 1000 + 1, max: CLOCK_SKEW_SECONDS * 1000 - 1 }),
});

/**
 * Runs `write` with every transaction of `deps`' store held open, once its work is done and before
 * it commits, until `meanwhile` has started; then lets it commit and waits for both.
 */
async function slowly(deps: Deps, write: Promise<void>, meanwhile: () => Promise<{ readonly done: Promise<void> }>): Promise<void> {
  const store = deps.store as { transaction: Store['transaction'] };
  const real = store.transaction;
  let held!: () => void;
  const isHeld = new Promise<void>((resolve) => (held = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  store.transaction = <T>(fn: (tx: Repos) => Promise<T>): Promise<T> =>
    real.call(deps.store, async (tx: Repos) => {
      const result = await fn(tx);
      held();
      await gate;
      return result;
    }) as Promise<T>;
  try {
    const writing = write;
    await Promise.race([isHeld, writing]);
    const { done } = await meanwhile();
    release();
    await Promise.all([writing, done]);
  } finally {
    release();
    store.transaction = real;
  }
}

describe('sync by the recipe, property: no client ever misses a write', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await testContext();
  });
  after(() => ctx.close());

  it('converges under bursts, concurrency and a moving clock (two instances with skewed clocks on PostgreSQL)', async (t) => {
    const seed = propertySeed((m) => t.diagnostic(m));
    await fc.assert(
      fc.asyncProperty(run, async ({ moments, ticks, skewMs }) => {
        let t = 0;
        ctx.clock.tick = () => ticks[t++ % ticks.length] as number;
        const twoInstances = ctx.deps.store.dialect === 'postgres';
        const other = twoInstances ? await anotherInstance(ctx, { now: () => ctx.clock.now() + skewMs }) : undefined;
        try {
          const { token, account } = await signIn(ctx);
          const clients = Array.from({ length: CLIENTS }, (_, i) =>
            other && i === CLIENTS - 1
              ? new RecipeClient(other.app, token, () => ctx.clock.now() + skewMs, CLOCK_SKEW_SECONDS)
              : new RecipeClient(ctx.app, token, () => ctx.clock.now(), other ? CLOCK_SKEW_SECONDS : 0),
          );
          const ids: number[] = [];
          let n = 0;
          const play = async (s: Step): Promise<void> => {
            const c = clients[s.client] as RecipeClient;
            if (s.op === 'add') ids.push(...(await c.add(Array.from({ length: s.count }, () => `t${++n}`))));
            else if (s.op === 'sync') await c.sync();
            else if (ids.length > 0) {
              const id = ids[s.pick % ids.length] as number;
              await (s.op === 'edit' ? c.edit(id, `e${++n}`) : c.remove(id));
            }
          };
          const instanceOf = (client: number): Deps => (other && client === CLIENTS - 1 ? other.deps : ctx.deps);
          for (const m of moments) {
            ctx.clock.advance(m.waitMs / 1000);
            // Several steps at once, at most one per client (a client does one thing at a time).
            const once = m.steps.filter((s, i) => m.steps.findIndex((o) => o.client === s.client) === i);
            await Promise.all(once.map(play));
            if (m.slow && m.slow.writer !== m.slow.reader) {
              const { writer, reader, heldMs } = m.slow;
              await slowly(instanceOf(writer), play({ op: 'add', client: writer, count: 2 }), async () => {
                ctx.clock.advance(heldMs / 1000);
                // The reader syncs while the write is held; its account/get may have to wait for it.
                const done = play({ op: 'sync', client: reader });
                await new Promise((resolve) => setTimeout(resolve, 10));
                return { done };
              });
            }
          }
          // Time passes (past every clock's settling and the account caches), then everyone syncs.
          ctx.clock.tick = undefined;
          ctx.clock.advance(10);
          for (const c of clients) await c.sync();
          const truth = await (clients[0] as RecipeClient).serverTasks();
          for (const [i, c] of clients.entries()) assert.deepEqual(c.held(), truth, `client ${i} holds what the server holds`);
          assert.ok(account);
        } finally {
          ctx.clock.tick = undefined;
          await other?.close();
        }
      }),
      { seed, numRuns: Number(process.env['TEST_RUNS'] ?? 15), endOnFailure: true },
    );
  });
});
