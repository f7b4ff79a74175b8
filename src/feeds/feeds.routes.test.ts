import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ICAL from 'ical.js';
import ical, { type VEvent } from 'node-ical';
import { api, createAccount, signIn, tasksCall, testContext, type TestContext } from '../../test/harness.js';
import { feedCalendar, findFeed } from '../features/feeds/feed-calendar.service.js';
import { createFeed, revokeFeed } from '../features/feeds/feeds.service.js';
import type { Account } from '../storage/store.js';
import { noneMatch } from './feeds.routes.js';

/**
 * The calendar feed face through app.inject, on both databases: what a calendar app fetches and
 * reads (with ical.js and with node-ical), its validators, and who sees what.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testContext({ PUBLIC_URL: 'https://todo.example.org' });
});
after(() => ctx.close());

/** Tuesday 2026-12-08 at noon GMT, as v3 stores a date; and its midnight, from which v3 counts a due time. */
const DUE = Date.UTC(2026, 11, 8, 12) / 1000;
const MIDNIGHT = DUE - 43200;

const pathOf = (url: string): string => new URL(url).pathname;
const fetchFeed = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => ctx.app.inject({ method, url: pathOf(url), headers });

/** The events of a feed as a calendar app reads them (node-ical), by title. */
function events(body: string): Map<string, VEvent> {
  const all = Object.values(ical.sync.parseICS(body)).filter((c): c is VEvent => c?.type === 'VEVENT');
  return new Map(all.map((e) => [String(e.summary), e]));
}

/** The same, read with ical.js. */
function icalEvents(body: string): Map<string, ICAL.Component> {
  const all = new ICAL.Component(ICAL.parse(body)).getAllSubcomponents('vevent');
  return new Map(all.map((e) => [String(e.getFirstPropertyValue('summary')), e]));
}

interface Owner {
  readonly account: Account;
  readonly token: string;
  readonly work: number;
  readonly home: number;
  readonly ids: Record<string, number>;
}

/** An account at UTC+2 (timezone 14), with folders Work and Home and tasks of every kind. */
async function owner(): Promise<Owner> {
  const { account, token } = await signIn(ctx, { pro: 1 });
  await ctx.deps.store.transaction((tx) => tx.accounts.update(account.pk, { prefs: { ...account.prefs, timezone: 14 } }));
  const [work] = (await api(ctx, token, '/3/folders/add.php', { name: 'Work' })).json<Array<{ id: number }>>();
  const [home] = (await api(ctx, token, '/3/folders/add.php', { name: 'Home' })).json<Array<{ id: number }>>();
  const added = (
    await tasksCall(ctx, token, 'add', [
      { title: 'All day at work', folder: work?.id, duedate: DUE, note: 'Bring the slides' },
      { title: 'Meeting', folder: work?.id, duedate: DUE, duetime: MIDNIGHT + 9 * 3600, length: 45, remind: 15 },
      { title: 'Call at home', folder: home?.id, duedate: DUE, duetime: MIDNIGHT + 18 * 3600 + 1800 },
      { title: 'Undated', folder: work?.id },
      { title: 'Done already', folder: work?.id, duedate: DUE },
      { title: 'Every Tuesday', duedate: DUE, repeat: 'FREQ=WEEKLY;BYDAY=TU', remind: 60 },
    ])
  ).json<Array<{ id: number; title: string }>>();
  const ids = Object.fromEntries(added.map((t) => [t.title, t.id]));
  await tasksCall(ctx, token, 'edit', [{ id: ids['Done already'], completed: DUE }]);
  return { account, token, work: work?.id ?? 0, home: home?.id ?? 0, ids };
}

