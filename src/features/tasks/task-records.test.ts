import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import pg from 'pg';
import { newTask } from '../../../test/factories.js';
import { api, signIn, tasksCall, testContext, type TestContext } from '../../../test/harness.js';
import { MIGRATIONS } from '../../storage/sqlite/migrations.js';
import type { Account, Task } from '../../storage/store.js';
import { ALWAYS_FIELDS, OPTIONAL_FIELDS, type FieldSet } from './task-fields.js';
import { taskWriter } from './task-writers.js';

/**
 * tasks/get is written by the database (TasksRepo.pageWritten), everything else by the presenter's
 * compiled writers: the two descriptions of the public record must agree, byte for byte, for every
 * field, in JSON and in XML, on every database.
 */
describe('the public task record: what the database writes equals the presenter, in JSON and XML', () => {
  let ctx: TestContext;
  let account: Account;
  let clientPk: number;

  const DAY = 86400;
  const tasks: Task[] = [
    newTask(1),
    newTask(2, {
      title: 'Quotes " and \\ backslash, <xml> & ampersand',
      tag: 'ünï, 😀, 日本',
      note: 'line 1\nline 2\r\n\ttab \u0001 control \u001f and \u007f, e\u0301, 🎉',
      duedate: 20_000 * DAY + 43200,
      duetime: 9 * 3600 + 60,
      startdate: 19_990 * DAY + 43200,
      starttime: 0,
      repeat: 'FREQ=WEEKLY;BYDAY=MO',
      priority: -1,
      star: 1,
      completed: 20_001 * DAY + 43200,
      remind: 43200,
      length: 2_147_483_647,
      timer: 12,
      timeron: 1_700_000_000,
      previous: 1,
      folder: 3,
      context: 4,
      goal: 5,
      location: 6,
    }),
    // A time without a date (1 Jan 1970), a subtask with an order.
    newTask(3, { duetime: 3600, starttime: null, parent: 2, ord: 4 }),
    newTask(4, { title: '', note: '', tag: '' }),
    // Characters XML cannot carry (the XML writer drops them; JSON escapes them), each alone and
    // among text, and CR (a reference in XML).
    newTask(5, { title: 'non\uFFFEcharacter\uFFFF', repeat: 'FREQ=DAILY' }),
    newTask(6, { tag: 'bell\u0007', note: '\b\u000b\u000c\u000e\u0010\u001f\uFFFF' }),
    newTask(7, { title: '\r', tag: '\uFFFE', note: 'a\r\nb\u0008c &amp; <![CDATA[ ]]> \uD83D\uDE00 \uFDD0 \u{1FFFE}' }),
  ];

  before(async () => {
    ctx = await testContext();
    const signed = await signIn(ctx, { scope: 'basic tasks notes outlines lists write' });
    account = signed.account;
    clientPk = signed.app.client.pk;
    await ctx.deps.store.transaction(async (tx) => {
      await tx.tasks.insertMany(account.pk, tasks);
      await tx.tasks.setMeta(account.pk, 2, clientPk, 'app data "quoted"\n');
      await tx.tasks.setMeta(account.pk, 7, clientPk, 'm\r\u0001<&>\uFFFF');
    });
    // Attachments: a note (integer id), an outline and a list (text ids), linked in this order;
    // and a link whose record is then deleted, which is left out.
    const add = async (plural: string, item: Record<string, unknown>) =>
      ((await api(ctx, signed.token, `/3/${plural}/add.php`, { [plural]: JSON.stringify([item]) })).json() as Array<{ id: number | string }>)[0]?.id;
    const note = await add('notes', { title: 'A "note" <1> & \r\u0001\uFFFF' });
    const outline = await add('outlines', { title: 'Plan ünï', ref: 'o1' });
    const list = await add('lists', { title: 'Groceries', ref: 'l1', cols: [{ title: 'Item', type: 19 }] });
    const gone = await add('notes', { title: 'Gone soon' });
    const attach = [{ kind: 'note', id: note }, { kind: 'outline', id: outline }, { kind: 'list', id: list }, { kind: 'note', id: gone }];
    const edited = await tasksCall(ctx, signed.token, 'edit', [{ id: 2, attach }, { id: 3, attach: [{ kind: 'list', id: list }] }]);
    assert.equal(edited.statusCode, 200, edited.body);
    assert.ok(!(edited.json() as Array<{ errorCode?: number }>).some((r) => r.errorCode), edited.body);
    await api(ctx, signed.token, '/3/notes/delete.php', { notes: JSON.stringify([gone]) });
    // Sharing (docs/decisions/0015): task 1 shared by this account with b and c; b's task 9 shared
    // with this account (its copy is task 6) and c; task 4 reassigned to this account by b.
    const [b, c] = [(await signIn(ctx)).account, (await signIn(ctx)).account];
    await ctx.deps.store.transaction(async (tx) => {
      await tx.tasks.insertMany(b.pk, [newTask(1), newTask(9)]);
      await tx.tasks.insertMany(c.pk, [newTask(1), newTask(2)]);
      const mine = await tx.sharing.createShare(account.pk, 1);
      await tx.sharing.addMember(mine, { userPk: b.pk, taskId: 1 });
      await tx.sharing.addMember(mine, { userPk: c.pk, taskId: 1 });
      const theirs = await tx.sharing.createShare(b.pk, 9);
      await tx.sharing.addMember(theirs, { userPk: account.pk, taskId: 6 });
      await tx.sharing.addMember(theirs, { userPk: c.pk, taskId: 2 });
      await tx.tasks.setMeta(account.pk, 4, clientPk, 'x');
      await tx.sharing.setAddedBy(account.pk, 4, b.pk);
    });
  });
  after(() => ctx.close());

  const fieldSets: Array<[string, FieldSet]> = [
    ['no optional field', []],
    ['every optional field', OPTIONAL_FIELDS],
    ['the times and meta', ['duetime', 'starttime', 'meta']],
    ['children and the lists', ['children', 'sharedwith', 'attachment', 'order']],
    ['attachments alone', ['attachment']],
    ['the sharing fields', ['shared', 'sharedowner', 'sharedwith', 'addedby']],
  ];
  for (const [name, fields] of fieldSets) {
    it(name, async () => {
      const query = { start: 0, num: 1000, withChildren: fields.includes('children'), metaFor: fields.includes('meta') ? clientPk : undefined };
      const fromDb = await ctx.deps.store.read.tasks.pageWritten(account.pk, query, [...ALWAYS_FIELDS, ...fields], 'json');
      const xmlFromDb = await ctx.deps.store.read.tasks.pageWritten(account.pk, query, [...ALWAYS_FIELDS, ...fields], 'xml');
      const page = await ctx.deps.store.read.tasks.page(account.pk, query);
      const links = await ctx.deps.store.read.attachments.forTasks(account.pk, page.tasks.map((t) => t.id));
      const sharing = await ctx.deps.store.read.sharing.forTasks(account.pk, page.tasks.map((t) => t.id));
      const listed = { tasks: page.tasks.map((t) => ({ ...t, attachment: links.get(t.id) ?? [], ...(sharing.has(t.id) && { sharing: sharing.get(t.id) }) })) };
      if (fields.includes('attachment')) assert.equal(links.get(2)?.length, 3, 'the test has attachments to compare');
      if (fields.includes('sharedwith')) assert.equal(sharing.size, 3, 'the test has sharing to compare');
      const w = taskWriter(fields);
      assert.equal(fromDb.total, tasks.length);
      assert.deepEqual(fromDb.rows, listed.tasks.map((t) => w.json(t)));
      assert.equal(xmlFromDb.total, tasks.length);
      assert.deepEqual(xmlFromDb.rows, listed.tasks.map((t) => w.xml(t)));
    });
  }

  // PostgreSQL decides once per statement whether the account has subtasks, joint tasks, links or
  // apps' meta at all, and skips those lookups for each row of an account that has none
  // (Dialect.accountHasRows): accounts with each alone must be written as the presenter writes them.
  it('an account with none of subtasks, joint tasks, reassigned tasks, links or meta, and accounts with one of them each', async () => {
    const make = async (extra: (pk: number) => Promise<void>): Promise<Account> => {
      const owner = (await signIn(ctx)).account;
      await ctx.deps.store.transaction((tx) => tx.tasks.insertMany(owner.pk, [newTask(1), newTask(2, { title: 'Two' }), newTask(3, { parent: 0 })]));
      await extra(owner.pk);
      return owner;
    };
    const partner = (await signIn(ctx)).account;
    await ctx.deps.store.transaction((tx) => tx.tasks.insertMany(partner.pk, [newTask(1)]));
    const owners: Array<[string, Account]> = [
      ['none', await make(async () => undefined)],
      ['a subtask', await make((pk) => ctx.deps.store.transaction((tx) => tx.tasks.update(pk, newTask(3, { parent: 2 }))))],
      ['meta', await make((pk) => ctx.deps.store.transaction((tx) => tx.tasks.setMeta(pk, 2, clientPk, 'm')))],
      ['a joint task', await make((pk) => ctx.deps.store.transaction(async (tx) => tx.sharing.addMember(await tx.sharing.createShare(pk, 2), { userPk: partner.pk, taskId: 1 })))],
      ['a reassigned task', await make((pk) => ctx.deps.store.transaction((tx) => tx.sharing.setAddedBy(pk, 2, partner.pk)))],
    ];
    const query = { start: 0, num: 1000, withChildren: true, metaFor: clientPk };
    const w = taskWriter(OPTIONAL_FIELDS);
    for (const [has, owner] of owners) {
      const page = await ctx.deps.store.read.tasks.page(owner.pk, query);
      const sharing = await ctx.deps.store.read.sharing.forTasks(owner.pk, page.tasks.map((t) => t.id));
      const listed = page.tasks.map((t) => ({ ...t, attachment: [], ...(sharing.has(t.id) && { sharing: sharing.get(t.id) }) }));
      for (const form of ['json', 'xml'] as const) {
        const fromDb = await ctx.deps.store.read.tasks.pageWritten(owner.pk, query, [...ALWAYS_FIELDS, ...OPTIONAL_FIELDS], form);
        assert.deepEqual(fromDb.rows, listed.map((t) => w[form](t)), `${has}, ${form}`);
      }
      const written = (await ctx.deps.store.read.tasks.pageWritten(owner.pk, query, [...ALWAYS_FIELDS, ...OPTIONAL_FIELDS], 'json')).rows.map((r) => JSON.parse(r) as Record<string, unknown>);
      const two = written.find((t) => t['id'] === 2);
      const expected = { none: {}, 'a subtask': { children: 1 }, meta: { meta: 'm' }, 'a joint task': { shared: 1 }, 'a reassigned task': { addedby: partner.userid } }[has];
      for (const [k, v] of Object.entries(expected ?? {})) assert.equal(two?.[k], v, `${has}: ${k}`);
    }
    // The account with links is the one of the other tests.
  });

  it('pages and filters like page(): the same tasks, the same total', async () => {
    const query = { start: 1, num: 2, comp: 0 as const, withChildren: false };
    const fromDb = await ctx.deps.store.read.tasks.pageWritten(account.pk, query, ['id'], 'json');
    const xmlFromDb = await ctx.deps.store.read.tasks.pageWritten(account.pk, query, ['id'], 'xml');
    const listed = await ctx.deps.store.read.tasks.page(account.pk, query);
    assert.deepEqual(fromDb.rows, listed.tasks.map((t) => `{"id":${t.id}}`));
    assert.deepEqual(xmlFromDb.rows, listed.tasks.map((t) => `<task><id>${t.id}</id></task>`));
    assert.equal(fromDb.total, listed.total);
  });

  it("a task's text kept as XML: written alike by every write and by migration 12, and the XML holds", async () => {
    // A task's text drawn from plain characters and every kind XML needs work on, and what is stored
    // otherwise than written (a lone surrogate as U+FFFD, U+0000 not at all).
    const char = fc.constantFrom('a', ' ', 'é', '😀', '\n', '\t', '&', '<', '>', '\r', '\u0000', '\u0001', '\u0008', '\u000b', '\u001f', '\u007f', '\uD800', '\uFFFD', '\uFFFE', '\uFFFF');
    const text = fc.oneof(fc.string({ unit: char, maxLength: 6 }), fc.string({ unit: fc.constantFrom('a', ' ', 'é', '😀'), maxLength: 6 }));
    const drawn = fc.sample(fc.record({ title: text, tag: text, repeat: text, note: text }), { numRuns: 120, seed: 12 });
    const other = (await signIn(ctx)).account;
    await ctx.deps.store.transaction((tx) => tx.tasks.insertMany(other.pk, drawn.map((t, i) => newTask(i + 1, t))));
    // Edited: update() writes the new text's (task 1 gains some, task 2 loses its own).
    await ctx.deps.store.transaction(async (tx) => {
      await tx.tasks.update(other.pk, newTask(1, { title: 'a & b' }));
      await tx.tasks.update(other.pk, newTask(2, { title: 'plain', note: 'x' }));
    });
    // SQLite keeps the XML of a task's text (XmlSql.readsKept); PostgreSQL escapes in the statement.
    const keeps = ctx.deps.store.dialect === 'sqlite';
    const kept = async (): Promise<unknown[][]> =>
      raw(ctx, `SELECT t.id, x.title, x.tag, x.repeat, x.note FROM tasks t LEFT JOIN task_xml x ON x.user_pk = t.user_pk AND x.task_id = t.id WHERE t.user_pk = ${other.pk} ORDER BY t.id`);
    const written = await kept();
    const rowsKept = Number((await raw(ctx, `SELECT count(*) FROM task_xml WHERE user_pk = ${other.pk}`))[0]?.[0]);
    if (keeps) {
      assert.deepEqual(written.slice(0, 2), [[1, 'a &amp; b', null, null, null], [2, null, null, null, null]]);
      assert.equal(rowsKept, written.filter((r) => r.slice(1).some((v) => v !== null)).length, 'a row only for a task with text to keep');
      assert.ok(written.length - rowsKept > 5 && rowsKept > 5, 'tasks with and without text to keep');
    } else {
      assert.equal(rowsKept, 0);
    }
    const query = { start: 0, num: 1000, withChildren: false };
    // The title is always written; the other three are asked for.
    const fields = ['tag', 'repeat', 'note'] as const;
    const xml = async (): Promise<readonly string[]> => (await ctx.deps.store.read.tasks.pageWritten(other.pk, query, [...ALWAYS_FIELDS, ...fields], 'xml')).rows;
    const w = taskWriter(fields);
    const expected = (await ctx.deps.store.read.tasks.page(other.pk, query)).tasks.map((t) => w.xml(t));
    assert.deepEqual(await xml(), expected);
    if (!keeps) return;
    // As an older version left them: nothing kept, then the migration's own statement.
    const step = MIGRATIONS.find((m) => m.version === 12)?.sql ?? '';
    await raw(ctx, 'DELETE FROM task_xml');
    await raw(ctx, step.slice(step.indexOf('INSERT INTO task_xml')));
    assert.deepEqual(await kept(), written);
    assert.deepEqual(await xml(), expected);
  });
});

/** Runs `sql` on the context's database over a connection of its own (SQLite: WAL lets it in beside the store's). */
async function raw(ctx: TestContext, sql: string): Promise<unknown[][]> {
  const db = ctx.config.database;
  if (db.kind === 'sqlite') {
    const conn = new Database(db.path);
    try {
      const st = conn.prepare(sql);
      return st.reader ? (st.raw(true).all() as unknown[][]) : (st.run(), []);
    } finally {
      conn.close();
    }
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query<unknown[]>({ text: sql, rowMode: 'array' })).rows;
  } finally {
    await client.end();
  }
}
