import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { api, settle, signIn, testContext, type TestContext } from '../harness.js';

/**
 * The sync recipes of docs/sync.md for notes, outlines, and lists with their rows, each played by
 * two clients of one account that add, edit, delete and sync at the same moments, in any order
 * fast-check picks. Whatever happens, once both have synced after the last write, each holds
 * exactly what the server holds. Edits carry the version the client's copy has; a stale one
 * (814, 914, 1014) makes the client fetch the server's copy and push its change again on it.
 */

type Json = Record<string, unknown>;
type Kind = 'notes' | 'outlines' | 'lists';

const SCOPE = 'basic notes outlines lists write';

class Client {
  /** Local copies by id; a row also keeps the id of its list under `list`. */
  readonly records = new Map<string, Json>();
  readonly rows = new Map<string, Json>();
  private saved: Record<string, number> = {};
  private n = 0;

  constructor(
    private readonly ctx: TestContext,
    private readonly token: string,
    private readonly kind: Kind,
    private readonly name: string,
  ) {}

  private async call(path: string, form: Record<string, string> = {}): Promise<unknown> {
    const res = await api(this.ctx, this.token, path, form);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }

  private async write(plural: string, op: string, items: unknown[]): Promise<Json[]> {
    return (await this.call(`/3/${plural}/${op}.php`, { [plural]: JSON.stringify(items) })) as Json[];
  }

  /** get with after=, all pages (notes start with {num,total}; the others are bare, or null). */
  private async fetchAfter(plural: string, after: number, extra: Record<string, string> = {}): Promise<Json[]> {
    const out: Json[] = [];
    for (let start = 0; ; start += 1000) {
      const body = (await this.call(`/3/${plural}/get.php`, { after: String(after), start: String(start), ...extra })) as Json[] | null;
      const items = plural === 'notes' ? (body ?? []).slice(1) : (body ?? []);
      out.push(...items);
      if (items.length < 1000) return out;
    }
  }

  private async deletedAfter(plural: string, after: number): Promise<Json[]> {
    return ((await this.call(`/3/${plural}/deleted.php`, { after: String(after) })) as Json[]).slice(1);
  }

  /** One sync, by the recipe of docs/sync.md for this kind. */
  async sync(): Promise<void> {
    const account = (await this.call('/3/account/get.php')) as Record<string, number>;
    const stamp = (name: string): number => account[name] as number;
    if (this.kind === 'notes') {
      if (stamp('lastedit_note') !== (this.saved['lastedit_note'] ?? 0)) {
        for (const n of await this.fetchAfter('notes', this.saved['lastedit_note'] ?? 0)) this.records.set(String(n['id']), n);
      }
      if (stamp('lastdelete_note') !== (this.saved['lastdelete_note'] ?? 0)) {
        for (const t of await this.deletedAfter('notes', this.saved['lastdelete_note'] ?? 0)) this.records.delete(String(t['id']));
      }
      this.saved = { lastedit_note: stamp('lastedit_note'), lastdelete_note: stamp('lastdelete_note') };
      return;
    }
    const name = this.kind === 'outlines' ? 'lastedit_outline' : 'lastedit_list';
    const saved = this.saved[name] ?? 0;
    if (stamp(name) !== saved) {
      // No delete stamp for these: a changed stamp may be a deletion, so both are fetched.
      for (const r of await this.fetchAfter(this.kind, saved)) {
        this.records.set(r['id'] as string, r);
        if (this.kind === 'lists') for (const row of await this.fetchAfter('rows', saved, { list: r['id'] as string })) this.rows.set(row['id'] as string, { ...row, list: r['id'] });
      }
      for (const t of await this.deletedAfter(this.kind, saved)) {
        this.records.delete(t['id'] as string);
        // A deleted list's rows go with it (they have no tombstones of their own).
        for (const [id, row] of this.rows) if (row['list'] === t['id']) this.rows.delete(id);
      }
      if (this.kind === 'lists') for (const t of await this.deletedAfter('rows', saved)) this.rows.delete(t['id'] as string);
    }
    this.saved = { [name]: stamp(name) };
  }

