import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { api, authorize, createAccount, createApp, settledStamps, tasksCall, testContext, type TestContext } from '../../../test/harness.js';

const ACCOUNT_KEYS = [
  'userid',
  'alias',
  'email',
  'pro',
  'dateformat',
  'timezone',
  'hidemonths',
  'hotlistpriority',
  'hotlistduedate',
  'hotliststar',
  'hotliststatus',
  'showtabnums',
  'lastedit_task',
  'lastdelete_task',
  'lastedit_folder',
  'lastedit_context',
  'lastedit_goal',
  'lastedit_location',
  'lastedit_note',
  'lastdelete_note',
  'lastedit_list',
  'lastedit_outline',
];

describe('account/get', () => {
  let ctx: TestContext;
  let token: string;
  let userid: string;

  before(async () => {
    ctx = await testContext();
    const account = await createAccount(ctx, { email: 'Ann@Example.org', alias: 'Ann', pro: 1 });
    userid = account.userid;
    token = (await authorize(ctx, account, await createApp(ctx), 'basic')).access_token;
  });
  after(() => ctx.close());

  it('returns exactly the documented keys, in order, with numbers as numbers', async () => {
    const res = await api(ctx, token, '/3/account/get.php');
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^application\/json/);
    const body = res.json() as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ACCOUNT_KEYS);
    assert.equal(body['userid'], userid);
    assert.equal(typeof body['userid'], 'string');
    assert.equal(body['email'], 'Ann@Example.org');
    assert.equal(body['alias'], 'Ann');
    assert.equal(body['pro'], 1);
    for (const key of ACCOUNT_KEYS.slice(3)) assert.equal(typeof body[key], 'number', key);
  });

  it('answers in compact XML with root <account> and one child per field', async () => {
    const res = await api(ctx, token, '/3/account/get.php', { f: 'xml' });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^text\/xml/);
    assert.ok(res.body.startsWith('<?xml version="1.0" encoding="UTF-8"?><account><userid>'));
    assert.doesNotMatch(res.body, />\s+</, 'no white space between elements');
    const parsed = new XMLParser({ parseTagValue: false }).parse(res.body) as { account: Record<string, string> };
    assert.deepEqual(Object.keys(parsed.account), ACCOUNT_KEYS);
    assert.equal(parsed.account['email'], 'Ann@Example.org');
  });

  it('shows the stamps that writes moved', async () => {
    const account = await createAccount(ctx);
    const t = (await authorize(ctx, account, await createApp(ctx), 'basic')).access_token;
    const now = Math.floor(ctx.clock.now() / 1000);
    await ctx.deps.store.transaction((tx) => tx.accounts.touch(account.pk, ['lastedit_goal', 'lastdelete_task'], now));
    const body = await settledStamps(ctx, t);
    assert.equal(body['lastedit_goal'], now);
    assert.equal(body['lastdelete_task'], now);
    assert.equal(body['lastedit_task'], 0);
  });

  it('reports no second whose writes may still be landing: a stamp shows once its second is over (and the skew allowance)', async () => {
    const account = await createAccount(ctx);
    const t = (await authorize(ctx, account, await createApp(ctx), 'basic tasks write')).access_token;
    const second = Math.floor(ctx.clock.now() / 1000);
    await tasksCall(ctx, t, 'add', [{ title: 'now' }]);
    const get = async () => ((await api(ctx, t, '/3/account/get.php')).json() as Record<string, number>)['lastedit_task'];
    assert.equal(await get(), second - 2, 'the same second: reported as the last settled second');
    ctx.clock.advance(1);
    // Kept by the account cache (what it reported then, never anything newer) until a new read
    // would report the write.
    assert.equal(await get(), second - 2, 'a second later: still not that second');
    ctx.clock.advance(1);
    assert.equal(await get(), second, 'once the second and the skew allowance are over');
  });

  it('stamps are the clock\'s seconds: 200 writes in one second are all stamped with it, none ahead', async () => {
    const account = await createAccount(ctx);
    const t = (await authorize(ctx, account, await createApp(ctx), 'basic tasks write')).access_token;
    const second = Math.floor(ctx.clock.now() / 1000);
    const stamps = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const [task] = (await tasksCall(ctx, t, 'add', [{ title: `t${i}` }])).json() as Array<{ modified: number }>;
      stamps.add(task?.modified ?? -1);
    }
    assert.deepEqual([...stamps], [second]);
    assert.equal((await settledStamps(ctx, t))['lastedit_task'], second);
  });

  it('is not cached by intermediaries', async () => {
    const res = await api(ctx, token, '/3/account/get.php');
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  it('accepts GET with the token in the query string', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `/3/account/get.php?access_token=${token}` });
    assert.equal(res.statusCode, 200);
    assert.equal((res.json() as { userid: string }).userid, userid);
  });
});
