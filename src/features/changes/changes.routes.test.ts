import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { api, signIn, tasksCall, testContext, type SignedIn, type TestContext } from '../../../test/harness.js';
import { collaborate, people, share } from '../sharing/sharing.test-kit.js';
import { setup } from '../documents/documents.test-kit.js';
import { OPTIONAL_FIELDS } from '../tasks/task-fields.js';

/** /3/sync/changes.php through the app (docs/sync.md). */

interface Change {
  kind: string;
  op: 'upsert' | 'delete';
  id: string;
  record?: Record<string, unknown>;
}
interface Feed {
  cursor: string;
  more: 0 | 1;
  changes: Change[];
}

const ALL = 'basic tasks notes outlines lists write';
const EVERY_FIELD = OPTIONAL_FIELDS.join(',');

async function feed(ctx: TestContext, token: string, form: Record<string, string> = {}): Promise<Feed> {
  const res = await api(ctx, token, '/3/sync/changes.php', form);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Feed>();
}

/** Every page from `cursor` on, as an app following `more` would read them. */
async function follow(ctx: TestContext, token: string, cursor: string | undefined, num = 1000): Promise<{ changes: Change[]; cursor: string; pages: number }> {
  const changes: Change[] = [];
  let pages = 0;
  for (;;) {
    const page = await feed(ctx, token, { ...(cursor !== undefined && { cursor }), num: String(num) });
    changes.push(...page.changes);
    cursor = page.cursor;
    pages++;
    if (!page.more) return { changes, cursor, pages };
  }
}

const brief = (cs: readonly Change[]): string[] => cs.map((c) => `${c.op} ${c.kind}`);
const errorOf = async (ctx: TestContext, token: string, form: Record<string, string>): Promise<[number, unknown]> => {
  const res = await api(ctx, token, '/3/sync/changes.php', form);
  return [res.statusCode, res.json<{ errorCode: number }>().errorCode];
};

