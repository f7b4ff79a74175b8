import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { testContext } from '../../../test/harness.js';
import { add, call, ERROR_BASE, KIND_NAMES, newUser, setup, stamps, type Json, type User } from './organizers.test-kit.js';

describe('one account never reaches another', () => {
  const env = setup(() => testContext());
  let bob: User;
  before(async () => {
    bob = await newUser(env.ctx);
  });

  for (const kind of KIND_NAMES) {
    it(`${kind}: B cannot see, edit or delete A's records; B's id 1 is B's own`, async () => {
      const alice = env.user;
      const a1 = await add(env.ctx, alice, kind, { name: 'Alice one' });
      const a2 = await add(env.ctx, alice, kind, { name: 'Alice two' });
      assert.deepEqual((await call(env.ctx, bob, kind, 'get')).json(), []);
      const bobStamps = await stamps(env.ctx, bob);
      const aliceStamps = await stamps(env.ctx, alice);

      const edit = (await call(env.ctx, bob, kind, 'edit', { id: String(a2['id']), name: 'Hijacked' })).json() as Json;
      assert.equal(edit['errorCode'], ERROR_BASE[kind] + 5);
      assert.equal(edit['ref'], String(a2['id']));
      const del = (await call(env.ctx, bob, kind, 'delete', { id: String(a2['id']) })).json() as Json;
      assert.equal(del['errorCode'], ERROR_BASE[kind] + 5);

      // Ids are per account: B's first record is 1 too, and B's edits and deletes reach only it.
      const b1 = await add(env.ctx, bob, kind, { name: 'Alice one' });
      assert.equal(b1['id'], 1);
      assert.equal(b1['id'], a1['id']);
      await call(env.ctx, bob, kind, 'edit', { id: '1', name: 'Bob one' });
      const aliceList = (await call(env.ctx, alice, kind, 'get')).json() as Json[];
      assert.deepEqual(aliceList.map((r) => r['name']), ['Alice one', 'Alice two']);
      assert.deepEqual((await call(env.ctx, bob, kind, 'delete', { id: '1' })).json(), { deleted: 1 });
      assert.equal(((await call(env.ctx, alice, kind, 'get')).json() as Json[]).length, 2);
      assert.deepEqual(await stamps(env.ctx, alice), aliceStamps, "B's writes never move A's stamps");
      assert.notDeepEqual(await stamps(env.ctx, bob), bobStamps);
    });
  }

  it('deleted ids are never handed out again', async () => {
    const user = await newUser(env.ctx);
    const first = await add(env.ctx, user, 'context', { name: 'First' });
    await call(env.ctx, user, 'context', 'delete', { id: String(first['id']) });
    assert.equal((await add(env.ctx, user, 'context', { name: 'First' }))['id'], (first['id'] as number) + 1);
  });
});

describe('scopes', () => {
  const env = setup(() => testContext(), false);

  for (const kind of KIND_NAMES) {
    it(`${kind}: get needs tasks; add, edit and delete need write`, async () => {
      const reader = await newUser(env.ctx, 'basic tasks');
      assert.equal((await call(env.ctx, reader, kind, 'get')).statusCode, 200);
      for (const op of ['add', 'edit', 'delete'] as const) {
        const res = await call(env.ctx, reader, kind, op, { id: '1', name: 'x' });
        assert.equal(res.statusCode, 401, op);
        assert.equal((res.json() as Json)['errorCode'], 2);
        assert.match((res.json() as { errorDesc: string }).errorDesc, /"write"/);
      }
      const basicOnly = await newUser(env.ctx, 'basic write');
      assert.equal((await call(env.ctx, basicOnly, kind, 'get')).statusCode, 401);
    });
  }
});

