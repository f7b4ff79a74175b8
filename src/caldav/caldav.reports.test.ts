import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signIn, tasksCall, testContext, type TestContext } from '../../test/harness.js';
import { dav, davUser, multistatusOf, vtodo, type DavUser } from './caldav.test-kit.js';

/** REPORTs of a calendar: sync-collection, calendar-query and calendar-multiget (docs/caldav.md). */
describe('CalDAV: reports', () => {
  let ctx: TestContext;
  let user: DavUser;
  let token: string;
  let cal: string;
  before(async () => {
    ctx = await testContext();
    user = await davUser(ctx);
    token = (await signIn(ctx, { account: user.account, scope: 'basic tasks write' })).token;
    cal = `${user.home}tasks/`;
  });
  after(() => ctx.close());

  const sync = (token?: string): Promise<ReturnType<typeof multistatusOf> & { status: number; body: string }> =>
    dav(
      ctx,
      user,
      'REPORT',
      cal,
      `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token ?? ''}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/><d:getcontenttype/></d:prop></d:sync-collection>`,
      { depth: '1' },
    ).then((res) => ({ ...multistatusOf(res), status: res.statusCode, body: res.body }));

  it('sync-collection: everything first, then what changed on any face, removals as 404, and a bad token refused', async () => {
    await dav(ctx, user, 'PUT', `${cal}a.ics`, vtodo('a', 'SUMMARY:A'));
    const first = await sync();
    assert.equal(first.status, 207);
    assert.deepEqual(first.responses.map((r) => r.href), [`${cal}a.ics`]);
    assert.match(String(first.responses[0]?.props['getetag']), /^"\d+\.-?\d+"$/);
    assert.match(String(first.responses[0]?.props['getcontenttype']), /^text\/calendar/);
    const quiet = await sync(first.syncToken);
    assert.deepEqual(quiet.responses, []);
    assert.equal(quiet.syncToken, first.syncToken);

    const [t] = (await tasksCall(ctx, token, 'add', [{ title: 'B' }, { title: 'Other folder' }])).json<Array<{ id: number }>>();
    await dav(ctx, user, 'DELETE', `${cal}a.ics`);
    const next = await sync(first.syncToken);
    const byHref = new Map(next.responses.map((r) => [r.href, r]));
    assert.ok(byHref.get(`${cal}tickler-${t?.id}.ics`)?.props['getetag'], 'a task added through v3');
    assert.match(String(byHref.get(`${cal}a.ics`)?.status), /404/, 'a deleted object, under the name its client gave it');
    assert.equal(byHref.get(`${cal}a.ics`)?.props['getetag'], undefined);

    const bad = await sync('urn:tickler:sync:999999999');
    assert.equal(bad.status, 403);
    assert.match(bad.body, /valid-sync-token/);
    assert.equal((await sync('http://elsewhere/1')).status, 403);
  });

  it('sync-collection with a limit answers part of the changes with 507 and a token that goes on from there', async () => {
    const start = (await sync()).syncToken;
    await tasksCall(ctx, token, 'add', [{ title: 'L1' }, { title: 'L2' }, { title: 'L3' }]);
    const res = await dav(ctx, user, 'REPORT', cal, `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${start}</d:sync-token><d:sync-level>1</d:sync-level><d:limit><d:nresults>2</d:nresults></d:limit><d:prop><d:getetag/></d:prop></d:sync-collection>`);
    const part = multistatusOf(res);
    assert.equal(part.responses.filter((r) => r.props['getetag']).length, 2);
    assert.ok(part.responses.some((r) => r.href === cal && /507/.test(String(r.status))));
    const rest = await sync(part.syncToken);
    assert.equal(rest.responses.length, 1);
  });

  it('calendar-query: the open tasks as python-caldav asks for them, a time range, and every object with no filter but VTODO', async () => {
    const cal = `${user.home}query/`;
    assert.equal((await dav(ctx, user, 'MKCALENDAR', cal)).statusCode, 201);
    await dav(ctx, user, 'PUT', `${cal}open.ics`, vtodo('q-open', 'SUMMARY:Open one', 'DUE:20270310T100000Z'));
    await dav(ctx, user, 'PUT', `${cal}done.ics`, vtodo('q-done', 'SUMMARY:Done one', 'STATUS:COMPLETED', 'COMPLETED:20270101T100000Z'));
    const query = (filter: string): Promise<string[]> =>
      dav(ctx, user, 'REPORT', cal, `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO">${filter}</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`, { depth: '1' }).then((res) =>
        multistatusOf(res).responses.map((r) => r.href.split('/').pop() as string),
      );
    const pending = await query('<c:prop-filter name="COMPLETED"><c:is-not-defined/></c:prop-filter><c:prop-filter name="STATUS"><c:text-match collation="i;octet" negate-condition="yes">CANCELLED</c:text-match></c:prop-filter>');
    assert.ok(pending.includes('open.ics') && !pending.includes('done.ics'));
    // RFC 4791 9.9: DUE in the range; a task completed (and made) before the range is not in it.
    assert.deepEqual(await query('<c:time-range start="20270301T000000Z" end="20270401T000000Z"/>'), ['open.ics']);
    assert.deepEqual((await query('')).sort(), ['done.ics', 'open.ics']);
    const withData = multistatusOf(await dav(ctx, user, 'REPORT', cal, '<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"><c:prop-filter name="UID"><c:text-match collation="i;octet">q-open</c:text-match></c:prop-filter></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>'));
    assert.match(String(withData.responses[0]?.props['calendar-data']), /SUMMARY:Open one/);
  });

  it('calendar-query answers 207 when an object keeps a value that cannot be read (kept before such values were refused): it counts as no value', async () => {
    const cal = `${user.home}kept-garbage/`;
    assert.equal((await dav(ctx, user, 'MKCALENDAR', cal)).statusCode, 201);
    await dav(ctx, user, 'PUT', `${cal}g.ics`, vtodo('g-1', 'SUMMARY:Garbage kept', 'DTSTART:20270310T100000Z'));
    const row = await ctx.deps.store.read.caldav.byName(user.account.pk, 'g.ics');
    assert.ok(row);
    // What a PUT stored before values were read up front: a DURATION no one can read, and a TRIGGER.
    const kept = { props: [['duration', {}, 'duration', 'PXYZ']], comps: [['valarm', [['action', {}, 'text', 'DISPLAY'], ['trigger', {}, 'duration', 'garbage']], []]], calendar: [] };
    await ctx.deps.store.transaction((tx) => tx.caldav.put(user.account.pk, { ...row, kept: JSON.stringify(kept) }));
    const query = async (filter: string): Promise<{ status: number; hrefs: string[] }> => {
      const res = await dav(ctx, user, 'REPORT', cal, `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO">${filter}</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`);
      return { status: res.statusCode, hrefs: res.statusCode === 207 ? multistatusOf(res).responses.map((r) => r.href.split('/').pop() as string) : [] };
    };
    // DTSTART alone decides once DURATION cannot be read (RFC 4791 9.9).
    assert.deepEqual(await query('<c:time-range start="20270301T000000Z" end="20270401T000000Z"/>'), { status: 207, hrefs: ['g.ics'] });
    assert.deepEqual(await query('<c:prop-filter name="DURATION"><c:text-match>P</c:text-match></c:prop-filter>'), { status: 207, hrefs: [] });
    assert.deepEqual(await query('<c:comp-filter name="VALARM"><c:prop-filter name="TRIGGER"><c:text-match>g</c:text-match></c:prop-filter></c:comp-filter>'), { status: 207, hrefs: [] });
  });

  it('calendar-multiget: every href answered, the ones not there with 404; raw @ and %40 alike', async () => {
    await dav(ctx, user, 'PUT', `${cal}m%40phone.ics`, vtodo('m@phone', 'SUMMARY:Multi'));
    const res = await dav(ctx, user, 'REPORT', cal, `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><d:href>${cal}m@phone.ics</d:href><d:href>${cal}m%40phone.ics</d:href><d:href>${cal}missing.ics</d:href></c:calendar-multiget>`);
    const r = multistatusOf(res).responses;
    assert.equal(r.length, 3);
    assert.match(String(r[0]?.props['calendar-data']), /SUMMARY:Multi/);
    assert.equal(r[0]?.props['getetag'], r[1]?.props['getetag']);
    assert.match(String(r.find((x) => x.href.endsWith('missing.ics'))?.status), /404/);
    const listing = multistatusOf(await dav(ctx, user, 'PROPFIND', cal, '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>', { depth: '1' }));
    assert.ok(listing.responses.some((x) => x.href === `${cal}m%40phone.ics`), 'hrefs written with %40');
  });

  it('a property asked for twice is answered once; more than 64 distinct ones are refused with 400, by PROPFIND and every report', async () => {
    await dav(ctx, user, 'PUT', `${cal}p1.ics`, vtodo('p1', 'SUMMARY:Once'));
    const count = (body: string, s: string): number => body.split(s).length - 1;
    const repeated = '<c:calendar-data/><d:getetag/>'.repeat(50);
    const listing = await dav(ctx, user, 'PROPFIND', cal, `<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop>${repeated}</d:prop></d:propfind>`, { depth: '1' });
    const objects = multistatusOf(listing).responses.filter((r) => r.href !== cal).length;
    assert.ok(objects > 0);
    assert.equal(count(listing.body, 'SUMMARY:'), objects, 'each object written once, however often it was asked for');
    assert.equal(count(listing.body, '<d:getetag>'), objects);
    const multiget = await dav(ctx, user, 'REPORT', cal, `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop>${repeated}</d:prop><d:href>${cal}p1.ics</d:href></c:calendar-multiget>`);
    assert.equal(count(multiget.body, 'SUMMARY:Once'), 1);

    const names = (n: number): string => Array.from({ length: n }, (_, i) => `<x:p${i}/>`).join('');
    const propfind = (n: number): Promise<number> =>
      dav(ctx, user, 'PROPFIND', cal, `<d:propfind xmlns:d="DAV:" xmlns:x="urn:example:props"><d:prop>${names(n)}${names(n)}</d:prop></d:propfind>`, { depth: '0' }).then((r) => r.statusCode);
    assert.equal(await propfind(64), 207, '64 distinct names, each sent twice');
    assert.equal(await propfind(65), 400);
    const reports = [
      `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:x="urn:example:props"><d:prop>${names(65)}</d:prop><d:href>${cal}p1.ics</d:href></c:calendar-multiget>`,
      `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:x="urn:example:props"><d:prop>${names(65)}</d:prop><c:filter><c:comp-filter name="VCALENDAR"/></c:filter></c:calendar-query>`,
      `<d:sync-collection xmlns:d="DAV:" xmlns:x="urn:example:props"><d:sync-token/><d:sync-level>1</d:sync-level><d:prop>${names(65)}</d:prop></d:sync-collection>`,
    ];
    for (const body of reports) {
      const res = await dav(ctx, user, 'REPORT', cal, body);
      assert.equal(res.statusCode, 400, body.slice(0, 40));
      assert.match(res.body, /64/);
    }
  });

  it('calendar-multiget of more than 1,000 hrefs is refused with 507 and DAV:number-of-matches-within-limits; 1,000 are answered', async () => {
    const multiget = (n: number): ReturnType<typeof dav> =>
      dav(ctx, user, 'REPORT', cal, `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop>${Array.from({ length: n }, (_, i) => `<d:href>${cal}n${i}.ics</d:href>`).join('')}</c:calendar-multiget>`);
    const most = await multiget(1000);
    assert.equal(most.statusCode, 207);
    assert.equal(multistatusOf(most).responses.length, 1000);
    const over = await multiget(1001);
    assert.equal(over.statusCode, 507);
    assert.match(over.body, /<d:number-of-matches-within-limits\/>/);
  });
});
