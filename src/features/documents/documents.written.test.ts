import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { testContext, type TestContext } from '../../../test/harness.js';
import type { Note, WrittenKind } from '../../storage/store.js';
import type { User } from '../organizers/organizers.test-kit.js';
import { DOCUMENT_KINDS } from './document-kinds.js';
import { documentRecord, pageBody } from './documents.presenter.js';
import { batch, newUser, one, read, setup, type Plural } from './documents.test-kit.js';

/**
 * get in JSON of notes, rows, outlines and lists is written by the database
 * (DocumentsRepo.pageWritten), every other answer by the presenter: the two must agree byte for
 * byte, on every database, whatever text the records hold and whatever page is asked for.
 */

const PLURAL: Readonly<Record<WrittenKind, Plural>> = { note: 'notes', row: 'rows', outline: 'outlines', list: 'lists' };

/** Text no client should send but any may: quotes, escapes, controls, separators, astral and unpaired characters. */
const HOSTILE = [
  'Quotes " and \\ backslash, <xml> & ampersand </script>',
  'line 1\nline 2\r\n\ttab \u0001 control \u001f and \u007f, e\u0301, 🎉',
  '\b\u000b\u000c\u000e\u0010\u001f\uFFFF \u2028 \u2029 \uFEFF',
  'ünï, 😀, 日本, \uFDD0 \u{1FFFE} \uD83D\uDE00',
];

/** The page as the presenter writes it, from the records the store reads. */
async function presented(ctx: TestContext, user: User, kind: WrittenKind, q: { list?: string; after?: number; start?: number; num?: number; id?: number | string } = {}): Promise<string> {
  const spec = DOCUMENT_KINDS.find((k) => k.kind === kind);
  if (!spec) throw new Error(`no kind ${kind}`);
  const page = await ctx.deps.store.read.documents.page(user.account.pk, kind, { start: q.start ?? 0, num: q.num ?? 1000, after: q.after, list: q.list, id: q.id });
  const body = pageBody(spec, page.items.map((d) => documentRecord(spec, d)), page.total);
  return JSON.stringify('json' in body ? body.json : null);
}

/** Every page shape a get can ask for, answered and presented. */
async function assertPagesAgree(ctx: TestContext, user: User, kind: WrittenKind, ids: ReadonlyArray<number | string>, list?: string): Promise<void> {
  const get = async (form: Record<string, string>): Promise<string> => (await read(ctx, user, PLURAL[kind], 'get', { ...form, ...(list && { list }) })).body;
  assert.equal(await get({}), await presented(ctx, user, kind, { list }), kind);
  assert.equal(await get({ start: '1', num: '2' }), await presented(ctx, user, kind, { list, start: 1, num: 2 }), `${kind} start=1 num=2`);
  assert.equal(await get({ num: '0' }), await presented(ctx, user, kind, { list, num: 0 }), `${kind} num=0`);
  assert.equal(await get({ after: '0' }), await presented(ctx, user, kind, { list, after: 0 }), `${kind} after=0`);
  assert.equal(await get({ start: '99' }), await presented(ctx, user, kind, { list, start: 99 }), `${kind} past the end`);
  for (const id of ids) assert.equal(await get({ id: String(id) }), await presented(ctx, user, kind, { list, id }), `${kind} id=${id}`);
}

const note = (id: number, fields: Partial<Note> = {}): Note => ({ id, title: `Note ${id}`, text: '', folder: 0, private: 0, added: 1_700_000_000, modified: 1_700_000_000 + id, ...fields });

