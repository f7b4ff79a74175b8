import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { api, settledStamps, signIn, tasksCall, testContext, type TestContext } from '../../../test/harness.js';

type Json = Record<string, unknown>;
const DAY = 86400;
/** 12:00 GMT, Monday 2 Feb 2026. */
const MON = Date.UTC(2026, 1, 2, 12) / 1000;
const FIELDS = 'duedate,startdate,duetime,repeat,previous,parent';

describe('repeating tasks: reschedule on completion', () => {
  let ctx: TestContext;
  let token: string;

  before(async () => {
    ctx = await testContext();
    // "Today" is Wednesday 4 Feb 2026 (the completion day in most tests).
    ctx.clock.set(Date.UTC(2026, 1, 4, 15, 30) );
    ({ token } = await signIn(ctx, { pro: 1 }));
  });
  after(() => ctx.close());

  const today = () => Math.floor(ctx.clock.now() / 1000);
  const add = async (task: Json) => ((await tasksCall(ctx, token, 'add', [{ title: 'Repeats', ...task }], { fields: FIELDS })).json() as Json[])[0] as Json;
  const complete = async (id: unknown, extra: Record<string, string> = { reschedule: '1' }, item: Json = {}) =>
    ((await tasksCall(ctx, token, 'edit', [{ id, completed: today(), ...item }], { fields: FIELDS, ...extra })).json() as Json[])[0] as Json;
  const byId = async (id: unknown) => ((await api(ctx, token, '/3/tasks/get.php', { id: String(id), fields: FIELDS })).json() as Json[])[1];
  const copyOf = async (id: unknown) => {
    const rows = ((await api(ctx, token, '/3/tasks/get.php', { fields: FIELDS })).json() as Json[]).slice(1);
    return rows.filter((r) => r['previous'] === id);
  };

  it('stays open with the due date moved; a completed copy with a new id points back with previous', async () => {
    const t = await add({ duedate: MON, repeat: 'FREQ=DAILY' });
    const r = await complete(t['id']);
    assert.deepEqual([r['id'], r['completed'], r['duedate'], r['repeat']], [t['id'], 0, MON + DAY, 'FREQ=DAILY']);
    const [copy, ...more] = await copyOf(t['id']);
    assert.equal(more.length, 0);
    assert.ok(copy);
    assert.notEqual(copy['id'], t['id']);
    assert.equal(copy['completed'], Math.floor(today() / DAY) * DAY + 43200);
    assert.equal(copy['duedate'], MON, 'the copy keeps the due date that was completed');
    assert.equal(copy['repeat'], '', 'the copy is history: it does not repeat');
    // Both changes count for sync: they carry the call's stamp, which is lastedit_task.
    const stamps = await settledStamps(ctx, token);
    assert.equal(copy['modified'], stamps['lastedit_task']);
    assert.equal(r['modified'], stamps['lastedit_task']);
  });

  it('reschedule inside the task object works like the top-level parameter', async () => {
    const t = await add({ duedate: MON, repeat: 'FREQ=WEEKLY' });
    const r = await complete(t['id'], {}, { reschedule: 1 });
    assert.equal(r['duedate'], MON + 7 * DAY);
  });

  it('without reschedule, without a due date, or with a rule not understood, completion just completes', async () => {
    const plain = await add({ duedate: MON, repeat: 'FREQ=DAILY' });
    assert.notEqual((await complete(plain['id'], {}))['completed'], 0);
    const undated = await add({ repeat: 'FREQ=DAILY' });
    assert.notEqual((await complete(undated['id']))['completed'], 0);
    const odd = await add({ duedate: MON, repeat: 'FREQ=HOURLY;INTERVAL=3' });
    const done = await complete(odd['id']);
    assert.notEqual(done['completed'], 0);
    assert.equal(done['repeat'], 'FREQ=HOURLY;INTERVAL=3', 'kept as sent');
    assert.deepEqual(await copyOf(plain['id']), []);
    assert.deepEqual(await copyOf(odd['id']), []);
  });

  it('reads a bare frequency word and an RRULE: prefix, and returns the text as sent', async () => {
    const weekly = await add({ duedate: MON, repeat: 'WEEKLY' });
    assert.deepEqual([(await complete(weekly['id']))['duedate'], weekly['repeat']], [MON + 7 * DAY, 'WEEKLY']);
    const prefixed = await add({ duedate: MON, repeat: 'RRULE:FREQ=MONTHLY;BYDAY=-1FR' });
    const r = await complete(prefixed['id']);
    assert.equal(r['duedate'], Date.UTC(2026, 1, 27, 12) / 1000, 'the last Friday of February');
    assert.equal(r['repeat'], 'RRULE:FREQ=MONTHLY;BYDAY=-1FR');
  });

  it('FROMCOMP repeats from the completion date, FASTFORWARD lands after today', async () => {
    const old = Date.UTC(2025, 0, 6, 12) / 1000;
    const fromComp = await add({ duedate: old, repeat: 'FREQ=DAILY;INTERVAL=3;FROMCOMP' });
    assert.equal((await complete(fromComp['id']))['duedate'], Date.UTC(2026, 1, 7, 12) / 1000);
    const ff = await add({ duedate: Date.UTC(1990, 0, 1, 12) / 1000, repeat: 'FREQ=DAILY;FASTFORWARD' });
    assert.equal((await complete(ff['id']))['duedate'], Date.UTC(2026, 1, 5, 12) / 1000, 'the first day after today');
    const oneStep = await add({ duedate: Date.UTC(1990, 0, 1, 12) / 1000, repeat: 'FREQ=DAILY' });
    assert.equal((await complete(oneStep['id']))['duedate'], Date.UTC(1990, 0, 2, 12) / 1000, 'without FASTFORWARD: one step');
  });

  it('COUNT and UNTIL: once the series is used up, completion completes and stops', async () => {
    const t = await add({ duedate: MON, repeat: 'FREQ=DAILY;COUNT=2' });
    const first = await complete(t['id']);
    assert.deepEqual([first['completed'], first['duedate']], [0, MON + DAY]);
    const second = await complete(t['id']);
    assert.notEqual(second['completed'], 0, 'the second of two occurrences ends the series');
    assert.equal(second['duedate'], MON + DAY);
    const until = await add({ duedate: MON, repeat: 'FREQ=WEEKLY;UNTIL=20260205' });
    assert.notEqual((await complete(until['id']))['completed'], 0);
  });

  it('changing the rule starts a new series (COUNT counts again)', async () => {
    const t = await add({ duedate: MON, repeat: 'FREQ=DAILY;COUNT=2' });
    await complete(t['id']);
    const r = await complete(t['id'], { reschedule: '1' }, { repeat: 'FREQ=DAILY;COUNT=3' });
    assert.equal(r['completed'], 0);
  });

  it('the start date keeps its distance; due and start times keep their clock time', async () => {
    const nine = 9 * 3600;
    const t = await add({ duedate: MON, startdate: MON - 2 * DAY, duetime: MON - 43200 + nine, repeat: 'FREQ=WEEKLY' });
    const r = await complete(t['id']);
    assert.equal(r['duedate'], MON + 7 * DAY);
    assert.equal(r['startdate'], MON + 5 * DAY);
    assert.equal(r['duetime'], MON + 7 * DAY - 43200 + nine);
  });

  it('month ends: BYMONTHDAY=31 skips months without a 31st', async () => {
    const t = await add({ duedate: Date.UTC(2026, 0, 31, 12) / 1000, repeat: 'FREQ=MONTHLY;BYMONTHDAY=31' });
    assert.equal((await complete(t['id']))['duedate'], Date.UTC(2026, 2, 31, 12) / 1000);
  });

  it('subtasks repeating with their PARENT reopen and move with it', async () => {
    const parent = await add({ duedate: MON, repeat: 'FREQ=WEEKLY' });
    const withParent = await add({ parent: parent['id'], duedate: MON, repeat: 'PARENT' });
    const ownRule = await add({ parent: parent['id'], duedate: MON, repeat: '' });
    await complete(withParent['id'], {});
    await complete(ownRule['id'], {});
    await complete(parent['id']);
    const moved = await byId(withParent['id']);
    assert.deepEqual([moved?.['completed'], moved?.['duedate']], [0, MON + 7 * DAY]);
    const untouched = await byId(ownRule['id']);
    assert.notEqual(untouched?.['completed'], 0);
    assert.equal(untouched?.['duedate'], MON);
    // A PARENT subtask completed on its own, with reschedule, just completes.
    const alone = await complete(withParent['id']);
    assert.notEqual(alone['completed'], 0);
  });

  it('top-level reschedule=true works like reschedule=1', async () => {
    const t = await add({ duedate: MON, repeat: 'FREQ=DAILY' });
    assert.equal((await complete(t['id'], { reschedule: 'true' }))['duedate'], MON + DAY);
  });

  it("a repeating subtask's completed copy is one more child: the parent counts as changed", async () => {
    const parent = await add({ title: 'Parent' });
    const child = await add({ parent: parent['id'], duedate: MON, repeat: 'FREQ=DAILY' });
    ctx.clock.advance(10);
    await complete(child['id']);
    const [copy] = await copyOf(child['id']);
    assert.equal(copy?.['parent'], parent['id']);
    const stamps = await settledStamps(ctx, token);
    const after = (await api(ctx, token, '/3/tasks/get.php', { id: String(parent['id']), fields: 'children' })).json() as Json[];
    assert.equal(after[1]?.['modified'], stamps['lastedit_task'], 'clients fetching changes get the new children count');
    assert.equal(after[1]?.['children'], 2);
  });

  it('PARENT subtasks that the move does not change keep their stamp', async () => {
    const parent = await add({ duedate: MON, repeat: 'FREQ=WEEKLY' });
    const open = await add({ parent: parent['id'], repeat: 'PARENT' });
    ctx.clock.advance(10);
    await complete(parent['id']);
    assert.equal((await byId(open['id']))?.['modified'], open['modified'], 'open and undated: nothing to move');
  });

  it('answers in XML too', async () => {
    const t = await add({ duedate: MON, repeat: 'DAILY' });
    const res = await tasksCall(ctx, token, 'edit', [{ id: t['id'], completed: today() }], { reschedule: '1', fields: 'duedate', f: 'xml' });
    const parsed = new XMLParser({ parseTagValue: false }).parse(res.body) as { tasks: { task: Record<string, string> } };
    assert.equal(parsed.tasks.task['completed'], '0');
    assert.equal(parsed.tasks.task['duedate'], String(MON + DAY));
  });
});
