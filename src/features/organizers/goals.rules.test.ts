import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { testContext } from '../../../test/harness.js';
import { resolveContributes } from './goal-rules.js';
import { add, call, newUser, setup } from './organizers.test-kit.js';

interface GoalJson {
  id: number;
  name: string;
  level: number;
  contributes: number;
  archived: number;
  private: number;
  note: string;
}

describe('goals: level, contributes, archived, note', () => {
  const env = setup(() => testContext());

  const goal = (form: Record<string, string>): Promise<GoalJson> => add(env.ctx, env.user, 'goal', form) as Promise<unknown> as Promise<GoalJson>;
  const edit = async (form: Record<string, string>): Promise<GoalJson & { errorCode?: number; errorDesc?: string }> => {
    const out = (await call(env.ctx, env.user, 'goal', 'edit', form)).json() as GoalJson[] | (GoalJson & { errorCode: number });
    return Array.isArray(out) ? (out[0] as GoalJson) : out;
  };
  const listed = async (): Promise<Map<number, GoalJson>> =>
    new Map(((await call(env.ctx, env.user, 'goal', 'get')).json() as GoalJson[]).map((g) => [g.id, g]));

  it('level defaults to 0 and accepts 0, 1, 2 in lenient forms', async () => {
    assert.equal((await goal({ name: 'Default level' })).level, 0);
    assert.equal((await goal({ name: 'Level 1.0', level: '1.0' })).level, 1);
    assert.equal((await goal({ name: 'Level " 2 "', level: ' 2 ' })).level, 2);
  });

  it('411 (malformed) for a level outside 0–2, on add and edit, naming the field', async () => {
    for (const level of ['3', '-1', 'high', '5']) {
      const res = (await call(env.ctx, env.user, 'goal', 'add', { name: `Bad level ${level}`, level })).json() as { errorCode: number; errorDesc: string };
      assert.equal(res.errorCode, 411, level);
      assert.match(res.errorDesc, /^Malformed request: level must be 0, 1 or 2/);
    }
    const g = await goal({ name: 'Level to break' });
    assert.equal((await edit({ id: String(g.id), level: '7' })).errorCode, 411);
  });

  it('contributes keeps a goal of a higher rank and resets everything else to 0', async () => {
    const life = await goal({ name: 'Be healthy', level: '0' });
    const long = await goal({ name: 'Run a marathon', level: '1', contributes: String(life.id) });
    assert.equal(long.contributes, life.id);
    const short = await goal({ name: 'Run 10 km', level: '2', contributes: String(long.id) });
    assert.equal(short.contributes, long.id, 'short-term → long-term');
    assert.equal((await goal({ name: 'Skip a level', level: '2', contributes: String(life.id) })).contributes, life.id);
    // Same level, lower rank, unknown, garbage, negative: all 0.
    assert.equal((await goal({ name: 'Same level', level: '1', contributes: String(long.id) })).contributes, 0);
    assert.equal((await goal({ name: 'Upwards', level: '0', contributes: String(short.id) })).contributes, 0);
    assert.equal((await goal({ name: 'Unknown', level: '2', contributes: '999' })).contributes, 0);
    assert.equal((await goal({ name: 'Garbage', level: '2', contributes: 'abc' })).contributes, 0);
    assert.equal((await goal({ name: 'Negative', level: '2', contributes: '-1' })).contributes, 0);
    // Not a whole id: "1.5" must not name goal 1.
    assert.equal((await goal({ name: 'A fraction', level: '2', contributes: `${long.id}.5` })).contributes, 0);
    assert.equal((await goal({ name: 'Past the largest id', level: '2', contributes: '3000000000' })).contributes, 0);
  });

  it("another account's goal is never a valid contributes target", async () => {
    const other = await newUser(env.ctx);
    await add(env.ctx, other, 'goal', { name: 'Theirs first', level: '0' });
    const theirs = await add(env.ctx, other, 'goal', { name: 'Theirs', level: '0' });
    assert.equal(theirs['id'], 2);
    // The fresh account's only goal is 1, so 2 is neither its own id (reset before any lookup) nor
    // one of its goals: only a lookup that ignored the account would accept the other's lifetime goal.
    const fresh = await newUser(env.ctx);
    const solo = await add(env.ctx, fresh, 'goal', { name: 'Solo', level: '2', contributes: String(theirs['id']) });
    assert.equal(solo['id'], 1);
    assert.equal(solo['contributes'], 0);
  });

  it('a goal never contributes to itself, and no edit can make a cycle', async () => {
    const a = await goal({ name: 'Cycle A', level: '1' });
    assert.equal((await edit({ id: String(a.id), contributes: String(a.id), level: '2' })).contributes, 0);
    // A (2) → B (1). Raising A to lifetime drops its link; then B → A is allowed; A → B is not.
    const b = await goal({ name: 'Cycle B', level: '1' });
    assert.equal((await edit({ id: String(a.id), contributes: String(b.id) })).contributes, b.id);
    const raised = await edit({ id: String(a.id), level: '0' });
    assert.equal(raised.contributes, 0, 'a lifetime goal contributes to nothing');
    assert.equal((await edit({ id: String(b.id), contributes: String(a.id) })).contributes, a.id);
    const back = await edit({ id: String(a.id), contributes: String(b.id) });
    assert.equal(back.errorCode, 406, 'contributes reset to 0 where it already was: nothing edited');
    const all = await listed();
    assert.equal(all.get(a.id)?.contributes, 0);
    assert.equal(all.get(b.id)?.contributes, a.id);
  });

  it('lowering the rank of a goal releases the goals that no longer rank below it', async () => {
    const top = await goal({ name: 'Top', level: '0' });
    const mid = await goal({ name: 'Mid', level: '1', contributes: String(top.id) });
    const low = await goal({ name: 'Low', level: '2', contributes: String(top.id) });
    // Top becomes long-term: Mid (long-term too) must let go, Low (short-term) may stay.
    await edit({ id: String(top.id), level: '1' });
    let all = await listed();
    assert.equal(all.get(mid.id)?.contributes, 0);
    assert.equal(all.get(low.id)?.contributes, top.id);
    await edit({ id: String(top.id), level: '2' });
    all = await listed();
    assert.equal(all.get(low.id)?.contributes, 0);
  });

  it('an edit that only re-sends a contributes value that resets to 0 is "nothing edited"', async () => {
    const g = await goal({ name: 'Alone', level: '2' });
    const res = await edit({ id: String(g.id), contributes: '12345' });
    assert.equal(res.errorCode, 406);
  });

  it('archived is settable on edit only, and archived goals stay valid targets', async () => {
    const g = await goal({ name: 'To archive', level: '0', archived: '1' });
    assert.equal(g.archived, 0, 'add ignores archived');
    const archived = await edit({ id: String(g.id), archived: '1' });
    assert.equal(archived.archived, 1);
    assert.equal((await goal({ name: 'Under archived', level: '1', contributes: String(g.id) })).contributes, g.id);
    assert.equal((await edit({ id: String(g.id), archived: '0' })).archived, 0);
  });

  it('flags take 0/1 in lenient forms and refuse anything else with 411 (malformed)', async () => {
    assert.equal((await goal({ name: 'Flag true', private: 'true' })).private, 1);
    assert.equal((await goal({ name: 'Flag 1.0', private: '1.0' })).private, 1);
    assert.equal((await goal({ name: 'Flag empty', private: '' })).private, 0);
    const bad = (await call(env.ctx, env.user, 'goal', 'add', { name: 'Flag 2', private: '2' })).json() as { errorCode: number; errorDesc: string };
    assert.equal(bad.errorCode, 411);
    assert.match(bad.errorDesc, /^Malformed request: private must be 0 or 1/);
  });

  it('the note holds up to 32,768 bytes of UTF-8, kept exactly; one byte more is 411 (malformed)', async () => {
    const exact = '€'.repeat(10922) + 'ab'; // 3 × 10922 + 2 = 32768 bytes
    assert.equal(Buffer.byteLength(exact), 32768);
    const g = await goal({ name: 'Long note', note: exact });
    assert.equal(g.note, exact);
    const over = (await call(env.ctx, env.user, 'goal', 'add', { name: 'Too long note', note: `${exact}x` })).json() as { errorCode: number; errorDesc: string };
    assert.equal(over.errorCode, 411);
    assert.match(over.errorDesc, /note is 32769 bytes long, at most 32768/);
    // White space and an empty note are values: clearing a note is an edit.
    const spaced = await goal({ name: 'Spaced note', note: '  two spaces  ' });
    assert.equal(spaced.note, '  two spaces  ');
    assert.equal((await edit({ id: String(spaced.id), note: '' })).note, '');
  });
});

