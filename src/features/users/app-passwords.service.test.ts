import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount, PASSWORD, testContext, type TestContext } from '../../../test/harness.js';
import { sha256Hex } from '../../lib/crypto.js';
import { MemoryRateLimiter } from '../../lib/rate-limiter.js';
import type { Account } from '../../storage/store.js';
import {
  canonicalAppPassword,
  createAppPassword,
  listAppPasswords,
  MAX_APP_PASSWORDS,
  newAppPasswordText,
  revokeAppPassword,
  shortDevice,
  signInWithAppPassword,
  type AppPasswordSignIn,
} from './app-passwords.service.js';
import { signIn } from './signin.service.js';
import { deleteAccount, InvalidInput } from './users.service.js';

/**
 * App passwords through their service: made and shown once, signed in with (the cache, the last
 * use), throttled by the sign-in page's counts, revoked, never the account's own password.
 */

const IPHONE = 'iOS/17.4 (21E219) dataaccessd/1.0';

let ctx: TestContext;
before(async () => {
  // The sign-in page's limits, small: three per account (and browser), six per address.
  ctx = await testContext({ RATE_LIMIT_SIGNIN_PER_ACCOUNT: '3/15m', RATE_LIMIT_SIGNIN_PER_ADDRESS: '6/15m' });
});
after(() => ctx.close());

let addresses = 0;
/** An address of its own for each test, so that the per-address count is the test's alone. */
const newAddress = () => `198.51.100.${++addresses}`;

/** A sign-in from `address`; the device an iPhone unless given (null: no User-Agent sent). */
const attempt = (email: string, password: string, address: string, device: string | null = IPHONE) =>
  signInWithAppPassword(ctx.deps, { email, password, address, device: device ?? undefined });
const kind = (r: AppPasswordSignIn) => r.kind;

async function made(account: Account, name = 'iPhone', readOnly = false): Promise<{ id: number; password: string }> {
  const { appPassword, password } = await createAppPassword(ctx.deps, account.pk, { name, readOnly });
  return { id: appPassword.id, password };
}

describe('app passwords: making them', () => {
  it('are 4 groups of 4 symbols (80 bits), never twice the same; only the hash of their canonical form is stored', async () => {
    const account = await createAccount(ctx);
    const { appPassword, password } = await createAppPassword(ctx.deps, account.pk, { name: '  My   iPhone ', readOnly: true });
    assert.match(password, /^[a-km-np-z2-9]{4}(-[a-km-np-z2-9]{4}){3}$/);
    assert.deepEqual(
      { name: appPassword.name, readOnly: appPassword.readOnly, createdAt: appPassword.createdAt, lastUsedAt: appPassword.lastUsedAt },
      { name: 'My iPhone', readOnly: true, createdAt: Math.floor(ctx.clock.now() / 1000), lastUsedAt: null },
    );
    const stored = await ctx.deps.store.read.appPasswords.byHash(sha256Hex(password.replaceAll('-', '')));
    assert.equal(stored?.id, appPassword.id, 'found by the SHA-256 of the password without its dashes');
    assert.deepEqual(await listAppPasswords(ctx.deps, account.pk), [appPassword]);
    const many = new Set(Array.from({ length: 2000 }, () => newAppPasswordText()));
    assert.equal(many.size, 2000);
    const symbols = new Set([...[...many].join('').replaceAll('-', '')]);
    assert.equal(symbols.size, 32, 'every symbol of the 32 turns up');
    for (const confusing of ['l', 'o', '0', '1']) assert.equal(symbols.has(confusing), false, confusing);
  });

  it('refuses an empty or too long name, and more than the most an account may have', async () => {
    const account = await createAccount(ctx);
    for (const name of ['', '   ', 'x'.repeat(101)]) await assert.rejects(createAppPassword(ctx.deps, account.pk, { name, readOnly: false }), InvalidInput, JSON.stringify(name));
    assert.equal((await createAppPassword(ctx.deps, account.pk, { name: '☎'.repeat(100), readOnly: false })).appPassword.name.length, 100);
    await Promise.all(Array.from({ length: MAX_APP_PASSWORDS - 1 }, (_, i) => createAppPassword(ctx.deps, account.pk, { name: `Phone ${i}`, readOnly: false })));
    await assert.rejects(createAppPassword(ctx.deps, account.pk, { name: 'One more', readOnly: false }), /at most 50 app passwords/);
    assert.equal((await listAppPasswords(ctx.deps, account.pk)).length, MAX_APP_PASSWORDS);
    await assert.rejects(createAppPassword(ctx.deps, account.pk + 100_000, { name: 'Nobody', readOnly: false }), /no longer exists/);
  });

  it('keep one line of the User-Agent, shortened', () => {
    assert.equal(shortDevice(undefined), null);
    assert.equal(shortDevice(' \t\r\n'), null);
    assert.equal(shortDevice('DAVx5/4.3 (okhttp)\r\nX-Evil: 1\u0000'), 'DAVx5/4.3 (okhttp) X-Evil: 1');
    const long = shortDevice(`Mozilla/5.0 ${'x'.repeat(300)}`) ?? '';
    assert.equal([...long].length, 120);
    assert.ok(long.endsWith('…'));
    assert.equal(canonicalAppPassword(' ABCD efgh-JKMN  pqrs '), 'abcdefghjkmnpqrs');
  });
});