describe('a calendar feed, as a calendar app fetches it', () => {
  it('one event per open task with a due date: all day, or at its moment in the account’s clock; completed and undated tasks absent', async () => {
    const o = await owner();
    const { addresses } = await createFeed(ctx.deps, o.account.pk, { folder: null });
    assert.match(addresses.https, /^https:\/\/todo\.example\.org\/feeds\/[0-9a-f]{40}\.ics$/);
    assert.equal(addresses.webcal, addresses.https.replace('https:', 'webcal:'));
    const res = await fetchFeed(addresses.https);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/calendar; charset=utf-8');
    const found = events(res.body);
    assert.deepEqual([...found.keys()].sort(), ['All day at work', 'Call at home', 'Every Tuesday', 'Meeting']);

    const allDay = found.get('All day at work') as VEvent;
    assert.equal(allDay.datetype, 'date');
    assert.equal(allDay.start.dateOnly, true);
    assert.equal(allDay.uid, `due-${o.ids['All day at work']}-${o.account.userid}@tickler`);
    assert.equal(allDay.description, `Bring the slides\n\nOpen in Tickler: https://todo.example.org/tasks/${o.ids['All day at work']}`);
    assert.equal(allDay.url, `https://todo.example.org/tasks/${o.ids['All day at work']}`);
    const read = icalEvents(res.body);
    const allDayIcal = read.get('All day at work') as ICAL.Component;
    assert.equal((allDayIcal.getFirstPropertyValue('dtstart') as ICAL.Time).toString(), '2026-12-08');
    assert.equal((allDayIcal.getFirstPropertyValue('dtend') as ICAL.Time).toString(), '2026-12-09');

    // 09:00 at UTC+2 is 07:00 UTC; 45 minutes long; a reminder 15 minutes before.
    const meeting = found.get('Meeting') as VEvent;
    assert.equal(meeting.datetype, 'date-time');
    assert.equal(meeting.start.toISOString(), '2026-12-08T07:00:00.000Z');
    assert.equal(meeting.end?.toISOString(), '2026-12-08T07:45:00.000Z');
    assert.deepEqual(meeting.alarms?.map((a) => [a.action, a.trigger]), [['DISPLAY', '-PT15M']]);
    assert.equal((found.get('Call at home') as VEvent).end?.toISOString(), '2026-12-08T17:00:00.000Z', '18:30 at UTC+2, 30 minutes without a length');
    assert.equal((found.get('Call at home') as VEvent).alarms, undefined);

    const weekly = found.get('Every Tuesday') as VEvent;
    assert.match(weekly.rrule?.toString() ?? '', /\nRRULE:FREQ=WEEKLY;BYDAY=TU$/);
    assert.deepEqual(read.get('Every Tuesday')?.getFirstSubcomponent('valarm')?.getFirstPropertyValue('trigger')?.toString(), '-PT1H');
    assert.match(res.body, /\r\nX-WR-CALNAME:Tickler tasks\r\n/);
  });

  it('a folder’s feed holds only its folder’s tasks, under its name', async () => {
    const o = await owner();
    const work = await createFeed(ctx.deps, o.account.pk, { folder: o.work });
    const home = await createFeed(ctx.deps, o.account.pk, { folder: o.home });
    const workBody = (await fetchFeed(work.addresses.https)).body;
    assert.deepEqual([...events(workBody).keys()].sort(), ['All day at work', 'Meeting']);
    assert.match(workBody, /\r\nX-WR-CALNAME:Work\r\n/);
    assert.deepEqual([...events((await fetchFeed(home.addresses.https)).body).keys()], ['Call at home']);
    // A task moved out of the folder leaves its feed.
    await tasksCall(ctx, o.token, 'edit', [{ id: o.ids['Meeting'], folder: o.home }]);
    assert.deepEqual([...events((await fetchFeed(work.addresses.https)).body).keys()], ['All day at work']);
    // The folder renamed, the calendar is too; the folder deleted, its feed is gone.
    await api(ctx, o.token, '/3/folders/edit.php', { id: String(o.work), name: 'Office, 2nd floor' });
    assert.match((await fetchFeed(work.addresses.https)).body, /\r\nX-WR-CALNAME:Office\\, 2nd floor\r\n/);
    // A fetch that found the feed just before its folder was deleted answers as if it had not.
    const found = await findFeed(ctx.deps, /([0-9a-f]{40})\.ics$/.exec(work.addresses.https)?.[1] as string);
    assert.ok(found);
    await api(ctx, o.token, '/3/folders/delete.php', { id: String(o.work) });
    assert.equal(await feedCalendar(ctx.deps, found), null);
    assert.equal((await fetchFeed(work.addresses.https)).statusCode, 404);
    assert.equal((await fetchFeed(home.addresses.https)).statusCode, 200);
  });

  it('ETag and Last-Modified: the same state gives the same bytes and tag; If-None-Match gets 304; any change moves the tag', async () => {
    const o = await owner();
    const { addresses } = await createFeed(ctx.deps, o.account.pk, { folder: null });
    const first = await fetchFeed(addresses.https);
    ctx.clock.advance(120);
    const second = await fetchFeed(addresses.https);
    assert.equal(second.body, first.body, 'no time of the fetch in the text');
    const etag = first.headers['etag'] as string;
    assert.match(etag, /^"[0-9a-f]{32}"$/);
    assert.equal(second.headers['etag'], etag);
    const stamps = (await ctx.deps.store.read.accounts.get(o.account.pk))?.stamps;
    const latest = Math.max(stamps?.lastedit_task ?? 0, stamps?.lastdelete_task ?? 0, stamps?.lastedit_folder ?? 0);
    assert.equal(first.headers['last-modified'], new Date(latest * 1000).toUTCString(), 'the latest change of a task or folder');
    assert.equal(first.headers['cache-control'], 'private, no-cache');

    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const cached = await fetchFeed(addresses.https, { 'if-none-match': header });
      assert.equal(cached.statusCode, 304, header);
      assert.equal(cached.body, '');
      assert.equal(cached.headers['etag'], etag);
    }
    assert.equal((await fetchFeed(addresses.https, { 'if-none-match': '"other"' })).statusCode, 200);

    // A task edited through the API: a new tag, and the change in the text.
    await tasksCall(ctx, o.token, 'edit', [{ id: o.ids['Meeting'], title: 'Meeting moved' }]);
    const edited = await fetchFeed(addresses.https, { 'if-none-match': etag });
    assert.equal(edited.statusCode, 200);
    assert.notEqual(edited.headers['etag'], etag);
    assert.ok(events(edited.body).has('Meeting moved'));
    assert.ok(Date.parse(edited.headers['last-modified'] as string) > Date.parse(first.headers['last-modified'] as string));
    // Completed: gone from the feed.
    const before = edited.headers['etag'] as string;
    await tasksCall(ctx, o.token, 'edit', [{ id: o.ids['Meeting'], completed: DUE }]);
    const completed = await fetchFeed(addresses.https, { 'if-none-match': before });
    assert.equal(completed.statusCode, 200);
    assert.equal(events(completed.body).has('Meeting moved'), false);
    // The account's clock changed: the moments move, and so does the tag.
    const tagged = completed.headers['etag'] as string;
    const account = await ctx.deps.store.read.accounts.get(o.account.pk);
    await ctx.deps.store.transaction((tx) => tx.accounts.update(o.account.pk, { prefs: { ...(account as Account).prefs, timezone: 10 } }));
    const moved = await fetchFeed(addresses.https, { 'if-none-match': tagged });
    assert.equal(moved.statusCode, 200, 'the time zone is part of the tag');
    assert.equal(events(moved.body).get('Call at home')?.start.toISOString(), '2026-12-08T18:30:00.000Z', 'now at UTC+0');
  });

  it('HEAD answers the headers without the text', async () => {
    const o = await owner();
    const { addresses } = await createFeed(ctx.deps, o.account.pk, { folder: null });
    const get = await fetchFeed(addresses.https);
    const head = await fetchFeed(addresses.https, {}, 'HEAD');
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers['etag'], get.headers['etag']);
    assert.equal(head.headers['content-type'], 'text/calendar; charset=utf-8');
  });

  it('an unknown, malformed or revoked address is 404, the same answer for each', async () => {
    const o = await owner();
    const { feed, addresses } = await createFeed(ctx.deps, o.account.pk, { folder: null });
    assert.equal((await fetchFeed(addresses.https)).statusCode, 200);
    assert.equal(await revokeFeed(ctx.deps, o.account.pk, feed.id), true);
    const answers = await Promise.all(
      [pathOf(addresses.https), `/feeds/${'0'.repeat(40)}.ics`, '/feeds/abc.ics', pathOf(addresses.https).replace('.ics', ''), pathOf(addresses.https).toUpperCase().replace('/FEEDS/', '/feeds/'), '/feeds/'].map((url) =>
        ctx.app.inject({ method: 'GET', url }),
      ),
    );
    for (const r of answers) {
      assert.equal(r.statusCode, 404);
      assert.equal(r.body, 'Not found\n');
      assert.equal(r.headers['etag'], undefined);
    }
  });

  it('another account’s data never appears: its tasks, its folder of the same number, its feed', async () => {
    const a = await owner();
    const b = await owner();
    assert.equal(a.work, b.work, 'both have a folder Work of the same number');
    const aAll = await createFeed(ctx.deps, a.account.pk, { folder: null });
    const aWork = await createFeed(ctx.deps, a.account.pk, { folder: a.work });
    await tasksCall(ctx, b.token, 'add', [{ title: 'Only B', folder: b.work, duedate: DUE }]);
    for (const url of [aAll.addresses.https, aWork.addresses.https]) {
      const body = (await fetchFeed(url)).body;
      assert.equal(events(body).has('Only B'), false);
      assert.ok(!body.includes(b.account.userid));
      for (const e of events(body).values()) assert.match(e.uid, new RegExp(`-${a.account.userid}@tickler$`));
    }
    // B cannot revoke A's feed by its id.
    assert.equal(await revokeFeed(ctx.deps, b.account.pk, aAll.feed.id), false);
    assert.equal((await fetchFeed(aAll.addresses.https)).statusCode, 200);
  });

  it('records the last fetch at most once a minute', async () => {
    ctx.clock.set(Date.UTC(2026, 11, 1, 8, 0));
    const o = await owner();
    const { feed, addresses } = await createFeed(ctx.deps, o.account.pk, { folder: null });
    const lastFetch = async () => (await ctx.deps.store.read.calendarFeeds.list(o.account.pk)).find((f) => f.id === feed.id)?.lastFetchedAt;
    assert.equal(await lastFetch(), null);
    await fetchFeed(addresses.https);
    const at = Date.UTC(2026, 11, 1, 8, 0) / 1000;
    assert.equal(await lastFetch(), at);
    ctx.clock.advance(59);
    await fetchFeed(addresses.https, { 'if-none-match': '*' });
    assert.equal(await lastFetch(), at, 'not again within the minute');
    ctx.clock.advance(1);
    await fetchFeed(addresses.https, { 'if-none-match': '*' });
    assert.equal(await lastFetch(), at + 60, 'a 304 is a fetch too');
  });
});

