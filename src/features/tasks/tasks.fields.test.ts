import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, createOrganizer, signIn, tasksCall, testContext, type TestApp, type TestContext } from '../../../test/harness.js';
import type { Account } from '../../storage/store.js';

type Json = Record<string, unknown>;
const DAY = 86400;
const NOON_2023_02_21 = 1676980800;

describe('task field rules', () => {
  let ctx: TestContext;
  let pro: Account;
  let free: Account;
  let app: TestApp;
  let token: string;
  let freeToken: string;

  before(async () => {
    ctx = await testContext();
    ({ account: pro, app, token } = await signIn(ctx, { pro: 2 }));
    ({ account: free, token: freeToken } = await signIn(ctx, { pro: 0, app }));
  });
  after(() => ctx.close());

  async function add(task: Json, fields = '', t = token): Promise<Json> {
    const res = await tasksCall(ctx, t, 'add', [{ title: 'T', ...task }], fields ? { fields } : {});
    return (res.json() as Json[])[0] as Json;
  }

  it('due and start dates come back at 12:00 GMT of their day, whatever time was sent', async () => {
    for (const sent of [NOON_2023_02_21 - 12 * 3600, NOON_2023_02_21, NOON_2023_02_21 + 11 * 3600 + 59 * 60]) {
      const t = await add({ duedate: sent, startdate: sent }, 'duedate,startdate');
      assert.equal(t['duedate'], NOON_2023_02_21, String(sent));
      assert.equal(t['startdate'], NOON_2023_02_21);
    }
  });

  it('completion dates come back at noon too', async () => {
    const t = await add({ completed: NOON_2023_02_21 + 5000 });
    assert.equal(t['completed'], NOON_2023_02_21);
  });

  it('due and start times are floating clock times on the date, or on 1 Jan 1970 without one; 0 is no time', async () => {
    const nineThirty = 9 * 3600 + 30 * 60;
    const withDate = await add({ duedate: NOON_2023_02_21, duetime: NOON_2023_02_21 - 12 * 3600 + nineThirty }, 'duedate,duetime');
    assert.equal(withDate['duetime'], NOON_2023_02_21 - 12 * 3600 + nineThirty);
    const noDate = await add({ starttime: 5 * DAY + nineThirty }, 'startdate,starttime');
    assert.equal(noDate['starttime'], nineThirty, '1 Jan 1970 09:30');
    const none = await add({ duetime: 0 }, 'duetime');
    assert.equal(none['duetime'], 0);
    // The time follows the date when only the date changes.
    const moved = (await tasksCall(ctx, token, 'edit', [{ id: withDate['id'], duedate: NOON_2023_02_21 + 3 * DAY }], { fields: 'duetime' })).json() as Json[];
    assert.equal(moved[0]?.['duetime'], NOON_2023_02_21 + 3 * DAY - 12 * 3600 + nineThirty);
  });

  it('reminders: listed values stay, others round to the nearest, free accounts get 0 or 60', async () => {
    const cases: Array<[number, number]> = [[0, 0], [45, 45], [50, 45], [53, 60], [75, 90], [100, 90], [2000, 1440], [2200, 2880], [99999, 43200], [-5, 1]];
    for (const [sent, expected] of cases) assert.equal((await add({ remind: sent }, 'remind'))['remind'], expected, String(sent));
    assert.equal((await add({ remind: 1440 }, 'remind', freeToken))['remind'], 60);
    assert.equal((await add({ remind: 0 }, 'remind', freeToken))['remind'], 0);
  });

  it('enumerations out of range are refused with 611 naming the field; their edges are accepted', async () => {
    for (const [field, bad, good] of [['status', 11, 10], ['priority', -2, -1], ['priority', 4, 3], ['duedatemod', 4, 3], ['star', 2, 1], ['status', 'soon', 0]] as const) {
      const e = await add({ [field]: bad });
      assert.equal(e['errorCode'], 611, `${field}=${bad}`);
      assert.match(e['errorDesc'] as string, new RegExp(field));
      assert.equal((await add({ [field]: good }, field))[field], good);
    }
  });

  it('limits: title 255 characters, tag 250, note 32,000 bytes, meta 1,024 bytes; over a limit is a clear error, never truncation', async () => {
    const emoji = '😀';
    assert.equal((await add({ title: emoji.repeat(255) }))['title'], emoji.repeat(255), '255 characters, even of 2-unit emoji');
    assert.match((await add({ title: 'x'.repeat(256) }))['errorDesc'] as string, /title is longer than 255/);
    assert.equal((await add({ tag: 'x'.repeat(250) }, 'tag'))['tag'], 'x'.repeat(250));
    assert.match((await add({ tag: 'x'.repeat(251) }))['errorDesc'] as string, /tag is longer than 250/);
    const note = 'é'.repeat(16000);
    assert.equal((await add({ note }, 'note'))['note'], note, '32,000 bytes of two-byte characters');
    assert.match((await add({ note: `${note}x` }))['errorDesc'] as string, /note is larger than 32000 bytes/);
    assert.equal((await add({ meta: 'm'.repeat(1024) }, 'meta'))['meta'], 'm'.repeat(1024));
    assert.match((await add({ meta: 'm'.repeat(1025) }))['errorDesc'] as string, /meta is larger than 1024 bytes/);
  });

  it('tags arriving as "a,b" or "a, b" are stored as "a, b"', async () => {
    assert.equal((await add({ tag: 'work,home , ,urgent' }, 'tag'))['tag'], 'work, home, urgent');
  });

  it('folder, context, goal and location must be the account\'s own (607–610); 0 is always none', async () => {
    const ids = {
      folder: await createOrganizer(ctx, pro, 'folder', 'Inbox'),
      context: await createOrganizer(ctx, pro, 'context', 'Home'),
      goal: await createOrganizer(ctx, pro, 'goal', 'Health'),
      location: await createOrganizer(ctx, pro, 'location', 'Office'),
    };
    const theirs = await createOrganizer(ctx, free, 'context', 'Theirs');
    const t = await add(ids, 'folder,context,goal,location');
    assert.deepEqual([t['folder'], t['context'], t['goal'], t['location']], [ids.folder, ids.context, ids.goal, ids.location]);
    const codes = { folder: 607, context: 608, goal: 609, location: 610 } as const;
    for (const [field, code] of Object.entries(codes)) {
      const e = await add({ [field]: 9999 });
      assert.equal(e['errorCode'], code, field);
      assert.equal((await add({ [field]: '0' }, field))[field], 0);
    }
    // Another account's context, even with an id this account does not use.
    assert.equal((await add({ context: theirs + 50 }))['errorCode'], 608);
  });

  it('archived folders and goals stay valid targets', async () => {
    const folder = await createOrganizer(ctx, pro, 'folder', 'Old projects', { archived: 1 });
    const goal = await createOrganizer(ctx, pro, 'goal', 'Done goal', { archived: 1 });
    const t = await add({ folder, goal }, 'folder,goal');
    assert.deepEqual([t['folder'], t['goal']], [folder, goal]);
  });

  describe('subtasks', () => {
    it('need a subscription (617); a free account may still send parent 0', async () => {
      const parent = await add({}, '', freeToken);
      assert.equal((await add({ parent: parent['id'] }, '', freeToken))['errorCode'], 617);
      assert.equal((await add({ parent: 0 }, 'parent', freeToken))['parent'], 0);
    });

    it('the parent must exist in the account and be top-level (612); a deleted one is 614', async () => {
      const parent = await add({});
      const child = await add({ parent: parent['id'] }, 'parent,order');
      assert.equal(child['parent'], parent['id']);
      assert.equal((await add({ parent: child['id'] }))['errorCode'], 612, 'no subtasks of subtasks');
      assert.equal((await add({ parent: 99999 }))['errorCode'], 612);
      const gone = await add({});
      await tasksCall(ctx, token, 'delete', [gone['id']]);
      const e = await add({ parent: gone['id'] });
      assert.equal(e['errorCode'], 614);
    });

    it('children counts subtasks; order is the position among siblings; the parent counts as edited', async () => {
      const parent = await add({});
      ctx.clock.advance(10);
      const first = await add({ parent: parent['id'] }, 'order');
      const second = await add({ parent: parent['id'] }, 'order');
      assert.deepEqual([first['order'], second['order']], [1, 2]);
      const got = (await api(ctx, token, '/3/tasks/get.php', { id: String(parent['id']), fields: 'children,order' })).json() as Json[];
      assert.equal(got[1]?.['children'], 2);
      assert.equal(got[1]?.['order'], 0);
      assert.equal(got[1]?.['modified'], second['modified'], "the parent's modified moved with its new subtask");
    });
  });

  it('collaboration is not offered: assigning another account is 616, an unknown collaborator 615, oneself is fine', async () => {
    assert.equal((await add({ addedby: free.userid }))['errorCode'], 616);
    assert.equal((await add({ addedby: 'td-nobody' }))['errorCode'], 615);
    assert.equal((await add({ addedby: pro.userid }, 'addedby'))['addedby'], 0);
    assert.equal((await add({ addedby: 0 }, 'addedby'))['addedby'], 0);
  });

  it('read-only and unknown fields are ignored, never an error', async () => {
    const t = await add(
      { via: 5, timer: 100, timeron: 5, children: 9, order: 3, shared: 1, sharedwith: ['x'], attachment: [1], previous: 4, added: 1, modified: 2, bogus: 'yes' },
      'via,timer,children,order,shared,sharedwith,previous,added',
    );
    assert.deepEqual([t['via'], t['timer'], t['children'], t['order'], t['shared'], t['sharedwith'], t['previous']], [3, 0, 0, 0, 0, [], 0]);
    assert.notEqual(t['added'], 1);
    assert.notEqual(t['modified'], 2);
  });

  it('meta is private to the app that wrote it', async () => {
    const { token: other } = await signIn(ctx, { account: pro });
    const t = await add({ meta: 'mine' }, 'meta');
    const id = String(t['id']);
    const theirView = (await api(ctx, other, '/3/tasks/get.php', { id, fields: 'meta' })).json() as Json[];
    assert.equal(theirView[1]?.['meta'], null);
    await tasksCall(ctx, other, 'edit', [{ id: t['id'], meta: 'theirs' }]);
    const mine = (await api(ctx, token, '/3/tasks/get.php', { id, fields: 'meta' })).json() as Json[];
    assert.equal(mine[1]?.['meta'], 'mine');
    const theirs = (await api(ctx, other, '/3/tasks/get.php', { id, fields: 'meta' })).json() as Json[];
    assert.equal(theirs[1]?.['meta'], 'theirs');
  });
});
