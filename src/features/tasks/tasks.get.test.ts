import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, signIn, tasksCall, testContext, type TestContext } from '../../../test/harness.js';

type Json = Record<string, unknown>;

describe('tasks/get', () => {
  let ctx: TestContext;
  let token: string;
  let ids: number[];
  let stamps: number[];

  before(async () => {
    ctx = await testContext();
    ({ token } = await signIn(ctx));
    ids = [];
    stamps = [];
    // Five tasks in five calls, ten minutes apart; the 2nd and 4th completed.
    for (let i = 0; i < 5; i++) {
      ctx.clock.advance(600);
      const completed = i % 2 === 1 ? Math.floor(ctx.clock.now() / 1000) : 0;
      const [t] = (await tasksCall(ctx, token, 'add', [{ title: `Task ${i}`, completed }])).json() as Json[];
      ids.push(t?.['id'] as number);
      stamps.push(t?.['modified'] as number);
    }
  });
  after(() => ctx.close());

  const get = async (form: Record<string, string> = {}) => (await api(ctx, token, '/3/tasks/get.php', form)).json() as [Json, ...Json[]];
  const idsOf = (rows: Json[]) => rows.slice(1).map((r) => r['id']);

  it('returns {num,total} then the tasks by id, with only id, title, modified, completed', async () => {
    const rows = await get();
    assert.deepEqual(rows[0], { num: 5, total: 5 });
    assert.deepEqual(idsOf(rows), ids);
    for (const r of rows.slice(1)) assert.deepEqual(Object.keys(r), ['id', 'title', 'modified', 'completed']);
  });

  it('an id past the largest id, or a fraction, matches nothing, like an unknown one', async () => {
    assert.deepEqual(await get({ id: '3000000000' }), [{ num: 0, total: 0 }]);
    assert.deepEqual(await get({ id: String(2 ** 32 + ids[0]!) }), [{ num: 0, total: 0 }], 'not task 1 by wrapping around');
    assert.deepEqual(await get({ id: `${ids[0]!}.5` }), [{ num: 0, total: 0 }], 'a fraction is not an id');
  });

  it('after/before (and modafter/modbefore) filter on modified, both exclusive', async () => {
    assert.deepEqual(idsOf(await get({ after: String(stamps[2]) })), ids.slice(3));
    assert.deepEqual(idsOf(await get({ modafter: String(stamps[2]) })), ids.slice(3));
    assert.deepEqual(idsOf(await get({ before: String(stamps[2]) })), ids.slice(0, 2));
    assert.deepEqual(idsOf(await get({ modbefore: String(stamps[2]) })), ids.slice(0, 2));
    assert.deepEqual(idsOf(await get({ after: String(stamps[0]), before: String(stamps[4]) })), ids.slice(1, 4));
    assert.deepEqual((await get({ after: `${stamps[1]}.0` }))[0], { num: 3, total: 3 }, 'floats are fine');
  });

  it('comp: 0 uncompleted only, 1 completed only, -1 or none both', async () => {
    assert.deepEqual(idsOf(await get({ comp: '0' })), [ids[0], ids[2], ids[4]]);
    assert.deepEqual(idsOf(await get({ comp: '1' })), [ids[1], ids[3]]);
    assert.deepEqual(idsOf(await get({ comp: '-1' })), ids);
    const bad = (await api(ctx, token, '/3/tasks/get.php', { comp: '2' })).json() as Json;
    assert.equal(bad['errorCode'], 611);
  });

  it('start and num page through a stable order that never skips or repeats', async () => {
    const seen: unknown[] = [];
    for (let start = 0; start < 5; start += 2) {
      const page = await get({ start: String(start), num: '2' });
      assert.equal(page[0]['total'], 5);
      seen.push(...idsOf(page));
    }
    assert.deepEqual(seen, ids);
    assert.deepEqual((await get({ start: '10' }))[0], { num: 0, total: 5 });
    assert.deepEqual((await get({ num: '0' }))[0], { num: 0, total: 5 });
    assert.deepEqual((await get({ num: '5000' }))[0], { num: 5, total: 5 }, 'larger num is capped, not refused');
  });

  it('id fetches one task; an unknown id gives num 0, not an error', async () => {
    assert.deepEqual(idsOf(await get({ id: String(ids[3]) })), [ids[3]]);
    assert.deepEqual(await get({ id: '99999' }), [{ num: 0, total: 0 }]);
  });

  it('fields: requested fields appear in the spec order; always-returned or unknown names are 613', async () => {
    const rows = await get({ fields: 'star, NOTE,tag,attachments,duration' });
    assert.deepEqual(Object.keys(rows[1] ?? {}), ['id', 'title', 'modified', 'completed', 'tag', 'length', 'star', 'note', 'attachment']);
    for (const fields of ['id', 'title,star', 'completed', 'modified', 'bogus', 'star,flavour']) {
      const e = (await api(ctx, token, '/3/tasks/get.php', { fields })).json() as Json;
      assert.equal(e['errorCode'], 613, fields);
    }
  });

  it('numbers that are not numbers are 611', async () => {
    const forms: Array<Record<string, string>> = [{ after: 'yesterday' }, { num: 'all' }, { id: 'x1' }];
    for (const form of forms) {
      assert.equal(((await api(ctx, token, '/3/tasks/get.php', form)).json() as Json)['errorCode'], 611, JSON.stringify(form));
    }
  });

  it('answers XML with root tasks carrying num and total', async () => {
    const res = await api(ctx, token, '/3/tasks/get.php', { f: 'xml', num: '1', fields: 'star' });
    assert.match(res.body, /^<\?xml version="1.0" encoding="UTF-8"\?><tasks num="1" total="5"><task><id>\d+<\/id><title>Task 0<\/title><modified>\d+<\/modified><completed>0<\/completed><star>0<\/star><\/task><\/tasks>$/);
  });

  it('works with GET and the token in the query string, and with tasks scope alone', async () => {
    const { token: reader } = await signIn(ctx, { scope: 'tasks' });
    const res = await ctx.app.inject({ method: 'GET', url: `/3/tasks/get.php?access_token=${reader}` });
    assert.deepEqual(res.json(), [{ num: 0, total: 0 }]);
  });

  it("never shows another account's tasks", async () => {
    const { token: other } = await signIn(ctx);
    const res = (await api(ctx, other, '/3/tasks/get.php', { id: String(ids[0]) })).json();
    assert.deepEqual(res, [{ num: 0, total: 0 }]);
  });
});
