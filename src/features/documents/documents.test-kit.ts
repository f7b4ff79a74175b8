import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { XMLParser } from 'fast-xml-parser';
import { api, type TestContext } from '../../../test/harness.js';
import type { Stamps } from '../../storage/store.js';
import { newUser as newOrganizerUser, type User } from '../organizers/organizers.test-kit.js';

/** Shared helpers of the notes, outlines, lists and rows tests (not a test file itself). */

export type Plural = 'notes' | 'outlines' | 'lists' | 'rows';
export type Json = Record<string, unknown>;

/** Every scope these resources need, and account/get and tasks beside them. */
export const ALL_SCOPES = 'basic tasks notes outlines lists write';

export function newUser(ctx: TestContext, scope = ALL_SCOPES): Promise<User> {
  return newOrganizerUser(ctx, scope);
}

/**
 * Opens a context (and signs up a user with ALL_SCOPES) before the block's tests and closes it
 * after them. The caller passes `() => testContext(…)`: the test runner picks the files of its
 * PostgreSQL pass by that call appearing in them.
 */
export function setup(open: () => Promise<TestContext>): { readonly ctx: TestContext; readonly user: User } {
  let ctx: TestContext | undefined;
  let user: User | undefined;
  before(async () => {
    ctx = await open();
    user = await newUser(ctx);
  });
  after(() => ctx?.close());
  return {
    get ctx() {
      if (!ctx) throw new Error('the context opens before the first test');
      return ctx;
    },
    get user() {
      if (!user) throw new Error('the user signs up before the first test');
      return user;
    },
  };
}

/** A batch call: `items` go, as JSON, in the form field named after the kind (`notes=[…]`). */
export function batch(ctx: TestContext, user: User, plural: Plural, op: 'add' | 'edit' | 'delete', items: unknown, extra: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return api(ctx, user.token, `/3/${plural}/${op}.php`, { [plural]: JSON.stringify(items), ...extra });
}

export function read(ctx: TestContext, user: User, plural: Plural, op: 'get' | 'deleted', form: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return api(ctx, user.token, `/3/${plural}/${op}.php`, form);
}

/** The JSON body of a call, failing loudly on an HTTP status other than 200. */
export function json<T = Json[]>(res: LightMyRequestResponse): T {
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as T;
}

/** Adds the items and returns the records, failing on any inline error. */
export async function added(ctx: TestContext, user: User, plural: Plural, items: unknown[]): Promise<Json[]> {
  const out = json(await batch(ctx, user, plural, 'add', items));
  for (const r of out) assert.ok(!('errorCode' in r), JSON.stringify(r));
  return out;
}

/** The one record or error of a one-item batch. */
export async function one(res: Promise<LightMyRequestResponse> | LightMyRequestResponse): Promise<Json> {
  const out = json(await res);
  assert.equal(out.length, 1, JSON.stringify(out));
  return out[0] as Json;
}

/** Asserts an inline error with its code and ref. */
export function inlineError(r: Json, code: number, ref?: string | number): void {
  assert.equal(r['errorCode'], code, JSON.stringify(r));
  assert.equal(typeof r['errorDesc'], 'string');
  if (ref !== undefined) assert.equal(r['ref'], ref);
}

/** The account's stamps as stored (not as account/get reports them). */
export async function storedStamps(ctx: TestContext, user: User): Promise<Stamps> {
  const account = await ctx.deps.store.read.accounts.get(user.account.pk);
  if (!account) throw new Error('account gone');
  return account.stamps;
}

/** An XML answer parsed, every value as text, lists of one kept as lists where named. */
export function parseXml(body: string, arrays: readonly string[] = []): Json {
  assert.ok(body.startsWith('<?xml version="1.0" encoding="UTF-8"?>'), body);
  assert.doesNotMatch(body, />\s+</, 'compact XML');
  return new XMLParser({ parseTagValue: false, ignoreAttributes: false, attributeNamePrefix: '@', isArray: (name) => arrays.includes(name) }).parse(body) as Json;
}

export const HEX_ID = /^[0-9a-f]{24}$/;