describe('feeds and the rest of the server', () => {
  it('the access log never shows a feed’s secret', async () => {
    const lines: string[] = [];
    const logged = await testContext({ LOG_LEVEL: 'info' }, { logStream: { write: (l: string) => void lines.push(l) } });
    try {
      const { account } = await signIn(logged);
      const { addresses } = await createFeed(logged.deps, account.pk, { folder: null });
      const secret = /([0-9a-f]{40})\.ics$/.exec(addresses.https)?.[1] as string;
      assert.equal((await logged.app.inject({ method: 'GET', url: `${pathOf(addresses.https)}?x=1` })).statusCode, 200);
      await logged.app.inject({ method: 'GET', url: `/feeds/${secret}` });
      const log = lines.join('');
      assert.match(log, /"url":"\/feeds\/\[redacted\]\?x=1"/);
      assert.equal(log.includes(secret), false);
    } finally {
      await logged.close();
    }
  });

  it('in maintenance a feed answers 503 with Retry-After', async () => {
    const down = await testContext({ MAINTENANCE_MODE: 'true' });
    try {
      const account = await createAccount(down);
      const { addresses } = await createFeed(down.deps, account.pk, { folder: null });
      const res = await down.app.inject({ method: 'GET', url: pathOf(addresses.https) });
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '300');
    } finally {
      await down.close();
    }
  });

  it('If-None-Match is compared weakly, a list or *', () => {
    assert.equal(noneMatch(undefined, '"a"'), false);
    assert.equal(noneMatch('"a"', '"a"'), true);
    assert.equal(noneMatch('W/"a"', '"a"'), true);
    assert.equal(noneMatch(' "b" ,"a" ', '"a"'), true);
    assert.equal(noneMatch('"b"', '"a"'), false);
    assert.equal(noneMatch('a', '"a"'), false);
    assert.equal(noneMatch('*', '"a"'), true);
  });
});