describe('the change feed', () => {
  const env = setup(() => testContext());

  async function everything(ctx: TestContext, who: SignedIn): Promise<{ task: number; folder: number; note: number; list: string; row: string; outline: string }> {
    const folder = (await api(ctx, who.token, '/3/folders/add.php', { name: `Work ${Math.random()}` })).json<Array<{ id: number }>>()[0]!.id;
    const [task] = (await tasksCall(ctx, who.token, 'add', [{ title: 'Call Bob', folder, note: 'a\nb', tag: 'x,y', duedate: 1767268800, repeat: 'WEEKLY' }])).json<Array<{ id: number }>>();
    const note = (await api(ctx, who.token, '/3/notes/add.php', { notes: JSON.stringify([{ title: 'Idea', text: 'Text' }]) })).json<Array<{ id: number }>>()[0]!.id;
    const list = (await api(ctx, who.token, '/3/lists/add.php', { lists: JSON.stringify([{ title: 'Groceries', ref: 'l1', cols: [{ title: 'Item', type: 19 }] }]) })).json<Array<{ id: string }>>()[0]!.id;
    const row = (await api(ctx, who.token, '/3/rows/add.php', { rows: JSON.stringify([{ list, ref: 'r1', cells: { c1: 'Milk' } }]) })).json<Array<{ id: string }>>()[0]!.id;
    const outline = (await api(ctx, who.token, '/3/outlines/add.php', { outlines: JSON.stringify([{ title: 'Plan', ref: 'o1' }]) })).json<Array<{ id: string }>>()[0]!.id;
    return { task: task!.id, folder, note, list, row, outline };
  }

  it('from the beginning: every record once, as its own get writes it with every field, then nothing new', async () => {
    const { ctx } = env;
    const who = await signIn(ctx, { pro: 1, scope: ALL });
    const ids = await everything(ctx, who);
    const first = await feed(ctx, who.token);
    assert.equal(first.more, 0);
    const byKind = new Map(first.changes.map((c) => [c.kind, c]));
    assert.deepEqual([...byKind.keys()].sort(), ['folder', 'list', 'note', 'outline', 'row', 'task']);
    assert.ok(first.changes.every((c) => c.op === 'upsert' && typeof c.id === 'string'));

    const [, task] = (await api(ctx, who.token, '/3/tasks/get.php', { id: String(ids.task), fields: EVERY_FIELD })).json<unknown[]>();
    assert.deepEqual(byKind.get('task')?.record, task, 'the task as tasks/get writes it with every optional field');
    assert.equal(byKind.get('task')?.id, String(ids.task));
    const folders = (await api(ctx, who.token, '/3/folders/get.php')).json<Array<{ id: number }>>();
    assert.deepEqual(byKind.get('folder')?.record, folders.find((f) => f.id === ids.folder));
    const [, note] = (await api(ctx, who.token, '/3/notes/get.php', { id: String(ids.note) })).json<unknown[]>();
    assert.deepEqual(byKind.get('note')?.record, note);
    const [row] = (await api(ctx, who.token, '/3/rows/get.php', { list: ids.list })).json<Array<Record<string, unknown>>>();
    assert.deepEqual(byKind.get('row')?.record, { ...row, list: ids.list }, "a row's record carries its list");
    const [list] = (await api(ctx, who.token, '/3/lists/get.php', { id: ids.list })).json<unknown[]>();
    assert.deepEqual(byKind.get('list')?.record, list);
    const [outline] = (await api(ctx, who.token, '/3/outlines/get.php', { id: ids.outline })).json<unknown[]>();
    assert.deepEqual(byKind.get('outline')?.record, outline);

    const again = await feed(ctx, who.token, { cursor: first.cursor });
    assert.deepEqual(again, { cursor: first.cursor, more: 0, changes: [] }, 'nothing new: the same cursor, no changes');
  });

  it('after a cursor: edits and deletes in the order they were made, a record changed twice once in its latest state', async () => {
    const { ctx } = env;
    const who = await signIn(ctx, { pro: 1, scope: ALL });
    const ids = await everything(ctx, who);
    const { cursor } = await feed(ctx, who.token);
    await tasksCall(ctx, who.token, 'edit', [{ id: ids.task, title: 'Call Bob today' }]);
    await api(ctx, who.token, '/3/notes/delete.php', { notes: JSON.stringify([ids.note]) });
    await tasksCall(ctx, who.token, 'edit', [{ id: ids.task, star: 1 }]);
    await api(ctx, who.token, '/3/lists/delete.php', { lists: JSON.stringify([ids.list]) });
    const next = await feed(ctx, who.token, { cursor });
    const seen = next.changes.map((c) => `${c.op} ${c.kind} ${c.id}`);
    assert.deepEqual(seen.slice(0, 2), [`delete note ${ids.note}`, `upsert task ${ids.task}`], 'the task once, at its latest change');
    // A list and its rows go in one delete, in the order the database removes them.
    assert.deepEqual(seen.slice(2).sort(), [`delete list ${ids.list}`, `delete row ${ids.row}`]);
    const task = next.changes.find((c) => c.kind === 'task')?.record as Record<string, unknown>;
    assert.equal(task['title'], 'Call Bob today');
    assert.equal(task['star'], 1, 'the latest state');
    assert.equal(next.changes.find((c) => c.op === 'delete')?.record, undefined, 'a delete carries no record');
    assert.notEqual(next.cursor, cursor);
  });

  it('pages of num changes: more is 1 until the last, and the pages together hold every change once', async () => {
    const { ctx } = env;
    const who = await signIn(ctx, { scope: 'basic tasks write' });
    await tasksCall(ctx, who.token, 'add', Array.from({ length: 7 }, (_, i) => ({ title: `T${i}` })));
    const paged = await follow(ctx, who.token, undefined, 3);
    assert.equal(paged.pages, 3);
    assert.deepEqual(new Set(paged.changes.map((c) => c.id)).size, 7);
    const whole = await feed(ctx, who.token);
    assert.equal(whole.cursor, paged.cursor, 'the same position, read in one page or three');
  });

  it('serves the kinds the scope can read, and needs one of the resource scopes', async () => {
    const { ctx } = env;
    const owner = await signIn(ctx, { pro: 1, scope: ALL });
    await everything(ctx, owner);
    const kindsFor = async (scope: string): Promise<string[]> => {
      const other = await signIn(ctx, { account: owner.account, scope });
      return [...new Set((await feed(ctx, other.token)).changes.map((c) => c.kind))].sort();
    };
    assert.deepEqual(await kindsFor('tasks'), ['folder', 'task']);
    assert.deepEqual(await kindsFor('notes'), ['note']);
    assert.deepEqual(await kindsFor('lists'), ['list', 'row']);
    assert.deepEqual(await kindsFor('outlines write'), ['outline']);
    const basic = await signIn(ctx, { account: owner.account, scope: 'basic write' });
    const refused = await api(ctx, basic.token, '/3/sync/changes.php');
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json<{ errorCode: number }>().errorCode, 2);
  });

  it('a joint task is in the feed of every account it is shared with', async () => {
    const { ctx } = env;
    const [a, b] = await people(ctx, 2);
    await collaborate(ctx, a!, b!);
    const { cursor } = await feed(ctx, b!.token);
    const [task] = (await tasksCall(ctx, a!.token, 'add', [{ title: 'Together' }])).json<Array<{ id: number }>>();
    assert.equal((await share(ctx, a!, task!.id, [b!.account.userid])).statusCode, 200);
    const seen = await feed(ctx, b!.token, { cursor });
    assert.deepEqual(brief(seen.changes), ['upsert task']);
    assert.equal((seen.changes[0]?.record as { title: string }).title, 'Together');
  });

  it('answers 1101 for a garbled cursor or another account\'s, 1100 for a bad number, and changes nothing', async () => {
    const { ctx } = env;
    const a = await signIn(ctx);
    const b = await signIn(ctx);
    await tasksCall(ctx, a.token, 'add', [{ title: 'x' }]);
    const cursorOfA = (await feed(ctx, a.token)).cursor;
    assert.deepEqual(await errorOf(ctx, b.token, { cursor: cursorOfA }), [400, 1101]);
    assert.deepEqual(await errorOf(ctx, a.token, { cursor: 'nonsense' }), [400, 1101]);
    assert.deepEqual(await errorOf(ctx, a.token, { cursor: `${cursorOfA}x` }), [400, 1101]);
    assert.deepEqual(await errorOf(ctx, a.token, { num: 'ten' }), [400, 1100]);
    assert.deepEqual(await errorOf(ctx, a.token, { wait: '1s' }), [400, 1100]);
    // num and wait outside their ranges are brought inside them, as tasks/get's num is.
    assert.equal((await feed(ctx, a.token, { num: '0' })).changes.length, 1);
    assert.equal((await feed(ctx, a.token, { num: '5000', wait: '-3' })).changes.length, 1);
  });

  it('answers 1102 (HTTP 410) for a cursor older than the deletions kept, and a fresh start works', async () => {
    const { ctx } = env;
    const who = await signIn(ctx);
    const [t1, t2] = (await tasksCall(ctx, who.token, 'add', [{ title: 'a' }, { title: 'b' }])).json<Array<{ id: number }>>();
    const { cursor } = await feed(ctx, who.token);
    await tasksCall(ctx, who.token, 'delete', [t1!.id]);
    // Every deletion so far is past its time (the log's clock is the database's).
    await ctx.deps.store.transaction((tx) => tx.changes.prune(Math.floor(Date.now() / 1000) + 3600));
    const res = await api(ctx, who.token, '/3/sync/changes.php', { cursor });
    assert.equal(res.statusCode, 410);
    assert.equal(res.json<{ errorCode: number }>().errorCode, 1102);
    const fresh = await feed(ctx, who.token);
    assert.deepEqual(fresh.changes.map((c) => c.id), [String(t2!.id)]);
    assert.deepEqual((await feed(ctx, who.token, { cursor: fresh.cursor })).changes, []);
  });

  it('a first read in pages finishes though deletions older than its start were forgotten, and still answers one made after it', async () => {
    const { ctx } = env;
    const who = await signIn(ctx);
    const added = (await tasksCall(ctx, who.token, 'add', [1, 2, 3, 4, 5].map((n) => ({ title: `t${n}` })))).json<Array<{ id: number }>>();
    await tasksCall(ctx, who.token, 'delete', [added[4]!.id]);
    // The deletion is forgotten: the floor is now past every task's position.
    await ctx.deps.store.transaction((tx) => tx.changes.prune(Math.floor(Date.now() / 1000) + 3600));
    const first = await feed(ctx, who.token, { num: '2' });
    assert.equal(first.more, 1);
    // A task the reader holds is deleted while it reads on: the deletion is answered on a later page.
    await tasksCall(ctx, who.token, 'delete', [added[0]!.id]);
    const rest = await follow(ctx, who.token, first.cursor, 2);
    const seen = [...first.changes, ...rest.changes];
    assert.deepEqual(seen.filter((c) => c.op === 'upsert').map((c) => c.id).sort(), added.slice(0, 4).map((t) => String(t.id)).sort());
    assert.deepEqual(rest.changes.filter((c) => c.op === 'delete').map((c) => c.id), [String(added[0]!.id)]);
    assert.deepEqual((await feed(ctx, who.token, { cursor: rest.cursor })).changes, []);
    // A page's cursor is refused once a deletion after the read's start is forgotten too.
    const again = await feed(ctx, who.token, { num: '1' });
    await tasksCall(ctx, who.token, 'delete', [added[1]!.id]);
    await ctx.deps.store.transaction((tx) => tx.changes.prune(Math.floor(Date.now() / 1000) + 3600));
    assert.deepEqual(await errorOf(ctx, who.token, { cursor: again.cursor }), [410, 1102]);
  });

  it('XML: <changes cursor more> with a <change> each, the record inside as its kind writes it', async () => {
    const { ctx } = env;
    const who = await signIn(ctx, { scope: ALL });
    const ids = await everything(ctx, who);
    const res = await api(ctx, who.token, '/3/sync/changes.php', { f: 'xml' });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /xml/);
    const doc = new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(res.body) as {
      changes: { '@_cursor': string; '@_more': string; change: Array<{ kind: string; op: string; id: string; record: Record<string, Record<string, string>> }> };
    };
    const json = await feed(ctx, who.token);
    assert.equal(doc.changes['@_cursor'], json.cursor);
    assert.equal(doc.changes['@_more'], '0');
    const task = doc.changes.change.find((c) => c.kind === 'task');
    assert.equal(task?.id, String(ids.task));
    assert.equal(task?.record['task']?.['title'], 'Call Bob');
    const folder = doc.changes.change.find((c) => c.kind === 'folder');
    assert.ok(folder?.record['folder']?.['order'] !== undefined, 'XML element names of the kind (folders: order)');
  });

  it('wait: an empty answer is held until a change arrives, or until the time is up', async () => {
    const { ctx } = env;
    const who = await signIn(ctx);
    const { cursor } = await feed(ctx, who.token);
    const held = api(ctx, who.token, '/3/sync/changes.php', { cursor, wait: '30' });
    await new Promise((r) => setTimeout(r, 100));
    await tasksCall(ctx, who.token, 'add', [{ title: 'while waiting' }]);
    const answer = (await held).json<Feed>();
    assert.deepEqual(brief(answer.changes), ['upsert task']);
    const empty = await feed(ctx, who.token, { cursor: answer.cursor, wait: '1' });
    assert.deepEqual(empty, { cursor: answer.cursor, more: 0, changes: [] });
  });
});
