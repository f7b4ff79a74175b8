import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDeps } from '../../src/deps.js';
import { signInWithAppPassword } from '../../src/features/users/app-passwords.service.js';
import { systemClock } from '../../src/lib/clock.js';
import { openStore } from '../../src/storage/open.js';
import type { Account } from '../../src/storage/store.js';
import { newTask } from '../factories.js';
import { freshDatabase, type TestDatabase } from '../database.js';
import { cli, cliAsync, type CliResult } from './processes.js';

/** bin/tickler's user (app passwords and calendar feeds included), app and grant commands, as an operator runs them: JSON out, exit 2 on bad input. */

describe('bin/tickler user, app and grant', () => {
  let dir: string;
  let database: TestDatabase;
  let env: Record<string, string>;
  const json = <T>(r: CliResult): T => {
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as T;
  };
  const lines = <T>(r: CliResult): T[] => {
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.trim() === '' ? [] : r.stdout.trim().split('\n').map((l) => JSON.parse(l) as T);
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-cli-'));
    database = await freshDatabase(dir);
    env = { DATABASE_URL: database.url, ...database.env, PUBLIC_URL: 'https://todo.example.org' };
  });
  after(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a group without a verb lists its verbs; a wrong verb or input is one line and exit 2', async () => {
    for (const group of ['user', 'app', 'grant']) {
      const r = cli([group], env);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`^Usage: tickler ${group} <verb>`));
    }
    assert.match(cli(['user'], env).stdout, /user list[\s\S]*user show[\s\S]*user passwd[\s\S]*user reset-link[\s\S]*user admin[\s\S]*user app-password[\s\S]*user feed[\s\S]*user delete/);
    assert.match(cli(['help'], env).stdout, /user app-password --email E --name NAME \[--read-only\] \| --list \| --revoke ID/);
    assert.match(cli(['help'], env).stdout, /user feed --email E \[--folder ID\] \| --list \| --revoke ID/);
    assert.match(cli(['app'], env).stdout, /app list[\s\S]*app show[\s\S]*app rotate-secret[\s\S]*app redirects[\s\S]*app delete/);
    assert.match(cli(['grant'], env).stdout, /grant list[\s\S]*grant revoke/);
    assert.match(cli(['help'], env).stdout, /grant revoke/);
    const bad: Array<[string[], RegExp]> = [
      [['user', 'frobnicate'], /unknown command "user frobnicate": the verbs are add, list/],
      [['user', 'show'], /--email is required/],
      [['user', 'show', '--email', 'nobody@example.org'], /no account with the e-mail address "nobody@example.org"/],
      [['user', 'passwd', '--email', 'nobody@example.org', '--password', 'long enough'], /no account/],
      [['app', 'show', '--client-id', 'app0'], /no app with the client id "app0"/],
      [['app', 'add', '--name', 'X'], /--redirect-uri is required/],
      [['user', 'app-password', '--email', 'nobody@example.org'], /give one of --name, --list or --revoke/],
      [['user', 'app-password', '--email', 'nobody@example.org', '--list', '--revoke', '1'], /give one of --name, --list or --revoke/],
      [['user', 'app-password', '--email', 'nobody@example.org', '--list', '--read-only'], /--read-only goes with --name/],
      [['user', 'app-password', '--email', 'nobody@example.org', '--revoke', 'x'], /--revoke must be an app password id/],
      [['user', 'app-password', '--email', 'nobody@example.org', '--name', 'Phone'], /no account with the e-mail address "nobody@example.org"/],
      [['user', 'app-password', '--name', 'Phone'], /--email is required/],
      [['user', 'feed', '--email', 'nobody@example.org', '--list', '--revoke', '1'], /give --list or --revoke, not both/],
      [['user', 'feed', '--email', 'nobody@example.org', '--folder', '3', '--list'], /--folder goes with making a feed/],
      [['user', 'feed', '--email', 'nobody@example.org', '--folder', 'Work'], /--folder must be a folder id/],
      [['user', 'feed', '--email', 'nobody@example.org', '--revoke', 'x'], /--revoke must be a calendar feed id/],
      [['user', 'feed', '--email', 'nobody@example.org'], /no account with the e-mail address "nobody@example.org"/],
      [['user', 'feed'], /--email is required/],
      [['grant', 'revoke'], /give either --id or --email/],
      [['grant', 'revoke', '--id', 'x'], /--id must be a grant id/],
      [['grant', 'revoke', '--id', '999999'], /no grant 999999 that can be revoked/],
    ];
    const results = await Promise.all(bad.map(([args]) => cliAsync(args, env)));
    for (const [i, [args, message]] of bad.entries()) {
      const r = results[i] as CliResult;
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1);
      assert.equal(r.stdout, '');
    }
  });

  it('users: add an admin, list, show, set a password, make a reset link, toggle admin, delete', () => {
    const { userid } = json<{ userid: string }>(cli(['user', 'add', '--email', 'Ada@example.org', '--password', 'first passphrase', '--admin'], env));
    json(cli(['user', 'add', '--email', 'bob@example.org', '--password', 'first passphrase', '--alias', 'Bob'], env));
    const listed = lines<{ userid: string; email: string; admin: boolean }>(cli(['user', 'list'], env));
    assert.deepEqual(listed.map((u) => [u.email, u.admin]), [['Ada@example.org', true], ['bob@example.org', false]]);
    assert.equal(listed[0]?.userid, userid);
    const shown = json<Record<string, unknown>>(cli(['user', 'show', '--email', 'ADA@example.org'], env));
    assert.equal(shown['userid'], userid);
    assert.equal(shown['timezone'], 0);
    assert.deepEqual(shown['apps'], []);
    assert.equal('password_hash' in shown, false);
    assert.deepEqual(json(cli(['user', 'passwd', '--email', 'bob@example.org', '--password', 'second passphrase'], env)), { userid: listed[1]?.userid, password: 'changed' });
    const short = cli(['user', 'passwd', '--email', 'bob@example.org', '--password', 'short'], env);
    assert.equal(short.code, 2);
    assert.match(short.stderr, /at least 8 characters/);
    const link = json<{ url: string; expires: number }>(cli(['user', 'reset-link', '--email', 'bob@example.org'], env));
    assert.match(link.url, /^https:\/\/todo\.example\.org\/reset\?token=[A-Za-z0-9_-]{43}$/);
    assert.ok(link.expires > Date.now() / 1000 + 23 * 3600);
    assert.deepEqual(json(cli(['user', 'admin', '--email', 'bob@example.org'], env)), { userid: listed[1]?.userid, admin: true });
    assert.deepEqual(json(cli(['user', 'admin', '--email', 'bob@example.org', '--off'], env)), { userid: listed[1]?.userid, admin: false });
    assert.equal(json<{ userid: string }>(cli(['user', 'delete', '--email', 'bob@example.org'], env)).userid, listed[1]?.userid);
    assert.deepEqual(lines<{ email: string }>(cli(['user', 'list'], env)).map((u) => u.email), ['Ada@example.org']);
  });

  it('app passwords: make one (read only or not), list them, sign in with one, revoke it', async () => {
    json(cli(['user', 'add', '--email', 'cal@example.org', '--password', 'first passphrase'], env));
    const phone = json<{ id: number; password: string }>(cli(['user', 'app-password', '--email', 'CAL@example.org', '--name', 'iPhone'], env));
    assert.deepEqual(Object.keys(phone), ['id', 'password']);
    assert.match(phone.password, /^[a-km-np-z2-9]{4}(-[a-km-np-z2-9]{4}){3}$/);
    const tablet = json<{ id: number; password: string }>(cli(['user', 'app-password', '--email', 'cal@example.org', '--name', 'Tablet', '--read-only'], env));
    const listed = lines<Record<string, unknown>>(cli(['user', 'app-password', '--email', 'cal@example.org', '--list'], env));
    assert.deepEqual(listed.map((p) => [p['id'], p['name'], p['read_only'], p['last_used']]), [[phone.id, 'iPhone', false, null], [tablet.id, 'Tablet', true, null]]);
    assert.equal(JSON.stringify(listed).includes(phone.password), false, 'never the password');
    const tooLong = cli(['user', 'app-password', '--email', 'cal@example.org', '--name', 'x'.repeat(101)], env);
    assert.equal(tooLong.code, 2);
    assert.match(tooLong.stderr, /the name must have 1 to 100 characters/);

    // What a server does with them: the service the CalDAV face calls, on the same database.
    const store = await openStore(loadConfig(env).database);
    try {
      const deps = createDeps(loadConfig(env), store, systemClock);
      const signIn = (password: string) => signInWithAppPassword(deps, { email: 'cal@example.org', password, address: '192.0.2.9', device: 'cli test' });
      const read = await signIn(tablet.password);
      assert.deepEqual(read.kind === 'ok' && read.appPassword, { id: tablet.id, readOnly: true });
      assert.deepEqual(json(cli(['user', 'app-password', '--email', 'cal@example.org', '--revoke', String(phone.id)], env)), { id: phone.id, revoked: true });
      assert.equal((await signIn(phone.password)).kind, 'wrong', 'not cached here: stopped at once');
      assert.equal((await signIn(tablet.password)).kind, 'ok');
    } finally {
      await store.close();
    }
    const again = cli(['user', 'app-password', '--email', 'cal@example.org', '--revoke', String(phone.id)], env);
    assert.equal(again.code, 2);
    assert.match(again.stderr, new RegExp(`no app password ${phone.id} of cal@example.org`));
    const left = lines<{ id: number; last_used: number; last_device: string }>(cli(['user', 'app-password', '--email', 'cal@example.org', '--list'], env));
    assert.deepEqual(left.map((p) => [p.id, p.last_device]), [[tablet.id, 'cli test']]);
    assert.ok(left[0]?.last_used);
  });

  it('calendar feeds: make one of all tasks and one of a folder, fetch them as a calendar does, list them, revoke one', async () => {
    json(cli(['user', 'add', '--email', 'feeds@example.org', '--password', 'first passphrase'], env));
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
    const store = await openStore(config.database);
    try {
      const deps = createDeps(config, store, systemClock);
      const app = await buildApp(deps);
      try {
        // A folder and two tasks, written as the API writes them.
        const account = (await store.read.accounts.list()).find((a) => a.email === 'feeds@example.org') as Account;
        const folder = await store.transaction(async (tx) => {
          const id = await tx.accounts.allocateIds(account.pk, 'folder', 1);
          await tx.organizers.insert(account.pk, 'folder', { id, name: 'Work', private: 0, archived: 0, ord: 1 });
          return id;
        });
        const due = Date.UTC(2026, 11, 8, 12) / 1000;
        await store.transaction(async (tx) => {
          const first = await tx.accounts.allocateIds(account.pk, 'task', 2);
          await tx.tasks.insertMany(account.pk, [newTask(first, { title: 'Report', folder, duedate: due }), newTask(first + 1, { title: 'Plants', duedate: due })]);
        });

        const all = json<{ id: number; url: string }>(cli(['user', 'feed', '--email', 'FEEDS@example.org'], env));
        assert.deepEqual(Object.keys(all), ['id', 'url']);
        assert.match(all.url, /^https:\/\/todo\.example\.org\/feeds\/[0-9a-f]{40}\.ics$/);
        const work = json<{ id: number; url: string }>(cli(['user', 'feed', '--email', 'feeds@example.org', '--folder', String(folder)], env));
        const fetched = async (url: string) => app.inject({ method: 'GET', url: new URL(url).pathname });
        const allFeed = await fetched(all.url);
        assert.equal(allFeed.headers['content-type'], 'text/calendar; charset=utf-8');
        assert.match(allFeed.body, /SUMMARY:Report[\s\S]*SUMMARY:Plants/);
        const workFeed = (await fetched(work.url)).body;
        assert.match(workFeed, /X-WR-CALNAME:Work/);
        assert.doesNotMatch(workFeed, /Plants/);

        const missing = cli(['user', 'feed', '--email', 'feeds@example.org', '--folder', String(folder + 5)], env);
        assert.equal(missing.code, 2);
        assert.match(missing.stderr, /that folder no longer exists/);
        const listed = lines<Record<string, unknown>>(cli(['user', 'feed', '--email', 'feeds@example.org', '--list'], env));
        assert.deepEqual(listed.map((f) => [f['id'], f['folder'], f['last_fetched'] !== null]), [[all.id, null, true], [work.id, folder, true]]);
        assert.equal(JSON.stringify(listed).includes(all.url.slice(-44, -4)), false, 'never the address');

        assert.deepEqual(json(cli(['user', 'feed', '--email', 'feeds@example.org', '--revoke', String(work.id)], env)), { id: work.id, revoked: true });
        assert.equal((await fetched(work.url)).statusCode, 404, 'at once');
        assert.equal((await fetched(all.url)).statusCode, 200);
        const again = cli(['user', 'feed', '--email', 'feeds@example.org', '--revoke', String(work.id)], env);
        assert.equal(again.code, 2);
        assert.match(again.stderr, new RegExp(`no calendar feed ${work.id} of feeds@example.org`));
      } finally {
        await app.close();
      }
    } finally {
      await store.close();
    }
  });

  it('apps: several addresses, an owner, show, rotate, change addresses, delete; grants: list and revoke', async () => {
    const added = json<{ client_id: string; client_secret: string }>(
      cli(['app', 'add', '--name', 'Sync', '--redirect-uri', 'https://sync.example/a', '--redirect-uri', 'com.example.sync:/cb', '--website', 'https://sync.example', '--owner', 'ada@example.org'], env),
    );
    const shown = json<Record<string, unknown>>(cli(['app', 'show', '--client-id', added.client_id], env));
    assert.deepEqual(shown['redirect_uris'], ['https://sync.example/a', 'com.example.sync:/cb']);
    assert.equal(shown['owner'], 'Ada@example.org');
    assert.equal(shown['connected_grants'], 0);
    assert.equal(lines(cli(['app', 'list'], env)).length, 1);
    const rotated = json<{ client_secret: string }>(cli(['app', 'rotate-secret', '--client-id', added.client_id], env));
    assert.match(rotated.client_secret, /^[0-9a-f]{40}$/);
    assert.notEqual(rotated.client_secret, added.client_secret);
    assert.deepEqual(json(cli(['app', 'redirects', '--client-id', added.client_id, '--add', 'https://sync.example/b', '--remove', 'com.example.sync:/cb'], env)), {
      client_id: added.client_id,
      redirect_uris: ['https://sync.example/a', 'https://sync.example/b'],
    });
    const wild = cli(['app', 'redirects', '--client-id', added.client_id, '--add', 'https://*.example/cb'], env);
    assert.equal(wild.code, 2);
    assert.match(wild.stderr, /wildcard/);
    assert.equal(cli(['app', 'redirects', '--client-id', added.client_id, '--remove', 'https://nope.example/'], env).code, 2);

    // A grant, made through the store as a token exchange would make it.
    const store = await openStore(loadConfig(env).database);
    const now = Math.floor(Date.now() / 1000);
    try {
      const ada = await store.read.accounts.credentialsByEmail('ada@example.org');
      const client = await store.read.clients.byClientId(added.client_id);
      await store.transaction(async (tx) => {
        for (const n of [1, 2]) {
          const g = await tx.oauth.createGrant({ userPk: ada!.pk, clientPk: client!.pk, scope: 'basic tasks', createdAt: now, expiresAt: now + 86400, vers: null, os: 'iOS', device: `phone ${n}`, udid: null });
          await tx.oauth.createToken({ hash: `refresh-${n}`, kind: 'refresh', grantId: g.id, userPk: ada!.pk, clientPk: client!.pk, scope: 'basic tasks', createdAt: now, expiresAt: now + 86400 });
        }
      });
    } finally {
      await store.close();
    }
    const grants = lines<{ id: number; email: string; client_id: string; device: string }>(cli(['grant', 'list', '--email', 'ada@example.org'], env));
    assert.deepEqual(grants.map((g) => [g.email, g.client_id, g.device]), [['Ada@example.org', added.client_id, 'phone 2'], ['Ada@example.org', added.client_id, 'phone 1']]);
    assert.deepEqual(json(cli(['grant', 'revoke', '--id', String(grants[0]?.id)], env)), { revoked: [grants[0]?.id] });
    assert.equal(lines(cli(['grant', 'list', '--client-id', added.client_id], env)).length, 1);
    assert.deepEqual(json(cli(['grant', 'revoke', '--email', 'ada@example.org', '--client-id', added.client_id], env)), { revoked: [grants[1]?.id] });
    assert.deepEqual(lines(cli(['grant', 'list'], env)), []);
    assert.deepEqual(json(cli(['app', 'delete', '--client-id', added.client_id], env)), { client_id: added.client_id, deleted: true });
    assert.deepEqual(lines(cli(['app', 'list'], env)), []);
  });
});