describe('names', () => {
  const env = setup(() => testContext());

  const UNICODE = ['🏠 Home 🏡', 'Café', 'עבודה', 'العمل', '仕事', 'Z̤͔ͧ̑̓ä͖̭̈̇lg̭̲͊o'];

  for (const kind of KIND_NAMES) {
    it(`${kind}: unicode names round-trip in JSON and XML`, async () => {
      for (const name of UNICODE) assert.equal((await add(env.ctx, env.user, kind, { name }))['name'], name);
      const listed = (await call(env.ctx, env.user, kind, 'get')).json() as Json[];
      assert.deepEqual(listed.map((r) => r['name']).slice(-UNICODE.length), UNICODE);
      const xml = (await call(env.ctx, env.user, kind, 'get', { f: 'xml' })).body;
      for (const name of UNICODE) assert.ok(xml.includes(`<name>${name}</name>`), name);
    });

    it(`${kind}: names are unique without regard to case, spaces and Unicode normal form; shown trimmed as sent`, async () => {
      const rec = await add(env.ctx, env.user, kind, { name: '  Work  ' });
      assert.equal(rec['name'], 'Work');
      for (const dup of ['work', ' WORK ', 'wORK\t']) {
        assert.equal(((await call(env.ctx, env.user, kind, 'add', { name: dup })).json() as Json)['errorCode'], ERROR_BASE[kind] + 2, dup);
      }
      // "é" typed two ways is one name.
      await add(env.ctx, env.user, kind, { name: 'Résumé' });
      const decomposed = 'Re\u0301sume\u0301';
      assert.equal(((await call(env.ctx, env.user, kind, 'add', { name: decomposed })).json() as Json)['errorCode'], ERROR_BASE[kind] + 2);
      // A record may change the case of its own name.
      const renamed = (await call(env.ctx, env.user, kind, 'edit', { id: String(rec['id']), name: 'WORK' })).json() as Json[];
      assert.equal(renamed[0]?.['name'], 'WORK');
    });
  }
});

describe('locations: coordinates', () => {
  const env = setup(() => testContext());

  it('keeps floats exactly and edits them', async () => {
    const loc = await add(env.ctx, env.user, 'location', { name: 'Sydney', lat: '-33.868820', lon: '151.209296' });
    assert.equal(loc['lat'], -33.86882);
    assert.equal(loc['lon'], 151.209296);
    const [edited] = (await call(env.ctx, env.user, 'location', 'edit', { id: String(loc['id']), lon: '151.2093', description: 'Opera' })).json() as Json[];
    assert.deepEqual(edited, { id: loc['id'], name: 'Sydney', description: 'Opera', lat: -33.86882, lon: 151.2093 });
  });

  it('511 (malformed) for a latitude outside ±90 or a longitude outside ±180, naming the field', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ lat: '90.5' }, /lat must be a number from -90 to 90/],
      [{ lat: '-91' }, /lat must be a number from -90 to 90/],
      [{ lon: '180.1' }, /lon must be a number from -180 to 180/],
      [{ lon: 'east' }, /lon must be a number from -180 to 180/],
    ];
    for (const [form, desc] of cases) {
      const res = (await call(env.ctx, env.user, 'location', 'add', { name: `Bad ${JSON.stringify(form)}`, ...form })).json() as Json;
      assert.equal(res['errorCode'], 511);
      assert.match(res['errorDesc'] as string, desc);
    }
    const ok = await add(env.ctx, env.user, 'location', { name: 'Edges', lat: '-90', lon: '180' });
    const res = (await call(env.ctx, env.user, 'location', 'edit', { id: String(ok['id']), lat: '100' })).json() as Json;
    assert.equal(res['errorCode'], 511);
    assert.equal(res['ref'], String(ok['id']));
  });

  it('the description holds up to 32,768 bytes; one more is 511 (malformed)', async () => {
    const exact = 'ü'.repeat(16384);
    assert.equal((await add(env.ctx, env.user, 'location', { name: 'Long description', description: exact }))['description'], exact);
    const res = (await call(env.ctx, env.user, 'location', 'add', { name: 'Too long description', description: `${exact}!` })).json() as Json;
    assert.equal(res['errorCode'], 511);
    assert.match(res['errorDesc'] as string, /description is 32769 bytes long/);
  });

  it('the same coordinates written differently are no edit', async () => {
    const loc = await add(env.ctx, env.user, 'location', { name: 'Same place', lat: '10.5', lon: '20' });
    const res = (await call(env.ctx, env.user, 'location', 'edit', { id: String(loc['id']), lat: '10.50', lon: '20.0' })).json() as Json;
    assert.equal(res['errorCode'], 506);
  });
});