  async add(): Promise<void> {
    const title = `${this.name}-${++this.n}`;
    const item = this.kind === 'notes' ? { title } : this.kind === 'outlines' ? { title, ref: title, nodes: [{ content: title }] } : { title, ref: title, cols: [{ title: 'Item', type: 19 }] };
    const [r] = await this.write(this.kind, 'add', [item]);
    assert.ok(r && !('errorCode' in r), JSON.stringify(r));
    this.records.set(String(r['id']), r);
  }

  async addRow(pick: number): Promise<void> {
    const lists = [...this.records.keys()].sort();
    if (lists.length === 0) return;
    const list = lists[pick % lists.length] as string;
    const [r] = await this.write('rows', 'add', [{ list, ref: `${this.name}-${++this.n}`, cells: { c1: 'new' } }]);
    // 1007: the list was deleted by the other client meanwhile; the next sync drops it.
    if (r && !('errorCode' in r)) this.rows.set(r['id'] as string, { ...r, list });
  }

  /**
   * Edits a local record (or a row, `rows`): the change goes with the local version. Stale: fetch
   * the server's copy and push the change on it (the user chose to keep this edit). Invalid: it was
   * deleted elsewhere, drop it.
   */
  async edit(pick: number, rows = false): Promise<void> {
    const local = rows ? this.rows : this.records;
    const plural = rows ? 'rows' : this.kind;
    const ids = [...local.keys()].sort();
    if (ids.length === 0) return;
    const id = ids[pick % ids.length] as string;
    const change = rows ? { cells: { c1: `${this.name}-${++this.n}` } } : { title: `${this.name}-${++this.n}` };
    let version = local.get(id)?.['version'];
    for (let attempt = 0; attempt < 3; attempt++) {
      const [r] = await this.write(plural, 'edit', [{ id: this.kind === 'notes' ? Number(id) : id, ...(version !== undefined && { version }), ...change }]);
      const code = r?.['errorCode'] as number | undefined;
      if (code === undefined) {
        local.set(id, rows ? { ...r, list: local.get(id)?.['list'] } : (r as Json));
        return;
      }
      if (code === 705 || code === 805 || code === 905 || code === 1005) {
        local.delete(id);
        return;
      }
      assert.ok(code === 814 || code === 914 || code === 1014, JSON.stringify(r));
      const server = rows
        ? ((await this.call('/3/rows/get.php', { list: local.get(id)?.['list'] as string })) as Json[] | null ?? []).find((x) => x['id'] === id)
        : ((await this.call(`/3/${plural}/get.php`, { id })) as Json[])[0];
      version = server?.['version'];
    }
    assert.fail('an edit was refused as stale three times in a row');
  }

  async remove(pick: number, rows = false): Promise<void> {
    const local = rows ? this.rows : this.records;
    const ids = [...local.keys()].sort();
    if (ids.length === 0) return;
    const id = ids[pick % ids.length] as string;
    const item = rows ? { list: local.get(id)?.['list'], row: id } : this.kind === 'notes' ? Number(id) : id;
    const [r] = await this.write(rows ? 'rows' : this.kind, 'delete', [item]);
    // {id}, or "invalid": the record is gone either way (the other client may have deleted it first).
    assert.ok(r && ('id' in r || [705, 805, 905, 1005].includes(r['errorCode'] as number)), JSON.stringify(r));
    local.delete(id);
    if (!rows) for (const [rowId, row] of this.rows) if (row['list'] === id) this.rows.delete(rowId);
  }

  /** What the server holds (not part of the recipe: the judge). */
  async truth(): Promise<{ records: Json[]; rows: Json[] }> {
    const all = (await this.call(`/3/${this.kind}/get.php`)) as Json[] | null;
    const records = this.kind === 'notes' ? (all ?? []).slice(1) : (all ?? []);
    const rows: Json[] = [];
    if (this.kind === 'lists') for (const l of records) rows.push(...(((await this.call('/3/rows/get.php', { list: l['id'] as string })) as Json[] | null) ?? []).map((r) => ({ ...r, list: l['id'] })));
    return { records: sorted(records), rows: sorted(rows) };
  }

  held(): { records: Json[]; rows: Json[] } {
    return { records: sorted([...this.records.values()].map(strip)), rows: sorted([...this.rows.values()].map(strip)) };
  }
}

