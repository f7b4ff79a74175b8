import assert from 'node:assert/strict';
import { api, signIn, tasksCall, type SignedIn, type TestContext } from '../../../test/harness.js';

/** Steps the sharing tests share: accounts that may share, collaborations, tasks and their rows. */
const SCOPE = 'basic tasks write share';

export type Row = Record<string, unknown> & { id: number; title: string; modified: number };

export async function people(ctx: TestContext, n: number, pro: 0 | 1 | 2 = 1): Promise<SignedIn[]> {
  const out: SignedIn[] = [];
  for (let i = 0; i < n; i++) out.push(await signIn(ctx, { pro, scope: SCOPE }));
  return out;
}

/** a invites b (by e-mail address) and b accepts. */
export async function collaborate(ctx: TestContext, a: SignedIn, b: SignedIn, opts: { reassignable?: 0 | 1; sharable?: 0 | 1 } = {}): Promise<void> {
  const inv = await api(ctx, a.token, '/3/account/collaborators_invite.php', { invite: b.account.email });
  assert.equal(inv.statusCode, 200, inv.body);
  const form: Record<string, string> = { id: a.account.userid };
  if (opts.reassignable !== undefined) form['reassignable'] = String(opts.reassignable);
  if (opts.sharable !== undefined) form['sharable'] = String(opts.sharable);
  const acc = await api(ctx, b.token, '/3/account/collaborators_accept.php', form);
  assert.equal(acc.statusCode, 200, acc.body);
}

export async function addTask(ctx: TestContext, who: SignedIn, task: Record<string, unknown>): Promise<Row> {
  const [t] = (await tasksCall(ctx, who.token, 'add', [task])).json<Row[]>();
  return t as Row;
}

export async function rows(ctx: TestContext, who: SignedIn, form: Record<string, string> = {}): Promise<Row[]> {
  const [, ...r] = (await api(ctx, who.token, '/3/tasks/get.php', { fields: 'shared,sharedowner,sharedwith,addedby,folder,note', ...form })).json<Row[]>();
  return r;
}

export async function share(ctx: TestContext, who: SignedIn, id: number, userids: string[]) {
  return api(ctx, who.token, '/3/tasks/share.php', { id: String(id), share: JSON.stringify(userids) });
}
