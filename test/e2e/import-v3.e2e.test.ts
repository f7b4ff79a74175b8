import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseDatabaseUrl } from '../../src/config.js';
import type { AccountExport } from '../../src/features/moving/export.service.js';
import { V3Client, tokenRequest } from '../../src/features/moving/v3-client.js';
import { TASK_FIELDS } from '../../src/features/moving/v3-source.js';
import { openStore } from '../../src/storage/open.js';
import type { ImportKind, Store } from '../../src/storage/store.js';
import { freshDatabase, type TestDatabase } from '../database.js';
import { comparableExport } from '../export-compare.js';
import { cli, serve, TICKLER, type ServerProcess } from './processes.js';
import { seedAccount } from './seed-account.js';
import { allowInBrowser } from './web-client.js';

/**
 * import v3 end to end: a seeded account (every resource, 5,000 tasks) on one Tickler server is
 * copied into an account on another through bin/tickler import v3, the way an operator would move
 * from the hosted service (the same protocol): the browser authorization, the source's rate limit
 * (error 3, Retry-After), an interruption in the middle, a resumed run, a run with nothing to do,
 * and a run that brings edits and deletions over. After each, the destination answers what the
 * source answers, ids mapped.
 */

const TASKS = 5000;
const EMAIL = 'mover@example.org';
const PASSWORD = 'moving day passphrase';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('bin/tickler import v3', { timeout: 600_000 }, () => {
  let dir: string;
  let sourceDb: TestDatabase;
  let destDb: TestDatabase;
  let source: ServerProcess;
  let dest: ServerProcess;
  let destStore: Store;
  let app: { client_id: string; client_secret: string };
  let redirect: string;
  let sourceClient: V3Client;
  let destClient: V3Client;
  const env = (db: TestDatabase): Record<string, string> => ({ DATABASE_URL: db.url, ...db.env });

  /** Authorizes an app of `base` for the account, as a person in a browser, and returns a client. */
  async function clientOf(base: string, appOf: { client_id: string; client_secret: string }): Promise<V3Client> {
    const query = new URLSearchParams({ response_type: 'code', client_id: appOf.client_id, state: 's', scope: 'basic tasks notes outlines lists write' });
    const location = await allowInBrowser(`${base}/3/account/authorize.php?${query}`, EMAIL, PASSWORD);
    const answer = await tokenRequest({ base, clientId: appOf.client_id, clientSecret: appOf.client_secret }, { grant_type: 'authorization_code', code: location.searchParams.get('code') ?? '' });
    assert.ok('tokens' in answer, JSON.stringify(answer));
    return new V3Client({ base, clientId: appOf.client_id, clientSecret: appOf.client_secret, tokens: answer.tokens });
  }

  /**
   * Runs import v3 as a person would: reads the authorize address it prints, signs in and allows
   * in a "browser", whose redirect lands on the command's loopback address. `stopAt` kills the
   * command (SIGKILL) once its progress shows that many tasks.
   */
  async function runImport(stopAt?: number, user = EMAIL): Promise<Run> {
    const child = spawn(process.execPath, [TICKLER, 'import', 'v3', '--user', user, '--from', source.url, '--client-id', app.client_id, '--client-secret', app.client_secret, '--redirect-uri', redirect], {
      env: { ...process.env, ...env(destDb), LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let walked = false;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const url = /(http:\/\/127\.0\.0\.1:\d+\/3\/account\/authorize\.php\?\S+)/.exec(stderr)?.[1];
      if (url && !walked && stderr.includes('Waiting for the browser')) {
        walked = true;
        void allowInBrowser(url, EMAIL, PASSWORD).then((location) => fetch(location));
      }
      const done = [...stderr.matchAll(/^tasks (\d+)\//gm)].map((m) => Number(m[1])).at(-1) ?? 0;
      if (stopAt !== undefined && done >= stopAt) child.kill('SIGKILL');
    });
    return { code: await exited, stdout, stderr };
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-import-'));
    sourceDb = await freshDatabase(join(dir, 'source'));
    destDb = await freshDatabase(join(dir, 'dest'));
    for (const db of [sourceDb, destDb]) {
      const r = cli(['user', 'add', '--email', EMAIL, '--password', PASSWORD, '--pro', '2'], env(db));
      assert.equal(r.code, 0, r.stderr);
    }
    redirect = `http://127.0.0.1:${await freePort()}/callback`;
    app = JSON.parse(cli(['app', 'add', '--name', 'Mover', '--redirect-uri', redirect], env(sourceDb)).stdout) as typeof app;
    const seeder = JSON.parse(cli(['app', 'add', '--name', 'Seeder', '--redirect-uri', 'https://seed.example/cb'], env(sourceDb)).stdout) as typeof app;
    const reader = JSON.parse(cli(['app', 'add', '--name', 'Reader', '--redirect-uri', 'https://read.example/cb'], env(destDb)).stdout) as typeof app;
    // Seeded without a limit; the import then runs under one (3 calls a second), which it meets and
    // waits for when the machine is fast enough. How it waits is told deterministically by
    // src/features/moving/v3-client.test.ts. The limit is the importing app's (per client), so
    // that this test's own reads and edits at the source (the Seeder app) do not queue behind it.
    source = await serve({ ...env(sourceDb), RATE_LIMIT_API_PER_USER: '0' });
    await seedAccount(await clientOf(source.url, seeder), TASKS);
    await source.stop();
    source = await serve({ ...env(sourceDb), RATE_LIMIT_API_PER_USER: '0', RATE_LIMIT_API_PER_CLIENT: '3/1s', RATE_LIMIT_TOKEN_PER_USER: '0' });
    sourceClient = await clientOf(source.url, seeder);
    dest = await serve(env(destDb));
    destClient = await clientOf(dest.url, reader);
    destStore = await openStore(parseDatabaseUrl(destDb.url, 'DATABASE_URL'));
  });

  after(async () => {
    await source?.kill().catch(() => undefined);
    await dest?.kill().catch(() => undefined);
    await destStore?.close();
    await sourceDb?.drop();
    await destDb?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Both servers' answers for every resource; the source's with every id mapped to the destination's. */
  async function compare(): Promise<void> {
    const pk = (await destStore.read.accounts.credentialsByEmail(EMAIL))?.pk as number;
    const maps = new Map<ImportKind, Map<string, string>>();
    const map = async (kind: ImportKind): Promise<Map<string, string>> => {
      if (!maps.has(kind)) maps.set(kind, new Map((await destStore.read.imports.allMapped(pk, source.url, kind)).map((e) => [e.sourceId, e.localId])));
      return maps.get(kind) as Map<string, string>;
    };
    const as = (kind: ImportKind, id: unknown, numeric: boolean): Promise<unknown> =>
      map(kind).then((m) => {
        if (id === 0 || id === '0') return id;
        const local = m.get(String(id));
        assert.ok(local !== undefined, `${kind} ${String(id)} is mapped`);
        return numeric ? Number(local) : local;
      });
    // What differs by nature: the destination's own change stamps.
    const strip = (r: Record<string, unknown>): Record<string, unknown> => {
      const { modified: _m, ...rest } = r;
      if (rest['nodes']) rest['nodes'] = { ...(rest['nodes'] as object), updated_at: 0 };
      return rest;
    };
    const byId = (records: Array<Record<string, unknown>>): Map<string, Record<string, unknown>> => new Map(records.map((r) => [String(r['id']), strip(r)]));
    const check = async (kind: ImportKind, src: Array<Record<string, unknown>>, dst: Array<Record<string, unknown>>, remap: (r: Record<string, unknown>) => Promise<Record<string, unknown>>): Promise<void> => {
      assert.equal(dst.length, src.length, `${kind}: as many records`);
      const theirs = byId(dst);
      for (const r of src) {
        const expected = strip(await remap(r));
        assert.deepEqual(theirs.get(String(expected['id'])), expected, `${kind} ${String(r['id'])}`);
      }
    };
    const both = async (path: string, params: Record<string, string> = {}): Promise<[Array<Record<string, unknown>>, Array<Record<string, unknown>>]> => {
      const [a, b] = await Promise.all([sourceClient.json(path, params), destClient.json(path, params)]);
      return [(a ?? []) as Array<Record<string, unknown>>, (b ?? []) as Array<Record<string, unknown>>];
    };
    for (const kind of ['folder', 'context', 'location'] as const) {
      const [s, d] = await both(`/3/${kind}s/get.php`);
      await check(kind, s, d, async (r) => ({ ...r, id: await as(kind, r['id'], true) }));
    }
    const goalsXml = await Promise.all([sourceClient.call('/3/goals/get.php', { f: 'xml' }), destClient.call('/3/goals/get.php', { f: 'xml' })]);
    assert.equal((goalsXml[1].match(/<private>1<\/private>/g) ?? []).length, 1, 'a private goal stays private');
    const [sg, dg] = await both('/3/goals/get.php');
    await check('goal', sg, dg, async (r) => ({ ...r, id: await as('goal', r['id'], true), contributes: await as('goal', r['contributes'], true) }));
    const [sn, dn] = await both('/3/notes/get.php');
    await check('note', sn.slice(1), dn.slice(1), async (r) => ({ ...r, id: await as('note', r['id'], true), folder: await as('folder', r['folder'], true) }));
    const [so, dOut] = await both('/3/outlines/get.php');
    await check('outline', so, dOut, async (r) => ({ ...r, id: await as('outline', r['id'], false) }));
    const [sl, dl] = await both('/3/lists/get.php');
    await check('list', sl, dl, async (r) => ({ ...r, id: await as('list', r['id'], false) }));
    for (const l of sl) {
      const [a, b] = await Promise.all([sourceClient.json('/3/rows/get.php', { list: String(l['id']) }), destClient.json('/3/rows/get.php', { list: String(await as('list', l['id'], false)) })]);
      await check('row', (a ?? []) as Array<Record<string, unknown>>, (b ?? []) as Array<Record<string, unknown>>, async (r) => ({ ...r, id: await as('row', r['id'], false) }));
    }
    const tasks = async (client: V3Client): Promise<Array<Record<string, unknown>>> => {
      const out: Array<Record<string, unknown>> = [];
      for (let start = 0; ; start += 1000) {
        const page = (await client.json('/3/tasks/get.php', { fields: TASK_FIELDS, start: String(start) })) as Array<Record<string, unknown>>;
        out.push(...page.slice(1));
        if (page.length < 1001) return out;
      }
    };
    const [st, dt] = await Promise.all([tasks(sourceClient), tasks(destClient)]);
    await check('task', st, dt, async (r) => ({
      ...r,
      id: await as('task', r['id'], true),
      folder: await as('folder', r['folder'], true),
      context: await as('context', r['context'], true),
      goal: await as('goal', r['goal'], true),
      location: await as('location', r['location'], true),
      parent: await as('task', r['parent'], true),
      previous: await as('task', r['previous'], true),
      attachment: await Promise.all(((r['attachment'] as Array<{ id: unknown; kind: string; name: string }>) ?? []).map(async (a) => ({ ...a, id: await as(a.kind as ImportKind, a.id, a.kind === 'note') }))),
    }));
  }

  it('copies everything, resumes after an interruption, adds nothing the second time, brings changes over', async () => {
    // Interrupted once its progress shows 2,000 tasks: killed without warning.
    const cut = await runImport(2000);
    assert.equal(cut.code, null, `killed: ${cut.stderr}`);
    const pk = (await destStore.read.accounts.credentialsByEmail(EMAIL))?.pk as number;
    const partial = await destStore.read.tasks.count(pk);
    assert.ok(partial >= 2000 && partial < TASKS, `part of the tasks arrived (${partial})`);

    const resumed = await runImport();
    assert.equal(resumed.code, 0, resumed.stderr);
    const summary = JSON.parse(resumed.stdout) as { resumed: boolean; seconds: number; requests: number; kinds: Record<ImportKind, Record<string, number>>; refusals: unknown[] };
    assert.equal(summary.resumed, true);
    assert.deepEqual(summary.refusals, []);
    const total = Number(((await sourceClient.json('/3/tasks/get.php', { num: '0' })) as Array<{ total: number }>)[0]?.total);
    assert.equal(total, TASKS + 2, 'the seed: two subtasks and a completed copy added, one task deleted');
    assert.equal(summary.kinds.task.created, total - partial, 'the rest of the tasks, none twice');
    console.log(`import v3 of ${total} tasks: interrupted at ${partial}, resumed in ${summary.seconds} s with ${summary.requests} requests`);
    await compare();

    const again = await runImport();
    assert.equal(again.code, 0, again.stderr);
    const second = JSON.parse(again.stdout) as { resumed: boolean; requests: number; seconds: number; kinds: Record<ImportKind, Record<string, number>> };
    assert.equal(second.resumed, false);
    for (const [kind, t] of Object.entries(second.kinds)) assert.deepEqual([t['created'], t['updated'], t['deleted']], [0, 0, 0], `${kind}: nothing to do`);
    console.log(`a run with nothing to do: ${second.requests} requests, ${second.seconds} s`);

    // Changes at the source: edits, additions, deletions of several kinds.
    const [firstTask] = ((await sourceClient.json('/3/tasks/get.php', { num: '1' })) as Array<Record<string, unknown>>).slice(1);
    await sourceClient.json('/3/tasks/edit.php', { tasks: JSON.stringify([{ id: firstTask?.['id'], title: 'Renamed at the source', star: 1 }]) });
    await sourceClient.json('/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'New at the source' }]) });
    await sourceClient.json('/3/tasks/delete.php', { tasks: JSON.stringify([Number(firstTask?.['id']) + 20]) });
    const [, note] = (await sourceClient.json('/3/notes/get.php')) as Array<Record<string, unknown>>;
    await sourceClient.json('/3/notes/delete.php', { notes: JSON.stringify([note?.['id']]) });
    const [folder] = (await sourceClient.json('/3/folders/get.php')) as Array<Record<string, unknown>>;
    await sourceClient.json('/3/folders/edit.php', { id: String(folder?.['id']), name: 'Work (renamed)' });
    const [context] = (await sourceClient.json('/3/contexts/get.php')) as Array<Record<string, unknown>>;
    await sourceClient.json('/3/contexts/delete.php', { id: String(context?.['id']) });
    const [list] = (await sourceClient.json('/3/lists/get.php')) as Array<Record<string, unknown>>;
    const rows = (await sourceClient.json('/3/rows/get.php', { list: String(list?.['id']) })) as Array<Record<string, unknown>>;
    await sourceClient.json('/3/rows/delete.php', { rows: JSON.stringify([{ list: list?.['id'], row: rows[0]?.['id'] }]) });
    // Stamps are reported once settled (docs/decisions/0003): wait for the source's second to pass.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const third = await runImport();
    assert.equal(third.code, 0, third.stderr);
    const changes = (JSON.parse(third.stdout) as { kinds: Record<ImportKind, Record<string, number>> }).kinds;
    assert.equal(changes.task.created, 1);
    assert.ok((changes.task.updated ?? 0) >= 1, 'the renamed task, and those whose context was cleared');
    assert.equal(changes.task.deleted, 1);
    assert.equal(changes.note.deleted, 1);
    assert.equal(changes.folder.updated, 1);
    assert.equal(changes.context.deleted, 1);
    assert.equal(changes.row.deleted, 1);
    await compare();
  });

  it('a whole import in one run, into another account: its time and requests', async () => {
    const other = 'second@example.org';
    assert.equal(cli(['user', 'add', '--email', other, '--password', PASSWORD, '--pro', '1'], env(destDb)).code, 0);
    const run = await runImport(undefined, other);
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout) as { seconds: number; requests: number; kinds: Record<ImportKind, Record<string, number>> };
    const total = Number(((await sourceClient.json('/3/tasks/get.php', { num: '0' })) as Array<{ total: number }>)[0]?.total);
    assert.equal(summary.kinds.task.created, total);
    console.log(`import v3 in one run (${destStore.dialect}): ${total} tasks and every other resource in ${summary.seconds} s, ${summary.requests} requests`);
  });

  it('the seeded account (every resource, 5,000 tasks) round-trips through export json and import json', async () => {
    const out = join(dir, 'source-export.json');
    const exported = cli(['export', 'json', '--user', EMAIL, '--out', out], env(sourceDb));
    assert.equal(exported.code, 0, exported.stderr);
    const third = 'third@example.org';
    assert.equal(cli(['user', 'add', '--email', third, '--password', PASSWORD, '--pro', '2'], env(destDb)).code, 0);
    const imported = cli(['import', 'json', '--user', third, '--file', out], env(destDb));
    assert.equal(imported.code, 0, imported.stderr);
    const summary = JSON.parse(imported.stdout) as { seconds: number; refusals: unknown[]; kinds: Record<ImportKind, Record<string, number>> };
    assert.deepEqual(summary.refusals, []);
    const back = join(dir, 'dest-export.json');
    assert.equal(cli(['export', 'json', '--user', third, '--out', back], env(destDb)).code, 0);
    const [a, b] = [out, back].map((f) => JSON.parse(readFileSync(f, 'utf8')) as AccountExport);
    assert.ok((a?.tasks.length ?? 0) > TASKS, 'the whole seed');
    for (const kind of ['folders', 'contexts', 'goals', 'locations', 'notes', 'outlines', 'lists', 'rows', 'tasks'] as const) assert.ok((a?.[kind].length ?? 0) > 0, `the seed has ${kind}`);
    // Kind by kind and record by record, so that a difference names itself.
    const [ca, cb] = [comparableExport(a as AccountExport), comparableExport(b as AccountExport)] as Array<Record<string, unknown[]>>;
    for (const [kind, records] of Object.entries(ca ?? {})) {
      assert.equal(cb?.[kind]?.length, records.length, `${kind}: as many`);
      for (const [i, r] of records.entries()) assert.deepEqual(cb?.[kind]?.[i], r, `${kind} #${i}`);
    }
    const again = cli(['import', 'json', '--user', third, '--file', out], env(destDb));
    for (const [kind, t] of Object.entries((JSON.parse(again.stdout) as typeof summary).kinds)) assert.deepEqual([t['created'], t['updated'], t['deleted']], [0, 0, 0], `${kind}: a second import adds nothing`);
    console.log(`import json of ${a?.tasks.length} tasks and every other resource (${destStore.dialect}): ${summary.seconds} s`);
  });
});
