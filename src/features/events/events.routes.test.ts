import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { defaultDatabase } from '../../../test/database.js';
import { anotherInstance, api, createAccount, signIn, tasksCall, testContext, type SignedIn, type TestContext } from '../../../test/harness.js';
import { openEvents, type SseMessage, type SseStream } from '../../../test/sse-client.js';
import { unixSeconds } from '../../lib/clock.js';
import { revokeGrant } from '../../oauth/grants.service.js';
import { EVENTS_PATH } from './events.routes.js';

/**
 * /3/sync/events.php over real sockets (docs/sync.md, docs/decisions/0026): the app listens on a
 * port of its own; writes go through the API as an app's would. Deadlines of a few seconds bound
 * what should take milliseconds (the heartbeat and the grant checks tick once a second).
 */

async function listening(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

const feedCursor = async (ctx: TestContext, token: string): Promise<string> => (await api(ctx, token, '/3/sync/changes.php')).json<{ cursor: string }>().cursor;
const addTask = (ctx: TestContext, token: string, title = 'Task') => tasksCall(ctx, token, 'add', [{ title }]);

/** The next event, asserted to be a `changes` event with its cursor as id and in its data. */
async function changesEvent(stream: SseStream): Promise<string> {
  const m = (await stream.nextEvent()) as SseMessage;
  assert.notEqual(m, 'end', 'the stream goes on');
  assert.equal(m.event, 'changes');
  assert.deepEqual(JSON.parse(m.data ?? ''), { cursor: m.id });
  return m.id as string;
}

/** Whether the stream ended (the server closed the response) within a few seconds. */
async function ended(stream: SseStream, seconds = 5): Promise<boolean> {
  for (;;) {
    const m = await stream.next(seconds * 1000).catch(() => 'timeout' as const);
    if (m === 'end') return true;
    if (m === 'timeout') return false;
  }
}

describe('the event stream', () => {
  let ctx: TestContext;
  let base: string;
  const open = (token: string, headers: Record<string, string> = {}, query = '') => openEvents(`${base}${EVENTS_PATH}${query}`, { authorization: `Bearer ${token}`, ...headers });
  /** A stream that opened; closed by the test. */
  const stream = async (token: string, headers: Record<string, string> = {}, query = ''): Promise<SseStream> => {
    const answer = await open(token, headers, query);
    assert.equal(answer.status, 200, answer.body);
    return answer.stream as SseStream;
  };

  before(async () => {
    ctx = await testContext({ SSE_MAX_PER_ACCOUNT: '3', TOKEN_CACHE_SECONDS: '1' });
    base = await listening(ctx.app);
  });
  after(() => ctx.close());

  it('is guarded like every call: a token, one of the resource scopes, a cursor of the account, GET', async () => {
    const none = await openEvents(`${base}${EVENTS_PATH}`, {});
    assert.deepEqual([none.status, JSON.parse(none.body).errorCode], [401, 1]);
    const basic = await signIn(ctx, { scope: 'basic' });
    const noScope = await open(basic.token);
    assert.deepEqual([noScope.status, JSON.parse(noScope.body).errorCode], [401, 2]);
    const who = await signIn(ctx);
    const other = await signIn(ctx);
    for (const bad of ['garbled', await feedCursor(ctx, other.token)]) {
      const refused = await open(who.token, { 'last-event-id': bad });
      assert.deepEqual([refused.status, JSON.parse(refused.body).errorCode], [400, 1101], bad);
      const asParam = await open(who.token, {}, `?cursor=${encodeURIComponent(bad)}`);
      assert.deepEqual([asParam.status, JSON.parse(asParam.body).errorCode], [400, 1101]);
    }
    const post = await fetch(`${base}${EVENTS_PATH}`, { method: 'POST', headers: { authorization: `Bearer ${who.token}` } });
    assert.deepEqual([post.status, post.headers.get('allow')], [405, 'GET']);
    const head = await fetch(`${base}${EVENTS_PATH}`, { method: 'HEAD', headers: { authorization: `Bearer ${who.token}` } });
    assert.deepEqual([head.status, head.headers.get('content-type')], [200, 'text/event-stream; charset=utf-8'], 'HEAD: the head a stream would have, and no stream');
    const xml = await openEvents(`${base}${EVENTS_PATH}?f=xml`, {});
    assert.match(xml.body, /<error id="1">/, 'errors in the format asked for');
  });

  it('tells the cursor at once, then each commit of the account as the cursor the feed answers now', async () => {
    const who = await signIn(ctx);
    const answer = await open(who.token);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    const s = answer.stream as SseStream;
    try {
      assert.deepEqual(await s.next(), { comment: 'open' });
      assert.deepEqual(await s.next(), { retry: '3000' });
      assert.equal(await changesEvent(s), await feedCursor(ctx, who.token), 'without Last-Event-ID: where the account is now');
      for (const title of ['One', 'Two']) {
        await addTask(ctx, who.token, title);
        assert.equal(await changesEvent(s), await feedCursor(ctx, who.token));
      }
      // Another account's commits tell this stream nothing: the next event is this account's.
      const other = await signIn(ctx);
      await addTask(ctx, other.token);
      await api(ctx, who.token, '/3/folders/add.php', { name: 'Mine' });
      assert.equal(await changesEvent(s), await feedCursor(ctx, who.token));
      assert.deepEqual(s.waiting, []);
    } finally {
      s.close();
    }
  });

  it('honours Last-Event-ID (and cursor): the latest at once when behind, nothing until the next commit when current', async () => {
    const who = await signIn(ctx);
    await addTask(ctx, who.token, 'Before');
    const old = await feedCursor(ctx, who.token);
    await addTask(ctx, who.token, 'Missed while away');
    const latest = await feedCursor(ctx, who.token);
    const behind = await stream(who.token, { 'last-event-id': old });
    const byParam = await stream(who.token, {}, `?cursor=${encodeURIComponent(old)}`);
    const current = await stream(who.token, { 'last-event-id': latest });
    try {
      assert.equal(await changesEvent(behind), latest);
      assert.equal(await changesEvent(byParam), latest);
      await addTask(ctx, who.token, 'After');
      const next = await feedCursor(ctx, who.token);
      assert.equal(await changesEvent(current), next, 'the current one was told nothing before this commit');
      assert.equal(await changesEvent(behind), next);
    } finally {
      for (const s of [behind, byParam, current]) s.close();
    }
  });

  it('tells only of kinds the scope reads: a notes token hears of notes, not of tasks', async () => {
    const app = await signIn(ctx, { scope: 'basic notes tasks write' });
    const notesOnly = await signIn(ctx, { account: app.account, scope: 'basic notes' });
    const s = await stream(notesOnly.token, { 'last-event-id': await feedCursor(ctx, notesOnly.token) });
    try {
      await addTask(ctx, app.token);
      await api(ctx, app.token, '/3/notes/add.php', { notes: JSON.stringify([{ title: 'Note' }]) });
      // Had the task been told, its own event (an earlier cursor) would come first.
      assert.equal(await changesEvent(s), await feedCursor(ctx, notesOnly.token));
      // Behind by tasks only at connection: nothing to tell at once.
      await addTask(ctx, app.token);
      const later = await stream(notesOnly.token, { 'last-event-id': await feedCursor(ctx, app.token) });
      const quiet = await stream(notesOnly.token, { 'last-event-id': (await api(ctx, notesOnly.token, '/3/sync/changes.php')).json<{ cursor: string }>().cursor });
      await api(ctx, app.token, '/3/notes/add.php', { notes: JSON.stringify([{ title: 'Another' }]) });
      const now = await feedCursor(ctx, app.token);
      assert.equal(await changesEvent(later), now);
      assert.equal(await changesEvent(quiet), now, 'the tasks before the note were not told');
      later.close();
      quiet.close();
    } finally {
      s.close();
    }
  });

  it('writes a comment when nothing was written for 20 s of the clock', async () => {
    const who = await signIn(ctx);
    const s = await stream(who.token);
    try {
      await changesEvent(s);
      ctx.clock.advance(21);
      assert.deepEqual(await s.next(), { comment: 'keep-alive' });
      ctx.clock.advance(21);
      assert.deepEqual(await s.next(), { comment: 'keep-alive' });
    } finally {
      s.close();
    }
  });

  it('holds at most SSE_MAX_PER_ACCOUNT streams per account: the next is 1107 (429); a closed one frees its slot', async () => {
    const who = await signIn(ctx);
    const again = await signIn(ctx, { account: who.account });
    const streams = [await stream(who.token), await stream(again.token), await stream(who.token)];
    try {
      const refused = await open(who.token);
      assert.equal(refused.status, 429);
      assert.equal(JSON.parse(refused.body).errorCode, 1107);
      assert.equal(refused.headers.get('retry-after'), '60');
      const other = await signIn(ctx);
      const theirs = await stream(other.token);
      theirs.close();
      streams.shift()?.close();
      // The slot is freed when the server sees the connection go: a moment.
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        const retry = await open(who.token);
        status = retry.status;
        if (retry.stream) streams.push(retry.stream);
        else await sleep(50);
      }
      assert.equal(status, 200);
    } finally {
      for (const s of streams) s.close();
    }
  });

  it('ends a stream when its grant is revoked: here at once, elsewhere within TOKEN_CACHE_SECONDS; and when its token expires', async () => {
    const who = await signIn(ctx);
    const here = await stream(who.token);
    const kept = await stream((await signIn(ctx, { account: who.account })).token);
    const grantOf = async (token: string) => (await ctx.deps.accessTokens.verify(token))?.grantId as number;
    assert.equal(await revokeGrant(ctx.deps, await grantOf(who.token), 'test'), true);
    assert.ok(await ended(here), 'revoked in this process: ended at once');

    // Revoked by another instance (or the command line): the database says so; no word reaches this process.
    const elsewhere = await signIn(ctx, { account: who.account });
    const s = await stream(elsewhere.token);
    const grant = await grantOf(elsewhere.token);
    await ctx.deps.store.transaction((tx) => tx.oauth.revokeGrant(grant, unixSeconds(ctx.clock), 'elsewhere'));
    assert.ok(await ended(s), 'ended once this process checks the grant');
    assert.equal(kept.done, false, 'the account’s other grant keeps its stream');

    const expiring = await signIn(ctx);
    const e = await stream(expiring.token);
    ctx.clock.advance(7200);
    assert.ok(await ended(e), 'the access token expired');
    kept.close();
  });

  it('counts as one API call when it opens; what it carries counts nothing', async () => {
    const limited = await testContext({ RATE_LIMIT_API_PER_USER: '3/1h' });
    try {
      const url = `${await listening(limited.app)}${EVENTS_PATH}`;
      const who = await signIn(limited);
      const opening = () => openEvents(url, { authorization: `Bearer ${who.token}` });
      const first = await opening();
      assert.ok(first.headers.get('ratelimit-policy'), 'it states the limits as every call does');
      const s = first.stream as SseStream;
      await changesEvent(s);
      await addTask(limited, who.token);
      await changesEvent(s);
      const second = await opening();
      assert.equal(second.status, 200, 'the third call of the hour: the events before it counted nothing');
      const third = await opening();
      assert.deepEqual([third.status, JSON.parse(third.body).errorCode], [429, 3]);
      s.close();
      second.stream?.close();
    } finally {
      await limited.close();
    }
  });

  it('ends every stream when the server closes, and the close waits for nothing else', async () => {
    const closing = await testContext();
    const url = `${await listening(closing.app)}${EVENTS_PATH}`;
    const who = await signIn(closing);
    const s = (await openEvents(url, { authorization: `Bearer ${who.token}` })).stream as SseStream;
    await changesEvent(s);
    await closing.close();
    assert.ok(await ended(s, 1), 'the response ended');
  });
});

