import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jointPart } from '../../src/features/sharing/joint-tasks.js';
import { api, settle, signIn, tasksCall, testContext, type SignedIn, type TestContext } from '../harness.js';

/**
 * Three accounts share, reassign and sync at the same time, each client following the spec's
 * recipe unchanged (docs/sync.md): account/get, then tasks/get after= and tasks/deleted.php
 * after= only when a stamp moved. At the end every client holds exactly what the server holds
 * for its account (nothing lost), every task is in an account that created it or was given it
 * (nothing leaked), and the copies of every joint task agree.
 */
type Remote = { id: number; title: string; modified: number };

/** An answer that must be a list: anything else fails with the body in the message. */
function list<T>(res: { statusCode: number; body: string; json: <U>() => U }): T[] {
  const value = res.json<unknown>();
  assert.ok(res.statusCode === 200 && Array.isArray(value), `${res.statusCode} ${res.body.slice(0, 300)}`);
  return value as T[];
}

class Client {
  readonly tasks = new Map<number, Remote>();
  private lastEdit = 0;
  private lastDelete = 0;
  constructor(
    private readonly ctx: TestContext,
    readonly who: SignedIn,
  ) {}

  async sync(): Promise<void> {
    const account = (await api(this.ctx, this.who.token, '/3/account/get.php')).json<Record<string, number>>();
    const edit = account['lastedit_task'] as number;
    const del = account['lastdelete_task'] as number;
    if (edit !== this.lastEdit) {
      const [, ...rows] = list<Remote>(await api(this.ctx, this.who.token, '/3/tasks/get.php', { after: String(this.lastEdit) }));
      for (const t of rows) this.tasks.set(t.id, t);
    }
    if (del !== this.lastDelete) {
      const [, ...gone] = list<{ id: number }>(await api(this.ctx, this.who.token, '/3/tasks/deleted.php', { after: String(this.lastDelete) }));
      for (const g of gone) this.tasks.delete(g.id);
    }
    this.lastEdit = edit;
    this.lastDelete = del;
  }

  async server(): Promise<Map<number, Remote>> {
    const [, ...rows] = list<Remote>(await api(this.ctx, this.who.token, '/3/tasks/get.php'));
    return new Map(rows.map((t) => [t.id, t]));
  }
}

