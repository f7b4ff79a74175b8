import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { nextStamp } from '../lib/clock.js';
import { pruneExpired } from './prune.js';
import { newTask } from '../../test/factories.js';
import {
  COUNTER_HITS_PER_STATEMENT,
  PREF_NAMES,
  STAMP_NAMES,
  UniqueViolation,
  type Account,
  type Client,
  type Grant,
  type MigrationStatus,
  type NewAccount,
  type NewClient,
  type Prefs,
  type Repos,
  type StampName,
  type Stamps,
  type Store,
} from './store.js';

/**
 * The behaviour every adapter of the storage port must show. Each adapter's test file calls
 * storeContract() with a factory for a fresh, empty database; every test gets its own.
 */

const DAY = 86400;
/** A fixed "now" far from zero, so that "30 days ago" is still a positive time. */
const NOW = 1_800_000_000;

let seq = 0;

/** Distinct values per preference, so that a swapped column shows up. */
const PREFS: Prefs = Object.fromEntries(PREF_NAMES.map((n, i) => [n, i + 1])) as Prefs;
const ZERO_STAMPS: Stamps = Object.fromEntries(STAMP_NAMES.map((n) => [n, 0])) as Stamps;

function newAccount(over: Partial<NewAccount> = {}): NewAccount {
  const n = ++seq;
  const email = `User${n}@Example.org`;
  return {
    userid: `td${n}`,
    email,
    emailKey: email.toLowerCase(),
    passwordHash: `hash-${n}`,
    alias: `Alias ${n}`,
    pro: 1,
    prefs: PREFS,
    createdAt: NOW - n,
    ...over,
  };
}

function newClient(over: Partial<NewClient> = {}): NewClient {
  const n = ++seq;
  return {
    clientId: `app${n}`,
    secretHash: `secret-${n}`,
    name: `App ${n}`,
    redirectUris: [`https://app${n}.example.org/cb`],
    createdAt: NOW - n,
    ...over,
  };
}

function stampsWith(changes: Partial<Stamps>): Stamps {
  return { ...ZERO_STAMPS, ...changes };
}

/** A tick of the event loop, so that concurrent transactions get every chance to interleave. */
function yieldToOthers(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function isUnique(what: string): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof UniqueViolation, `expected UniqueViolation, got ${String(err)}`);
    assert.equal(err.what, what);
    return true;
  };
}

/** Opens a fresh, empty database for one test; cleanup closes and removes it. */
/**
 * Opens a store on a database for one test. The database may have served an earlier test of the
 * file and been emptied (the test harness reuses PostgreSQL schemas); `empty` asks for one that
 * nothing has touched, not even a migration.
 */
export type OpenStore = (options?: { readonly empty?: boolean }) => Promise<{ store: Store; cleanup: () => Promise<void> }>;

