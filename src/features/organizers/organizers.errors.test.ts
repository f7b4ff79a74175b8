import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { testContext, type TestContext } from '../../../test/harness.js';
import type { OrganizerKind } from '../../storage/store.js';
import { add, call, ERROR_BASE, fill, newUser, setup, stamps, type Json } from './organizers.test-kit.js';

/**
 * Every error code of the four kinds, each produced by a real request. Expected values are
 * written out here and in the test kit (ERROR_BASE), not imported from the kind descriptions, so
 * that a wrong description fails.
 */
interface KindCase {
  readonly kind: OrganizerKind;
  readonly limit: number;
  readonly maxName: number;
  /** Parameters besides `name` that an edit may send to change something. */
  readonly change: Record<string, string>;
  readonly nameRequiredOnEdit: boolean;
}

const CASES: readonly KindCase[] = [
  { kind: 'folder', limit: 1000, maxName: 64, change: { private: '1' }, nameRequiredOnEdit: false },
  { kind: 'context', limit: 1000, maxName: 64, change: { private: '1' }, nameRequiredOnEdit: true },
  { kind: 'goal', limit: 500, maxName: 250, change: { level: '1' }, nameRequiredOnEdit: false },
  { kind: 'location', limit: 500, maxName: 64, change: { lat: '10.5' }, nameRequiredOnEdit: false },
];

interface ErrorJson {
  errorCode: number;
  errorDesc: string;
  ref?: number | string;
}