describe('resolveContributes: lookups', () => {
  const env = setup(() => testContext());

  it('looks the target up on add and when contributes or level changes, not on other edits', async () => {
    const target = await add(env.ctx, env.user, 'goal', { name: 'Target', level: '0' });
    const stored = { id: 99, name: 'Mine', level: 2, contributes: target['id'] as number, archived: 0, private: 0, note: '' };
    const renamed = { ...stored, name: 'Renamed' };
    await env.ctx.deps.store.transaction(async (tx) => {
      // A spy on the real store: every lookup reaches the database and answers what it holds.
      const get = mock.method(tx.organizers, 'get');
      const pk = env.user.account.pk;
      assert.deepEqual(await resolveContributes(tx, pk, renamed, stored), renamed);
      assert.equal(get.mock.callCount(), 0, 'an edit keeping contributes and level trusts the stored pair');
      assert.deepEqual(await resolveContributes(tx, pk, { ...stored, level: 1 }, stored), { ...stored, level: 1 });
      assert.equal(get.mock.callCount(), 1, 'a level change re-checks the target');
      assert.deepEqual(await resolveContributes(tx, pk, { ...stored, contributes: 4242 }, stored), { ...stored, contributes: 0 });
      assert.equal(get.mock.callCount(), 2, 'a new target is checked (this one does not exist: reset to 0)');
      assert.deepEqual(await resolveContributes(tx, pk, stored, null), stored);
      assert.equal(get.mock.callCount(), 3, 'an add is checked');
      get.mock.restore();
    });
  });
});
