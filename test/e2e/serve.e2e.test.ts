import assert from 'node:assert/strict';
import { once } from 'node:events';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freshDatabase, type TestDatabase } from '../database.js';
import { cli, cliAsync, E2E_PUBLIC_URL, serve, TICKLER, type CliResult, type ServerProcess } from './processes.js';
import { RUBY_SAMPLE_SCOPE, rubySampleTokenRequest, type RubySampleRequest } from '../ruby-sample.js';
import { authorizeInBrowser } from './web-client.js';

/** Starts a multipart upload that promises more than it sends, then hangs up mid-body. */
async function abandonUpload(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  socket.write(
    'POST /3/tasks/add.php HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: 100000\r\n\r\n' +
      '--XyZ\r\nContent-Disposition: form-data; name="tasks"; filename="x"\r\n\r\nAAAA',
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 100));
}

describe('bin/tickler end to end', () => {
  let dir: string;
  let database: TestDatabase;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;
  // SQLite, or PostgreSQL in the second pass (TEST_STORE=postgres; scripts/test.mjs).
  const onSqlite = process.env['TEST_STORE'] !== 'postgres';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-e2e-'));
    database = await freshDatabase(join(dir, 'data'));
    env = { DATABASE_URL: database.url, ...database.env };
  });
  after(async () => {
    if (server) await server.kill().catch(() => undefined);
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('bad arguments and settings: one line on stderr, exit code 2, nothing written', async () => {
    writeFileSync(join(dir, 'a-file'), 'not a folder');
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const takenPort = String((taken.address() as AddressInfo).port);
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['user', 'add', '--email', 'a@example.org'], {}, /--password is required/],
      [['user', 'add', '--email', 'a@example.org', '--password', 'long enough', '--pro', '7'], {}, /--pro must be 0, 1 or 2/],
      [['user', 'add', '--email', 'not-an-email', '--password', 'long enough'], {}, /not an e-mail address/],
      [['user', 'add', '--email', 'a@example.org', '--password', 'short'], {}, /at least 8 characters/],
      [['user', 'add', '--email', 'a@example.org', '--password', 'long enough', '--bogus'], {}, /Unknown option '--bogus'/],
      [['app', 'add', '--name', 'X', '--redirect-uri', 'http://example.org/cb'], {}, /must use https/],
      [['app', 'add', '--name', 'X', '--redirect-uri', 'javascript:alert(1)'], {}, /javascript/],
      [['frobnicate'], {}, /unknown command "frobnicate"/],
      [[], {}, /no command given/],
      [['serve'], { PORT: 'abc' }, /Invalid PORT="abc"/],
      [['migrate'], { DATABASE_URL: 'mysql://x' }, /Invalid DATABASE_URL/],
      [['serve'], { HOST: '999.1.1.1' }, /Invalid HOST="999.1.1.1"/],
      [['serve'], { HOST: 'nosuchhost.invalid' }, /^tickler: HOST: cannot listen on "nosuchhost.invalid"/],
      [['serve'], { HOST: '127.0.0.1', PORT: takenPort }, new RegExp(`^tickler: PORT: cannot listen on port ${takenPort}: another program is using it`)],
      [['serve'], { DATABASE_URL: `sqlite:${join(dir, 'a-file', 'tickler.db')}` }, /^tickler: DATABASE_URL: cannot open the SQLite file .*a-file.tickler\.db: .*a-file is not a folder\n$/],
      [['serve'], { DATABASE_URL: `sqlite:${join(dir, 'garbage.db')}` }, /^tickler: DATABASE_URL: cannot open the SQLite file .*garbage\.db: .*garbage\.db is not an SQLite database \(SQLITE_NOTADB\)\n$/],
      [['serve'], { DATABASE_URL: 'postgres://nobody:secret-pw@127.0.0.1:1/nothing' }, /^tickler: DATABASE_URL: cannot reach PostgreSQL at 127\.0\.0\.1:1\/nothing: the connection was refused: nothing listens there \(ECONNREFUSED\)\n$/],
    ];
    writeFileSync(join(dir, 'garbage.db'), 'this is not a database, it is a text file of some length '.repeat(100));
    // On PostgreSQL, the cases that would write to the test's database: the others (settings,
    // serve on files of their own) are the same processes on the same inputs in both passes.
    const run = onSqlite ? cases : cases.filter(([args]) => args[0] === 'user' || args[0] === 'app');
    try {
      // All at once: each is a process of its own.
      // Servers that got as far as the database each need a file of their own (one server per file).
      const own = (args: string[], i: number): Record<string, string> => (args[0] === 'serve' ? { DATABASE_URL: `sqlite:${join(dir, `case-${i}`, 'tickler.db')}` } : {});
      const results = await Promise.all(run.map(([args, extra], i) => cliAsync(args, { ...env, ...own(args, i), ...extra })));
      for (const [i, [args, , message]] of run.entries()) {
        const r = results[i] as CliResult;
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, message);
        assert.equal(r.stderr.trim().split('\n').length, 1, 'one line');
        assert.doesNotMatch(r.stderr, /secret-pw/, 'no password in the message');
        assert.equal(r.stdout, '');
      }
    } finally {
      taken.close();
    }
    // The refused user was not half-created: the same e-mail still works.
    const ok = cli(['user', 'add', '--email', 'a@example.org', '--password', 'long enough'], env);
    assert.equal(ok.code, 0, ok.stderr);
    const dup = cli(['user', 'add', '--email', 'A@EXAMPLE.ORG', '--password', 'long enough'], env);
    assert.equal(dup.code, 2);
    assert.match(dup.stderr, /already exists/);
  });

  // SQLite's own cases: the PostgreSQL pass would run the same processes on the same inputs again.
  // A regression here hangs (a recursive mkdir that never returned): the timeout turns it into a failure.
  if (onSqlite) it('a database file serve cannot use: one line saying in words what is wrong with which path, exit code 2', { timeout: 120_000 }, async () => {
    // Rights are judged by the user serving: as root (which every right is granted to) the cases
    // run as the user nobody, so that they test what an unprivileged operator meets.
    const as = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
    const open = mkdtempSync(join(tmpdir(), 'tickler-rights-'));
    chmodSync(open, 0o755);
    const locked = join(open, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o555);
    const unreadable = join(open, 'unreadable.db');
    writeFileSync(unreadable, '');
    chmodSync(unreadable, 0o000);
    const folder = join(dir, 'a-folder.db');
    mkdirSync(folder);
    const cases: Array<[string, RegExp, typeof as]> = [
      [join(locked, 'tickler.db'), /: permission denied: the user \S+ may not create files in the folder \S*locked \(EACCES\)$/, as],
      [unreadable, /: permission denied: the user \S+ may not read and write \S*unreadable\.db \(EACCES\)$/, as],
      [join(locked, 'deeper', 'tickler.db'), /: cannot create the folder \S*locked.deeper: permission denied: the user \S+ may not create folders in \S*locked \(EACCES\)$/, as],
      [folder, /a-folder\.db: \S*a-folder\.db is a folder, not a file$/, undefined],
      ['/dev/null/tickler.db', /: \/dev\/null is not a folder$/, undefined],
    ];
    // A folder that answers ENOENT to mkdir (Linux's /proc): Node.js's recursive mkdir spun forever on it.
    if (existsSync('/proc/self')) cases.push(['/proc/nope/tickler.db', /: cannot create the folder \/proc\/nope: \/proc does not take new folders \(ENOENT\)$/, undefined]);
    try {
      const results = await Promise.all(cases.map(([path, , user]) => cliAsync(['serve'], { ...env, DATABASE_URL: `sqlite:${path}` }, user)));
      for (const [i, [path, message]] of cases.entries()) {
        const r = results[i] as CliResult;
        assert.equal(r.code, 2, `${path}: ${r.stderr}`);
        assert.equal(r.stdout, '');
        assert.equal(r.stderr.split('\n').length, 2, `one line: ${r.stderr}`);
        assert.ok(r.stderr.startsWith(`tickler: DATABASE_URL: cannot open the SQLite file ${path}: `), r.stderr);
        assert.match(r.stderr.trim(), message);
        // Codes outside the paths: a temporary folder's random name (tickler-e2e-EVKBGM) reads as one.
        const words = r.stderr.replace(/\S*\/\S*/g, '');
        for (const code of words.match(/\b(E[A-Z]+|SQLITE_[A-Z_]+)\b/g) ?? []) assert.equal(words.split(code).length, 2, `${code} said once: ${r.stderr}`);
      }
      assert.ok(!existsSync(`${folder}-serving`), 'nothing was created beside a folder in the file\'s place');
    } finally {
      rmSync(open, { recursive: true, force: true });
    }
  });

  it('a PostgreSQL server that answers but has no such database: serve says so, and how to create it', { skip: process.env['TEST_DATABASE_URL'] ? false : 'TEST_DATABASE_URL is not set' }, async () => {
    const url = new URL(process.env['TEST_DATABASE_URL'] as string);
    url.pathname = `/tickler_missing_${process.pid}`;
    const r = await cliAsync(['serve'], { ...env, DATABASE_URL: url.toString() });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    const name = `tickler_missing_${process.pid}`;
    assert.equal(
      r.stderr,
      `tickler: DATABASE_URL: the database "${name}" does not exist on the PostgreSQL server at ${url.hostname}:${url.port || '5432'}: create it, in UTF8, ` +
        `with \`createdb -E UTF8 -T template0 ${name}\` or in psql \`CREATE DATABASE "${name}" ENCODING 'UTF8' TEMPLATE template0\` (docs/deploy.md)\n`,
    );
  });

  describe('on an older Node.js', () => {
    // This Node.js pretends to be 20 (the line before the supported ones) from the first moment.
    const pretend = `Object.defineProperty(process.versions, 'node', { value: '20.20.2' });`;
    const asNode20 = ['--import', `data:text/javascript,${encodeURIComponent(pretend)}`];
    /**
     * A copy of the launcher (bin/tickler, scripts/node-version.mjs, package.json; dist/ linked),
     * with or without a runtime in its .runtimes/ as scripts/with-node.sh leaves it: this test's
     * own Node.js, under its own version.
     */
    const launcher = (withRuntime: boolean): string => {
      const root = join(dir, withRuntime ? 'with-runtime' : 'without-runtime');
      const project = join(dirname(TICKLER), '..');
      for (const part of ['bin', 'scripts']) mkdirSync(join(root, part), { recursive: true });
      copyFileSync(TICKLER, join(root, 'bin', 'tickler'));
      copyFileSync(join(project, 'scripts', 'node-version.mjs'), join(root, 'scripts', 'node-version.mjs'));
      copyFileSync(join(project, 'package.json'), join(root, 'package.json'));
      symlinkSync(join(project, 'dist'), join(root, 'dist'));
      if (withRuntime) {
        const bin = join(root, '.runtimes', `node-${process.versions.node}`, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin');
        mkdirSync(bin, { recursive: true });
        symlinkSync(process.execPath, join(bin, 'node'));
      }
      return join(root, 'bin', 'tickler');
    };

    it('without a runtime in .runtimes/: one line saying how to get one, exit code 2, before any native code loads', () => {
      const r = cli(['serve'], env, asNode20, launcher(false));
      assert.equal(r.code, 2, r.stderr);
      assert.equal(
        r.stderr,
        'tickler: needs Node.js 22 or newer (22 and 24 LTS are supported); this is Node.js 20.20.2; run it as `scripts/with-node.sh 24 bin/tickler …`, which fetches one into .runtimes/ (and bin/tickler uses it from then on)\n',
      );
      assert.equal(r.stdout, '');
    });

    it('with the runtime scripts/with-node.sh fetched into .runtimes/: the command runs with it, saying so in one line', () => {
      const script = launcher(true);
      const r = cli(['migrate', '--status'], env, asNode20, script);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, `tickler: Node.js 20.20.2 is too old; running with Node.js ${process.versions.node} from .runtimes/\n`);
      assert.deepEqual((JSON.parse(r.stdout) as { pending: number[] }).pending, []);
      const refused = cli(['frobnicate'], env, asNode20, script);
      assert.equal(refused.code, 2, 'its exit code is the command\'s');
      assert.match(refused.stderr, /unknown command "frobnicate"/);
    });
  });

  it('migrate applies nothing twice and reports its status', () => {
    const again = cli(['migrate'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), { applied: [], pending: [] });
    const status = JSON.parse(cli(['migrate', '--status'], env).stdout) as { applied: number[]; pending: number[] };
    assert.ok(status.applied.length >= 1);
    assert.deepEqual(status.pending, []);
  });

  it('serves the whole OAuth round trip over HTTP, and an acknowledged grant survives kill -9', async () => {
    const user = cli(['user', 'add', '--email', 'ann@example.org', '--password', 'correct horse', '--alias', 'Ann', '--pro', '1'], env);
    assert.equal(user.code, 0, user.stderr);
    const { userid } = JSON.parse(user.stdout) as { userid: string };
    assert.match(user.stdout, /^\{"userid":"[^"]+"\}\n$/);
    const appOut = cli(['app', 'add', '--name', 'E2E', '--redirect-uri', 'http://127.0.0.1:8000/callback'], env);
    assert.equal(appOut.code, 0, appOut.stderr);
    const app = JSON.parse(appOut.stdout) as { client_id: string; client_secret: string };
    assert.deepEqual(Object.keys(app), ['client_id', 'client_secret']);

    server = await serve(env);
    if (onSqlite) {
      // One process per SQLite file: a second server refuses it, and so does a copy (it would miss
      // what the server writes during the copy). PostgreSQL takes several (two-instances.e2e).
      const second = await cliAsync(['serve'], { ...env, PORT: '0' });
      assert.equal(second.code, 2, second.stderr);
      assert.match(second.stderr, /^tickler: DATABASE_URL: another tickler serve is already using .*tickler\.db/);
      const copy = await cliAsync(['copy', '--from', env['DATABASE_URL'] as string, '--to', 'postgres://127.0.0.1:1/x'], env);
      assert.equal(copy.code, 2, copy.stderr);
      assert.match(copy.stderr, /a tickler serve is using .* stop it first/);
    }
    // Fails the test unless sign-in and Allow each answer 303, as a browser walks them.
    const { code, state, consentPage } = await authorizeInBrowser([server.url], app.client_id, 'ann@example.org', 'correct horse', 'basic tasks write');
    assert.match(consentPage, /Allow E2E to use your Tickler account/);
    assert.equal(state, 'e2e');

    const basic = `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`;
    let res = await fetch(`${server.url}/3/account/token.php`, {
      method: 'POST',
      headers: { authorization: basic },
      body: new URLSearchParams({ grant_type: 'authorization_code', code }),
    });
    const tokens = (await res.json()) as { access_token: string; refresh_token: string };
    assert.ok(tokens.access_token);

    // The token response was acknowledged: kill the server without warning.
    await server.kill();
    server = await serve(env);
    res = await fetch(`${server.url}/3/account/get.php`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(res.status, 200);
    const account = (await res.json()) as { userid: string; alias: string; pro: number };
    assert.equal(account.userid, userid);
    assert.equal(account.alias, 'Ann');
    assert.equal(account.pro, 1);
    res = await fetch(`${server.url}/3/account/token.php`, {
      method: 'POST',
      headers: { authorization: basic },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
    });
    const refreshed = (await res.json()) as { access_token?: string };
    assert.ok(refreshed.access_token, 'refresh token survived too');
    assert.ok(!server.output().includes(tokens.access_token), 'no token in the server log');

    // Malformed and abandoned bodies are answered or dropped; the process serves on.
    const cut = `--XyZ\r\nContent-Disposition: form-data; name="tasks"; filename="x"\r\n\r\nAAAA`;
    res = await fetch(`${server.url}/3/account/token.php`, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=XyZ' }, body: cut });
    assert.equal(((await res.json()) as { errorCode: number }).errorCode, 102);
    await abandonUpload(server.url);
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200, 'still serving');

    // A signal closes the server cleanly, after a burst of reads and writes (a native addon that
    // mishandles its finalizers aborts the process once the garbage collector runs under load).
    const bearer = { authorization: `Bearer ${refreshed.access_token}` };
    const burst = Array.from({ length: 8 }, async (_, lane) => {
      for (let i = 0; i < 60; i++) {
        const write = await fetch(`${server?.url}/3/tasks/add.php`, {
          method: 'POST',
          headers: bearer,
          body: new URLSearchParams({ tasks: JSON.stringify([{ title: `burst ${lane}.${i}` }]) }),
        });
        assert.equal(write.status, 200);
        const read = await fetch(`${server?.url}/3/tasks/get.php?fields=note,tag&num=50`, { headers: bearer });
        assert.equal(read.status, 200);
      }
    });
    await Promise.all(burst);
    assert.equal(await server.stop(), 0);
    server = undefined;
  });

  // SQLite's own: a fresh file is a database without accounts (the PostgreSQL pass's has some by now).
  if (onSqlite) it('a database without any account: serve says in one plain line where it listens and how to make the first account', async () => {
    const fresh = { ...env, DATABASE_URL: `sqlite:${join(dir, 'first-run', 'tickler.db')}` };
    const line = (url: string, signUp: string) =>
      `Tickler listens at ${url} (people reach it at ${E2E_PUBLIC_URL}). This database has no account yet: make the first, an admin, with ` +
      `bin/tickler user add --email you@example.org --password '…' --admin${signUp}.\n`;
    const closed = await serve(fresh);
    await closed.printed(line(closed.url, ''));
    assert.equal(await closed.stop(), 0);
    const open = await serve({ ...fresh, REGISTRATION: 'open' });
    await open.printed(line(open.url, `; or sign up at ${E2E_PUBLIC_URL}/signup (REGISTRATION=open), which never makes an admin`));
    assert.equal(await open.stop(), 0);
    assert.equal(cli(['user', 'add', '--email', 'first@example.org', '--password', 'long enough', '--admin'], fresh).code, 0);
    const later = await serve(fresh);
    // Logged once the signal handlers are in place (src/server.ts, serving()): SIGTERM closes cleanly from here.
    await later.printed('Tickler is serving');
    assert.equal(await later.stop(), 0);
    assert.doesNotMatch(await later.finalOutput(), /no account yet/);
  });

  it("the hosted service's Ruby sample signs in: client_id in the query and in the body, the same value", async () => {
    const user = cli(['user', 'add', '--email', 'ruby@example.org', '--password', 'correct horse'], env);
    assert.equal(user.code, 0, user.stderr);
    const appOut = cli(['app', 'add', '--name', 'Ruby sample', '--redirect-uri', 'http://127.0.0.1:4567/'], env);
    assert.equal(appOut.code, 0, appOut.stderr);
    const app = JSON.parse(appOut.stdout) as { client_id: string; client_secret: string };
    server = await serve(env);
    const url = server.url;
    const { code } = await authorizeInBrowser([url], app.client_id, 'ruby@example.org', 'correct horse', RUBY_SAMPLE_SCOPE);
    const send = async (r: RubySampleRequest) => {
      const res = await fetch(`${url}${r.url}`, { method: 'POST', headers: r.headers, body: r.body });
      return { status: res.status, body: (await res.json()) as { access_token?: string; refresh_token?: string; scope?: string; errorDesc?: string } };
    };
    const exchanged = await send(rubySampleTokenRequest(app.client_id, app.client_secret, { code }));
    assert.equal(exchanged.status, 200, exchanged.body.errorDesc);
    assert.equal(exchanged.body.scope, RUBY_SAMPLE_SCOPE);
    // What the sample does next: account/get with its token, then a refresh of the same shape.
    const account = await fetch(`${url}/3/account/get.php?f=json`, { headers: { authorization: `Bearer ${exchanged.body.access_token}` } });
    assert.equal(((await account.json()) as { email: string }).email, 'ruby@example.org');
    const refreshed = await send(rubySampleTokenRequest(app.client_id, app.client_secret, { refreshToken: exchanged.body.refresh_token as string }));
    assert.equal(refreshed.status, 200, refreshed.body.errorDesc);
    assert.ok(refreshed.body.access_token);
    assert.equal(await server.stop(), 0);
    server = undefined;
  });
});