/** A small deterministic generator (the same run every time). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('three accounts share, reassign and sync concurrently', () => {
  let ctx: TestContext;
  let people: SignedIn[];
  let clients: Client[];
  before(async () => {
    ctx = await testContext({}, { logStream: { write: (l: string) => { if (/"level":(50|60)/.test(l)) process.stderr.write(l); } } });
    people = [];
    for (let i = 0; i < 3; i++) people.push(await signIn(ctx, { pro: 1, scope: 'basic tasks write share' }));
    for (const [x, y] of [[0, 1], [0, 2], [1, 2]] as const) {
      await api(ctx, people[x]!.token, '/3/account/collaborators_invite.php', { invite: people[y]!.account.userid });
      await api(ctx, people[y]!.token, '/3/account/collaborators_accept.php', { id: people[x]!.account.userid });
    }
    clients = people.map((p) => new Client(ctx, p));
  });
  after(() => ctx.close());

  it('loses nothing and leaks nothing', async () => {
    const random = rng(14);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    // Which accounts were ever given each task (by its creator's title prefix): the leak oracle.
    const given = new Map<string, Set<number>>();
    let made = 0;
    const prefix = (title: string) => title.split('|')[0] as string;

    const act = async (me: number): Promise<void> => {
      const p = people[me]!;
      const c = clients[me]!;
      const roll = random();
      const mine = [...c.tasks.values()];
      if (roll < 0.3 || mine.length === 0) {
        const title = `p${me}-t${made++}`;
        given.set(title, new Set([me]));
        list(await tasksCall(ctx, p.token, 'add', [{ title }]));
      } else if (roll < 0.5) {
        const t = pick(mine);
        const others = [0, 1, 2].filter((o) => o !== me && random() < 0.6);
        const res = await api(ctx, p.token, '/3/tasks/share.php', { id: String(t.id), share: JSON.stringify(others.map((o) => people[o]!.account.userid)) });
        // 616 when it is someone else's joint task, 605 when it went meanwhile: both leave things as they were.
        const code = res.json<{ errorCode?: number }>().errorCode;
        if (code === undefined) for (const o of others) given.get(prefix(t.title))?.add(o);
        else assert.ok([605, 616].includes(code), res.body);
      } else if (roll < 0.65) {
        const t = pick(mine);
        const to = pick([0, 1, 2].filter((o) => o !== me));
        // Given before the call: a concurrent sync may see the task in its new home first.
        given.get(prefix(t.title))?.add(to);
        const res = await api(ctx, p.token, '/3/tasks/reassign.php', { id: String(t.id), assign: people[to]!.account.userid });
        const code = res.json<{ errorCode?: number }>().errorCode;
        if (code !== undefined) assert.ok([605, 616].includes(code), res.body);
      } else if (roll < 0.9) {
        const t = pick(mine);
        list(await tasksCall(ctx, p.token, 'edit', [{ id: t.id, title: `${prefix(t.title)}|e${made++}` }]));
      } else {
        list(await tasksCall(ctx, p.token, 'delete', [pick(mine).id]));
      }
    };

    for (let round = 0; round < 25; round++) {
      // Every account acts and syncs at once; the clock moves between rounds, as devices sync apart.
      await Promise.all([0, 1, 2].map(async (me) => {
        await act(me);
        await act(me);
        await clients[me]!.sync();
      }));
      settle(ctx);
    }
    settle(ctx);
    let shared = 0;
    for (const [me, c] of clients.entries()) {
      await c.sync();
      const server = await c.server();
      assert.deepEqual(new Map([...c.tasks].sort((x, y) => x[0] - y[0])), new Map([...server].sort((x, y) => x[0] - y[0])), `client ${me} holds what the server holds`);
      for (const t of server.values()) {
        const owners = given.get(prefix(t.title));
        assert.ok(owners?.has(me), `account ${me} holds ${t.title}, which it was never given`);
      }
      // The copies of each joint task agree on the joint fields.
      for (const id of server.keys()) {
        const s = await ctx.deps.store.read.sharing.shareOf(people[me]!.account.pk, id);
        if (!s) continue;
        shared++;
        const copies = await Promise.all(s.members.map((m) => ctx.deps.store.read.tasks.get(m.userPk, m.taskId)));
        for (const copy of copies) assert.deepEqual(jointPart(copy!), jointPart(copies[0]!));
      }
    }
    assert.ok(made > 40, `${made} titles`);
    assert.ok(shared > 0, 'some tasks are still shared at the end');
  });

  it('an account reaches another’s task only through an accepted share: ids are per account', async () => {
    const [a, b] = people as [SignedIn, SignedIn];
    const [t] = (await tasksCall(ctx, a.token, 'add', [{ title: 'private to a' }])).json<Remote[]>();
    // b's calls with a's id act on b's own task of that id, if any, never on a's.
    await tasksCall(ctx, b.token, 'edit', [{ id: t!.id, title: 'hijack' }]);
    await tasksCall(ctx, b.token, 'delete', [t!.id]);
    assert.equal((await api(ctx, b.token, '/3/tasks/share.php', { id: String(t!.id), share: JSON.stringify([b.account.userid]) })).json<{ errorCode?: number }>().errorCode !== undefined, true);
    const [, mine] = (await api(ctx, a.token, '/3/tasks/get.php', { id: String(t!.id) })).json<Remote[]>();
    assert.equal(mine?.title, 'private to a');
    const [, ...bs] = (await api(ctx, b.token, '/3/tasks/get.php')).json<Remote[]>();
    assert.ok(!bs.some((x) => x.title === 'private to a'));
  });
});
