import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { dav, davUser, multistatusOf, vtodo, type DavUser } from '../../src/caldav/caldav.test-kit.js';
import { api, signIn, testContext, type TestContext } from '../harness.js';
import { propertySeed } from '../seed.js';

/**
 * CalDAV and the v3 API on one account, property: random adds, edits, moves between folders and
 * deletes through either, a CalDAV client syncing two calendars by sync-collection and
 * calendar-multiget in between; at the end the client holds exactly what v3 shows, calendar by
 * folder, and every edit it made with If-Match either landed or was refused with 412 because the
 * other side had changed the task since (docs/caldav.md).
 */

type Op =
  | { readonly via: 'dav' | 'v3'; readonly op: 'add'; readonly cal: number }
  | { readonly via: 'dav' | 'v3'; readonly op: 'edit' | 'delete' | 'move'; readonly pick: number; readonly cal: number }
  | { readonly via: 'dav'; readonly op: 'sync' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ via: fc.constantFrom('dav' as const, 'v3' as const), op: fc.constant('add' as const), cal: fc.nat(1) }),
  fc.record({ via: fc.constantFrom('dav' as const, 'v3' as const), op: fc.constantFrom('edit' as const, 'delete' as const, 'move' as const), pick: fc.nat(100), cal: fc.nat(1) }),
  fc.record({ via: fc.constant('dav' as const), op: fc.constant('sync' as const) }),
);

/** A CalDAV client's copy: per calendar, href → ETag and summary, kept by sync-collection. */
class DavClient {
  readonly held = new Map<string, Map<string, { etag: string; summary: string }>>();
  private readonly tokens = new Map<string, string>();

  constructor(
    private readonly ctx: TestContext,
    private readonly user: DavUser,
  ) {}

  async sync(cal: string): Promise<void> {
    const res = await dav(this.ctx, this.user, 'REPORT', cal, `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${this.tokens.get(cal) ?? ''}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`);
    assert.equal(res.statusCode, 207, res.body);
    const ms = multistatusOf(res);
    const mine = this.held.get(cal) ?? new Map<string, { etag: string; summary: string }>();
    this.held.set(cal, mine);
    const wanted: string[] = [];
    for (const r of ms.responses) {
      if (r.status?.includes('404')) mine.delete(r.href);
      else if (mine.get(r.href)?.etag !== r.props['getetag']) wanted.push(r.href);
    }
    if (wanted.length > 0) {
      const got = multistatusOf(await dav(this.ctx, this.user, 'REPORT', cal, `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>${wanted.map((h) => `<d:href>${h}</d:href>`).join('')}</c:calendar-multiget>`));
      for (const r of got.responses) {
        const data = String(r.props['calendar-data'] ?? '');
        const summary = /SUMMARY:(.*)\r?\n/.exec(data)?.[1];
        if (summary !== undefined) mine.set(r.href, { etag: String(r.props['getetag']), summary });
        else mine.delete(r.href);
      }
    }
    this.tokens.set(cal, ms.syncToken as string);
  }
}

describe('CalDAV and v3 together, property: a syncing CalDAV client ends holding what v3 shows', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await testContext();
  });
  after(() => ctx.close());

  it('interleaved edits through both faces converge', async (t) => {
    const seed = propertySeed((m) => t.diagnostic(m));
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 25 }), async (ops) => {
        const user = await davUser(ctx);
        const { token } = await signIn(ctx, { account: user.account, scope: 'basic tasks write' });
        const work = (await api(ctx, token, '/3/folders/add.php', { name: 'Work' })).json<Array<{ id: number }>>()[0]?.id as number;
        const cals = [`${user.home}tasks/`, `${user.home}folder-${work}/`];
        const folders = [0, work];
        const client = new DavClient(ctx, user);
        for (const c of cals) await client.sync(c);
        let n = 0;
        const v3Tasks = async (): Promise<Array<{ id: number; title: string; folder: number }>> =>
          (await api(ctx, token, '/3/tasks/get.php', { fields: 'folder' })).json<unknown[]>().slice(1) as Array<{ id: number; title: string; folder: number }>;
        for (const o of ops) {
          if (o.op === 'sync') {
            for (const c of cals) await client.sync(c);
            continue;
          }
          const cal = cals[o.cal] as string;
          if (o.op === 'add') {
            const title = `t${++n}`;
            if (o.via === 'dav') assert.equal((await dav(ctx, user, 'PUT', `${cal}${title}.ics`, vtodo(`uid-${title}`, `SUMMARY:${title}`), { 'if-none-match': '*' })).statusCode, 201);
            else await api(ctx, token, '/3/tasks/add.php', { tasks: JSON.stringify([{ title, folder: folders[o.cal] }]) });
            continue;
          }
          if (o.via === 'v3') {
            const all = await v3Tasks();
            const task = all[o.pick % Math.max(1, all.length)];
            if (!task) continue;
            if (o.op === 'delete') await api(ctx, token, '/3/tasks/delete.php', { tasks: JSON.stringify([task.id]) });
            else if (o.op === 'move') await api(ctx, token, '/3/tasks/edit.php', { tasks: JSON.stringify([{ id: task.id, folder: folders[o.cal] }]) });
            else await api(ctx, token, '/3/tasks/edit.php', { tasks: JSON.stringify([{ id: task.id, title: `e${++n}` }]) });
            continue;
          }
          // Through CalDAV: on the client's copy, with its ETag, as a client does.
          const entries = [...(client.held.get(cal) ?? new Map()).entries()];
          const entry = entries[o.pick % Math.max(1, entries.length)];
          if (!entry) continue;
          const [href, held] = entry;
          let res;
          if (o.op === 'delete') res = await dav(ctx, user, 'DELETE', href, undefined, { 'if-match': held.etag });
          else if (o.op === 'move') {
            const other = cals[1 - o.cal] as string;
            res = await dav(ctx, user, 'MOVE', href, undefined, { destination: `${other}${href.split('/').pop()}`, overwrite: 'F', 'if-match': held.etag });
          } else {
            const got = await dav(ctx, user, 'GET', href);
            if (got.statusCode !== 200) continue;
            res = await dav(ctx, user, 'PUT', href, got.body.replace(/SUMMARY:.*\r\n/, `SUMMARY:e${++n}\r\n`), { 'if-match': held.etag });
          }
          assert.ok([201, 204, 404, 412].includes(res.statusCode), `${o.op}: ${res.statusCode} ${res.body}`);
        }
        for (const c of cals) await client.sync(c);
        const truth = (await v3Tasks()).map((x) => `${folders.indexOf(x.folder)}:${x.title}`).sort();
        const held = cals.flatMap((c, i) => [...(client.held.get(c)?.values() ?? [])].map((h) => `${i}:${h.summary}`)).sort();
        assert.deepEqual(held, truth);
      }),
      { seed, numRuns: Number(process.env['TEST_RUNS'] ?? 12), endOnFailure: true },
    );
  });
});
