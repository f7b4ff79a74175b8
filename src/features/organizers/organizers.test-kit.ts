import type { LightMyRequestResponse } from 'fastify';
import { api, authorize, createAccount, createApp, type TestContext } from '../../../test/harness.js';
import type { Account, OrganizerKind, Stamps, Task } from '../../storage/store.js';
import { newTask } from '../../../test/factories.js';

/** Shared helpers of the organiser tests (not a test file itself). */

export const PLURAL: Readonly<Record<OrganizerKind, string>> = { folder: 'folders', context: 'contexts', goal: 'goals', location: 'locations' };
export const KIND_NAMES: readonly OrganizerKind[] = ['folder', 'context', 'goal', 'location'];

export interface User {
  readonly account: Account;
  readonly token: string;
}

export async function newUser(ctx: TestContext, scope = 'basic tasks write'): Promise<User> {
  const account = await createAccount(ctx);
  const token = (await authorize(ctx, account, await createApp(ctx), scope)).access_token;
  return { account, token };
}

export type Op = 'get' | 'add' | 'edit' | 'delete';

export function call(ctx: TestContext, user: User, kind: OrganizerKind, op: Op, form: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return api(ctx, user.token, `/3/${PLURAL[kind]}/${op}.php`, form);
}

/** The JSON body of a call, failing loudly on an HTTP status other than 200. */
export async function body<T = unknown>(res: Promise<LightMyRequestResponse> | LightMyRequestResponse): Promise<T> {
  const r = await res;
  if (r.statusCode !== 200) throw new Error(`HTTP ${r.statusCode}: ${r.body}`);
  return r.json() as T;
}

export type Json = Record<string, unknown>;

/** Adds one record over HTTP and returns it (the single element of the add response). */
export async function add(ctx: TestContext, user: User, kind: OrganizerKind, form: Record<string, string>): Promise<Json> {
  const out = await body<Json[] | Json>(call(ctx, user, kind, 'add', form));
  if (!Array.isArray(out) || out.length !== 1) throw new Error(`add ${kind} failed: ${JSON.stringify(out)}`);
  return out[0] as Json;
}

export async function stamps(ctx: TestContext, user: User): Promise<Stamps> {
  const account = await ctx.deps.store.read.accounts.get(user.account.pk);
  if (!account) throw new Error('account gone');
  return account.stamps;
}

/** A complete stored task (test/factories.ts). */
export const fullTask = newTask;

/** Inserts tasks straight into the store (the tasks endpoints are built elsewhere). */
export async function insertTasks(ctx: TestContext, user: User, tasks: readonly Partial<Task>[]): Promise<number[]> {
  return ctx.deps.store.transaction(async (tx) => {
    const first = await tx.accounts.allocateIds(user.account.pk, 'task', tasks.length);
    for (const [i, t] of tasks.entries()) await tx.tasks.insert(user.account.pk, fullTask(first + i, t));
    return tasks.map((_, i) => first + i);
  });
}

/** Fills an account with `n` records of a kind straight through the store (fast limit tests). */
export async function fill(ctx: TestContext, user: User, kind: OrganizerKind, n: number): Promise<void> {
  await ctx.deps.store.transaction(async (tx) => {
    const first = await tx.accounts.allocateIds(user.account.pk, kind, n);
    for (let i = 0; i < n; i++) {
      const id = first + i;
      const name = `Filler ${id}`;
      const record =
        kind === 'folder'
          ? { id, name, private: 0, archived: 0, ord: id }
          : kind === 'context'
            ? { id, name, private: 0 }
            : kind === 'goal'
              ? { id, name, level: 0, contributes: 0, archived: 0, private: 0, note: '' }
              : { id, name, description: '', lat: 0, lon: 0 };
      await tx.organizers.insert(user.account.pk, kind, record as never);
    }
  });
}
