import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../src/deps.js';
import type { Repos, Store } from '../../src/storage/store.js';
import { anotherInstance, signIn, testContext, type TestContext } from '../harness.js';
import { propertySeed } from '../seed.js';

/**
 * The change feed followed to the letter by several clients of one account, under arbitrary
 * interleavings: writes of tasks and notes (adds, edits, deletes),
 * several at once, writes held open before their commit while another client reads the feed, small
 * pages, and on PostgreSQL two instances. Whatever happens, a client never receives a record older
 * than one it already holds, and once everyone has followed the feed to its end each holds exactly
 * what the server holds (docs/decisions/0023-change-log.md).
 */

type Json = Record<string, unknown>;
/** What a client keeps of a record: its title (or a note's), whose number only grows. */
type Held = Map<string, string>;

const CLIENTS = 3;

/** The number at the end of a title: every write uses a larger one than any before. */
const numberOf = (title: string): number => Number(/(\d+)$/.exec(title)?.[1] ?? -1);

/** A client that knows only the feed: it follows `cursor` while `more` is 1. */
class FeedClient {
  readonly held: Held = new Map();
  private cursor: string | undefined;

  constructor(
    private readonly app: FastifyInstance,
    private readonly token: string,
    private readonly num: number,
  ) {}

  async call(path: string, form: Record<string, string> = {}): Promise<unknown> {
    const res = await this.app.inject({
      method: 'POST',
      url: path,
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }

  async sync(): Promise<void> {
    for (let pages = 0; pages < 1000; pages++) {
      const page = (await this.call('/3/sync/changes.php', { ...(this.cursor !== undefined && { cursor: this.cursor }), num: String(this.num) })) as {
        cursor: string;
        more: number;
        changes: Array<{ kind: string; op: string; id: string; record?: Json }>;
      };
      for (const c of page.changes) {
        if (c.kind !== 'task' && c.kind !== 'note') continue;
        const key = `${c.kind}:${c.id}`;
        if (c.op === 'delete') {
          this.held.delete(key);
          continue;
        }
        const title = String(c.record?.['title']);
        const before = this.held.get(key);
        assert.ok(before === undefined || numberOf(title) >= numberOf(before), `${key}: received ${title} after holding ${before}`);
        this.held.set(key, title);
      }
      this.cursor = page.cursor;
      if (!page.more) return;
    }
    assert.fail('the feed did not end');
  }

  /** What the server holds now, read whole through the resources' own gets (the judge). */
  async server(): Promise<Held> {
    const out: Held = new Map();
    const [, ...tasks] = (await this.call('/3/tasks/get.php')) as Json[];
    for (const t of tasks) out.set(`task:${t['id']}`, String(t['title']));
    const [, ...notes] = (await this.call('/3/notes/get.php')) as Json[];
    for (const n of notes) out.set(`note:${n['id']}`, String(n['title']));
    return out;
  }
}

type Step =
  | { readonly op: 'add'; readonly client: number; readonly kind: 'tasks' | 'notes'; readonly count: number }
  | { readonly op: 'edit' | 'delete'; readonly client: number; readonly kind: 'tasks' | 'notes'; readonly pick: number }
  | { readonly op: 'sync'; readonly client: number };

interface Moment {
  readonly steps: readonly Step[];
  /** One client's write held open after its work and before its commit while another follows the feed. */
  readonly slow?: { readonly writer: number; readonly reader: number };
}

const kind = fc.constantFrom('tasks' as const, 'notes' as const);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), client: fc.nat(CLIENTS - 1), kind, count: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ op: fc.constantFrom('edit' as const, 'delete' as const), client: fc.nat(CLIENTS - 1), kind, pick: fc.nat(1000) }),
  fc.record({ op: fc.constant('sync' as const), client: fc.nat(CLIENTS - 1) }),
);
const moment: fc.Arbitrary<Moment> = fc.record(
  {
    steps: fc.array(step, { minLength: 1, maxLength: 3 }),
    slow: fc.option(fc.record({ writer: fc.nat(CLIENTS - 1), reader: fc.nat(CLIENTS - 1) }), { freq: 5 }),
  },
  { requiredKeys: ['steps'] },
);
const run = fc.record({ moments: fc.array(moment, { minLength: 5, maxLength: 30 }), num: fc.integer({ min: 1, max: 5 }) });

/** Runs `write` with its transaction held open before commit until `meanwhile` has started. */
async function slowly(deps: Deps, write: Promise<void>, meanwhile: () => Promise<void>): Promise<void> {
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
    await Promise.race([isHeld, write]);
    const reading = meanwhile();
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    await Promise.all([write, reading]);
  } finally {
    release();
    store.transaction = real;
  }
}

describe('the change feed, property: every client that follows it ends holding what the server holds', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await testContext();
  });
  after(() => ctx.close());

  it('converges under concurrent writes, held transactions and small pages (two instances on PostgreSQL)', async (t) => {
    const seed = propertySeed((m) => t.diagnostic(m));
    await fc.assert(
      fc.asyncProperty(run, async ({ moments, num }) => {
        const other = ctx.deps.store.dialect === 'postgres' ? await anotherInstance(ctx, ctx.clock) : undefined;
        try {
          const { token } = await signIn(ctx, { scope: 'basic tasks notes write' });
          const clients = Array.from({ length: CLIENTS }, (_, i) => new FeedClient(other && i === CLIENTS - 1 ? other.app : ctx.app, token, num));
          const instanceOf = (client: number): Deps => (other && client === CLIENTS - 1 ? other.deps : ctx.deps);
          const ids: Record<'tasks' | 'notes', number[]> = { tasks: [], notes: [] };
          let n = 0;
          const play = async (s: Step): Promise<void> => {
            const c = clients[s.client] as FeedClient;
            if (s.op === 'sync') return c.sync();
            if (s.op === 'add') {
              const items = Array.from({ length: s.count }, () => ({ title: `t${++n}` }));
              const rows = (await c.call(`/3/${s.kind}/add.php`, { [s.kind]: JSON.stringify(items) })) as Json[];
              ids[s.kind].push(...rows.map((r) => r['id']).filter((id): id is number => typeof id === 'number'));
              return;
            }
            const pool = ids[s.kind];
            if (pool.length === 0) return;
            const id = pool[s.pick % pool.length] as number;
            if (s.op === 'delete') await c.call(`/3/${s.kind}/delete.php`, { [s.kind]: JSON.stringify([id]) });
            else await c.call(`/3/${s.kind}/edit.php`, { [s.kind]: JSON.stringify([{ id, title: `e${++n}` }]) });
          };
          for (const m of moments) {
            const once = m.steps.filter((s, i) => m.steps.findIndex((o) => o.client === s.client) === i);
            await Promise.all(once.map(play));
            if (m.slow && m.slow.writer !== m.slow.reader) {
              const { writer, reader } = m.slow;
              await slowly(instanceOf(writer), play({ op: 'add', client: writer, kind: 'tasks', count: 2 }), () => play({ op: 'sync', client: reader }));
            }
          }
          for (const c of clients) await c.sync();
          const truth = await (clients[0] as FeedClient).server();
          for (const [i, c] of clients.entries()) assert.deepEqual(new Map([...c.held].sort()), new Map([...truth].sort()), `client ${i} holds what the server holds`);
        } finally {
          await other?.close();
        }
      }),
      { seed, numRuns: Number(process.env['TEST_RUNS'] ?? 15), endOnFailure: true },
    );
  });
});