/** What a write answers beyond a get: the add's ref. */
function strip(r: Json): Json {
  const { ref: _ref, ...rest } = r;
  return rest;
}

function sorted(xs: Json[]): Json[] {
  return [...xs].sort((a, b) => String(a['id']).localeCompare(String(b['id'])));
}

type Step = { readonly op: 'add' | 'edit' | 'delete' | 'sync' | 'addRow' | 'editRow' | 'deleteRow'; readonly client: number; readonly pick: number };

function stepsFor(kind: Kind): fc.Arbitrary<Step> {
  const ops: Step['op'][] = ['add', 'add', 'edit', 'edit', 'delete', 'sync', 'sync', ...(kind === 'lists' ? (['addRow', 'addRow', 'editRow', 'editRow', 'deleteRow'] as const) : [])];
  return fc.record({ op: fc.constantFrom(...ops), client: fc.nat(1), pick: fc.nat(100) });
}

async function play(c: Client, s: Step): Promise<void> {
  switch (s.op) {
    case 'add':
      return c.add();
    case 'edit':
      return c.edit(s.pick);
    case 'delete':
      return c.remove(s.pick);
    case 'sync':
      return c.sync();
    case 'addRow':
      return c.addRow(s.pick);
    case 'editRow':
      return c.edit(s.pick, true);
    case 'deleteRow':
      return c.remove(s.pick, true);
  }
}

for (const kind of ['notes', 'outlines', 'lists'] as const) {
  describe(`${kind} sync: two clients of one account edit, delete and sync concurrently and end up equal`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await testContext();
    });
    after(() => ctx.close());

    it('the scenario of docs/sync.md: added, edited, deleted on one side arrive on the other; an edit on both sides is refused as stale (versioned kinds) and pushed again', async () => {
      const { account, token } = await signIn(ctx, { scope: SCOPE });
      const phone = new Client(ctx, token, kind, 'phone');
      const desktop = new Client(ctx, (await signIn(ctx, { account, scope: SCOPE })).token, kind, 'desktop');
      await phone.add();
      await phone.add();
      if (kind === 'lists') await phone.addRow(0);
      settle(ctx);
      await desktop.sync();
      assert.deepEqual(desktop.held(), await phone.truth());
      // Both edit the same record at once; then one deletes the other record while the other edits it.
      await Promise.all([phone.edit(0), desktop.edit(0)]);
      if (kind === 'lists') await Promise.all([phone.edit(0, true), desktop.edit(0, true)]);
      await Promise.all([phone.remove(1), desktop.edit(1)]);
      settle(ctx);
      await phone.sync();
      await desktop.sync();
      const truth = await phone.truth();
      assert.deepEqual(phone.held(), truth);
      assert.deepEqual(desktop.held(), truth);
      assert.equal(truth.records.length, 1);
      if (kind !== 'notes') assert.ok((truth.records[0]?.['version'] as number) >= 3, 'both edits landed, one on the other');
    });

    it('property: any interleaving of adds, edits, deletes and syncs by the two ends with both holding what the server holds', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.record({ waitMs: fc.integer({ min: 0, max: 2500 }), steps: fc.array(stepsFor(kind), { minLength: 1, maxLength: 2 }) }), { minLength: 4, maxLength: 25 }), async (moments) => {
          const { account, token } = await signIn(ctx, { scope: SCOPE });
          const clients = [new Client(ctx, token, kind, 'a'), new Client(ctx, (await signIn(ctx, { account, scope: SCOPE })).token, kind, 'b')];
          for (const m of moments) {
            ctx.clock.advance(m.waitMs / 1000);
            // At most one step per client at a time, both clients at once.
            const once = m.steps.filter((s, i) => m.steps.findIndex((o) => o.client === s.client) === i);
            await Promise.all(once.map((s) => play(clients[s.client] as Client, s)));
          }
          settle(ctx);
          for (const c of clients) await c.sync();
          const truth = await (clients[0] as Client).truth();
          for (const [i, c] of clients.entries()) assert.deepEqual(c.held(), truth, `client ${i} holds what the server holds`);
        }),
        { seed: Number(process.env['TEST_SEED'] ?? 20261124), numRuns: Number(process.env['TEST_RUNS'] ?? 25), endOnFailure: true },
      );
    });
  });
}
