import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { api, settledStamps, signIn, tasksCall, testContext, type TestApp, type TestContext } from '../../../test/harness.js';
import { newTask } from '../../../test/factories.js';
import type { Account } from '../../storage/store.js';

type Json = Record<string, unknown>;
const body = (res: { json(): unknown }) => res.json() as Json[];

describe('tasks/add', () => {
  let ctx: TestContext;
  let account: Account;
  let app: TestApp;
  let token: string;

  before(async () => {
    ctx = await testContext();
    ({ account, app, token } = await signIn(ctx, { pro: 1 }));
  });
  after(() => ctx.close());

  it('creates the tasks in order, echoes ref, and reports each failure inline without stopping the others', async () => {
    const res = await tasksCall(ctx, token, 'add', [
      { title: 'First', ref: 'r1' },
      { title: '', ref: 'r2' },
      'not an object',
      { title: 'Second', ref: 7 },
      { title: 'Third', priority: 9, ref: 'r4' },
    ]);
    assert.equal(res.statusCode, 200);
    const [a, b, c, d, e] = body(res);
    assert.deepEqual(Object.keys(a ?? {}), ['id', 'title', 'modified', 'completed', 'ref']);
    assert.equal(a?.['title'], 'First');
    assert.equal(a?.['ref'], 'r1');
    assert.deepEqual(b, { errorCode: 601, errorDesc: 'Your task must have a title', ref: 'r2' });
    assert.equal(c?.['errorCode'], 611);
    assert.equal(c?.['ref'], '');
    assert.equal(d?.['ref'], 7, 'a numeric ref comes back as a number');
    assert.equal(d?.['id'], (a?.['id'] as number) + 1, 'failed items use no ids');
    assert.equal(e?.['errorCode'], 611);
    assert.match(e?.['errorDesc'] as string, /priority/);
    assert.equal(e?.['ref'], 'r4');
    // The call took an id for each of its five items with its lock: the three it did not use went back.
    const [next] = body(await tasksCall(ctx, token, 'add', [{ title: 'Next' }]));
    assert.equal(next?.['id'], (a?.['id'] as number) + 2, 'the next call numbers on');
    const refused = body(await tasksCall(ctx, token, 'add', [{ title: '' }, 'x']));
    assert.deepEqual(refused.map((r) => r['errorCode']), [601, 611]);
    const [after] = body(await tasksCall(ctx, token, 'add', [{ title: 'After' }]));
    assert.equal(after?.['id'], (a?.['id'] as number) + 3, 'a call refused whole uses none');
  });

  it('without a ref, a success has no ref key and an error has ref ""', async () => {
    const [ok, bad] = body(await tasksCall(ctx, token, 'add', [{ title: 'No ref' }, {}]));
    assert.ok(ok && !('ref' in ok));
    assert.deepEqual(bad, { errorCode: 601, errorDesc: 'Your task must have a title', ref: '' });
  });

  it('does not store ref', async () => {
    const [t] = body(await tasksCall(ctx, token, 'add', [{ title: 'Ref kept?', ref: 'secret-ref' }]));
    const got = await api(ctx, token, '/3/tasks/get.php', { id: String(t?.['id']), fields: 'note,tag,meta' });
    assert.ok(!got.body.includes('secret-ref'));
  });

  it('numbers ids per account: another account starts at 1', async () => {
    const { token: t } = await signIn(ctx, { app });
    const [x] = body(await tasksCall(ctx, t, 'add', [{ title: 'Mine' }]));
    assert.equal(x?.['id'], 1);
  });

  it('gives every requested field its default on a new task', async () => {
    const today = Math.floor(ctx.clock.now() / 86_400_000) * 86400;
    const fields =
      'tag,folder,context,goal,location,parent,children,order,duedate,duedatemod,startdate,duetime,starttime,remind,repeat,status,length,priority,star,added,timer,timeron,note,meta,previous,shared,sharedowner,sharedwith,addedby,via,attachment';
    const [t] = body(await tasksCall(ctx, token, 'add', [{ title: 'Defaults' }], { fields }));
    const { id, modified, ...rest } = t ?? {};
    assert.equal(typeof id, 'number');
    assert.equal(typeof modified, 'number');
    assert.deepEqual(rest, {
      title: 'Defaults',
      completed: 0,
      tag: '',
      folder: 0,
      context: 0,
      goal: 0,
      location: 0,
      parent: 0,
      children: 0,
      order: 0,
      duedate: 0,
      duedatemod: 0,
      startdate: 0,
      duetime: 0,
      starttime: 0,
      remind: 0,
      repeat: '',
      status: 0,
      length: 0,
      priority: 0,
      star: 0,
      added: today + 43200,
      timer: 0,
      timeron: 0,
      note: '',
      meta: null,
      previous: 0,
      shared: 0,
      sharedowner: 0,
      sharedwith: [],
      addedby: 0,
      via: 3,
      attachment: [],
    });
  });

  it('takes numbers as clients send them: strings, floats, booleans', async () => {
    const [t] = body(
      await tasksCall(ctx, token, 'add', [{ title: 'Lenient', star: '1', folder: '0', priority: 2.0, duedate: '1676980800.0', status: true, duration: '15' }], {
        fields: 'star,folder,priority,duedate,status,length',
      }),
    );
    assert.deepEqual([t?.['star'], t?.['folder'], t?.['priority'], t?.['duedate'], t?.['status'], t?.['length']], [1, 0, 2, 1676980800, 1, 15]);
  });

  it('refuses more than 50 tasks as a whole (602) and stores none of them', async () => {
    const before = await ctx.deps.store.read.tasks.count(account.pk);
    const tasks = Array.from({ length: 51 }, (_, i) => ({ title: `T${i}` }));
    const res = await tasksCall(ctx, token, 'add', tasks);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { errorCode: 602, errorDesc: 'Only 50 tasks can be added/edited/deleted at a time' });
    assert.equal(await ctx.deps.store.read.tasks.count(account.pk), before);
    const fifty = body(await tasksCall(ctx, token, 'add', tasks.slice(0, 50)));
    assert.equal(fifty.length, 50);
  });

  it('refuses a tasks parameter that is not a JSON array as a whole (611)', async () => {
    for (const tasks of ['{"title":"x"}', '[{"title":', 'plain', '']) {
      const res = await api(ctx, token, '/3/tasks/add.php', { tasks });
      assert.equal(res.statusCode, 200);
      const e = res.json() as Json;
      assert.equal(e['errorCode'], 611, tasks);
      assert.ok(!Array.isArray(e), 'a single error object, not an array');
    }
    const none = await api(ctx, token, '/3/tasks/add.php');
    assert.equal((none.json() as Json)['errorCode'], 611);
  });

  it('round-trips unicode and XML-special text, in JSON and in XML', async () => {
    const title = 'Café ☕ 😀 e\u0301 שלום <b>&"quotes"</b>';
    const note = 'line 1\nline 2\r\n\ttab & <tag> 🎉 مرحبا';
    const [t] = body(await tasksCall(ctx, token, 'add', [{ title, note, tag: 'ünï, 😀' }], { fields: 'note,tag' }));
    assert.equal(t?.['title'], title);
    assert.equal(t?.['note'], note);
    assert.equal(t?.['tag'], 'ünï, 😀');
    const xml = await api(ctx, token, '/3/tasks/get.php', { id: String(t?.['id']), fields: 'note,tag', f: 'xml' });
    const parsed = new XMLParser({ parseTagValue: false, htmlEntities: true, trimValues: false }).parse(xml.body) as {
      tasks: { task: Record<string, string> };
    };
    assert.equal(parsed.tasks.task['title'], title);
    assert.equal(parsed.tasks.task['note'], note);
  });

  it('answers in compact XML: <tasks><task>…</task><error id ref>…</error></tasks>', async () => {
    const res = await tasksCall(ctx, token, 'add', [{ title: 'X', ref: 'a' }, { ref: 'b' }], { f: 'xml', fields: 'star' });
    assert.match(
      res.body,
      /^<\?xml version="1.0" encoding="UTF-8"\?><tasks><task><id>\d+<\/id><title>X<\/title><modified>\d+<\/modified><completed>0<\/completed><star>0<\/star><ref>a<\/ref><\/task><error id="601" ref="b">Your task must have a title<\/error><\/tasks>$/,
    );
  });

  it('moves lastedit_task, and every task of one call carries that stamp as modified', async () => {
    ctx.clock.advance(60);
    const results = body(await tasksCall(ctx, token, 'add', [{ title: 'A' }, { title: 'B' }]));
    const account_ = await settledStamps(ctx, token);
    assert.equal(results[0]?.['modified'], account_['lastedit_task']);
    assert.equal(results[1]?.['modified'], account_['lastedit_task']);
  });

  it('a call with no successful item leaves lastedit_task alone', async () => {
    const before = (await settledStamps(ctx, token))['lastedit_task'];
    ctx.clock.advance(60);
    await tasksCall(ctx, token, 'add', [{ title: '' }, { priority: 5 }]);
    assert.equal((await settledStamps(ctx, token))['lastedit_task'], before);
  });

  it('takes due, start and completion dates as YYYY-MM-DD too (a real client sends them so), at noon GMT', async () => {
    const [t, bad] = body(
      await tasksCall(ctx, token, 'add', [{ title: 'Dated', duedate: '2026-03-01', startdate: '2026-02-27', completed: '2026-02-28' }, { title: 'No such day', duedate: '2026-02-30', ref: 'x' }], {
        fields: 'duedate,startdate',
      }),
    );
    const noon = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d, 12) / 1000;
    assert.deepEqual([t?.['duedate'], t?.['startdate'], t?.['completed']], [noon(2026, 3, 1), noon(2026, 2, 27), noon(2026, 2, 28)]);
    assert.deepEqual([bad?.['errorCode'], bad?.['ref']], [611, 'x']);
    assert.match(bad?.['errorDesc'] as string, /duedate "2026-02-30" is not a calendar date/);
  });

  it('accepts the tasks parameter in a multipart body and in the query string of a POST', async () => {
    const boundary = 'b0und';
    const payload = `--${boundary}\r\nContent-Disposition: form-data; name="tasks"\r\n\r\n[{"title":"From multipart"}]\r\n--${boundary}--\r\n`;
    const mp = await ctx.app.inject({
      method: 'POST',
      url: '/3/tasks/add.php',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    assert.equal((mp.json() as Json[])[0]?.['title'], 'From multipart');
    const q = await ctx.app.inject({
      method: 'POST',
      url: `/3/tasks/add.php?access_token=${token}&tasks=${encodeURIComponent('[{"title":"From the query"}]')}`,
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    assert.equal((q.json() as Json[])[0]?.['title'], 'From the query');
  });

  it('needs the write scope: a tasks-only token gets error 2', async () => {
    const { token: reader } = await signIn(ctx, { account, app, scope: 'basic tasks' });
    const res = await tasksCall(ctx, reader, 'add', [{ title: 'Nope' }]);
    assert.equal(res.statusCode, 401);
    assert.match((res.json() as Json)['errorDesc'] as string, /"write"/);
  });

  it('stores a lone surrogate (possible in JSON) as U+FFFD, the same on both databases', async () => {
    const [t] = body(await tasksCall(ctx, token, 'add', [{ title: 'Half \uD83D emoji', note: '\uDE00' }], { fields: 'note' }));
    assert.deepEqual([t?.['title'], t?.['note']], ['Half \uFFFD emoji', '\uFFFD']);
    const [stored] = ((await api(ctx, token, '/3/tasks/get.php', { id: String(t?.['id']), fields: 'note' })).json() as Json[]).slice(1);
    assert.deepEqual([stored?.['title'], stored?.['note']], ['Half \uFFFD emoji', '\uFFFD']);
  });

  it('stores text without U+0000, which PostgreSQL cannot hold (both databases keep the same text)', async () => {
    const [t] = body(await tasksCall(ctx, token, 'add', [{ title: 'Pay\u0000 rent', note: 'n\u0000ote', tag: 'a\u0000b', meta: 'm\u0000' }], { fields: 'note,tag,meta' }));
    assert.deepEqual([t?.['title'], t?.['note'], t?.['tag'], t?.['meta']], ['Pay rent', 'note', 'ab', 'm']);
    const [stored] = ((await api(ctx, token, '/3/tasks/get.php', { id: String(t?.['id']), fields: 'note,tag,meta' })).json() as Json[]).slice(1);
    assert.deepEqual([stored?.['title'], stored?.['note'], stored?.['tag'], stored?.['meta']], ['Pay rent', 'note', 'ab', 'm']);
  });
});

describe('tasks/add: the 80,000 tasks of an account (603)', () => {
  it('refuses the items that would pass the limit and keeps the others', async () => {
    const ctx = await testContext();
    try {
      const { account, token } = await signIn(ctx);
      // Fill the account to one below the limit through the store (fast), as if added earlier.
      await ctx.deps.store.transaction(async (tx) => {
        const first = await tx.accounts.allocateIds(account.pk, 'task', 79_999);
        await tx.tasks.insertMany(account.pk, Array.from({ length: 79_999 }, (_, i) => newTask(first + i)));
      });
      const due = 1_767_268_800;
      const results = (
        await tasksCall(ctx, token, 'add', [{ title: 'The last one', ref: 'a', duedate: due, repeat: 'DAILY' }, { title: 'One too many', ref: 'b' }])
      ).json() as Json[];
      assert.equal(results[0]?.['id'], 80_000);
      assert.deepEqual(results[1], {
        errorCode: 603,
        errorDesc: 'The maximum number of tasks allowed per account (80000) has been reached',
        ref: 'b',
      });
      assert.equal(await ctx.deps.store.read.tasks.count(account.pk), 80_000);
      // Rescheduling adds a completed copy: at the limit that item fails, and the task is as it was.
      const [r] = (await tasksCall(ctx, token, 'edit', [{ id: 80_000, completed: due, reschedule: 1 }], { fields: 'duedate' })).json() as Json[];
      assert.deepEqual([r?.['errorCode'], r?.['ref']], [603, '80000']);
      const [, same] = (await api(ctx, token, '/3/tasks/get.php', { id: '80000', fields: 'duedate' })).json() as Json[];
      assert.deepEqual([same?.['completed'], same?.['duedate']], [0, due]);
      // One below the limit, one call rescheduling two tasks: the first copy takes the last place.
      await tasksCall(ctx, token, 'delete', [1]);
      const twice = (
        await tasksCall(ctx, token, 'edit', [{ id: 2, duedate: due, repeat: 'DAILY' }, { id: 80_000, completed: due }, { id: 2, completed: due }], { reschedule: '1' })
      ).json() as Json[];
      assert.deepEqual(twice.map((t) => t['errorCode'] ?? t['completed']), [0, 0, 603]);
      assert.equal(await ctx.deps.store.read.tasks.count(account.pk), 80_000);
    } finally {
      await ctx.close();
    }
  });
});