export function storeContract(label: string, open: OpenStore): void {
  describe(`storage contract: ${label}`, () => {
    let store: Store;
    let firstMigration: MigrationStatus;
    let cleanup: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      const opened = await open();
      store = opened.store;
      cleanup = opened.cleanup;
      firstMigration = await store.migrate();
    });

    afterEach(async () => {
      await cleanup?.();
      cleanup = undefined;
    });

    const tx = <T>(fn: (r: Repos) => Promise<T>): Promise<T> => store.transaction(fn);
    const createAccount = (input: NewAccount = newAccount()): Promise<Account> => tx((r) => r.accounts.create(input));
    const createClient = (input: NewClient = newClient()): Promise<Client> => tx((r) => r.clients.create(input));

    async function createGrant(over: Partial<Omit<Grant, 'id' | 'revokedAt'>> = {}): Promise<Grant> {
      const account = over.userPk === undefined ? await createAccount() : null;
      const client = over.clientPk === undefined ? await createClient() : null;
      return tx((r) =>
        r.oauth.createGrant({
          userPk: account?.pk ?? 0,
          clientPk: client?.pk ?? 0,
          scope: 'basic tasks',
          createdAt: NOW,
          expiresAt: NOW + 90 * DAY,
          vers: null,
          os: null,
          device: null,
          udid: null,
          ...over,
        }),
      );
    }

    describe('migrations', () => {
      // On a database nothing has touched, as a new server's.
      beforeEach(async () => {
        await cleanup?.();
        const opened = await open({ empty: true });
        store = opened.store;
        cleanup = opened.cleanup;
        firstMigration = await store.migrate();
      });

      it('the first migrate() applies every version and leaves nothing pending', async () => {
        assert.ok(firstMigration.applied.length > 0, 'a fresh database needs at least one step');
        assert.deepEqual(firstMigration.pending, []);
        const versions = [...firstMigration.applied];
        assert.deepEqual(versions, [...versions].sort((a, b) => a - b), 'steps run in order');
        assert.equal(new Set(versions).size, versions.length);
      });

      it('migrationStatus() agrees with what migrate() applied', async () => {
        const status = await store.migrationStatus();
        assert.deepEqual([...status.applied], [...firstMigration.applied]);
        assert.deepEqual([...status.pending], []);
      });

      it('running migrate() again applies nothing and changes no status', async () => {
        const again = await store.migrate();
        assert.deepEqual([...again.applied], []);
        assert.deepEqual([...again.pending], []);
        assert.deepEqual([...(await store.migrationStatus()).applied], [...firstMigration.applied]);
      });
    });

    describe('accounts', () => {
      it('create returns the whole record with every stamp at 0', async () => {
        const input = newAccount({ pro: 2 });
        const a = await createAccount(input);
        assert.ok(Number.isInteger(a.pk) && a.pk > 0, `pk ${a.pk}`);
        assert.deepEqual(a, {
          pk: a.pk,
          userid: input.userid,
          email: input.email,
          alias: input.alias,
          pro: 2,
          prefs: PREFS,
          stamps: ZERO_STAMPS,
          createdAt: input.createdAt,
          isAdmin: false,
        });
      });

      it('get(pk) round-trips and get(unknown) is null', async () => {
        const a = await createAccount();
        const b = await createAccount(newAccount({ pro: 0 }));
        assert.notEqual(a.pk, b.pk);
        assert.deepEqual(await store.read.accounts.get(a.pk), a);
        assert.deepEqual(await store.read.accounts.get(b.pk), b);
        assert.equal(await store.read.accounts.get(b.pk + a.pk + 1000), null);
      });

      it('a taken emailKey throws UniqueViolation("email") and creates nothing', async () => {
        const a = await createAccount();
        const dup = newAccount({ email: a.email.toUpperCase(), emailKey: a.email.toLowerCase() });
        await assert.rejects(createAccount(dup), isUnique('email'));
        assert.equal(await store.read.accounts.get(a.pk + 1), null);
        assert.equal((await store.read.accounts.credentialsByEmail(dup.emailKey))?.pk, a.pk, 'the address still belongs to the first account');
        assert.equal(await store.read.accounts.pkByUserid(dup.userid), null, 'no account was made under the new userid');
      });

      it('a taken userid throws UniqueViolation("userid")', async () => {
        const a = await createAccount();
        await assert.rejects(createAccount(newAccount({ userid: a.userid })), isUnique('userid'));
      });

      it('pkByUserid(userid) returns the pk; unknown is null', async () => {
        const a = await createAccount();
        const b = await createAccount();
        assert.equal(await store.read.accounts.pkByUserid(a.userid), a.pk);
        assert.equal(await store.read.accounts.pkByUserid(b.userid), b.pk);
        assert.equal(await store.read.accounts.pkByUserid('td-nobody'), null);
      });

      it('credentialsByEmail(emailKey) returns pk and passwordHash; unknown is null', async () => {
        const input = newAccount({ passwordHash: 'scrypt$abc' });
        const a = await createAccount(input);
        await createAccount();
        assert.deepEqual(await store.read.accounts.credentialsByEmail(input.emailKey), { pk: a.pk, passwordHash: 'scrypt$abc' });
        assert.equal(await store.read.accounts.credentialsByEmail('nobody@example.org'), null);
      });
    });

    describe('text that no stored value can equal (U+0000, lone surrogates)', () => {
      // PostgreSQL refuses U+0000 in a parameter; stored text never holds it (nor a lone surrogate),
      // so every lookup by text answers "not found" for such a key, the same on both databases.
      const unmatchable = (key: string): string[] => [`${key}\u0000`, `\u0000${key}`, `${key}\uD800`, `${key.slice(0, 2)}\u0000${key.slice(2)}`];

      it('accounts.pkByUserid and accounts.credentialsByEmail find nothing', async () => {
        const input = newAccount();
        await createAccount(input);
        for (const key of unmatchable(input.userid)) assert.equal(await store.read.accounts.pkByUserid(key), null, JSON.stringify(key));
        for (const key of unmatchable(input.emailKey)) assert.equal(await store.read.accounts.credentialsByEmail(key), null, JSON.stringify(key));
      });

      it('clients.byClientId finds nothing', async () => {
        const input = newClient();
        await createClient(input);
        for (const key of unmatchable(input.clientId)) assert.equal(await store.read.clients.byClientId(key), null, JSON.stringify(key));
      });

      it('written text is stored in its storable form: U+0000 removed, a lone surrogate as U+FFFD', async () => {
        const g = await createGrant();
        await tx((r) => r.oauth.recordClientInfo(g.id, { vers: '1\u00002', os: 'a\uDC00b', device: '\u0000', udid: 'ok' }, NOW + 10));
        const stored = await store.read.oauth.grant(g.id);
        assert.deepEqual([stored?.vers, stored?.os, stored?.device, stored?.udid], ['12', 'a\uFFFDb', '', 'ok']);
      });
    });

    describe('accounts.touch', () => {
      it('moves a stamp to nextStamp(previous, now): 1000, 1000 again, 5000, and never back (4000)', async () => {
        const a = await createAccount();
        const touch = (now: number) => tx((r) => r.accounts.touch(a.pk, ['lastedit_task'], now));
        assert.deepEqual(await touch(1000), { lastedit_task: nextStamp(0, 1000) });
        assert.deepEqual(await touch(1000), { lastedit_task: 1000 });
        assert.deepEqual(await touch(5000), { lastedit_task: 5000 });
        assert.deepEqual(await touch(4000), { lastedit_task: 5000 });
        assert.deepEqual((await store.read.accounts.get(a.pk))?.stamps, stampsWith({ lastedit_task: 5000 }));
      });

      it('moves only the named stamps, each from its own previous value', async () => {
        const a = await createAccount();
        await tx((r) => r.accounts.touch(a.pk, ['lastedit_task'], 6000));
        const names: StampName[] = ['lastedit_task', 'lastedit_note', 'lastdelete_note'];
        const moved = await tx((r) => r.accounts.touch(a.pk, names, 5000));
        assert.deepEqual(moved, { lastedit_task: 6000, lastedit_note: 5000, lastdelete_note: 5000 });
        assert.deepEqual(
          (await store.read.accounts.get(a.pk))?.stamps,
          stampsWith({ lastedit_task: 6000, lastedit_note: 5000, lastdelete_note: 5000 }),
        );
      });

      it('touches one account only', async () => {
        const a = await createAccount();
        const b = await createAccount();
        await tx((r) => r.accounts.touch(a.pk, STAMP_NAMES, 7000));
        assert.deepEqual((await store.read.accounts.get(a.pk))?.stamps, Object.fromEntries(STAMP_NAMES.map((n) => [n, 7000])));
        assert.deepEqual((await store.read.accounts.get(b.pk))?.stamps, ZERO_STAMPS);
      });

      it('a name given twice moves its stamp once', async () => {
        const a = await createAccount();
        assert.deepEqual(await tx((r) => r.accounts.touch(a.pk, ['lastedit_task', 'lastedit_task'], 3000)), { lastedit_task: 3000 });
        assert.deepEqual((await store.read.accounts.get(a.pk))?.stamps, stampsWith({ lastedit_task: 3000 }));
      });

      it('touch of no names returns {} and changes nothing', async () => {
        const a = await createAccount();
        await tx((r) => r.accounts.touch(a.pk, ['lastedit_goal'], 3000));
        assert.deepEqual(await tx((r) => r.accounts.touch(a.pk, [], 9000)), {});
        assert.deepEqual(await store.read.accounts.get(a.pk), { ...a, stamps: stampsWith({ lastedit_goal: 3000 }) });
      });

      it('a touch is visible to reads in the same transaction', async () => {
        const a = await createAccount();
        const seen = await tx(async (r) => {
          await r.accounts.touch(a.pk, ['lastedit_folder'], 4000);
          return (await r.accounts.get(a.pk))?.stamps.lastedit_folder;
        });
        assert.equal(seen, 4000);
      });

      it('touch of an unknown account throws rather than pretending to move stamps', async () => {
        const a = await createAccount();
        await assert.rejects(tx((r) => r.accounts.touch(a.pk + 1000, ['lastedit_task'], 1000)));
      });
    });

    describe('settledAccount (what account/get reads)', () => {
      it('returns the account and the clock read before it; null for no account', async () => {
        const a = await createAccount();
        let reads = 0;
        const clock = { now: () => 1_000_000 + 1000 * ++reads };
        assert.deepEqual(await store.settledAccount(a.pk, clock), { account: a, asOfMs: 1_001_000 });
        assert.equal(reads, 1, 'the clock is read once');
        assert.equal(await store.settledAccount(a.pk + 1000, clock), null);
      });

      it('waits for a write transaction of the account that is in flight, and shows what it committed', async () => {
        const a = await createAccount();
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        let locked!: () => void;
        const isLocked = new Promise<void>((resolve) => (locked = resolve));
        const writing = tx(async (r) => {
          await r.accounts.lock(a.pk);
          await r.accounts.touch(a.pk, ['lastedit_task'], 4000);
          locked();
          await gate;
        });
        await isLocked;
        let settled: number | undefined;
        const reading = store.settledAccount(a.pk, { now: () => 3_999_000 }).then((s) => (settled = s?.account.stamps.lastedit_task));
        for (let i = 0; i < 20; i++) await yieldToOthers();
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(settled, undefined, 'still waiting for the writer');
        release();
        await Promise.all([writing, reading]);
        assert.equal(settled, 4000, 'and then sees its write');
      });

      it('does not wait for writers of another account', async () => {
        const a = await createAccount();
        const b = await createAccount();
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        let locked!: () => void;
        const isLocked = new Promise<void>((resolve) => (locked = resolve));
        const writing = tx(async (r) => {
          await r.accounts.lock(b.pk);
          locked();
          await gate;
        });
        await isLocked;
        if (store.dialect === 'postgres') {
          assert.equal((await store.settledAccount(a.pk, { now: () => 0 }))?.account.pk, a.pk);
        } else {
          // SQLite has one writer for the whole file: a settled read waits for whatever it writes.
          let done = false;
          const reading = store.settledAccount(a.pk, { now: () => 0 }).then(() => (done = true));
          await new Promise((resolve) => setTimeout(resolve, 20));
          assert.equal(done, false);
          release();
          await reading;
        }
        release();
        await writing;
      });
    });

    describe('known devices', () => {
      it('unknown until remembered, then known; remembering twice is fine', async () => {
        const a = await createAccount();
        assert.equal(await store.read.accounts.isKnownDevice(a.pk, 'device-1'), false);
        await tx((r) => r.accounts.rememberDevice(a.pk, 'device-1', 1000));
        assert.equal(await store.read.accounts.isKnownDevice(a.pk, 'device-1'), true);
        await tx((r) => r.accounts.rememberDevice(a.pk, 'device-1', 2000));
        assert.equal(await store.read.accounts.isKnownDevice(a.pk, 'device-1'), true);
        assert.equal(await store.read.accounts.isKnownDevice(a.pk, 'device-2'), false);
      });

      it('a device is known per account', async () => {
        const a = await createAccount();
        const b = await createAccount();
        await tx((r) => r.accounts.rememberDevice(a.pk, 'shared', 1000));
        assert.equal(await store.read.accounts.isKnownDevice(b.pk, 'shared'), false);
        await tx((r) => r.accounts.rememberDevice(b.pk, 'shared', 1000));
        assert.equal(await store.read.accounts.isKnownDevice(b.pk, 'shared'), true);
      });
    });

    describe('per-account id counters', () => {
      it('start at 1 and hand out consecutive blocks that never overlap', async () => {
        const a = await createAccount();
        assert.equal(await tx((r) => r.accounts.allocateIds(a.pk, 'task', 1)), 1);
        assert.equal(await tx((r) => r.accounts.allocateIds(a.pk, 'task', 50)), 2);
        assert.equal(await tx((r) => r.accounts.allocateIds(a.pk, 'task', 1)), 52);
      });

      it('are separate per kind and per account', async () => {
        const a = await createAccount();
        const b = await createAccount();
        await tx((r) => r.accounts.allocateIds(a.pk, 'task', 10));
        assert.equal(await tx((r) => r.accounts.allocateIds(a.pk, 'goal', 1)), 1);
        assert.equal(await tx((r) => r.accounts.allocateIds(b.pk, 'task', 1)), 1);
        for (const kind of ['context', 'folder', 'location'] as const) {
          assert.equal(await tx((r) => r.accounts.allocateIds(a.pk, kind, 2)), 1, kind);
        }
      });

      it('a rolled-back transaction releases its block; a committed one never comes back', async () => {
        const a = await createAccount();
        await assert.rejects(
          tx(async (r) => {
            await r.accounts.allocateIds(a.pk, 'task', 5);
            throw new Error('rolled back');
          }),
        );
        assert.equal(await tx((r) => r.accounts.allocateIds(a.pk, 'task', 1)), 1);
        assert.equal(await tx((r) => r.accounts.allocateIds(a.pk, 'task', 1)), 2);
      });

      it('concurrent transactions of one account get disjoint ids', async () => {
        const a = await createAccount();
        const firsts = await Promise.all(
          Array.from({ length: 20 }, () =>
            tx(async (r) => {
              await r.accounts.lock(a.pk);
              await yieldToOthers();
              return r.accounts.allocateIds(a.pk, 'task', 3);
            }),
          ),
        );
        const ids = firsts.flatMap((f) => [f, f + 1, f + 2]).sort((x, y) => x - y);
        assert.deepEqual(ids, Array.from({ length: 60 }, (_, i) => i + 1));
      });

      it('refuses an empty or negative block', async () => {
        const a = await createAccount();
        await assert.rejects(tx((r) => r.accounts.allocateIds(a.pk, 'task', 0)));
        await assert.rejects(tx((r) => r.accounts.lock(a.pk, { kind: 'task', count: -1 })));
      });

      it('lock() with a block of ids hands out the blocks allocateIds() does, and reads the same account', async () => {
        const a = await createAccount();
        const locked = (count: number) => tx((r) => r.accounts.lock(a.pk, { kind: 'note', count }));
        const first = await locked(50);
        assert.equal(first?.firstId, 1);
        assert.deepEqual({ ...first, firstId: null }, await tx((r) => r.accounts.lock(a.pk)), 'the account as lock() alone reads it');
        assert.equal((await tx((r) => r.accounts.lock(a.pk)))?.firstId, null, 'no block asked, none taken');
        assert.equal(await tx((r) => r.accounts.allocateIds(a.pk, 'note', 1)), 51);
        assert.equal((await locked(2))?.firstId, 52);
        assert.equal((await tx((r) => r.accounts.lock(a.pk, { kind: 'task', count: 1 })))?.firstId, 1, 'other kinds keep their own counters');
        assert.equal(await tx((r) => r.accounts.lock(a.pk + 100_000, { kind: 'note', count: 1 })), null, 'no account, no block');
        assert.equal(await tx((r) => r.accounts.allocateIds(a.pk, 'note', 1)), 54);
      });

      it('lock() takes its block the same when it is not the transaction\'s first statement', async () => {
        const a = await createAccount();
        const locked = await tx(async (r) => {
          await r.accounts.get(a.pk);
          return r.accounts.lock(a.pk, { kind: 'task', count: 4 });
        });
        assert.equal(locked?.firstId, 1);
        assert.equal(locked?.pk, a.pk);
        assert.equal(await tx((r) => r.accounts.allocateIds(a.pk, 'task', 1)), 5);
      });

      it('a rolled-back transaction releases the block its lock took', async () => {
        const a = await createAccount();
        await assert.rejects(
          tx(async (r) => {
            await r.accounts.lock(a.pk, { kind: 'task', count: 5 });
            throw new Error('rolled back');
          }),
        );
        assert.equal((await tx((r) => r.accounts.lock(a.pk, { kind: 'task', count: 1 })))?.firstId, 1);
      });

      it('releaseIds gives back the unused tail of the last block, and nothing once a later block was taken', async () => {
        const a = await createAccount();
        const next = await tx(async (r) => {
          const first = (await r.accounts.lock(a.pk, { kind: 'task', count: 10 }))?.firstId as number;
          await r.accounts.releaseIds(a.pk, 'task', first + 3, first + 10);
          return r.accounts.allocateIds(a.pk, 'task', 1);
        });
        assert.equal(next, 4, 'ids 4 to 10 went back');
        await tx(async (r) => {
          const first = await r.accounts.allocateIds(a.pk, 'task', 5);
          await r.accounts.allocateIds(a.pk, 'task', 1);
          await r.accounts.releaseIds(a.pk, 'task', first + 2, first + 5);
        });
        assert.equal(await tx((r) => r.accounts.allocateIds(a.pk, 'task', 1)), 11, 'a block taken after it keeps the tail taken');
        await tx((r) => r.accounts.releaseIds(a.pk, 'task', 12, 12));
        assert.equal(await tx((r) => r.accounts.allocateIds(a.pk, 'task', 1)), 12, 'an empty tail changes nothing');
      });

      it('concurrent transactions get disjoint ids, whether their lock takes them or allocateIds() does', async () => {
        const a = await createAccount();
        const firsts = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            tx(async (r) => {
              if (i % 2 === 0) return (await r.accounts.lock(a.pk, { kind: 'task', count: 3 }))?.firstId as number;
              await r.accounts.lock(a.pk);
              await yieldToOthers();
              return r.accounts.allocateIds(a.pk, 'task', 3);
            }),
          ),
        );
        const ids = firsts.flatMap((f) => [f, f + 1, f + 2]).sort((x, y) => x - y);
        assert.deepEqual(ids, Array.from({ length: 60 }, (_, i) => i + 1));
      });
    });

    describe('rate counters', () => {
      // Plain keys: every test starts on a fresh database (beforeEach), so no count carries over.
      const key = (name: string): string => `contract:${name}`;

      it('count hits per window and start again in a later window', async () => {
        const k = key('window');
        assert.deepEqual([await store.counters.hit(k, 100, 160), await store.counters.hit(k, 100, 160)], [1, 2]);
        assert.equal(await store.counters.peek(k, 100), 2);
        assert.equal(await store.counters.hit(k, 160, 220), 1);
        assert.equal(await store.counters.peek(k, 160), 1);
      });

      it('a hit stamped with an older window (a clock behind) counts in the current one', async () => {
        const k = key('skew');
        await store.counters.hit(k, 160, 220);
        assert.equal(await store.counters.hit(k, 100, 160), 2, 'must not restart the count');
        assert.equal(await store.counters.peek(k, 100), 2, 'peek from the late clock sees the current count');
        assert.equal(await store.counters.hit(k, 160, 220), 3);
      });

      it('concurrent hits all count', async () => {
        const k = key('concurrent');
        const counts = await Promise.all(Array.from({ length: 20 }, () => store.counters.hit(k, 100, 160)));
        assert.deepEqual([...counts].sort((x, y) => x - y), Array.from({ length: 20 }, (_, i) => i + 1));
      });

      it('a hit of several events adds them all, and starts a later window at its own count', async () => {
        const k = key('by');
        assert.equal(await store.counters.hit(k, 100, 160, 5), 5);
        assert.equal(await store.counters.hit(k, 100, 160), 6);
        assert.equal(await store.counters.hit(k, 100, 160, 3), 9);
        assert.equal(await store.counters.hit(k, 160, 220, 4), 4);
        assert.equal(await store.counters.hit(k, 100, 160, 2), 6, 'an older window counts in the held one');
      });

      it('hitMany counts each key as hit() would and answers in the order asked', async () => {
        await store.counters.hit(key('m-held'), 100, 160, 7);
        await store.counters.hit(key('m-later'), 100, 160, 7);
        await store.counters.hit(key('m-older'), 160, 220, 7);
        const counts = await store.counters.hitMany([
          { key: key('m-new'), windowStart: 100, windowEnd: 160, by: 2 },
          { key: key('m-held'), windowStart: 100, windowEnd: 160, by: 3 },
          { key: key('m-later'), windowStart: 160, windowEnd: 220, by: 4 },
          { key: key('m-older'), windowStart: 100, windowEnd: 160, by: 5 },
        ]);
        assert.deepEqual(counts, [2, 10, 4, 12]);
        assert.deepEqual(await store.counters.hitMany([]), []);
      });

      it('hitMany counts as many keys as one statement holds, and refuses more (counting none)', async () => {
        const hits = Array.from({ length: COUNTER_HITS_PER_STATEMENT }, (_, i) => ({ key: key(`many-${249 - i}`), windowStart: 100, windowEnd: 160, by: i + 1 }));
        assert.deepEqual(await store.counters.hitMany(hits), hits.map((h) => h.by));
        assert.deepEqual(await store.counters.hitMany(hits), hits.map((h) => 2 * h.by));
        assert.equal(await store.counters.peek(key('many-0'), 100), 2 * 250);
        await assert.rejects(store.counters.hitMany([...hits, { key: key('one-more'), windowStart: 100, windowEnd: 160, by: 1 }]), RangeError);
        assert.equal(await store.counters.peek(key('many-0'), 100), 2 * 250);
      });

      it('concurrent hitMany of the same keys all count (and do not deadlock)', async () => {
        const keys = Array.from({ length: 40 }, (_, i) => key(`busy-${i}`));
        // Each call names the keys in another order: the rows are locked in one order whatever it is.
        await Promise.all(
          Array.from({ length: 8 }, (_, n) => store.counters.hitMany((n % 2 ? [...keys].reverse() : keys).map((k) => ({ key: k, windowStart: 100, windowEnd: 160, by: 1 })))),
        );
        for (const k of keys) assert.equal(await store.counters.peek(k, 100), 8);
      });

      it('prune deletes the windows that have ended', async () => {
        const k = key('prune');
        await store.counters.hit(k, 100, 160);
        assert.ok((await store.counters.prune(160)) >= 1);
        assert.equal(await store.counters.peek(k, 100), 0);
      });

      it('the hourly pruneExpired (what every server runs) deletes ended windows too', async () => {
        const k = key('hourly');
        await store.counters.hit(k, 100, 160);
        await pruneExpired(store, 200);
        assert.equal(await store.counters.peek(k, 100), 0);
      });
    });

    describe('clients', () => {
      it('create returns the record; byClientId and get round-trip', async () => {
        const input = newClient();
        const c = await createClient(input);
        assert.ok(Number.isInteger(c.pk) && c.pk > 0, `pk ${c.pk}`);
        assert.deepEqual(c, { pk: c.pk, website: null, ownerPk: null, iconUpdatedAt: null, ...input });
        assert.deepEqual(await store.read.clients.byClientId(input.clientId), c);
        assert.deepEqual(await store.read.clients.get(c.pk), c);
      });

      it('unknown client id or pk is null', async () => {
        const c = await createClient();
        assert.equal(await store.read.clients.byClientId('no-such-app'), null);
        assert.equal(await store.read.clients.get(c.pk + 1000), null);
      });

      it('list() returns every client ordered by pk', async () => {
        assert.deepEqual(await store.read.clients.list(), []);
        const made = [await createClient(), await createClient(newClient({ name: 'A first by name' })), await createClient()];
        const listed = await store.read.clients.list();
        assert.deepEqual(listed, [...made].sort((x, y) => x.pk - y.pk));
      });

      it('a taken clientId throws UniqueViolation("client_id")', async () => {
        const c = await createClient();
        await assert.rejects(createClient(newClient({ clientId: c.clientId })), isUnique('client_id'));
        assert.equal((await store.read.clients.list()).length, 1);
      });
    });

    describe('oauth codes', () => {
      it('createCode then code(hash) round-trips, unused and without a grant', async () => {
        const a = await createAccount();
        const c = await createClient();
        const input = { codeHash: 'code-1', clientPk: c.pk, userPk: a.pk, scope: 'basic tasks write', expiresAt: NOW + 600, codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', redirectUri: null };
        await tx((r) => r.oauth.createCode(input));
        assert.deepEqual(await store.read.oauth.code('code-1'), { ...input, usedAt: null, grantId: null });
      });

      it('markCodeUsed sets usedAt and grantId', async () => {
        const g = await createGrant();
        await tx((r) => r.oauth.createCode({ codeHash: 'code-2', clientPk: g.clientPk, userPk: g.userPk, scope: 'basic', expiresAt: NOW + 600, codeChallenge: null, redirectUri: null }));
        await tx((r) => r.oauth.markCodeUsed('code-2', NOW + 5, g.id));
        const code = await store.read.oauth.code('code-2');
        assert.equal(code?.usedAt, NOW + 5);
        assert.equal(code?.grantId, g.id);
      });

      it('an unknown code is null', async () => {
        assert.equal(await store.read.oauth.code('no-such-code'), null);
      });
    });

    describe('grants', () => {
      it('createGrant returns the record with an id; grant(id) round-trips', async () => {
        const a = await createAccount();
        const c = await createClient();
        const input = {
          userPk: a.pk,
          clientPk: c.pk,
          scope: 'basic tasks',
          createdAt: NOW,
          expiresAt: NOW + 90 * DAY,
          vers: '3.1',
          os: null,
          device: 'phone',
          udid: null,
        };
        const g = await tx((r) => r.oauth.createGrant(input));
        assert.ok(Number.isInteger(g.id) && g.id > 0, `id ${g.id}`);
        assert.deepEqual(g, { id: g.id, revokedAt: null, lastUsedAt: NOW, ...input });
        assert.deepEqual(await store.read.oauth.grant(g.id), g);
        const other = await tx((r) => r.oauth.createGrant({ ...input, udid: 'u-1', os: 'os-1' }));
        assert.notEqual(other.id, g.id);
        assert.equal((await store.read.oauth.grant(other.id))?.udid, 'u-1');
        assert.equal(await store.read.oauth.grant(g.id + other.id + 1000), null);
      });

      it('recordClientInfo changes only the fields it is given; null keeps the old value', async () => {
        const g = await createGrant({ vers: '1.0', os: null, device: 'phone', udid: null });
        await tx((r) => r.oauth.recordClientInfo(g.id, { vers: '2.0', os: 'os-9', device: null, udid: null }, NOW + 10));
        assert.deepEqual(await store.read.oauth.grant(g.id), { ...g, vers: '2.0', os: 'os-9', device: 'phone', udid: null, lastUsedAt: NOW + 10 });
        await tx((r) => r.oauth.recordClientInfo(g.id, { vers: null, os: null, device: null, udid: 'udid-1' }, NOW + 20));
        assert.deepEqual(await store.read.oauth.grant(g.id), { ...g, vers: '2.0', os: 'os-9', device: 'phone', udid: 'udid-1', lastUsedAt: NOW + 20 });
      });

      it('revokeGrant is true the first time, false after, and keeps the first revocation time', async () => {
        const g = await createGrant();
        const other = await createGrant();
        assert.equal(await tx((r) => r.oauth.revokeGrant(g.id, NOW + 100, 'replay')), true);
        assert.equal(await tx((r) => r.oauth.revokeGrant(g.id, NOW + 200, 'again')), false);
        assert.equal((await store.read.oauth.grant(g.id))?.revokedAt, NOW + 100);
        assert.equal((await store.read.oauth.grant(other.id))?.revokedAt, null);
        assert.equal(await tx((r) => r.oauth.revokeGrant(g.id + other.id + 1000, NOW, 'unknown')), false);
      });
    });

    describe('tokens', () => {
      it('createToken then token(hash) returns it joined with its grant', async () => {
        const g = await createGrant();
        const input = {
          hash: 'tok-1',
          kind: 'access' as const,
          grantId: g.id,
          userPk: g.userPk,
          clientPk: g.clientPk,
          scope: 'basic',
          createdAt: NOW,
          expiresAt: NOW + 3600,
        };
        await tx((r) => r.oauth.createToken(input));
        await tx((r) => r.oauth.createToken({ ...input, hash: 'tok-2', kind: 'refresh', expiresAt: NOW + 30 * DAY }));
        assert.deepEqual(await store.read.oauth.token('tok-1'), { ...input, usedAt: null, grantRevokedAt: null, grantExpiresAt: g.expiresAt });
        assert.equal((await store.read.oauth.token('tok-2'))?.kind, 'refresh');
        assert.equal((await store.read.oauth.token('tok-2'))?.expiresAt, NOW + 30 * DAY);
      });

      it('a revoked grant shows on its tokens', async () => {
        const g = await createGrant();
        await tx((r) =>
          r.oauth.createToken({ hash: 'tok-r', kind: 'refresh', grantId: g.id, userPk: g.userPk, clientPk: g.clientPk, scope: 'basic', createdAt: NOW, expiresAt: NOW + DAY }),
        );
        await tx((r) => r.oauth.revokeGrant(g.id, NOW + 7, 'signed out'));
        assert.equal((await store.read.oauth.token('tok-r'))?.grantRevokedAt, NOW + 7);
      });

      it('markTokenUsed sets usedAt', async () => {
        const g = await createGrant();
        await tx((r) =>
          r.oauth.createToken({ hash: 'tok-u', kind: 'refresh', grantId: g.id, userPk: g.userPk, clientPk: g.clientPk, scope: 'basic', createdAt: NOW, expiresAt: NOW + DAY }),
        );
        await tx((r) => r.oauth.markTokenUsed('tok-u', NOW + 3));
        assert.equal((await store.read.oauth.token('tok-u'))?.usedAt, NOW + 3);
      });

      it('an unknown token is null', async () => {
        assert.equal(await store.read.oauth.token('no-such-token'), null);
      });
    });

    describe('pruning', () => {
      it('oauth.prune removes what can no longer matter and keeps the rest', async () => {
        const live = await createGrant({ expiresAt: NOW + 90 * DAY });
        const expired = await createGrant({ userPk: live.userPk, clientPk: live.clientPk, expiresAt: NOW - 1 });
        const recentlyRevoked = await createGrant({ userPk: live.userPk, clientPk: live.clientPk });
        await tx((r) => r.oauth.revokeGrant(recentlyRevoked.id, NOW - DAY, 'replay'));
        const token = (hash: string, grantId: number, expiresAt: number) =>
          tx((r) =>
            r.oauth.createToken({ hash, kind: 'access', grantId, userPk: live.userPk, clientPk: live.clientPk, scope: 'basic', createdAt: NOW - DAY, expiresAt }),
          );
        await token('expired-token', live.id, NOW - 1);
        await token('edge-token', live.id, NOW);
        await token('live-token', live.id, NOW + 3600);
        // Outlives its grant: the grant's end is what counts.
        await token('orphan-token', expired.id, NOW + 3600);
        await token('revoked-family-token', recentlyRevoked.id, NOW + 3600);
        const code = (codeHash: string, expiresAt: number) =>
          tx((r) => r.oauth.createCode({ codeHash, clientPk: live.clientPk, userPk: live.userPk, scope: 'basic', expiresAt, codeChallenge: null, redirectUri: null }));
        await code('ancient-code', NOW - 31 * DAY);
        await code('recent-code', NOW - DAY);
        await code('live-code', NOW + 600);

        const removed = await tx((r) => r.oauth.prune(NOW));
        // Expired token, expired grant and ancient code at least; cascaded rows may or may not count.
        assert.ok(removed >= 3, `removed ${removed}`);

        assert.equal(await store.read.oauth.token('expired-token'), null);
        assert.notEqual(await store.read.oauth.token('edge-token'), null);
        assert.notEqual(await store.read.oauth.token('live-token'), null);
        assert.equal(await store.read.oauth.token('orphan-token'), null);
        assert.notEqual(await store.read.oauth.token('revoked-family-token'), null, 'a recently revoked family is kept to recognise replays');
        assert.equal(await store.read.oauth.grant(expired.id), null);
        assert.notEqual(await store.read.oauth.grant(live.id), null);
        assert.notEqual(await store.read.oauth.grant(recentlyRevoked.id), null);
        assert.equal(await store.read.oauth.code('ancient-code'), null);
        assert.notEqual(await store.read.oauth.code('recent-code'), null);
        assert.notEqual(await store.read.oauth.code('live-code'), null);

        assert.equal(await tx((r) => r.oauth.prune(NOW)), 0, 'nothing left to remove');
      });

      it('oauth.prune removes a family revoked more than 30 days ago', async () => {
        const g = await createGrant({ expiresAt: NOW + 90 * DAY });
        await tx((r) => r.oauth.revokeGrant(g.id, NOW - 31 * DAY, 'old'));
        await tx((r) =>
          r.oauth.createToken({ hash: 'old-family', kind: 'refresh', grantId: g.id, userPk: g.userPk, clientPk: g.clientPk, scope: 'basic', createdAt: NOW, expiresAt: NOW + DAY }),
        );
        assert.ok((await tx((r) => r.oauth.prune(NOW))) > 0);
        assert.equal(await store.read.oauth.grant(g.id), null);
        assert.equal(await store.read.oauth.token('old-family'), null);
      });

      it('sessions.prune removes expired sessions only', async () => {
        const a = await createAccount();
        const session = (idHash: string, expiresAt: number) =>
          tx((r) => r.sessions.create({ idHash, userPk: a.pk, createdAt: NOW - DAY, expiresAt }));
        await session('old', NOW - 1);
        await session('edge', NOW);
        await session('live', NOW + 3600);
        assert.equal(await tx((r) => r.sessions.prune(NOW)), 1);
        assert.equal(await store.read.sessions.get('old'), null);
        assert.notEqual(await store.read.sessions.get('edge'), null);
        assert.notEqual(await store.read.sessions.get('live'), null);
        assert.equal(await tx((r) => r.sessions.prune(NOW)), 0);
      });
    });

    describe('sessions', () => {
      it('create, get and delete round-trip; unknown is null', async () => {
        const a = await createAccount();
        const s = { idHash: 'sess-1', userPk: a.pk, createdAt: NOW, expiresAt: NOW + DAY };
        await tx((r) => r.sessions.create(s));
        await tx((r) => r.sessions.create({ ...s, idHash: 'sess-2' }));
        assert.deepEqual(await store.read.sessions.get('sess-1'), s);
        await tx((r) => r.sessions.delete('sess-1'));
        assert.equal(await store.read.sessions.get('sess-1'), null);
        assert.notEqual(await store.read.sessions.get('sess-2'), null, 'delete removes one session only');
        await tx((r) => r.sessions.delete('no-such-session'));
        assert.equal(await store.read.sessions.get('no-such-session'), null);
      });
    });

    describe('transactions', () => {
      it('a throwing callback rolls back everything it wrote and its error propagates', async () => {
        const input = newAccount();
        const clientInput = newClient();
        const boom = new Error('boom');
        await assert.rejects(
          tx(async (r) => {
            const a = await r.accounts.create(input);
            await r.accounts.touch(a.pk, ['lastedit_task'], 1000);
            await r.clients.create(clientInput);
            throw boom;
          }),
          (err) => err === boom,
        );
        assert.equal(await store.read.accounts.credentialsByEmail(input.emailKey), null);
        assert.equal(await store.read.clients.byClientId(clientInput.clientId), null);
        // The same unique keys are free again.
        await createAccount(input);
        await createClient(clientInput);
      });

      it('a rolled-back touch leaves the stamps as they were', async () => {
        const a = await createAccount();
        await tx((r) => r.accounts.touch(a.pk, ['lastedit_task'], 1000));
        await assert.rejects(
          tx(async (r) => {
            await r.accounts.touch(a.pk, ['lastedit_task', 'lastedit_note'], 2000);
            throw new Error('undo');
          }),
          /undo/,
        );
        assert.deepEqual((await store.read.accounts.get(a.pk))?.stamps, stampsWith({ lastedit_task: 1000 }));
      });

      it('a successful callback commits and its value is returned', async () => {
        const input = newAccount();
        const value = await tx(async (r) => {
          const a = await r.accounts.create(input);
          return { pk: a.pk, seenInside: (await r.accounts.get(a.pk))?.email };
        });
        assert.equal(value.seenInside, input.email);
        assert.equal((await store.read.accounts.get(value.pk))?.userid, input.userid);
      });

      it('store.read does not see what an open transaction has not committed yet', async () => {
        const input = newAccount();
        let pk = 0;
        await tx(async (r) => {
          pk = (await r.accounts.create(input)).pk;
          assert.equal(await store.read.accounts.get(pk), null);
          assert.equal(await store.read.accounts.credentialsByEmail(input.emailKey), null);
        });
        assert.notEqual(await store.read.accounts.get(pk), null);
      });

      it('20 transactions started together all commit, with distinct pks', async () => {
        const inputs = Array.from({ length: 20 }, () => newAccount());
        const accounts = await Promise.all(
          inputs.map((input) =>
            tx(async (r) => {
              await r.accounts.credentialsByEmail(input.emailKey);
              await yieldToOthers();
              const a = await r.accounts.create(input);
              await yieldToOthers();
              await r.accounts.touch(a.pk, ['lastedit_task'], 1000);
              return a;
            }),
          ),
        );
        assert.equal(new Set(accounts.map((a) => a.pk)).size, 20);
        for (const [i, a] of accounts.entries()) {
          const stored = await store.read.accounts.get(a.pk);
          assert.equal(stored?.userid, inputs[i]?.userid);
          assert.equal(stored?.stamps.lastedit_task, 1000);
        }
      });

      it('lock(pk) returns the account it locked, and null for an account that does not exist', async () => {
        const a = await createAccount();
        const none = { note: 0, outline: 0, list: 0 };
        assert.deepEqual(await tx((r) => r.accounts.lock(a.pk)), { ...(await store.read.accounts.get(a.pk)), taskCount: 0, documentCounts: none, firstId: null });
        await tx((r) => r.tasks.insertMany(a.pk, [newTask(1), newTask(2)]));
        assert.equal((await tx((r) => r.accounts.lock(a.pk)))?.taskCount, 2, 'and how many tasks it holds');
        const note = (id: number) => ({ id, title: `Note ${id}`, text: '', folder: 0, private: 0, added: 100, modified: 100 });
        await tx((r) => r.documents.insertMany(a.pk, 'note', [note(1), note(2), note(3)]));
        await tx((r) => r.documents.removeMany(a.pk, 'note', [2], 300));
        const counts = (await tx((r) => r.accounts.lock(a.pk)))?.documentCounts;
        assert.deepEqual(counts, { ...none, note: 2 }, 'and its kept counts of notes, outlines and lists');
        assert.equal(counts?.note, await store.read.documents.count(a.pk, 'note'));
        assert.equal(await tx((r) => r.accounts.lock(a.pk + 100_000)), null);
      });

      it('lock(pk) keeps read-then-write transactions of one account from interleaving', async () => {
        const a = await createAccount();
        // Each transaction names the client after how many it saw: interleaving would reuse a name.
        const results = await Promise.allSettled(
          Array.from({ length: 10 }, () =>
            tx(async (r) => {
              const locked = await r.accounts.lock(a.pk);
              const seen = (await r.clients.list()).length;
              // The account the lock returns is the one the transaction before committed.
              assert.equal(locked?.stamps.lastedit_list, seen === 0 ? a.stamps.lastedit_list : 1000 + seen - 1);
              await yieldToOthers();
              await r.clients.create(newClient({ clientId: `locked-${seen}` }));
              await r.accounts.touch(a.pk, ['lastedit_list'], 1000 + seen);
            }),
          ),
        );
        assert.deepEqual(
          results.map((r) => r.status),
          Array.from({ length: 10 }, () => 'fulfilled'),
        );
        assert.deepEqual(
          (await store.read.clients.list()).map((c) => c.clientId),
          Array.from({ length: 10 }, (_, i) => `locked-${i}`),
        );
        assert.equal((await store.read.accounts.get(a.pk))?.stamps.lastedit_list, 1009);
      });

      it('a failing transaction does not block the ones after or beside it', async () => {
        const before = newAccount();
        const after = newAccount();
        const settled = await Promise.allSettled([
          createAccount(before),
          tx(async () => {
            await yieldToOthers();
            throw new Error('fails');
          }),
          createAccount(after),
        ]);
        assert.deepEqual(
          settled.map((s) => s.status),
          ['fulfilled', 'rejected', 'fulfilled'],
        );
        await assert.rejects(createAccount(newAccount({ emailKey: before.emailKey })), isUnique('email'));
        const later = await createAccount();
        assert.notEqual(await store.read.accounts.get(later.pk), null);
        assert.notEqual(await store.read.accounts.credentialsByEmail(after.emailKey), null);
      });
    });

    describe('references', () => {
      it('a session for an account that does not exist is refused', async () => {
        const a = await createAccount();
        await assert.rejects(tx((r) => r.sessions.create({ idHash: 'ghost', userPk: a.pk + 1000, createdAt: NOW, expiresAt: NOW + DAY })));
        assert.equal(await store.read.sessions.get('ghost'), null);
      });

      it('a known device for an account that does not exist is refused', async () => {
        const a = await createAccount();
        await assert.rejects(tx((r) => r.accounts.rememberDevice(a.pk + 1000, 'device', NOW)));
      });

      it('codes and grants for an unknown account or app are refused', async () => {
        const a = await createAccount();
        const c = await createClient();
        await assert.rejects(tx((r) => r.oauth.createCode({ codeHash: 'x1', clientPk: c.pk + 1000, userPk: a.pk, scope: 'basic', expiresAt: NOW, codeChallenge: null, redirectUri: null })));
        await assert.rejects(tx((r) => r.oauth.createCode({ codeHash: 'x2', clientPk: c.pk, userPk: a.pk + 1000, scope: 'basic', expiresAt: NOW, codeChallenge: null, redirectUri: null })));
        await assert.rejects(createGrant({ userPk: a.pk + 1000, clientPk: c.pk }));
        await assert.rejects(createGrant({ userPk: a.pk, clientPk: c.pk + 1000 }));
        assert.equal(await store.read.oauth.code('x1'), null);
      });

      it('a token for an unknown grant is refused', async () => {
        const g = await createGrant();
        await assert.rejects(
          tx((r) =>
            r.oauth.createToken({ hash: 'stray', kind: 'access', grantId: g.id + 1000, userPk: g.userPk, clientPk: g.clientPk, scope: 'basic', createdAt: NOW, expiresAt: NOW + 60 }),
          ),
        );
        assert.equal(await store.read.oauth.token('stray'), null);
      });
    });
  });
}