describe('get in JSON: what the database writes equals the presenter, byte for byte', () => {
  const env = setup(() => testContext());

  it('notes: hostile text (stored as it is), the extremes of each number, every page shape', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const notes = [note(1), ...HOSTILE.map((text, i) => note(i + 2, { title: text.slice(0, 40), text, folder: i, private: i % 2 })), note(9, { text: 'x'.repeat(40_000), folder: 2_147_483_647, added: 0, modified: 9_999_999_999 })];
    await ctx.deps.store.transaction((tx) => tx.documents.insertMany(user.account.pk, 'note', notes));
    await assertPagesAgree(ctx, user, 'note', [1, 3, 9]);
    // An edit's text is written as the new text, whether it needs escaping or no longer does
    // (PostgreSQL keeps the JSON of a text that needs it, computed with every write).
    ctx.clock.advance(5);
    await batch(ctx, user, 'notes', 'edit', [
      { id: 1, text: 'now "quoted"\nover two lines' },
      { id: 3, text: 'plain now' },
    ]);
    await assertPagesAgree(ctx, user, 'note', [1, 3]);
    // XML is still the presenter's, from the same records.
    assert.match((await read(ctx, user, 'notes', 'get', { f: 'xml' })).body, /<notes num="6" total="6">/);
  });

  it('rows: cells of every kind of value (text, numbers, choices), stored as the add and edit build them', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const cols = [
      { title: 'Long text', type: 18 },
      { title: 'Decimal', type: 12.1 },
      { title: 'Several', type: 9, choices: ['red', 'green', 'blue'] },
      { title: 'Checkbox', type: 1 },
      { title: 'Short text', type: 19 },
      { title: 'Number', type: 13 },
    ];
    const list = (await one(batch(ctx, user, 'lists', 'add', [{ title: 'Every kind', ref: 'l', cols }])))['id'] as string;
    const rows = HOSTILE.map((text, i) => ({ list, ref: `r${i}`, cells: { c5: text.slice(0, 200).replace(/[\n\r]/g, ' '), c1: text, c2: 1.25 + i, c3: ['blue', 'red'], c4: i % 2, c6: -42 * i } }));
    const ids = (JSON.parse((await batch(ctx, user, 'rows', 'add', [...rows, { list, ref: 'empty' }])).body) as Array<{ id: string }>).map((r) => r.id);
    assert.equal(ids.filter((i) => typeof i === 'string').length, rows.length + 1, 'every row is added');
    // An edit rebuilds the cells in the columns' order, whatever order they were sent in.
    await batch(ctx, user, 'rows', 'edit', [{ list, id: ids[0], cells: { c6: 7, c1: 'edited', c3: 'green,red' } }]);
    await assertPagesAgree(ctx, user, 'row', [ids[0] as string, ids[4] as string, 'ffffffffffffffffffffffff'], list);
    // Another list's rows, and a list with none (a literal null).
    const other = (await one(batch(ctx, user, 'lists', 'add', [{ title: 'Empty', ref: 'e', cols }])))['id'] as string;
    await assertPagesAgree(ctx, user, 'row', [], other);
    assert.equal((await read(ctx, user, 'rows', 'get', { list: other })).body, 'null');
  });

  it('outlines: hostile text in the outline and its nodes, trees as the add and edit build them', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const tree = (text: string) => [{ content: text, checked: 1, children: [{ content: `${text} child`, children: [{ content: 'leaf' }] }, { content: 'second' }] }, { content: 'top two' }];
    const outlines = HOSTILE.map((text, i) => ({ title: text.slice(0, 60), keywords: text.slice(0, 20), note: text, hidden: i % 2, ref: `o${i}`, nodes: tree(text) }));
    const ids = (JSON.parse((await batch(ctx, user, 'outlines', 'add', [...outlines, { title: 'No nodes', ref: 'none' }])).body) as Array<{ id: string }>).map((o) => o.id);
    assert.equal(ids.filter((i) => typeof i === 'string').length, outlines.length + 1, 'every outline is added');
    ctx.clock.advance(5);
    await batch(ctx, user, 'outlines', 'edit', [{ id: ids[1], nodes: [{ content: 'replaced', children: [{ content: 'under' }] }] }]);
    await assertPagesAgree(ctx, user, 'outline', [ids[1] as string, ids[4] as string]);
  });

  it('lists: hostile text in the list and its columns, columns as the add and edit build them, the rows counted', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const cols = (text: string) => [
      { title: text.slice(0, 40), type: 19 },
      { title: 'Decimal', type: 12.4, width: 42, sort: -2 },
      { title: 'Pick', type: 9, choices: [text.replace(/,/g, ';').slice(0, 30) || 'x', 'b'] },
      { title: 'Done', type: 1, width: 0, sort: 1000 },
    ];
    const lists = HOSTILE.map((text, i) => ({ title: text.slice(0, 60), keywords: text.slice(0, 20), note: text, ref: `l${i}`, cols: cols(text) }));
    const ids = (JSON.parse((await batch(ctx, user, 'lists', 'add', [...lists, { title: 'No columns', ref: 'none' }])).body) as Array<{ id: string }>).map((l) => l.id);
    assert.equal(ids.filter((i) => typeof i === 'string').length, lists.length + 1, 'every list is added');
    await batch(ctx, user, 'rows', 'add', [0, 1, 2].map((i) => ({ list: ids[0], ref: `r${i}`, cells: { c4: i % 2 } })));
    ctx.clock.advance(5);
    // An edit that drops a column and adds one (kept in the answer's order) and changes the title.
    const edited = await one(batch(ctx, user, 'lists', 'edit', [{ id: ids[1], version: 1, title: 'Edited "list"', cols: [{ id: 3, title: 'Pick', type: 10, choices: ['one', 'two'] }, { title: 'New', type: 18 }] }]));
    assert.deepEqual((edited['cols'] as Array<{ id: number }> | undefined)?.map((c) => c.id), [3, 5], JSON.stringify(edited));
    await assertPagesAgree(ctx, user, 'list', [ids[0] as string, ids[1] as string, ids[4] as string, 'ffffffffffffffffffffffff']);
  });

  it('any text a record can hold (property): notes, rows, outlines and lists', async () => {
    const { ctx } = env;
    const user = await newUser(ctx);
    const text = fc.string({ unit: fc.oneof(fc.constantFrom('"', '\\', '\n', '\r', '\t', '\u0000', '\u0001', '\u001f', '\u007f', '\u2028', '\uD800', '\uDFFF', '😀', 'é'), fc.string({ unit: 'binary', maxLength: 3 })), maxLength: 30 });
    const list = (await one(batch(ctx, user, 'lists', 'add', [{ title: 'Texts', ref: 'l', cols: [{ title: 'Text', type: 18 }] }])))['id'] as string;
    let id = 100;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ title: text, text }), { minLength: 1, maxLength: 3 }), async (fields) => {
        // Each run reads only what it wrote: the records changed in its own second.
        ctx.clock.advance(2);
        const now = Math.floor(ctx.clock.now() / 1000);
        await ctx.deps.store.transaction((tx) => tx.documents.insertMany(user.account.pk, 'note', fields.map((f) => note(++id, { ...f, modified: now }))));
        await batch(ctx, user, 'rows', 'add', fields.map((f, i) => ({ list, ref: `p${id}-${i}`, cells: { c1: f.text || 'x' } })));
        await batch(ctx, user, 'outlines', 'add', fields.map((f, i) => ({ title: f.title || 'x', note: f.text, ref: `p${id}-${i}`, nodes: [{ content: f.text, children: [{ content: f.title }] }] })));
        // Each part that must not be blank starts with a letter: every add is taken (checked below).
        const listAdd = await batch(ctx, user, 'lists', 'add', fields.map((f, i) => ({ title: `t${f.title}`, note: f.text, keywords: f.title, ref: `p${id}-${i}`, cols: [{ title: `c${f.title}`, type: 10, choices: [`y${f.text.replace(/,/g, '')}`] }] })));
        const taken = (JSON.parse(listAdd.body) as Array<{ id?: unknown }>).filter((l) => typeof l.id === 'string').length;
        assert.equal(taken, fields.length, listAdd.body);
        for (const kind of ['note', 'row', 'outline', 'list'] as const) {
          const inList = kind === 'row' ? list : undefined;
          const form: Record<string, string> = inList ? { after: String(now - 1), list: inList } : { after: String(now - 1) };
          assert.equal((await read(ctx, user, PLURAL[kind], 'get', form)).body, await presented(ctx, user, kind, { after: now - 1, list: inList }), kind);
        }
      }),
      { numRuns: 25 },
    );
  });
});