// Two instances share a PostgreSQL database; one process serves an SQLite file.
if (defaultDatabase().kind === 'postgres') {
  describe('the event stream on two instances', () => {
    let ctx: TestContext;
    let other: Awaited<ReturnType<typeof anotherInstance>>;
    let baseA: string;
    let baseB: string;
    let who: SignedIn;

    before(async () => {
      ctx = await testContext({ SSE_MAX_PER_ACCOUNT: '3', TOKEN_CACHE_SECONDS: '1' });
      other = await anotherInstance(ctx, ctx.clock);
      baseA = await listening(ctx.app);
      baseB = await listening(other.app);
      who = await signIn(ctx);
    });
    after(async () => {
      await other.close();
      await ctx.close();
    });
    const openOn = (base: string, token = who.token) => openEvents(`${base}${EVENTS_PATH}`, { authorization: `Bearer ${token}` });

    it('a commit on one instance is told on the other’s streams', async () => {
      const b = (await openOn(baseB)).stream as SseStream;
      try {
        await changesEvent(b);
        for (const title of ['On A', 'Again on A']) {
          await addTask(ctx, who.token, title);
          assert.equal(await changesEvent(b), await feedCursor(ctx, who.token));
        }
      } finally {
        b.close();
      }
    });

    it('counts an account’s streams across instances; a dead instance’s leases count until they run out', async () => {
      const held = [(await openOn(baseA)).stream, (await openOn(baseB)).stream, (await openOn(baseA)).stream] as SseStream[];
      try {
        for (const base of [baseA, baseB]) assert.deepEqual([(await openOn(base)).status], [429]);
      } finally {
        for (const s of held) s.close();
      }
      // An instance that died holding all three: its leases were renewed last at the clock's now.
      const now = unixSeconds(ctx.clock);
      const account = (await createAccount(ctx)).pk;
      const dead = await signIn(ctx, { account: await ctx.deps.store.read.accounts.get(account).then((a) => a!) });
      for (const holder of ['d1', 'd2', 'd3']) await ctx.deps.store.transaction((tx) => tx.sseLeases.claim(account, holder, 3, now, now + 60));
      assert.equal((await openOn(baseB, dead.token)).status, 429);
      ctx.clock.advance(61);
      const s = await openOn(baseB, dead.token);
      assert.equal(s.status, 200, 'its leases ran out');
      s.stream?.close();
    });

    it('a grant revoked on one instance ends its streams on the other within TOKEN_CACHE_SECONDS', async () => {
      const b = (await openOn(baseB)).stream as SseStream;
      const grant = (await ctx.deps.accessTokens.verify(who.token))?.grantId as number;
      assert.equal(await revokeGrant(ctx.deps, grant, 'revoked on A'), true);
      assert.ok(await ended(b));
    });
  });
}
