import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authorize, createAccount, createApp, settledStamps, testContext, type TestContext } from '../../../test/harness.js';
import type { Account, OrganizerKind, Stamps } from '../../storage/store.js';
import { call, ERROR_BASE, insertTasks, KIND_NAMES, setup, type Json, type User } from './organizers.test-kit.js';

interface Local {
  id: number | null;
  name: string;
  /** A local edit not yet pushed. */
  dirty: boolean;
}

/**
 * A client following spec 1.8 for one kind: push local adds and deletes, compare the kind's
 * lastedit stamp with the one saved at the last sync, fetch and merge only when it moved, then
 * push local edits. Merge policy: a record deleted on the server is dropped locally (with its
 * pending edit); a record edited on both sides keeps the local version, which the edit push then
 * sends. Docs: docs/sync.md.
 */
class SyncClient {
  records: Local[] = [];
  deletes: number[] = [];
  saved = 0;
  savedTask = 0;
  fetches = 0;
  tasksStale = false;

  constructor(
    private readonly ctx: TestContext,
    private readonly user: User,
    private readonly kind: OrganizerKind,
  ) {}

  addLocal(name: string): void {
    this.records.push({ id: null, name, dirty: false });
  }

  renameLocal(from: string, to: string): void {
    const r = this.find(from);
    r.name = to;
    r.dirty = true;
  }

  deleteLocal(name: string): void {
    const r = this.find(name);
    this.records = this.records.filter((x) => x !== r);
    if (r.id !== null) this.deletes.push(r.id);
  }

  names(): Array<[number | null, string]> {
    return this.records.map((r) => [r.id, r.name] as [number | null, string]).sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0));
  }

  private find(name: string): Local {
    const r = this.records.find((x) => x.name === name);
    if (!r) throw new Error(`no local ${name}`);
    return r;
  }

  /** account/get; clients sync seconds or minutes apart, so the writes before have settled. */
  private async stamps(): Promise<Stamps> {
    return (await settledStamps(this.ctx, this.user.token));
  }

  async sync(): Promise<void> {
    const base = ERROR_BASE[this.kind];
    // 1. Local adds: the server assigns the ids.
    for (const r of this.records.filter((x) => x.id === null)) {
      const [created] = (await call(this.ctx, this.user, this.kind, 'add', { name: r.name })).json() as Json[];
      r.id = created?.['id'] as number;
      r.dirty = false;
    }
    // 2. Local deletes: "invalid" means another client deleted it first, which is just as good.
    for (const id of this.deletes.splice(0)) {
      const res = (await call(this.ctx, this.user, this.kind, 'delete', { id: String(id) })).json() as Json;
      assert.ok(res['deleted'] === id || res['errorCode'] === base + 5, JSON.stringify(res));
    }
    // 3. Compare the stamp; fetch and merge only when it moved. The stamp is read before the
    // fetch, so a change made in between is fetched now and again next time, never missed.
    const stamps = await this.stamps();
    const stamp = stamps[`lastedit_${this.kind}`];
    if (stamps.lastedit_task !== this.savedTask) this.tasksStale = true;
    this.savedTask = stamps.lastedit_task;
    if (stamp !== this.saved) {
      this.fetches++;
      const server = (await call(this.ctx, this.user, this.kind, 'get')).json() as Json[];
      const byId = new Map(this.records.map((r) => [r.id, r]));
      this.records = server.map((s) => {
        const local = byId.get(s['id'] as number);
        return local?.dirty ? local : { id: s['id'] as number, name: s['name'] as string, dirty: false };
      });
      this.saved = stamp;
    }
    // 4. Local edits. "Nothing edited" means the server already has these values.
    for (const r of this.records.filter((x) => x.dirty)) {
      const res = (await call(this.ctx, this.user, this.kind, 'edit', { id: String(r.id), name: r.name })).json() as Json[] | Json;
      assert.ok(Array.isArray(res) || res['errorCode'] === base + 6, JSON.stringify(res));
      r.dirty = false;
    }
  }
}

describe('the sync recipe of spec 1.8, between two clients of one account', () => {
  const env = setup(() => testContext(), false);
  let account: Account;

  for (const kind of KIND_NAMES) {
    it(`${kind}: adds, deletes, edits and conflicts converge, fetching only when the stamp moved`, async () => {
      account = await createAccount(env.ctx);
      const phone: User = { account, token: (await authorize(env.ctx, account, await createApp(env.ctx, undefined, 'Phone'))).access_token };
      const laptop: User = { account, token: (await authorize(env.ctx, account, await createApp(env.ctx, undefined, 'Laptop'))).access_token };
      const a = new SyncClient(env.ctx, phone, kind);
      const b = new SyncClient(env.ctx, laptop, kind);

      // A fresh account: nothing to fetch.
      await a.sync();
      await b.sync();
      assert.equal(a.fetches + b.fetches, 0);

      // A adds three; B receives them with the server's ids.
      a.addLocal('Errands');
      a.addLocal('Garden');
      a.addLocal('Reading');
      await a.sync();
      assert.deepEqual(a.names(), [[1, 'Errands'], [2, 'Garden'], [3, 'Reading']]);
      await b.sync();
      assert.deepEqual(b.names(), a.names());
      assert.equal(b.fetches, 1);

      // Nothing changed: B does not fetch again.
      await b.sync();
      assert.equal(b.fetches, 1);

      // Time passes between the rounds (stamps are whole seconds, but they move on their own too).
      env.ctx.clock.advance(30);

      // A task points at Errands. B deletes Errands while A renames it: the delete wins, and A learns
      // from lastedit_task that its tasks changed too.
      await insertTasks(env.ctx, phone, [{ [kind]: 1 }]);
      await a.sync();
      a.tasksStale = false;
      a.renameLocal('Errands', 'Errands and shopping');
      b.deleteLocal('Errands');
      // Both edit Garden: the one who syncs last keeps its version (local-wins policy).
      b.renameLocal('Garden', 'Vegetable garden');
      a.renameLocal('Garden', 'Flower garden');
      // B adds one of its own.
      b.addLocal('Travel');
      await b.sync();
      await a.sync();
      assert.equal(a.tasksStale, true, 'the delete cleared a task reference: lastedit_task moved');
      await b.sync();

      const server = ((await call(env.ctx, phone, kind, 'get')).json() as Json[]).map((r) => [r['id'], r['name']]);
      assert.deepEqual(server, [[2, 'Flower garden'], [3, 'Reading'], [4, 'Travel']]);
      assert.deepEqual(a.names(), server);
      assert.deepEqual(b.names(), server);

      // A pushed its edit after its fetch, so the stamp it saved is behind by its own write: it
      // fetches once more (stamps do not say who wrote). B saw that edit already. Then all is quiet.
      const [aBefore, bBefore] = [a.fetches, b.fetches];
      await a.sync();
      await b.sync();
      assert.deepEqual([a.fetches - aBefore, b.fetches - bBefore], [1, 0]);
      await a.sync();
      await b.sync();
      assert.deepEqual([a.fetches - aBefore, b.fetches - bBefore], [1, 0]);
      assert.deepEqual(a.names(), server);
    });
  }
});
