import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testContext, type TestContext } from '../../test/harness.js';
import { dav, davUser, multistatusOf, vtodo, type DavUser } from './caldav.test-kit.js';

/**
 * The requests of clients that cannot run here, as their public sources and logs show them
 * (docs/caldav.md, "Client quirks"): Apple's (iOS and macOS Reminders), DAVx5's and Thunderbird's.
 * Each test sends the client's own body and headers and checks what that client needs back.
 */
describe('CalDAV: what iOS, DAVx5 and Thunderbird send', () => {
  let ctx: TestContext;
  let user: DavUser;
  let principal: string;
  before(async () => {
    ctx = await testContext();
    user = await davUser(ctx);
    principal = `/dav/principals/${user.account.userid}/`;
    await dav(ctx, user, 'PUT', `${user.home}tasks/a%40b.ics`, vtodo('a@b', 'SUMMARY:Quirk'));
  });
  after(() => ctx.close());

  it('iOS: discovery at the well-known address without credentials first, then the principal and a home listing with Prefer: return=minimal', async () => {
    const body = '<?xml version="1.0" encoding="UTF-8"?>\n<A:propfind xmlns:A="DAV:">\n  <A:prop>\n    <A:current-user-principal/>\n    <A:principal-URL/>\n    <A:resourcetype/>\n  </A:prop>\n</A:propfind>\n';
    const first = await dav(ctx, null, 'PROPFIND', '/.well-known/caldav', body, { depth: '0', 'user-agent': 'iOS/18.1.1 (22B91) dataaccessd/1.0' });
    assert.equal(first.statusCode, 301);
    const challenged = await dav(ctx, null, 'PROPFIND', String(first.headers['location']), body, { depth: '0' });
    assert.equal(challenged.statusCode, 401, 'answered with a challenge, not 403');
    const root = multistatusOf(await dav(ctx, user, 'PROPFIND', String(first.headers['location']), body, { depth: '0', prefer: 'return=minimal', brief: 't' }));
    assert.deepEqual(root.responses[0]?.props['current-user-principal'], { href: principal });
    assert.deepEqual(root.responses[0]?.missing, []);
    const options = await dav(ctx, user, 'OPTIONS', principal);
    assert.match(String(options.headers['dav']), /calendar-access/);
    const home = await dav(
      ctx,
      user,
      'PROPFIND',
      user.home,
      '<A:propfind xmlns:A="DAV:" xmlns:B="http://calendarserver.org/ns/" xmlns:C="http://apple.com/ns/ical/" xmlns:D="urn:ietf:params:xml:ns:caldav"><A:prop><A:add-member/><A:current-user-privilege-set/><A:displayname/><A:owner/><A:quota-available-bytes/><A:resource-id/><A:resourcetype/><A:supported-report-set/><A:sync-token/><B:getctag/><B:pushkey/><C:calendar-color/><C:calendar-order/><D:calendar-description/><D:calendar-timezone/><D:supported-calendar-component-set/><D:schedule-default-calendar-URL/></A:prop></A:propfind>',
      { depth: '1', prefer: 'return=minimal' },
    );
    assert.equal(home.statusCode, 207);
    const ms = multistatusOf(home);
    // sync-collection announced on the home as on the calendar: iCal believes it only then.
    assert.match(JSON.stringify(ms.responses.find((r) => r.href === user.home)?.props['supported-report-set']), /sync-collection/);
    const tasks = ms.responses.find((r) => r.href === `${user.home}tasks/`);
    assert.deepEqual(tasks?.props['supported-calendar-component-set'], { comp: { '@_name': 'VTODO' } }, 'a list Reminders shows');
    assert.match(JSON.stringify(tasks?.props['current-user-privilege-set']), /bind/);
    assert.ok(!home.body.includes('404 Not Found'), 'nothing answered 404 under return=minimal');
  });

  it('iOS and macOS: a new Reminders list (MKCALENDAR with colour, order and time zone), then PROPPATCH of its order answered 200', async () => {
    const cal = `${user.home}E1A9D1C2-7F2B-4F0E-9C41-0B1B2A3C4D5E/`;
    const mk = await dav(
      ctx,
      user,
      'MKCALENDAR',
      cal,
      '<B:mkcalendar xmlns:A="DAV:" xmlns:B="urn:ietf:params:xml:ns:caldav" xmlns:C="http://apple.com/ns/ical/"><A:set><A:prop><A:displayname>Shopping</A:displayname><C:calendar-color>#1BADF8FF</C:calendar-color><C:calendar-order>2</C:calendar-order><B:calendar-timezone>BEGIN:VCALENDAR&#13;\nEND:VCALENDAR</B:calendar-timezone><B:supported-calendar-component-set><B:comp name="VTODO"/></B:supported-calendar-component-set></A:prop></A:set></B:mkcalendar>',
    );
    assert.equal(mk.statusCode, 201, mk.body);
    const patch = await dav(ctx, user, 'PROPPATCH', cal, '<A:propertyupdate xmlns:A="DAV:" xmlns:C="http://apple.com/ns/ical/"><A:set><A:prop><C:calendar-order>5</C:calendar-order></A:prop></A:set></A:propertyupdate>');
    assert.equal(patch.statusCode, 207);
    assert.match(patch.body, /200 OK/);
    assert.doesNotMatch(patch.body, /403/);
  });

  it('DAVx5: PROPFIND of the user address with its props, OPTIONS on the principal, the list\'s sync state, then calendar-query and multiget without Depth', async () => {
    const first = multistatusOf(
      await dav(
        ctx,
        user,
        'PROPFIND',
        '/dav/',
        '<propfind xmlns="DAV:" xmlns:CAL="urn:ietf:params:xml:ns:caldav" xmlns:A="http://apple.com/ns/ical/"><prop><resourcetype/><displayname/><current-user-principal/><current-user-privilege-set/><CAL:calendar-home-set/><CAL:supported-calendar-component-set/><A:calendar-color/><CAL:calendar-description/><CAL:calendar-timezone/></prop></propfind>',
        { depth: '0' },
      ),
    );
    assert.deepEqual(first.responses[0]?.props['current-user-principal'], { href: principal });
    assert.deepEqual(first.responses[0]?.props['calendar-home-set'], { href: user.home });
    assert.equal((await dav(ctx, user, 'OPTIONS', principal)).headers['dav']?.toString().includes('calendar-access'), true);
    const state = multistatusOf(await dav(ctx, user, 'PROPFIND', `${user.home}tasks/`, '<propfind xmlns="DAV:" xmlns:CS="http://calendarserver.org/ns/" xmlns:CAL="urn:ietf:params:xml:ns:caldav"><prop><supported-report-set/><sync-token/><CS:getctag/><CAL:max-resource-size/></prop></propfind>', { depth: '0' }));
    assert.match(String(state.responses[0]?.props['sync-token']), /^urn:tickler:sync:/);
    const list = multistatusOf(
      await dav(ctx, user, 'REPORT', `${user.home}tasks/`, "<?xml version='1.0' encoding='UTF-8' ?><CAL:calendar-query xmlns=\"DAV:\" xmlns:CAL=\"urn:ietf:params:xml:ns:caldav\"><prop><getetag /></prop><CAL:filter><CAL:comp-filter name=\"VCALENDAR\"><CAL:comp-filter name=\"VTODO\" /></CAL:comp-filter></CAL:filter></CAL:calendar-query>", { depth: '1' }),
    );
    assert.ok(list.responses.length > 0 && list.responses.every((r) => /^"\d+\.-?\d+"$/.test(String(r.props['getetag']))), 'every member with its ETag');
    const got = multistatusOf(
      await dav(ctx, user, 'REPORT', `${user.home}tasks/`, `<CAL:calendar-multiget xmlns="DAV:" xmlns:CAL="urn:ietf:params:xml:ns:caldav"><prop><getcontenttype/><getetag/><CAL:schedule-tag/><CAL:calendar-data/></prop><href>${user.home}tasks/a%40b.ics</href></CAL:calendar-multiget>`),
    );
    assert.match(String(got.responses[0]?.props['calendar-data']), /SUMMARY:Quirk/);
    const invalid = await dav(ctx, user, 'REPORT', `${user.home}tasks/`, '<sync-collection xmlns="DAV:"><sync-token>urn:tickler:sync:99999999</sync-token><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>', { depth: '0' });
    assert.equal(invalid.statusCode, 403);
    assert.match(invalid.body, /<d:valid-sync-token\/>/, 'DAVx5 looks for this element before it syncs again from scratch');
  });

  it('Thunderbird: the etag listing by PROPFIND Depth 1, multiget with Depth 1, and an add under its own name with If-None-Match', async () => {
    const listing = multistatusOf(
      await dav(ctx, user, 'PROPFIND', `${user.home}tasks/`, '<?xml version="1.0" encoding="UTF-8"?>\n<D:propfind xmlns:D="DAV:"><D:prop><D:getcontenttype/><D:resourcetype/><D:getetag/></D:prop></D:propfind>', { depth: '1' }),
    );
    const item = listing.responses.find((r) => r.href.endsWith('a%40b.ics'));
    assert.match(String(item?.props['getcontenttype']), /^text\/calendar/, 'or Thunderbird never fetches it');
    assert.match(String(item?.props['getetag']), /^"\d+\.-?\d+"$/);
    assert.ok(listing.responses.every((r) => 'resourcetype' in r.props), 'every response carries resourcetype');
    const multi = multistatusOf(
      await dav(ctx, user, 'REPORT', `${user.home}tasks/`, `<?xml version="1.0" encoding="UTF-8"?>\n<C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop><D:href>${user.home}tasks/a%40b.ics</D:href></C:calendar-multiget>`, { depth: '1' }),
    );
    assert.equal(multi.responses[0]?.props['getetag'], item?.props['getetag']);
    const mozilla = vtodo('8f1c0d6e-2d5e-4b6a-9f1e-1a2b3c4d5e6f', 'SUMMARY:From Thunderbird', 'CREATED:20260101T000000Z', 'LAST-MODIFIED:20260101T000000Z', 'X-MOZ-GENERATION:1', 'PERCENT-COMPLETE:0', 'STATUS:IN-PROCESS');
    const put = await dav(ctx, user, 'PUT', `${user.home}tasks/8f1c0d6e-2d5e-4b6a-9f1e-1a2b3c4d5e6f.ics`, mozilla, { 'if-none-match': '*' });
    assert.equal(put.statusCode, 201);
    const back = await dav(ctx, user, 'GET', `${user.home}tasks/8f1c0d6e-2d5e-4b6a-9f1e-1a2b3c4d5e6f.ics`);
    assert.match(back.body, /X-MOZ-GENERATION:1/);
    assert.match(back.body, /PERCENT-COMPLETE:0/);
    assert.match(String(back.headers['etag']), /^"\d+\.-?\d+"$/, 'the ETag header as the listing writes it, quotes included');
  });

  it('python-caldav: PUT answers 201 or 204, never 200; a Depth 0 answer\'s href is the request path, slash included', async () => {
    const url = `${user.home}tasks/py.ics`;
    assert.equal((await dav(ctx, user, 'PUT', url, vtodo('py', 'SUMMARY:x'))).statusCode, 201);
    assert.equal((await dav(ctx, user, 'PUT', url, vtodo('py', 'SUMMARY:y'))).statusCode, 204);
    for (const path of [`${user.home}tasks/`, `${user.home}tasks`]) {
      const ms = multistatusOf(await dav(ctx, user, 'PROPFIND', path, '<D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><C:supported-calendar-component-set/></D:prop></D:propfind>', { depth: '0' }));
      assert.equal(ms.responses[0]?.href, path);
    }
  });
});