describe('app passwords: signing in', () => {
  it('answers the account and the password’s id and access; the e-mail in any case, the password with or without dashes', async () => {
    const account = await createAccount(ctx, { email: 'Reader@Example.org' });
    const rw = await made(account, 'Phone');
    const ro = await made(account, 'Tablet', true);
    const address = newAddress();
    const ok = await attempt(' reader@EXAMPLE.org ', rw.password, address);
    assert.equal(ok.kind, 'ok');
    assert.deepEqual(ok.kind === 'ok' && [ok.account.pk, ok.account.email, ok.appPassword], [account.pk, 'Reader@Example.org', { id: rw.id, readOnly: false }]);
    const typed = ro.password.toUpperCase().replaceAll('-', ' ');
    const read = await attempt(account.email, typed, address);
    assert.deepEqual(read.kind === 'ok' && read.appPassword, { id: ro.id, readOnly: true });
    assert.equal(kind(await attempt(account.email, ro.password.replaceAll('-', ''), address)), 'ok');
  });

  it('never the account’s own password, nor another account’s app password, nor for an unknown address', async () => {
    const [ann, bob] = [await createAccount(ctx), await createAccount(ctx)];
    const bobs = await made(bob);
    const annAddress = newAddress();
    assert.equal(kind(await attempt(ann.email, PASSWORD, annAddress)), 'wrong', 'the account password is no app password');
    assert.equal((await signIn(ctx.deps, { email: ann.email, password: PASSWORD, deviceToken: undefined, address: newAddress() })).kind, 'ok', 'it is the account password');
    assert.equal(kind(await attempt(ann.email, bobs.password, annAddress)), 'wrong', "Bob's app password does not open Ann's account");
    assert.equal(kind(await attempt('nobody@example.org', bobs.password, newAddress())), 'wrong');
    assert.equal(kind(await attempt(bob.email, bobs.password, newAddress())), 'ok');
  });

  it('is throttled with the sign-in page’s counts: failures of either count together, past them even the right password is not tried', async () => {
    const account = await createAccount(ctx);
    const { password } = await made(account);
    const address = newAddress();
    // Two wrong passwords on the sign-in page and one wrong app password: the account's three.
    for (const guess of ['guess 1', 'guess 2']) await signIn(ctx.deps, { email: account.email, password: guess, deviceToken: undefined, address });
    assert.equal(kind(await attempt(account.email, 'aaaa-bbbb-cccc-dddd', newAddress())), 'wrong');
    const refused = await attempt(account.email, password, newAddress());
    assert.equal(refused.kind, 'throttled', 'the right password, past the count, from anywhere');
    assert.ok(refused.kind === 'throttled' && refused.retryAfterSeconds > 0 && refused.retryAfterSeconds <= 15 * 60);
    assert.equal((await signIn(ctx.deps, { email: account.email, password: PASSWORD, deviceToken: undefined, address: newAddress() })).kind, 'throttled', 'and the page is throttled by the app password’s failure');
    ctx.clock.advance(15 * 60);
    assert.equal(kind(await attempt(account.email, password, newAddress())), 'ok', 'a new window');
  });

  it('unknown addresses are counted exactly like real ones', async () => {
    const address = newAddress();
    const kinds = [];
    for (let i = 0; i < 4; i++) kinds.push(kind(await attempt('nobody-at-all@example.org', 'aaaa-bbbb-cccc-dddd', address)));
    assert.deepEqual(kinds, ['wrong', 'wrong', 'wrong', 'throttled']);
  });

  it('one address spraying many accounts is stopped, and an address past its limit does not spend an account’s count', async () => {
    const sprayer = newAddress();
    const kinds = [];
    for (let i = 0; i < 7; i++) kinds.push(kind(await attempt(`sprayed-${i}@example.org`, 'aaaa-bbbb-cccc-dddd', sprayer)));
    assert.deepEqual(kinds, ['wrong', 'wrong', 'wrong', 'wrong', 'wrong', 'wrong', 'throttled']);
    for (let i = 0; i < 4; i++) assert.equal(kind(await attempt('target@example.org', 'aaaa-bbbb-cccc-dddd', sprayer)), 'throttled');
    const others = [];
    for (let i = 0; i < 4; i++) others.push(kind(await attempt('target@example.org', 'aaaa-bbbb-cccc-dddd', newAddress())));
    assert.deepEqual(others, ['wrong', 'wrong', 'wrong', 'throttled'], 'the account kept its whole count');
  });

  it('fails closed as the sign-in page does when the in-memory limiter cannot hold another account (0006)', async () => {
    const account = await createAccount(ctx);
    const { password } = await made(account);
    const limiter = new MemoryRateLimiter(2);
    const deps = { ...ctx.deps, limiter };
    const rule = ctx.config.rateLimits.signinPerAccount;
    for (const junk of ['a', 'b']) await limiter.hit(`signin:account:${junk}:new`, rule, ctx.clock.now());
    const full = await signInWithAppPassword(deps, { email: account.email, password, address: newAddress(), device: IPHONE });
    assert.equal(full.kind, 'throttled', 'a key it could not count is refused, the right password untried');
    assert.equal((await signIn(deps, { email: account.email, password: PASSWORD, deviceToken: undefined, address: newAddress() })).kind, 'throttled', 'as on the page');
  });

  it('guesses sent at once are counted exactly: three wrong answers, then nothing is tried', async () => {
    const account = await createAccount(ctx);
    const { password } = await made(account);
    const address = newAddress();
    const guesses = [...Array.from({ length: 12 }, (_, i) => `aaaa-bbbb-cccc-${String(i).padStart(4, 'x')}`), password];
    const kinds = (await Promise.all(guesses.map((g) => attempt(account.email, g, address)))).map(kind);
    assert.equal(kinds.filter((k) => k === 'wrong').length, 3, kinds.join(' '));
    assert.equal(kinds.at(-1), 'throttled', 'the right password, past the limit, was not even tried');
    assert.equal(ctx.deps.appPasswords.turns.size, 0, 'no turn is held afterwards');
  });

  it('a password this process has seen right goes on working while strangers spend the account’s count', async () => {
    const account = await createAccount(ctx);
    const phone = await made(account, 'Phone');
    const laptop = await made(account, 'Laptop');
    assert.equal(kind(await attempt(account.email, phone.password, newAddress())), 'ok');
    for (let i = 0; i < 3; i++) await attempt(account.email, `aaaa-bbbb-cccc-000${i}`, newAddress());
    ctx.clock.advance(60);
    assert.equal(kind(await attempt(account.email, phone.password, newAddress())), 'ok', 'checked in the database again, not counted');
    assert.equal(kind(await attempt(account.email, laptop.password, newAddress())), 'throttled', 'a password not seen yet is an attempt like any other');
  });

  it('records the last use and device at most once a minute', async () => {
    const account = await createAccount(ctx);
    const { id, password } = await made(account);
    const address = newAddress();
    const used = async () => (await listAppPasswords(ctx.deps, account.pk)).find((p) => p.id === id);
    const start = Math.floor(ctx.clock.now() / 1000);
    assert.equal(kind(await attempt(account.email, password, address, IPHONE)), 'ok');
    assert.deepEqual([(await used())?.lastUsedAt, (await used())?.lastDevice], [start, IPHONE]);
    ctx.clock.advance(2);
    assert.equal(kind(await attempt(account.email, password, address, 'DAVx5/4.3.14-ose')), 'ok');
    ctx.clock.advance(40);
    assert.equal(kind(await attempt(account.email, password, address, 'DAVx5/4.3.14-ose')), 'ok');
    assert.deepEqual([(await used())?.lastUsedAt, (await used())?.lastDevice], [start, IPHONE], 'within the minute: nothing written');
    ctx.clock.advance(20);
    assert.equal(kind(await attempt(account.email, password, address, 'DAVx5/4.3.14-ose')), 'ok');
    assert.deepEqual([(await used())?.lastUsedAt, (await used())?.lastDevice], [start + 62, 'DAVx5/4.3.14-ose']);
    ctx.clock.advance(61);
    assert.equal(kind(await attempt(account.email, password, address, null)), 'ok');
    assert.deepEqual([(await used())?.lastUsedAt, (await used())?.lastDevice], [start + 123, 'DAVx5/4.3.14-ose'], 'no User-Agent keeps the last device');
  });
});