for (const c of CASES) {
  /** x01 … x06 */
  const base = ERROR_BASE[c.kind];

  describe(`${c.kind} errors ${base + 1}–${base + 6} and ${base + 11}`, () => {
    const env = setup(() => testContext());

    /** The call must fail with `code`, HTTP 200, a single error object, and leave the kind's stamp alone. */
    async function expectError(op: 'add' | 'edit' | 'delete', form: Record<string, string>, code: number, ref?: number | string): Promise<ErrorJson> {
      const stampBefore = (await stamps(env.ctx, env.user))[`lastedit_${c.kind}`];
      const res = await call(env.ctx, env.user, c.kind, op, form);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json() as ErrorJson;
      assert.ok(!Array.isArray(body), 'a whole-request error is a single object');
      assert.equal(body.errorCode, code, res.body);
      assert.equal(typeof body.errorDesc, 'string');
      // A ref is the id as text, whatever type it was sent as (docs/api-notes.md).
      if (ref === undefined) assert.ok(!('ref' in body), `no ref expected: ${res.body}`);
      else assert.equal(body.ref, String(ref));
      assert.equal((await stamps(env.ctx, env.user))[`lastedit_${c.kind}`], stampBefore, 'a failed call moves no stamp');
      return body;
    }

    it(`${base + 1}: add without a name or with a blank name`, async () => {
      await expectError('add', {}, base + 1);
      await expectError('add', { name: '  \t ' }, base + 1);
    });

    it(`${base + 11}: a name over ${c.maxName} characters is malformed, naming the field, on add and on edit`, async () => {
      const long = await expectError('add', { name: 'x'.repeat(c.maxName + 1) }, base + 11);
      assert.match(long.errorDesc, new RegExp(`^Malformed request: the ${c.kind} name is too long: at most ${c.maxName} characters`));
      // Exactly at the limit is fine, counted in characters, not bytes.
      await add(env.ctx, env.user, c.kind, { name: 'é'.repeat(c.maxName) });
      const rec = await add(env.ctx, env.user, c.kind, { name: `Long ${c.kind}` });
      await expectError('edit', { id: String(rec['id']), name: 'y'.repeat(c.maxName + 1) }, base + 11, rec['id'] as number);
    });

    it(`${base + 1}: edit that blanks the name${c.nameRequiredOnEdit ? ' or leaves it out' : ''}, with the id as ref`, async () => {
      const rec = await add(env.ctx, env.user, c.kind, { name: `Named ${c.kind}` });
      await expectError('edit', { id: String(rec['id']), name: ' ' }, base + 1, rec['id'] as number);
      if (c.nameRequiredOnEdit) await expectError('edit', { id: String(rec['id']), ...c.change }, base + 1, rec['id'] as number);
    });

    it(`${base + 2}: a name taken without regard to case and surrounding spaces, on add and on edit; nothing else changes`, async () => {
      const work = await add(env.ctx, env.user, c.kind, { name: 'Work' });
      await expectError('add', { name: ' work ' }, base + 2);
      await expectError('add', { name: 'WORK' }, base + 2);
      const other = await add(env.ctx, env.user, c.kind, { name: 'Home' });
      // The name is checked by the write itself: the failed adds must not have used up an id.
      assert.equal(other['id'], (work['id'] as number) + 1, 'a refused add allocates no id');
      await expectError('edit', { id: String(other['id']), name: 'wOrK' }, base + 2, other['id'] as number);
      const listed = async (): Promise<Json[]> => (await call(env.ctx, env.user, c.kind, 'get')).json() as Json[];
      const before = await listed();
      await expectError('edit', { id: String(other['id']), name: 'WORK', ...c.change }, base + 2, other['id'] as number);
      assert.deepEqual(await listed(), before, 'a refused edit changes no field');
    });

    it(`${base + 4}: edit and delete with no id, an empty id or id 0`, async () => {
      await expectError('edit', { name: 'x' }, base + 4);
      await expectError('edit', { id: '', name: 'x' }, base + 4);
      await expectError('delete', {}, base + 4);
      await expectError('delete', { id: '0' }, base + 4, 0);
      await expectError('delete', { id: '0.0' }, base + 4, 0);
    });

    it(`${base + 5}: edit and delete of an unknown or malformed id carry the id as ref`, async () => {
      await expectError('edit', { id: '9999', name: 'x' }, base + 5, 9999);
      // The id is checked before the other values: an unknown id wins over a bad name.
      await expectError('edit', { id: '9999', name: ' ' }, base + 5, 9999);
      await expectError('delete', { id: '9999' }, base + 5, 9999);
      await expectError('delete', { id: 'abc' }, base + 5, 'abc');
      await expectError('delete', { id: '-3' }, base + 5, '-3');
      // Not whole ids: acting on record 1 or 2 instead would be worse than refusing.
      await expectError('delete', { id: '1.5' }, base + 5, '1.5');
      await expectError('edit', { id: '2.9', name: 'x' }, base + 5, '2.9');
      await expectError('delete', { id: 'true' }, base + 5, 'true');
      await expectError('delete', { id: '3000000000' }, base + 5, '3000000000');
      const rec = await add(env.ctx, env.user, c.kind, { name: `Gone ${c.kind}` });
      await call(env.ctx, env.user, c.kind, 'delete', { id: String(rec['id']) });
      await expectError('delete', { id: String(rec['id']) }, base + 5, rec['id'] as number);
      await expectError('edit', { id: String(rec['id']), name: 'back' }, base + 5, rec['id'] as number);
    });

    it(`${base + 6}: edit with nothing to change, or with the stored values again`, async () => {
      const rec = await add(env.ctx, env.user, c.kind, { name: 'Same' });
      const id = String(rec['id']);
      if (!c.nameRequiredOnEdit) await expectError('edit', { id }, base + 6, rec['id'] as number);
      await expectError('edit', { id, name: 'Same' }, base + 6, rec['id'] as number);
      await expectError('edit', { id, name: '  Same ' }, base + 6, rec['id'] as number);
      // The change once is an edit; the same change again is not.
      const [edited] = (await call(env.ctx, env.user, c.kind, 'edit', { id, name: 'Same', ...c.change })).json() as Json[];
      assert.equal(edited?.['id'], rec['id']);
      await expectError('edit', { id, name: 'Same', ...c.change }, base + 6, rec['id'] as number);
    });

    it(`${base + 6}: an unknown parameter alone changes nothing`, async () => {
      const rec = await add(env.ctx, env.user, c.kind, { name: 'Quiet' });
      await expectError('edit', { id: String(rec['id']), name: 'Quiet', colour: 'red', via: '3' }, base + 6, rec['id'] as number);
    });

    it('errors come in XML too, with the ref attribute', async () => {
      const res = await call(env.ctx, env.user, c.kind, 'delete', { id: '8888', f: 'xml' });
      assert.equal(res.statusCode, 200);
      assert.match(res.headers['content-type'] as string, /^text\/xml/);
      assert.match(res.body, new RegExp(`^<\\?xml[^>]*\\?><error id="${base + 5}" ref="8888">[^<]+</error>$`));
    });
  });

  describe(`${c.kind} limit: ${c.limit} per account (error ${base + 3})`, () => {
    let ctx: TestContext;
    after(() => ctx.close());

    it(`the ${c.limit}th add succeeds and the next fails with ${base + 3}`, async () => {
      ctx = await testContext();
      const user = await newUser(ctx);
      await fill(ctx, user, c.kind, c.limit - 1);
      const last = await add(ctx, user, c.kind, { name: 'The last one' });
      assert.equal(last['id'], c.limit);
      const stampBefore = (await stamps(ctx, user))[`lastedit_${c.kind}`];
      const res = await call(ctx, user, c.kind, 'add', { name: 'One too many' });
      const err = res.json() as ErrorJson;
      assert.equal(err.errorCode, base + 3, res.body);
      assert.match(err.errorDesc, new RegExp(`\\(${c.limit}\\)`));
      assert.equal((await stamps(ctx, user))[`lastedit_${c.kind}`], stampBefore);
      // Another account is not affected by this one's count.
      const other = await newUser(ctx);
      assert.equal((await add(ctx, other, c.kind, { name: 'One too many' }))['id'], 1);
      // After a delete there is room again.
      await call(ctx, user, c.kind, 'delete', { id: '1' });
      assert.equal((await add(ctx, user, c.kind, { name: 'One too many' }))['name'], 'One too many');
    });
  });
}
