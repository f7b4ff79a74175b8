import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, signIn, tasksCall, testContext, type TestContext } from '../../test/harness.js';
import { dav, davUser, multistatusOf, PROPFIND, vtodo, type DavUser } from './caldav.test-kit.js';

/** Calendar objects through CalDAV and the same tasks through v3, both ways (docs/caldav.md). */
describe('CalDAV: objects are tasks', () => {
  let ctx: TestContext;
  let user: DavUser;
  let token: string;
  before(async () => {
    ctx = await testContext();
    user = await davUser(ctx);
    token = (await signIn(ctx, { account: user.account, scope: 'basic tasks write' })).token;
  });
  after(() => ctx.close());

  type V3Task = Record<string, unknown> & { id: number; title: string };
  const v3Tasks = async (): Promise<V3Task[]> =>
    (await api(ctx, token, '/3/tasks/get.php', { fields: 'folder,note,duedate,duetime,priority,tag,repeat,remind,star,parent,previous' })).json<unknown[]>().slice(1) as V3Task[];
  const byTitle = async (title: string): Promise<V3Task | undefined> => (await v3Tasks()).find((t) => t.title === title);

  it('a PUT makes a task; GET gives it back with its ETag; the v3 API sees it, and its edits move the ETag', async () => {
    const url = `${user.home}tasks/A1B2-shop.ics`;
    const put = await dav(ctx, user, 'PUT', url, vtodo('shop-1@phone', 'SUMMARY:Buy milk', 'DESCRIPTION:2 litres', 'DUE;VALUE=DATE:20270115', 'PRIORITY:1', 'CATEGORIES:home,errands', 'X-APPLE-SORT-ORDER:42'), { 'if-none-match': '*' });
    assert.equal(put.statusCode, 201, put.body);
    assert.equal(put.headers['etag'], undefined, 'the server writes the object its own way: no ETag for what was sent');
    const task = await byTitle('Buy milk');
    assert.ok(task);
    assert.deepEqual([task.note, task.priority, task.tag, task.folder], ['2 litres', 3, 'home, errands', 0]);
    assert.equal(new Date((task.duedate as number) * 1000).toISOString(), '2027-01-15T12:00:00.000Z');
    const got = await dav(ctx, user, 'GET', url);
    assert.equal(got.statusCode, 200);
    assert.match(String(got.headers['content-type']), /^text\/calendar/);
    assert.match(got.body, /UID:shop-1@phone/);
    assert.match(got.body, /X-APPLE-SORT-ORDER:42/, 'what Tickler does not model comes back as it came');
    const etag = String(got.headers['etag']);
    assert.match(etag, /^"\d+\.-?\d+"$/);
    assert.equal((await dav(ctx, user, 'GET', url, undefined, { 'if-none-match': etag })).statusCode, 304);
    await tasksCall(ctx, token, 'edit', [{ id: task.id, title: 'Buy oat milk' }]);
    const again = await dav(ctx, user, 'GET', url);
    assert.notEqual(again.headers['etag'], etag, 'a v3 edit changes the ETag');
    assert.match(again.body, /SUMMARY:Buy oat milk/);
  });

  it('If-Match and If-None-Match are kept: 412 and nothing changes', async () => {
    const url = `${user.home}tasks/cond.ics`;
    assert.equal((await dav(ctx, user, 'PUT', url, vtodo('cond', 'SUMMARY:Cond'))).statusCode, 201);
    const etag = String((await dav(ctx, user, 'GET', url)).headers['etag']);
    assert.equal((await dav(ctx, user, 'PUT', url, vtodo('cond', 'SUMMARY:Again'), { 'if-none-match': '*' })).statusCode, 412);
    assert.equal((await dav(ctx, user, 'PUT', url, vtodo('cond', 'SUMMARY:Stale'), { 'if-match': '"1"' })).statusCode, 412);
    assert.equal((await dav(ctx, user, 'DELETE', url, undefined, { 'if-match': '"1"' })).statusCode, 412);
    assert.equal((await byTitle('Cond'))?.title, 'Cond');
    assert.equal((await dav(ctx, user, 'PUT', url, vtodo('cond', 'SUMMARY:Cond edited'), { 'if-match': etag })).statusCode, 204);
    assert.ok(await byTitle('Cond edited'));
  });

  it('a task made on v3 or the web has names of Tickler\'s own, and a client edits it there', async () => {
    const [t] = (await tasksCall(ctx, token, 'add', [{ title: 'From the app', star: 1, duedate: 1798804800, duetime: 1798761600 + 14 * 3600, remind: 15 }])).json<Array<{ id: number }>>();
    const url = `${user.home}tasks/tickler-${t?.id}.ics`;
    const got = await dav(ctx, user, 'GET', url);
    assert.equal(got.statusCode, 200);
    assert.match(got.body, new RegExp(`UID:task-${t?.id}-${user.account.userid}@tickler`));
    assert.match(got.body, /X-TICKLER-STAR:1/);
    assert.match(got.body, /TRIGGER;RELATED=END:-PT15M/);
    const edited = got.body.replace('SUMMARY:From the app', 'SUMMARY:From the phone');
    assert.equal((await dav(ctx, user, 'PUT', url, edited, { 'if-match': String(got.headers['etag']) })).statusCode, 204);
    const task = await byTitle('From the phone');
    assert.deepEqual([task?.star, task?.remind, task?.duetime], [1, 15, 1798761600 + 14 * 3600], 'every field survived the round trip');
    assert.equal((await dav(ctx, user, 'PUT', `${user.home}tasks/tickler-999999.ics`, vtodo('n', 'SUMMARY:x'))).statusCode, 403, 'Tickler\'s own names are not for new objects');
  });

  it('completing a repeating task through CalDAV moves it on as v3\'s reschedule does; a client that moves DUE itself is taken as it is', async () => {
    const url = `${user.home}tasks/weekly.ics`;
    await dav(ctx, user, 'PUT', url, vtodo('weekly', 'SUMMARY:Water plants', 'DUE;VALUE=DATE:20270104', 'RRULE:FREQ=WEEKLY'));
    const done = (await dav(ctx, user, 'GET', url)).body.replace('STATUS:NEEDS-ACTION', 'STATUS:COMPLETED\r\nCOMPLETED:20270104T100000Z');
    assert.equal((await dav(ctx, user, 'PUT', url, done)).statusCode, 204);
    const tasks = (await v3Tasks()).filter((t) => t.title === 'Water plants');
    const open = tasks.find((t) => t['completed'] === 0);
    const copy = tasks.find((t) => t['completed'] !== 0);
    assert.ok(open && copy, 'still open, with a completed copy kept');
    assert.equal(new Date((open['duedate'] as number) * 1000).toISOString().slice(0, 10), '2027-01-11');
    assert.equal(copy['previous'], open.id, 'the completed copy names the task it was made from');
    const back = await dav(ctx, user, 'GET', url);
    assert.match(back.body, /STATUS:NEEDS-ACTION/);
    const moved = back.body.replace(/DUE;VALUE=DATE:\d+/, 'DUE;VALUE=DATE:20270201');
    assert.equal((await dav(ctx, user, 'PUT', url, moved)).statusCode, 204);
    assert.equal((await v3Tasks()).filter((t) => t.title === 'Water plants').length, 2, 'no new copy: the client moved the date itself');
  });

  it('refuses bad input with the precondition that failed, and stores nothing', async () => {
    const count = async (): Promise<number> => (await v3Tasks()).length;
    const before = await count();
    const bad = await dav(ctx, user, 'PUT', `${user.home}tasks/bad.ics`, 'BEGIN:VCALENDAR\r\nnot a line\r\n');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /valid-calendar-data/);
    const event = await dav(ctx, user, 'PUT', `${user.home}tasks/ev.ics`, 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:e\r\nDTSTART:20270101T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n');
    assert.equal(event.statusCode, 403);
    assert.match(event.body, /supported-calendar-component/);
    const big = await dav(ctx, user, 'PUT', `${user.home}tasks/big.ics`, vtodo('big', 'SUMMARY:big', `DESCRIPTION:${'x'.repeat(ctx.config.caldavMaxBytes)}`));
    assert.equal(big.statusCode, 413);
    await dav(ctx, user, 'PUT', `${user.home}tasks/uid-a.ics`, vtodo('same-uid', 'SUMMARY:First'));
    const { token: t2 } = { token };
    await api(ctx, t2, '/3/folders/add.php', { name: 'Other' });
    const otherCal = multistatusOf(await dav(ctx, user, 'PROPFIND', user.home, PROPFIND('<d:displayname/>'), { depth: '1' })).responses.find((r) => r.props['displayname'] === 'Other')?.href as string;
    const conflict = await dav(ctx, user, 'PUT', `${otherCal}uid-b.ics`, vtodo('same-uid', 'SUMMARY:Second'));
    assert.equal(conflict.statusCode, 409);
    assert.match(conflict.body, /no-uid-conflict/);
    assert.equal(await count(), before + 1, 'only the first object made a task');
  });

  it('refuses values iCalendar cannot read (ical.js reads them lazily) with 400 valid-calendar-data, before anything is stored', async () => {
    const before = (await v3Tasks()).length;
    const hostile: ReadonlyArray<readonly string[]> = [
      ['DUE:abc'],
      ['COMPLETED:zzz'],
      ['RRULE:FREQ=DAILY;UNTIL=xyz'],
      ['DUE:20270101T100000Z', 'BEGIN:VALARM', 'ACTION:DISPLAY', 'TRIGGER:garbage', 'END:VALARM'],
      ['DUE:20270101T100000Z', 'BEGIN:VALARM', 'ACTION:DISPLAY', 'TRIGGER;VALUE=DATE-TIME:garbage', 'END:VALARM'],
      ['DTSTART:20270101T100000Z', 'DURATION:PXYZ'],
      ['EXDATE:garbage'],
    ];
    for (const [i, lines] of hostile.entries()) {
      const res = await dav(ctx, user, 'PUT', `${user.home}tasks/hostile-${i}.ics`, vtodo(`hostile-${i}`, 'SUMMARY:Hostile', ...lines));
      assert.equal(res.statusCode, 400, `${lines.join(' ')}: ${res.body}`);
      assert.match(res.body, /valid-calendar-data/);
    }
    assert.equal((await v3Tasks()).length, before);
  });

  it('round trips of a repeating task with a time keep one VTIMEZONE per TZID, Tickler\'s own and a client\'s, and the same size', async () => {
    const [t] = (await tasksCall(ctx, token, 'add', [{ title: 'Weekly call', duedate: 1798804800, duetime: 1798761600 + 9 * 3600, repeat: 'FREQ=WEEKLY' }])).json<Array<{ id: number }>>();
    const url = `${user.home}tasks/tickler-${t?.id}.ics`;
    const first = (await dav(ctx, user, 'GET', url)).body;
    const due = /\r\nDUE;TZID=([^:]+):(\d{8}T\d{6})\r\n/.exec(first);
    assert.ok(due, first);
    const paris = ['BEGIN:VTIMEZONE', 'TZID:Europe/Paris', 'BEGIN:STANDARD', 'DTSTART:19701025T030000', 'TZOFFSETFROM:+0200', 'TZOFFSETTO:+0100', 'END:STANDARD', 'END:VTIMEZONE', ''].join('\r\n');
    // What a client adds: an exception in the task's own zone, a property of its own in another zone (with that zone).
    let body = first
      .replace('BEGIN:VTODO\r\n', `${paris}BEGIN:VTODO\r\n`)
      .replace(due[0], `${due[0]}EXDATE;TZID=${due[1]}:${due[2]}\r\nX-OTHER;TZID=Europe/Paris:20270101T100000\r\n`);
    const sizes: number[] = [];
    for (let round = 0; round < 4; round++) {
      assert.equal((await dav(ctx, user, 'PUT', url, body)).statusCode, 204);
      body = (await dav(ctx, user, 'GET', url)).body;
      const zones = [...body.matchAll(/\r\nBEGIN:VTIMEZONE\r\nTZID:([^\r]+)\r\n/g)].map((m) => m[1]);
      assert.deepEqual(zones.sort(), [due[1], 'Europe/Paris'].sort(), `round ${round}: one zone per TZID`);
      assert.match(body, /\r\nEXDATE;TZID=/);
      sizes.push(Buffer.byteLength(body));
    }
    assert.equal(new Set(sizes).size, 1, `the same size every round: ${sizes.join(', ')}`);
  });

  it('STATUS a client changes wins over the X-TICKLER-STATUS it kept: un-cancelling and IN-PROCESS work; a status STATUS cannot say survives', async () => {
    const [t] = (await tasksCall(ctx, token, 'add', [{ title: 'Status', status: 9 }])).json<Array<{ id: number }>>();
    const url = `${user.home}tasks/tickler-${t?.id}.ics`;
    const status = async (): Promise<unknown> =>
      (await api(ctx, token, '/3/tasks/get.php', { fields: 'status' })).json<Array<Record<string, unknown>>>().find((x) => x['id'] === t?.id)?.['status'];
    const put = async (from: string, to: string): Promise<void> => {
      const got = (await dav(ctx, user, 'GET', url)).body;
      assert.ok(got.includes(from), got);
      assert.equal((await dav(ctx, user, 'PUT', url, got.replace(from, to))).statusCode, 204);
    };
    const got = (await dav(ctx, user, 'GET', url)).body;
    assert.match(got, /\r\nSTATUS:CANCELLED\r\n[\s\S]*X-TICKLER-STATUS:9\r\n/);
    await put('STATUS:CANCELLED', 'STATUS:NEEDS-ACTION');
    assert.equal(await status(), 0, 'un-cancelled, X-TICKLER-STATUS:9 kept or not');
    await put('STATUS:NEEDS-ACTION', 'STATUS:IN-PROCESS');
    assert.equal(await status(), 2);
    await put('STATUS:IN-PROCESS', 'STATUS:NEEDS-ACTION');
    assert.equal(await status(), 0);
    await tasksCall(ctx, token, 'edit', [{ id: t?.id, status: 5 }]);
    await put('X-TICKLER-STATUS:5', 'X-TICKLER-STATUS:5\r\nX-SEEN:1');
    assert.equal(await status(), 5, 'Waiting is NEEDS-ACTION to iCalendar: it stays while STATUS says that');
    await put('STATUS:NEEDS-ACTION', 'STATUS:CANCELLED');
    assert.equal(await status(), 9);
  });

  it('a start day beside a due time travels in X-TICKLER-START, not a DTSTART of another value type, and comes back whole', async () => {
    const fields = { title: 'Start day and due time', startdate: 1798545600, duedate: 1798804800, duetime: 1798761600 + 9 * 3600 };
    const [t] = (await tasksCall(ctx, token, 'add', [fields])).json<Array<{ id: number }>>();
    const url = `${user.home}tasks/tickler-${t?.id}.ics`;
    const got = await dav(ctx, user, 'GET', url);
    assert.doesNotMatch(got.body, /\r\nDTSTART/);
    assert.match(got.body, /\r\nX-TICKLER-START:\d{8}\r\n/);
    assert.equal((await dav(ctx, user, 'PUT', url, got.body.replace('SUMMARY:Start day and due time', 'SUMMARY:Edited'))).statusCode, 204);
    const task = (await api(ctx, token, '/3/tasks/get.php', { fields: 'startdate,starttime,duedate,duetime' })).json<Array<Record<string, unknown>>>().find((x) => x['id'] === t?.id);
    assert.deepEqual([task?.['title'], task?.['startdate'], task?.['starttime'], task?.['duedate'], task?.['duetime']], ['Edited', fields.startdate, 0, fields.duedate, fields.duetime]);
  });

  it('If-Match compares strongly (a weak ETag never matches); GET\'s If-None-Match takes * and weak ETags', async () => {
    const url = `${user.home}tasks/strong.ics`;
    assert.equal((await dav(ctx, user, 'PUT', url, vtodo('strong', 'SUMMARY:Strong'))).statusCode, 201);
    const etag = String((await dav(ctx, user, 'GET', url)).headers['etag']);
    assert.equal((await dav(ctx, user, 'PUT', url, vtodo('strong', 'SUMMARY:Weak'), { 'if-match': `W/${etag}` })).statusCode, 412);
    assert.equal((await dav(ctx, user, 'DELETE', url, undefined, { 'if-match': `W/${etag}` })).statusCode, 412);
    assert.equal((await dav(ctx, user, 'PUT', url, vtodo('strong', 'SUMMARY:Strong too'), { 'if-match': `"0", ${etag}` })).statusCode, 204);
    const now = String((await dav(ctx, user, 'GET', url)).headers['etag']);
    for (const inm of ['*', `W/${now}`, `"0", ${now}`]) assert.equal((await dav(ctx, user, 'GET', url, undefined, { 'if-none-match': inm })).statusCode, 304, inm);
    assert.equal((await dav(ctx, user, 'GET', url, undefined, { 'if-none-match': '"0"' })).statusCode, 200);
  });

  it('names and UIDs holding control characters are refused: 400 for a name, 403 valid-calendar-object-resource for a UID', async () => {
    for (const name of ['a%00b.ics', 'a%07b.ics', 'a%0Ab.ics', 'a%7Fb.ics']) {
      const res = await dav(ctx, user, 'PUT', `${user.home}tasks/${name}`, vtodo(`ctl-${name}`, 'SUMMARY:Control'));
      assert.equal(res.statusCode, 400, name);
      assert.equal((await dav(ctx, user, 'GET', `${user.home}tasks/${name}`)).statusCode, 400, name);
    }
    assert.equal((await dav(ctx, user, 'MKCALENDAR', `${user.home}bad%00list/`)).statusCode, 400, 'a calendar\'s name too');
    assert.equal((await dav(ctx, user, 'PUT', `${user.home}tasks/ctl.ics`, vtodo('ctl', 'SUMMARY:Control'))).statusCode, 201);
    assert.equal((await dav(ctx, user, 'MOVE', `${user.home}tasks/ctl.ics`, undefined, { destination: `${user.home}tasks/c%00tl.ics` })).statusCode, 400);
    for (const lines of [['UID:nul\u0000uid'], ['UID:bell\u0007uid'], ['UID:fine', 'RELATED-TO:nul\u0000parent']]) {
      const res = await dav(ctx, user, 'PUT', `${user.home}tasks/uid-ctl.ics`, vtodo('ctl-uid', 'SUMMARY:Control').replace('UID:ctl-uid', lines.join('\r\n')));
      assert.equal(res.statusCode, 403, JSON.stringify(lines));
      assert.match(res.body, /valid-calendar-object-resource/);
    }
    const multiget = await dav(ctx, user, 'REPORT', `${user.home}tasks/`, `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><d:href>${user.home}tasks/a%00b.ics</d:href></c:calendar-multiget>`);
    assert.match(String(multistatusOf(multiget).responses[0]?.status), /404/, 'no object holds such a name');
  });

  it('MOVE to another host answers 502 Bad Gateway (RFC 4918 9.9.4); PUBLIC_URL\'s host and the request\'s are this server', async () => {
    const url = `${user.home}tasks/far.ics`;
    assert.equal((await dav(ctx, user, 'PUT', url, vtodo('far', 'SUMMARY:Far'))).statusCode, 201);
    assert.equal((await dav(ctx, user, 'MKCALENDAR', `${user.home}far-away/`)).statusCode, 201);
    const far = await dav(ctx, user, 'MOVE', url, undefined, { destination: `https://elsewhere.example.org${user.home}far-away/far.ics` });
    assert.equal(far.statusCode, 502);
    assert.equal((await dav(ctx, user, 'GET', url)).statusCode, 200, 'nothing moved');
    assert.equal((await dav(ctx, user, 'MOVE', url, undefined, { destination: `${ctx.config.publicUrl}${user.home}far-away/far.ics` })).statusCode, 201);
    assert.equal((await dav(ctx, user, 'MOVE', `${user.home}far-away/far.ics`, undefined, { destination: `http://tickler.internal:8080${url}`, host: 'tickler.internal:8080' })).statusCode, 201);
  });

  it('DELETE deletes the task (a tombstone in tasks/deleted), MOVE moves it to another folder', async () => {
    await api(ctx, token, '/3/folders/add.php', { name: 'Garden' });
    const cals = multistatusOf(await dav(ctx, user, 'PROPFIND', user.home, PROPFIND('<d:displayname/>'), { depth: '1' })).responses;
    const garden = cals.find((r) => r.props['displayname'] === 'Garden')?.href as string;
    const url = `${user.home}tasks/mv.ics`;
    await dav(ctx, user, 'PUT', url, vtodo('mv', 'SUMMARY:Rake leaves'));
    const move = await dav(ctx, user, 'MOVE', url, undefined, { destination: `http://localhost${garden}mv.ics` });
    assert.equal(move.statusCode, 201, move.body);
    const folders = (await api(ctx, token, '/3/folders/get.php')).json<Array<{ id: number; name: string }>>();
    assert.equal((await byTitle('Rake leaves'))?.folder, folders.find((f) => f.name === 'Garden')?.id);
    assert.equal((await dav(ctx, user, 'GET', url)).statusCode, 404);
    assert.equal((await dav(ctx, user, 'GET', `${garden}mv.ics`)).statusCode, 200);
    const id = (await byTitle('Rake leaves'))?.id;
    assert.equal((await dav(ctx, user, 'DELETE', `${garden}mv.ics`)).statusCode, 204);
    assert.equal(await byTitle('Rake leaves'), undefined);
    const [, ...gone] = (await api(ctx, token, '/3/tasks/deleted.php')).json<Array<{ id: number }>>();
    assert.ok(gone.some((g) => g.id === id));
  });

  it('a task whose text holds control characters is listed as well-formed XML, its VTODO without them', async () => {
    const [t] = (await tasksCall(ctx, token, 'add', [{ title: 'bell\u0007 vt\u000b', note: 'one\u0001\ttwo' }])).json<Array<{ id: number }>>();
    const res = await dav(ctx, user, 'PROPFIND', `${user.home}tasks/`, PROPFIND('<d:getetag/><c:calendar-data/>'), { depth: '1' });
    assert.equal(res.statusCode, 207);
    const listed = multistatusOf(res).responses.find((r) => r.href.endsWith(`/tickler-${t?.id}.ics`));
    const data = String(listed?.props['calendar-data']);
    assert.match(data, /\r\nSUMMARY:bell vt\r\n/, 'RFC 5545 TEXT holds no control characters but HTAB');
    assert.match(data, /\r\nDESCRIPTION:one\ttwo\r\n/);
    const got = await dav(ctx, user, 'GET', `${user.home}tasks/tickler-${t?.id}.ics`);
    assert.doesNotMatch(got.body, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/);
  });

  it('a subtask\'s RELATED-TO names its parent by UID, both ways', async () => {
    await dav(ctx, user, 'PUT', `${user.home}tasks/parent.ics`, vtodo('parent-uid', 'SUMMARY:Trip'));
    await dav(ctx, user, 'PUT', `${user.home}tasks/child.ics`, vtodo('child-uid', 'SUMMARY:Pack', 'RELATED-TO;RELTYPE=PARENT:parent-uid'));
    const parent = await byTitle('Trip');
    assert.equal((await byTitle('Pack'))?.parent, parent?.id);
    const [t] = (await tasksCall(ctx, token, 'add', [{ title: 'Book train', parent: parent?.id }])).json<Array<{ id: number }>>();
    assert.match((await dav(ctx, user, 'GET', `${user.home}tasks/tickler-${t?.id}.ics`)).body, /RELATED-TO;RELTYPE=PARENT:parent-uid/);
  });
});
