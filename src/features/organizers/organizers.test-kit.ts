import { after, before } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { api, authorize, createAccount, createApp, type TestContext } from '../../../test/harness.js';
import type { Account, OrganizerKind, Stamps, Task } from '../../storage/store.js';
import { newTask } from '../../../test/factories.js';
import { newOrganizer } from './organizer-records.test-kit.js';

/** Shared helpers of the organiser tests (not a test file itself). */

export const PLURAL: Readonly<Record<OrganizerKind, string>> = { folder: 'folders', context: 'contexts', goal: 'goals', location: 'locations' };
export const KIND_NAMES: readonly OrganizerKind[] = ['folder', 'context', 'goal', 'location'];

/**
 * Each kind's error codes are base + 1 … base + 6. Written out here, not taken from
 * organizer-kinds.ts, so that a wrong kind description fails the tests instead of moving them along.
 */
export const ERROR_BASE: Readonly<Record<OrganizerKind, number>> = { folder: 200, context: 300, goal: 400, location: 500 };

export interface User {
  readonly account: Account;
  readonly token: string;
}

export async function newUser(ctx: TestContext, scope = 'basic tasks write'): Promise<User> {
  const account = await createAccount(ctx);
  const token = (await authorize(ctx, account, await createApp(ctx), scope)).access_token;
  return { account, token };
}

/** The context of a describe block, and its signed-in user. */
export interface Setup {
  readonly ctx: TestContext;
  readonly user: User;
}

/**
 * Opens a context (and signs up a user, unless `withUser` is false) before the block's tests and
 * closes it after them. The caller passes the opener, `() => testContext()`: the test runner picks
 * the files of its PostgreSQL pass by that call appearing in them.
 */
export function setup(open: () => Promise<TestContext>, withUser = true): Setup {
  let ctx: TestContext | undefined;
  let user: User | undefined;
  before(async () => {
    ctx = await open();
    if (withUser) user = await newUser(ctx);
  });
  after(() => ctx?.close());
  return {
    get ctx() {
      if (!ctx) throw new Error('the context opens before the first test');
      return ctx;
    },
    get user() {
      if (!user) throw new Error(withUser ? 'the user signs up before the first test' : 'this block has no user');
      return user;
    },
  };
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

/** Inserts tasks straight into the store (the tasks endpoints are built elsewhere). */
export async function insertTasks(ctx: TestContext, user: User, tasks: readonly Partial<Task>[]): Promise<number[]> {
  return ctx.deps.store.transaction(async (tx) => {
    const first = await tx.accounts.allocateIds(user.account.pk, 'task', tasks.length);
    for (const [i, t] of tasks.entries()) await tx.tasks.insert(user.account.pk, newTask(first + i, t));
    return tasks.map((_, i) => first + i);
  });
}

/** Fills an account with `n` records of a kind straight through the store (fast limit tests). */
export async function fill(ctx: TestContext, user: User, kind: OrganizerKind, n: number): Promise<void> {
  await ctx.deps.store.transaction(async (tx) => {
    const first = await tx.accounts.allocateIds(user.account.pk, kind, n);
    for (let id = first; id < first + n; id++) await tx.organizers.insert(user.account.pk, kind, newOrganizer(kind, id, `Filler ${id}`));
  });
}
