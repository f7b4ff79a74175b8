import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, settledStamps, signIn, tasksCall, testContext, type TestContext } from '../../../test/harness.js';

type Json = Record<string, unknown>;

/**
 * Conditional edits (docs/sync.md): a tasks/edit item with `if_modified` is made only on the task
 * as the app last saw it; otherwise that item is refused inline (1106) with nothing of it changed,
 * and the other items of the call go on.
 */
describe('tasks/edit with if_modified', () => {
  let ctx: TestContext;
  let phone: string;
  let desktop: string;

  before(async () => {
    ctx = await testContext();
    const signed = await signIn(ctx, { pro: 1 });
    phone = signed.token;
    desktop = (await signIn(ctx, { account: signed.account, app: signed.app })).token;
  });
  after(() => ctx.close());

  const add = async (titles: string[]) => (await tasksCall(ctx, phone, 'add', titles.map((title) => ({ title })))).json() as Json[];
  const edit = async (token: string, tasks: unknown[], extra: Record<string, string> = {}) => (await tasksCall(ctx, token, 'edit', tasks, extra)).json() as Json[];
  const stored = async (id: unknown) => ((await api(ctx, phone, '/3/tasks/get.php', { id: String(id), fields: 'note' })).json() as Json[])[1] as Json;

  it('in one batch: the item made on the stored version is written, the stale one refused inline with 1106, the unconditional one written', async () => {
    const [a, b, c] = await add(['A', 'B', 'C']);
    ctx.clock.advance(10);
    // The desktop changes B after the phone read it.
    const [theirs] = await edit(desktop, [{ id: b?.['id'], title: 'B by the desktop' }]);
    ctx.clock.advance(10);
    const results = await edit(phone, [
      { id: a?.['id'], if_modified: a?.['modified'], title: 'A by the phone' },
      { id: b?.['id'], if_modified: b?.['modified'], title: 'B by the phone', note: 'lost?' },
      { id: c?.['id'], title: 'C by the phone' },
    ]);
    assert.equal(results[0]?.['title'], 'A by the phone');
    assert.deepEqual(results[1], {
      errorCode: 1106,
      errorDesc: `The task was changed since if_modified: its modified is ${theirs?.['modified']}`,
      ref: String(b?.['id']),
    });
    assert.equal(results[2]?.['title'], 'C by the phone');
    // Nothing of the refused item changed: B is as the desktop left it, its stamp too.
    assert.deepEqual(await stored(b?.['id']), { id: b?.['id'], title: 'B by the desktop', modified: theirs?.['modified'], completed: 0, note: '' });
    assert.equal((await stored(a?.['id']))['modified'], results[0]?.['modified']);
    // The app fetched B again and edits on what it now holds: accepted.
    const [retried] = await edit(phone, [{ id: b?.['id'], if_modified: theirs?.['modified'], note: 'merged' }]);
    assert.equal(retried?.['note'], undefined, 'fields come back only when asked');
    assert.equal((await stored(b?.['id']))['note'], 'merged');
  });

  it('a call whose only item is stale changes nothing: no stamp of the account moves', async () => {
    const [t] = await add(['Only']);
    ctx.clock.advance(10);
    await edit(desktop, [{ id: t?.['id'], star: 1 }]);
    const before = await settledStamps(ctx, phone);
    ctx.clock.advance(10);
    const [refused] = await edit(phone, [{ id: t?.['id'], if_modified: t?.['modified'], title: 'Too late' }]);
    assert.equal(refused?.['errorCode'], 1106);
    assert.deepEqual(await settledStamps(ctx, phone), before);
  });

  it('two items of one call on one task: the second, made on the version the first replaced, is refused', async () => {
    const [t] = await add(['Twice']);
    ctx.clock.advance(10);
    const results = await edit(phone, [
      { id: t?.['id'], if_modified: t?.['modified'], title: 'First' },
      { id: t?.['id'], if_modified: t?.['modified'], title: 'Second' },
    ]);
    assert.equal(results[0]?.['title'], 'First');
    assert.equal(results[1]?.['errorCode'], 1106);
    assert.equal((await stored(t?.['id']))['title'], 'First');
  });

  it('reads the timestamp leniently (text, a number with .0); null and "" ask nothing; anything else is 611 and changes nothing', async () => {
    const [t] = await add(['Lenient']);
    const m = t?.['modified'] as number;
    ctx.clock.advance(10);
    const [asText] = await edit(phone, [{ id: t?.['id'], if_modified: String(m), title: 'As text' }]);
    assert.equal(asText?.['title'], 'As text');
    const now = asText?.['modified'] as number;
    ctx.clock.advance(10);
    const [asFloat] = await edit(phone, [{ id: t?.['id'], if_modified: `${now}.0`, title: 'As float' }]);
    assert.equal(asFloat?.['title'], 'As float');
    ctx.clock.advance(10);
    const unconditional = await edit(phone, [
      { id: t?.['id'], if_modified: null, title: 'No condition' },
      { id: t?.['id'], if_modified: '', star: 1 },
    ]);
    assert.deepEqual(unconditional.map((r) => r['title']), ['No condition', 'No condition']);
    const bad = await edit(phone, ['yesterday', -1, true, { at: m }, [m]].map((v) => ({ id: t?.['id'], if_modified: v, title: 'Bad' })));
    assert.deepEqual(bad.map((r) => [r['errorCode'], r['ref']]), Array(5).fill([611, String(t?.['id'])]));
    assert.equal((await stored(t?.['id']))['title'], 'No condition');
  });

  it('answers 1106 in XML as an inline error element', async () => {
    const [t] = await add(['In XML']);
    ctx.clock.advance(10);
    await edit(desktop, [{ id: t?.['id'], title: 'Moved on' }]);
    const res = await tasksCall(ctx, phone, 'edit', [{ id: t?.['id'], if_modified: t?.['modified'], title: 'Stale' }], { f: 'xml' });
    assert.match(res.body, new RegExp(`<error id="1106" ref="${t?.['id']}">The task was changed since if_modified: its modified is \\d+</error>`));
  });
});