describe('app passwords: revoking them', () => {
  it('stops a password at once in this process; only its own account can revoke it', async () => {
    const [ann, bob] = [await createAccount(ctx), await createAccount(ctx)];
    const phone = await made(ann, 'Phone');
    const tablet = await made(ann, 'Tablet');
    const address = newAddress();
    assert.equal(kind(await attempt(ann.email, phone.password, address)), 'ok');
    assert.equal(await revokeAppPassword(ctx.deps, bob.pk, phone.id), false, 'Bob cannot revoke it');
    assert.equal(kind(await attempt(ann.email, phone.password, address)), 'ok');
    assert.equal(await revokeAppPassword(ctx.deps, ann.pk, phone.id), true);
    assert.equal(kind(await attempt(ann.email, phone.password, address)), 'wrong', 'at once, though it was cached');
    assert.equal(await revokeAppPassword(ctx.deps, ann.pk, phone.id), false);
    assert.deepEqual((await listAppPasswords(ctx.deps, ann.pk)).map((p) => p.id), [tablet.id]);
    assert.equal(kind(await attempt(ann.email, tablet.password, address)), 'ok', 'the other one goes on');
  });

  it('revoked elsewhere (another instance, the command line): stopped once this process’s cache time has passed', async () => {
    const account = await createAccount(ctx);
    const { id, password } = await made(account);
    const address = newAddress();
    assert.equal(kind(await attempt(account.email, password, address)), 'ok');
    // Deleted in the database only, as another process would: this process's entry still holds.
    await ctx.deps.store.transaction((tx) => tx.appPasswords.delete(account.pk, id));
    assert.equal(kind(await attempt(account.email, password, address)), 'ok', `within TOKEN_CACHE_SECONDS (${ctx.config.tokenCacheSeconds})`);
    ctx.clock.advance(ctx.config.tokenCacheSeconds);
    assert.equal(kind(await attempt(account.email, password, address)), 'wrong');
    assert.equal(ctx.deps.appPasswords.get(sha256Hex(canonicalAppPassword(password))), undefined, 'its entry is gone');
  });

  it('a deleted account’s passwords stop at once', async () => {
    const account = await createAccount(ctx);
    const { password } = await made(account);
    const address = newAddress();
    assert.equal(kind(await attempt(account.email, password, address)), 'ok');
    assert.equal(await deleteAccount(ctx.deps, account.pk), true);
    assert.equal(kind(await attempt(account.email, password, address)), 'wrong');
    assert.deepEqual(await listAppPasswords(ctx.deps, account.pk), []);
  });
});
