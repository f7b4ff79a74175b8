import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, settle, signIn, tasksCall, testContext, type TestContext } from '../harness.js';

/**
 * The seven task sync scenarios of spec 1.7, played by two clients of one account that follow
 * the recipe in docs/sync.md: account/get, compare stamps with the saved ones, fetch only what
 * changed (tasks/get after=, tasks/deleted.php after=), merge, save the stamps.
 */
type Remote = { id: number; title: string; modified: number; completed: number; note: string };

class Client {
  readonly tasks = new Map<number, Remote>();
  private lastEdit = 0;
  private lastDelete = 0;
  /** Calls made by the last sync, to show that nothing is fetched when nothing changed. */
  calls: string[] = [];

  constructor(private readonly ctx: TestContext, private readonly token: string) {}

  private async call(path: string, form: Record<string, string> = {}): Promise<unknown> {
    this.calls.push(path);
    return (await api(this.ctx, this.token, path, form)).json();
  }

  /**
   * One sync. Devices sync seconds or minutes apart: by default the clock first moves past the
   * seconds whose writes may still be landing (settle()). `now` syncs at the very moment instead.
   */
  async sync(when: 'later' | 'now' = 'later'): Promise<void> {
    if (when === 'later') settle(this.ctx);
    this.calls = [];
    const account = (await this.call('/3/account/get.php')) as Record<string, number>;
    const edit = account['lastedit_task'] as number;
    const del = account['lastdelete_task'] as number;
    if (edit !== this.lastEdit) {
      const [, ...rows] = (await this.call('/3/tasks/get.php', { after: String(this.lastEdit), fields: 'note' })) as Remote[];
      for (const t of rows) this.tasks.set(t.id, t);
    }
    if (del !== this.lastDelete) {
      const [, ...gone] = (await this.call('/3/tasks/deleted.php', { after: String(this.lastDelete) })) as Array<{ id: number }>;
      for (const g of gone) this.tasks.delete(g.id);
    }
    this.lastEdit = edit;
    this.lastDelete = del;
  }

  async add(title: string): Promise<Remote> {
    const [t] = (await tasksCall(this.ctx, this.token, 'add', [{ title }], { fields: 'note' })).json() as Remote[];
    this.tasks.set((t as Remote).id, t as Remote);
    return t as Remote;
  }

  async edit(id: number, changes: Partial<Remote>): Promise<Remote> {
    const [t] = (await tasksCall(this.ctx, this.token, 'edit', [{ id, ...changes }], { fields: 'note' })).json() as Remote[];
    this.tasks.set(id, t as Remote);
    return t as Remote;
  }

  async remove(id: number): Promise<void> {
    await tasksCall(this.ctx, this.token, 'delete', [id]);
    this.tasks.delete(id);
  }

  /** What the server holds now for one task (the recipe's "fetch before editing"). */
  async fetch(id: number): Promise<Remote | undefined> {
    const [, t] = (await this.call('/3/tasks/get.php', { id: String(id), fields: 'note' })) as [unknown, Remote?];
    return t;
  }
}

describe('task sync: the seven scenarios of spec 1.7', () => {
  let ctx: TestContext;
  let phone: Client;
  let desktop: Client;

  before(async () => {
    ctx = await testContext();
    // One account, two apps: each device signs in through its own.
    const { account, token } = await signIn(ctx);
    phone = new Client(ctx, token);
    desktop = new Client(ctx, (await signIn(ctx, { account })).token);
    await phone.sync();
    await desktop.sync();
  });
  after(() => ctx.close());

  const tick = () => ctx.clock.advance(1);
  const same = () => assert.deepEqual([...phone.tasks.values()], [...desktop.tasks.values()]);

  it('1 and 4: added locally (pushed with tasks/add) → added on the server (fetched with after=)', async () => {
    const t = await phone.add('Buy milk');
    tick();
    await desktop.sync();
    assert.equal(desktop.tasks.get(t.id)?.title, 'Buy milk');
    same();
  });

  it('nothing changed → the sync reads account/get only', async () => {
    await phone.sync();
    await desktop.sync();
    assert.deepEqual(desktop.calls, ['/3/account/get.php']);
  });

  it('2 and 5: edited locally (pushed with tasks/edit) → edited on the server (fetched again)', async () => {
    const id = [...phone.tasks.keys()][0] as number;
    tick();
    await phone.edit(id, { title: 'Buy oat milk' });
    await desktop.sync();
    assert.equal(desktop.tasks.get(id)?.title, 'Buy oat milk');
    same();
  });

  it('3 and 6: deleted locally (tasks/delete) → deleted on the server (tasks/deleted.php after=)', async () => {
    const t = await desktop.add('Temporary');
    await phone.sync();
    assert.ok(phone.tasks.has(t.id));
    tick();
    await desktop.remove(t.id);
    await phone.sync();
    assert.ok(!phone.tasks.has(t.id));
    same();
  });

  it('7: edited on both sides → compare modified; the newer version is not overwritten unseen', async () => {
    const t = await phone.add('Call Ann');
    await desktop.sync();
    await phone.sync();
    // The desktop edits offline (locally only) while the phone pushes its edit.
    const local = { ...(desktop.tasks.get(t.id) as Remote), note: 'desktop note' };
    tick();
    const pushed = await phone.edit(t.id, { note: 'phone note' });
    // Before pushing, the desktop fetches the task and compares modified dates (spec 1.7).
    const server = await desktop.fetch(t.id);
    assert.ok(server && server.modified > local.modified, 'the server copy is newer: ask the user');
    assert.equal(server?.note, pushed.note);
    // The user keeps the desktop's version: it is pushed, and the phone gets it on its next sync.
    tick();
    await desktop.edit(t.id, { note: local.note });
    await phone.sync();
    assert.equal(phone.tasks.get(t.id)?.note, 'desktop note');
    same();
  });

  it('writes in the same second as a sync are not missed: they arrive with a later sync', async () => {
    // No tick between these steps: the clock stands still, and account/get reports no stamp of
    // this second, whose writes may still be landing.
    await desktop.sync('now');
    const t = await phone.add('Same second');
    await desktop.sync('now');
    await phone.edit(t.id, { title: 'Same second, edited' });
    await desktop.sync('now');
    assert.ok(!desktop.tasks.has(t.id), 'not yet: its second is not over');
    await desktop.sync();
    assert.equal(desktop.tasks.get(t.id)?.title, 'Same second, edited');
    same();
  });
});
