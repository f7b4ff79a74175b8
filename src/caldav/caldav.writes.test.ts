import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, signIn, tasksCall, testContext, type TestContext } from '../../test/harness.js';
import { dav, davUser, multistatusOf, PROPFIND, vtodo, type DavUser } from './caldav.test-kit.js';

/**
 * CalDAV writes that race, nest, move and change clocks (docs/caldav.md): what two clients of one
 * account see when they write at once, and what a calendar's sync reports afterwards.
 */
describe('CalDAV: writes at once, subtasks, moves and clocks', () => {
  let ctx: TestContext;
  let user: DavUser;
  let token: string;
  let cal: string;
  before(async () => {
    ctx = await testContext();
    user = await davUser(ctx, { pro: 1 });
    token = (await signIn(ctx, { account: user.account, scope: 'basic tasks write' })).token;
    cal = `${user.home}tasks/`;
  });
  after(() => ctx.close());

  const tasks = async (): Promise<Array<{ id: number; title: string; parent: number; folder: number }>> =>
    (await api(ctx, token, '/3/tasks/get.php', { fields: 'parent,folder' })).json<Array<{ id: number; title: string; parent: number; folder: number }>>().slice(1);
  const byTitle = async (title: string): Promise<{ id: number; parent: number; folder: number } | undefined> => (await tasks()).find((t) => t.title === title);
  const etagOf = async (url: string, who: DavUser = user): Promise<string> => String((await dav(ctx, who, 'GET', url)).headers['etag']);
  const sync = async (href: string, syncToken: string, limit?: number): Promise<ReturnType<typeof multistatusOf> & { status: number }> => {
    const res = await dav(
      ctx,
      user,
      'REPORT',
      href,
      `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${syncToken}</d:sync-token><d:sync-level>1</d:sync-level>${limit === undefined ? '' : `<d:limit><d:nresults>${limit}</d:nresults></d:limit>`}<d:prop><d:getetag/></d:prop></d:sync-collection>`,
    );
    return { ...multistatusOf(res), status: res.statusCode };
  };
  const calendarHref = async (name: string): Promise<string> => {
    await api(ctx, token, '/3/folders/add.php', { name });
    const cals = multistatusOf(await dav(ctx, user, 'PROPFIND', user.home, PROPFIND('<d:displayname/>'), { depth: '1' })).responses;
    return cals.find((r) => r.props['displayname'] === name)?.href as string;
  };

  it('two edits holding one ETag: one is written, the other gets 412 and changes nothing', async () => {
    const url = `${cal}race.ics`;
    assert.equal((await dav(ctx, user, 'PUT', url, vtodo('race', 'SUMMARY:Race'))).statusCode, 201);
    const etag = await etagOf(url);
    const answers = await Promise.all(['First', 'Second'].map((title) => dav(ctx, user, 'PUT', url, vtodo('race', `SUMMARY:${title}`), { 'if-match': etag })));
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [204, 412]);
    const won = answers[0]?.statusCode === 204 ? 'First' : 'Second';
    assert.match((await dav(ctx, user, 'GET', url)).body, new RegExp(`SUMMARY:${won}`));
  });

  it('two adds of one new name with If-None-Match: *, and two of one UID under two names: one task each time', async () => {
    const before = (await tasks()).length;
    const adds = await Promise.all(['A', 'B'].map((t) => dav(ctx, user, 'PUT', `${cal}new-one.ics`, vtodo(`new-${t}`, `SUMMARY:${t}`), { 'if-none-match': '*' })));
    assert.deepEqual(adds.map((a) => a.statusCode).sort(), [201, 412]);
    const uids = await Promise.all(['x', 'y'].map((n) => dav(ctx, user, 'PUT', `${cal}uid-${n}.ics`, vtodo('one-uid', `SUMMARY:${n}`))));
    assert.deepEqual(uids.map((a) => a.statusCode).sort(), [201, 409]);
    assert.equal((await tasks()).length, before + 2);
  });

  it('a subtask of a subtask, and a task with subtasks made a subtask: written, RELATED-TO kept as sent', async () => {
    await dav(ctx, user, 'PUT', `${cal}n-a.ics`, vtodo('n-a', 'SUMMARY:Level A'));
    await dav(ctx, user, 'PUT', `${cal}n-b.ics`, vtodo('n-b', 'SUMMARY:Level B', 'RELATED-TO;RELTYPE=PARENT:n-a'));
    const c = await dav(ctx, user, 'PUT', `${cal}n-c.ics`, vtodo('n-c', 'SUMMARY:Level C', 'RELATED-TO;RELTYPE=PARENT:n-b'));
    assert.equal(c.statusCode, 201, c.body);
    assert.equal((await byTitle('Level B'))?.parent, (await byTitle('Level A'))?.id);
    assert.equal((await byTitle('Level C'))?.parent, 0, 'one level of subtasks in Tickler');
    assert.match((await dav(ctx, user, 'GET', `${cal}n-c.ics`)).body, /RELATED-TO;RELTYPE=PARENT:n-b/);
    await dav(ctx, user, 'PUT', `${cal}n-d.ics`, vtodo('n-d', 'SUMMARY:Level D'));
    const a = await dav(ctx, user, 'PUT', `${cal}n-a.ics`, vtodo('n-a', 'SUMMARY:Level A', 'RELATED-TO;RELTYPE=PARENT:n-d'));
    assert.equal(a.statusCode, 204, a.body);
    assert.equal((await byTitle('Level A'))?.parent, 0);
    assert.match((await dav(ctx, user, 'GET', `${cal}n-a.ics`)).body, /RELATED-TO;RELTYPE=PARENT:n-d/);
  });

  it('MOVE keeps the name (a rename is refused), and the calendar left reports the name its clients knew', async () => {
    const garden = await calendarHref('Garden');
    const start = String((await sync(cal, '')).syncToken);
    await dav(ctx, user, 'PUT', `${cal}keep.ics`, vtodo('keep', 'SUMMARY:Keep name'));
    const mid = String((await sync(cal, start)).syncToken);
    const rename = await dav(ctx, user, 'MOVE', `${cal}keep.ics`, undefined, { destination: `http://localhost${garden}renamed.ics` });
    assert.equal(rename.statusCode, 403);
    assert.equal((await dav(ctx, user, 'MOVE', `${cal}keep.ics`, undefined, { destination: `http://localhost${garden}keep.ics` })).statusCode, 201);
    const left = await sync(cal, mid);
    assert.deepEqual(left.responses.map((r) => [r.href, /404/.test(String(r.status))]), [[`${cal}keep.ics`, true]]);
  });

  it('a client moving an object by writing it in the other calendar, then deleting it here: one task, moved', async () => {
    const work = await calendarHref('Work');
    await dav(ctx, user, 'PUT', `${cal}tb.ics`, vtodo('tb', 'SUMMARY:Thunderbird move', 'DUE:20270105T090000Z'));
    const id = (await byTitle('Thunderbird move'))?.id;
    const mark = String((await sync(cal, '')).syncToken);
    const put = await dav(ctx, user, 'PUT', `${work}tb.ics`, vtodo('tb', 'SUMMARY:Thunderbird move'), { 'if-none-match': '*' });
    assert.equal(put.statusCode, 201, put.body);
    assert.equal((await dav(ctx, user, 'DELETE', `${cal}tb.ics`)).statusCode, 404, 'gone from here already');
    const moved = await byTitle('Thunderbird move');
    assert.equal(moved?.id, id);
    assert.equal((await dav(ctx, user, 'GET', `${work}tb.ics`)).statusCode, 200);
    assert.deepEqual((await sync(cal, mark)).responses.map((r) => r.href), [`${cal}tb.ics`]);
    // The same name with another UID is another object: refused, not moved.
    assert.equal((await dav(ctx, user, 'PUT', `${cal}tb.ics`, vtodo('not-tb', 'SUMMARY:Other'))).statusCode, 409);
  });

  it('a PUT that changes an object\'s UID is refused (no-uid-conflict)', async () => {
    await dav(ctx, user, 'PUT', `${cal}uidfix.ics`, vtodo('uid-1', 'SUMMARY:Fixed UID'));
    const res = await dav(ctx, user, 'PUT', `${cal}uidfix.ics`, vtodo('uid-2', 'SUMMARY:Fixed UID'));
    assert.equal(res.statusCode, 409);
    assert.match(res.body, /no-uid-conflict/);
  });

  it('a change of the account\'s clock changes the ETags, the CTag, and a sync reports every object again', async () => {
    const url = `${cal}clock.ics`;
    await dav(ctx, user, 'PUT', url, vtodo('clock', 'SUMMARY:At nine', 'DUE:20270105T090000Z'));
    const etag = await etagOf(url);
    const token = String((await sync(cal, '')).syncToken);
    assert.deepEqual((await sync(cal, token)).responses, []);
    const account = await ctx.deps.store.read.accounts.get(user.account.pk);
    await ctx.deps.store.transaction((tx) => tx.accounts.update(user.account.pk, { prefs: { ...account!.prefs, timezone: account!.prefs.timezone + 2 } }));
    // A new app password: the old one's sign-in (and its clock) is cached for a while.
    const later = await davUser(ctx, { account: user.account });
    const before = user;
    user = later;
    try {
      assert.notEqual(await etagOf(url), etag);
      const again = await sync(cal, token);
      assert.equal(again.status, 207);
      assert.ok(again.responses.some((r) => r.href === url && r.props['getetag']), 'the timed object again');
      assert.notEqual(again.syncToken, token);
      assert.deepEqual((await sync(cal, String(again.syncToken))).responses, []);
    } finally {
      user = before;
    }
  });

  it('a first sync in parts finishes though removals older than its start were forgotten', async () => {
    const pages = await calendarHref('Pages');
    const folder = (await byFolderName('Pages')) as number;
    const added = (await tasksCall(ctx, token, 'add', [1, 2, 3, 4, 5].map((n) => ({ title: `page ${n}`, folder })))).json<Array<{ id: number }>>();
    await tasksCall(ctx, token, 'delete', [added[4]!.id]);
    await ctx.deps.store.transaction((tx) => tx.changes.prune(Math.floor(Date.now() / 1000) + 3600));
    const seen: string[] = [];
    let token0 = '';
    for (let i = 0; i < 10; i++) {
      const part = await sync(pages, token0, 2);
      assert.equal(part.status, 207, `part ${i}`);
      seen.push(...part.responses.filter((r) => r.props['getetag']).map((r) => r.href));
      token0 = String(part.syncToken);
      if (!part.responses.some((r) => /507/.test(String(r.status)))) break;
    }
    assert.deepEqual(seen.sort(), added.slice(0, 4).map((t) => `${pages}tickler-${t.id}.ics`).sort());
  });

  it('a start an app never saw as DTSTART survives the app dropping X-TICKLER-START; a DTSTART it drops clears the start', async () => {
    // A start day with a due time cannot be DTSTART beside that DUE (RFC 5545 3.8.2.3).
    const [t] = (await tasksCall(ctx, token, 'add', [{ title: 'Start kept', startdate: 1798545600, duedate: 1798804800, duetime: 1798837200 }])).json<Array<{ id: number }>>();
    const url = `${cal}tickler-${t!.id}.ics`;
    const text = (await dav(ctx, user, 'GET', url)).body;
    assert.match(text, /X-TICKLER-START/);
    assert.doesNotMatch(text, /DTSTART/);
    const bare = text.split('\r\n').filter((l) => !l.startsWith('X-') && !l.startsWith(' ')).join('\r\n');
    assert.equal((await dav(ctx, user, 'PUT', url, bare)).statusCode, 204);
    const kept = (await api(ctx, token, '/3/tasks/get.php', { fields: 'startdate' })).json<Array<{ id: number; startdate?: number }>>().find((x) => x.id === t!.id);
    assert.equal(kept?.startdate, 1798545600);
    await dav(ctx, user, 'PUT', `${cal}dts.ics`, vtodo('dts', 'SUMMARY:Has DTSTART', 'DTSTART;VALUE=DATE:20270101', 'DUE;VALUE=DATE:20270105'));
    assert.equal((await dav(ctx, user, 'PUT', `${cal}dts.ics`, vtodo('dts', 'SUMMARY:Has DTSTART', 'DUE;VALUE=DATE:20270105'))).statusCode, 204);
    const cleared = (await api(ctx, token, '/3/tasks/get.php', { fields: 'startdate' })).json<Array<{ title?: string; startdate?: number }>>().find((x) => x.title === 'Has DTSTART');
    assert.equal(cleared?.startdate, 0);
  });

  async function byFolderName(name: string): Promise<number | undefined> {
    return (await api(ctx, token, '/3/folders/get.php')).json<Array<{ id: number; name: string }>>().find((f) => f.name === name)?.id;
  }
});
