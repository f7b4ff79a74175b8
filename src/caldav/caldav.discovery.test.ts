import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, createAccount, signIn, testContext, type TestContext } from '../../test/harness.js';
import { dav, davUser, multistatusOf, PROPFIND, type DavUser } from './caldav.test-kit.js';

/** CalDAV's discovery, sign-in and collections, through the app (docs/caldav.md). */
describe('CalDAV: discovery, sign-in and calendars', () => {
  let ctx: TestContext;
  let user: DavUser;
  before(async () => {
    ctx = await testContext();
    user = await davUser(ctx);
  });
  after(() => ctx.close());

  it('/.well-known/caldav points at the service with a 301, for any method, without signing in', async () => {
    for (const method of ['GET', 'PROPFIND']) {
      const res = await dav(ctx, null, method, '/.well-known/caldav');
      assert.equal(res.statusCode, 301);
      assert.equal(res.headers['location'], '/dav/');
    }
  });

  it('asks for Basic credentials, takes an app password, never the account password, and throttles failures', async () => {
    const bare = await dav(ctx, null, 'PROPFIND', '/dav/', PROPFIND('<d:current-user-principal/>'), { depth: '0' });
    assert.equal(bare.statusCode, 401);
    assert.match(String(bare.headers['www-authenticate']), /^Basic realm=/);
    const withAccountPassword = { ...user, authorization: `Basic ${Buffer.from(`${user.account.email}:correct horse battery`).toString('base64')}` };
    assert.equal((await dav(ctx, withAccountPassword, 'PROPFIND', '/dav/', PROPFIND('<d:current-user-principal/>'), { depth: '0' })).statusCode, 401);
    const victim = await davUser(ctx);
    // The owner's phone has signed in before: this server knows its password is right.
    assert.equal((await dav(ctx, victim, 'PROPFIND', '/dav/', PROPFIND('<d:current-user-principal/>'), { depth: '0' })).statusCode, 207);
    const guess = { ...victim, authorization: `Basic ${Buffer.from(`${victim.account.email}:aaaa-bbbb-cccc-dddd`).toString('base64')}` };
    let last = 0;
    for (let i = 0; i < 30 && last !== 429; i++) last = (await dav(ctx, guess, 'PROPFIND', '/dav/', PROPFIND('<d:current-user-principal/>'), { depth: '0' })).statusCode;
    assert.equal(last, 429, 'guesses are throttled as the sign-in page throttles them');
    // The owner's phone, which knows the password, still gets in (its password is no guess).
    assert.equal((await dav(ctx, victim, 'PROPFIND', '/dav/', PROPFIND('<d:current-user-principal/>'), { depth: '0' })).statusCode, 207);
  });

  it('OPTIONS says calendar-access on every address, and never scheduling', async () => {
    for (const path of ['/dav/', `/dav/principals/${user.account.userid}/`, user.home, `${user.home}tasks/`]) {
      const res = await dav(ctx, user, 'OPTIONS', path);
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['dav']), /calendar-access/);
      assert.doesNotMatch(String(res.headers['dav']), /schedul/);
      assert.match(String(res.headers['allow']), /REPORT/);
    }
  });

  it('finds the principal from the root, the home from the principal, and lists one calendar a folder plus the tasks without one', async () => {
    const root = multistatusOf(await dav(ctx, user, 'PROPFIND', '/dav/', PROPFIND('<d:current-user-principal/><d:resourcetype/>'), { depth: '0' }));
    const principal = `/dav/principals/${user.account.userid}/`;
    assert.equal(root.responses[0]?.href, '/dav/', 'the href of a Depth 0 answer is the request path as sent');
    assert.deepEqual(root.responses[0]?.props['current-user-principal'], { href: principal });
    const p = multistatusOf(await dav(ctx, user, 'PROPFIND', principal, PROPFIND('<c:calendar-home-set/><d:principal-URL/><c:calendar-user-address-set/><d:displayname/>'), { depth: '0' }));
    assert.deepEqual(p.responses[0]?.props['calendar-home-set'], { href: user.home });
    assert.deepEqual(p.responses[0]?.props['principal-URL'], { href: principal });
    assert.deepEqual(p.responses[0]?.props['calendar-user-address-set'], { href: `mailto:${user.account.email}` });

    const { token } = await signIn(ctx, { account: user.account });
    await api(ctx, token, '/3/folders/add.php', { name: 'Work' });
    await api(ctx, token, '/3/folders/add.php', { name: 'Old' });
    const old = (await api(ctx, token, '/3/folders/get.php')).json<Array<{ id: number; name: string }>>().find((f) => f.name === 'Old');
    await api(ctx, token, '/3/folders/edit.php', { id: String(old?.id), archived: '1' });
    const home = multistatusOf(
      await dav(ctx, user, 'PROPFIND', user.home, PROPFIND('<d:resourcetype/><d:displayname/><c:supported-calendar-component-set/><cs:getctag/><d:sync-token/><d:current-user-privilege-set/><a:calendar-color/>'), { depth: '1' }),
    );
    const calendars = home.responses.filter((r) => r.href !== user.home);
    assert.deepEqual(calendars.map((c) => c.props['displayname']), ['Tasks', 'Work'], 'archived folders are no calendars');
    for (const c of calendars) {
      assert.ok(c.props['resourcetype'] && 'calendar' in (c.props['resourcetype'] as object));
      assert.deepEqual(c.props['supported-calendar-component-set'], { comp: { '@_name': 'VTODO' } });
      assert.match(String(c.props['getctag']), /^urn:tickler:sync:\d+:-?\d+$/);
      assert.equal(c.props['sync-token'], c.props['getctag']);
      assert.match(JSON.stringify(c.props['current-user-privilege-set']), /write-content/);
      assert.ok(c.missing.includes('calendar-color'), 'a property the calendar lacks is answered 404');
    }
    const minimal = multistatusOf(await dav(ctx, user, 'PROPFIND', `${user.home}tasks/`, PROPFIND('<a:calendar-color/><d:displayname/>'), { depth: '0', prefer: 'return=minimal' }));
    assert.deepEqual(minimal.responses[0]?.missing, [], 'Prefer: return=minimal leaves what is missing out');
  });

  it('a read-only app password reads but every write is refused with 403, and its calendars say so', async () => {
    const reader = await davUser(ctx, { account: user.account, readOnly: true });
    const c = multistatusOf(await dav(ctx, reader, 'PROPFIND', `${user.home}tasks/`, PROPFIND('<d:current-user-privilege-set/>'), { depth: '0' }));
    assert.doesNotMatch(JSON.stringify(c.responses[0]?.props), /write/);
    assert.equal((await dav(ctx, reader, 'MKCALENDAR', `${user.home}new/`)).statusCode, 403);
    assert.equal((await dav(ctx, reader, 'PUT', `${user.home}tasks/x.ics`, 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n')).statusCode, 403);
  });

  it('MKCALENDAR makes a folder under the path the client chose, PROPPATCH renames it and keeps other properties, DELETE deletes it', async () => {
    const mk = await dav(
      ctx,
      user,
      'MKCALENDAR',
      `${user.home}3F2504E0-4F89/`,
      '<c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:a="http://apple.com/ns/ical/"><d:set><d:prop><d:resourcetype><d:collection/><c:calendar/></d:resourcetype><d:displayname>Errands</d:displayname><a:calendar-color>#FF2968FF</a:calendar-color><c:supported-calendar-component-set><c:comp name="VTODO"/></c:supported-calendar-component-set></d:prop></d:set></c:mkcalendar>',
    );
    assert.equal(mk.statusCode, 201, mk.body);
    const { token } = await signIn(ctx, { account: user.account });
    const folders = (): Promise<string[]> => api(ctx, token, '/3/folders/get.php').then((r) => r.json<Array<{ name: string }>>().map((f) => f.name));
    assert.ok((await folders()).includes('Errands'));
    const cal = `${user.home}3F2504E0-4F89/`;
    const props = multistatusOf(await dav(ctx, user, 'PROPFIND', cal, PROPFIND('<d:displayname/><a:calendar-color/>'), { depth: '0' }));
    assert.equal(props.responses[0]?.props['displayname'], 'Errands');
    assert.equal(props.responses[0]?.props['calendar-color'], '#FF2968FF');
    assert.equal((await dav(ctx, user, 'MKCALENDAR', cal)).statusCode, 403, 'a calendar exists there');
    const events = await dav(ctx, user, 'MKCALENDAR', `${user.home}events/`, '<c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:set><d:prop><c:supported-calendar-component-set><c:comp name="VEVENT"/></c:supported-calendar-component-set></d:prop></d:set></c:mkcalendar>');
    assert.equal(events.statusCode, 403, 'only to-dos');

    const patch = await dav(ctx, user, 'PROPPATCH', cal, '<d:propertyupdate xmlns:d="DAV:" xmlns:a="http://apple.com/ns/ical/"><d:set><d:prop><d:displayname>Shopping</d:displayname><a:calendar-order>3</a:calendar-order></d:prop></d:set></d:propertyupdate>');
    assert.equal(patch.statusCode, 207);
    assert.ok(multistatusOf(patch).responses[0]?.missing.length === 0);
    assert.ok((await folders()).includes('Shopping'));
    const after = multistatusOf(await dav(ctx, user, 'PROPFIND', cal, PROPFIND('<d:displayname/><a:calendar-order/><a:calendar-color/>'), { depth: '0' }));
    assert.deepEqual([after.responses[0]?.props['displayname'], after.responses[0]?.props['calendar-order'], after.responses[0]?.props['calendar-color']], ['Shopping', '3', '#FF2968FF']);
    const refused = await dav(ctx, user, 'PROPPATCH', cal, '<d:propertyupdate xmlns:d="DAV:"><d:set><d:prop><d:getetag>x</d:getetag><d:displayname>Nope</d:displayname></d:prop></d:set></d:propertyupdate>');
    assert.match(refused.body, /403 Forbidden/);
    assert.match(refused.body, /424 Failed Dependency/);
    assert.ok(!(await folders()).includes('Nope'), 'all or nothing');

    // vdirsyncer makes calendars with extended MKCOL, without a trailing slash.
    const mkcol = await dav(ctx, user, 'MKCOL', `${user.home}work-col`, '<mkcol xmlns="DAV:"><set><prop><resourcetype><collection/><ns0:calendar xmlns:ns0="urn:ietf:params:xml:ns:caldav"/></resourcetype></prop></set></mkcol>');
    assert.equal(mkcol.statusCode, 201, mkcol.body);
    assert.equal((await dav(ctx, user, 'DELETE', cal)).statusCode, 204);
    assert.ok(!(await folders()).includes('Shopping'));
    assert.equal((await dav(ctx, user, 'DELETE', `${user.home}tasks/`)).statusCode, 403, 'the calendar of tasks without a folder stays');
  });

  it('character references in a request are read as the characters they stand for; an unknown entity is refused as not XML', async () => {
    const mk = (segment: string, name: string): ReturnType<typeof dav> =>
      dav(ctx, user, 'MKCALENDAR', `${user.home}${segment}/`, `<c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:set><d:prop><d:displayname>${name}</d:displayname></d:prop></d:set></c:mkcalendar>`);
    assert.equal((await mk('cafe', 'Caf&#233; &amp; Bar &#x2615;')).statusCode, 201);
    const { token } = await signIn(ctx, { account: user.account });
    const names = (await api(ctx, token, '/3/folders/get.php')).json<Array<{ name: string }>>().map((f) => f.name);
    assert.ok(names.includes('Café & Bar ☕'), names.join(' | '));
    const listed = await dav(ctx, user, 'PROPFIND', `${user.home}cafe/`, PROPFIND('<d:displayname/>'), { depth: '0' });
    assert.equal(multistatusOf(listed).responses[0]?.props['displayname'], 'Café & Bar ☕');
    assert.match(listed.body, /Café &amp; Bar/, 'written back once escaped, not as &amp;#233;');
    for (const bad of ['Caf&eacute;', 'a &foo; b', 'nul &#0;', 'big &#x110000;']) {
      const res = await mk('refused', bad);
      assert.equal(res.statusCode, 400, bad);
    }
  });

  it('allprop gives each object\'s real getcontentlength', async () => {
    const cal = `${user.home}tasks/`;
    const put = await dav(ctx, user, 'PUT', `${cal}sized.ics`, ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:x', 'BEGIN:VTODO', 'UID:sized', 'SUMMARY:Sized', 'END:VTODO', 'END:VCALENDAR', ''].join('\r\n'));
    assert.equal(put.statusCode, 201);
    const length = Buffer.byteLength((await dav(ctx, user, 'GET', `${cal}sized.ics`)).body);
    for (const body of ['', '<d:propfind xmlns:d="DAV:"><d:allprop/></d:propfind>']) {
      const listed = multistatusOf(await dav(ctx, user, 'PROPFIND', cal, body, { depth: '1' })).responses.find((r) => r.href.endsWith('/sized.ics'));
      assert.equal(String(listed?.props['getcontentlength']), String(length), JSON.stringify(body));
    }
  });

  it('a dead property with prefixed attributes comes back namespace-well-formed, by name and by allprop', async () => {
    const cal = `${user.home}tasks/`;
    const patch = await dav(ctx, user, 'PROPPATCH', cal, '<d:propertyupdate xmlns:d="DAV:" xmlns:a="http://apple.com/ns/ical/" xmlns:z="urn:example:z"><d:set><d:prop><a:calendar-color z:symbolic="red" a:kind="1">#FF0000FF<z:note z:lang="en">red</z:note></a:calendar-color></d:prop></d:set></d:propertyupdate>');
    assert.equal(patch.statusCode, 207);
    for (const res of [await dav(ctx, user, 'PROPFIND', cal, PROPFIND('<a:calendar-color/>'), { depth: '0' }), await dav(ctx, user, 'PROPFIND', cal, '', { depth: '0' })]) {
      const color = multistatusOf(res).responses[0]?.props['calendar-color'] as Record<string, unknown>;
      assert.equal(color['@_symbolic'], 'red', res.body);
      assert.equal(color['@_kind'], '1');
    }
  });

  it('another account\'s addresses are not found', async () => {
    const other = await createAccount(ctx);
    for (const path of [`/dav/principals/${other.userid}/`, `/dav/calendars/${other.userid}/`, `/dav/calendars/${other.userid}/tasks/`]) {
      assert.equal((await dav(ctx, user, 'PROPFIND', path, PROPFIND('<d:displayname/>'), { depth: '0' })).statusCode, 404, path);
    }
  });
});
