import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { freshDatabase, type TestDatabase } from '../database.js';
import { addApp, addUser, tokensFor } from './accounts.js';
import { cli, serve, type ServerProcess } from './processes.js';

/**
 * Real CalDAV clients, unchanged, against `bin/tickler serve` (docs/caldav.md): python-caldav (the
 * Python library most CalDAV apps and scripts use) and vdirsyncer with todoman (a two-way sync to
 * files, and a to-do app on them). .ci/run installs them from Debian's packages; without CI a
 * machine that lacks them skips this file and says so.
 */

const PYTHON = '/usr/bin/python3';
const WALK = fileURLToPath(new URL('../../../test/e2e/clients/python-caldav.py', import.meta.url));

function missingClients(): string | undefined {
  const missing = [
    spawnSync(PYTHON, ['-c', 'import caldav']).status === 0 ? undefined : 'python3-caldav',
    spawnSync('vdirsyncer', ['--version']).status === 0 ? undefined : 'vdirsyncer',
    spawnSync('todoman', ['--version'], { env: { ...process.env, LC_ALL: 'C.UTF-8' } }).status === 0 ? undefined : 'todoman',
  ].filter((m): m is string => m !== undefined);
  return missing.length > 0 ? missing.join(', ') : undefined;
}

const missing = missingClients();
if (missing && process.env['CI']) throw new Error(`the CalDAV clients are not installed (${missing}): .ci/run installs them`);

describe('CalDAV with real clients', { skip: missing && `not installed: ${missing} (Debian packages python3-caldav, vdirsyncer, todoman)` }, () => {
  let dir: string;
  let database: TestDatabase;
  let server: ServerProcess;
  let password: string;
  let token: string;
  const email = 'caldav@example.org';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-caldav-'));
    database = await freshDatabase(join(dir, 'data'));
    const env = { DATABASE_URL: database.url, ...database.env };
    addUser(env, email, 'a long passphrase', 1);
    const made = cli(['user', 'app-password', '--email', email, '--name', 'Laptop'], env);
    assert.equal(made.code, 0, made.stderr);
    password = (JSON.parse(made.stdout) as { password: string }).password;
    server = await serve(env);
    token = (await tokensFor(server.url, addApp(env), email, 'a long passphrase')).access_token;
  });
  after(async () => {
    await server?.stop();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A v3 call with the app's token. */
  async function v3(path: string, form: Record<string, string> = {}): Promise<unknown> {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: new URLSearchParams(form) });
    assert.equal(res.status, 200, path);
    return res.json();
  }
  type Task = { id: number; title: string; completed: number; folder: number };
  const tasks = async (): Promise<Task[]> => ((await v3('/3/tasks/get.php', { fields: 'folder' })) as unknown[]).slice(1) as Task[];
  const byTitle = async (title: string): Promise<Task | undefined> => (await tasks()).find((t) => t.title === title);

  function py(...args: string[]): Record<string, string[] | string> {
    const r = spawnSync(PYTHON, [WALK, `${server.url}/`, email, password, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, string[] | string>;
  }

  it('python-caldav: discovery from the server root, then add, edit, complete, delete and sync tokens, both ways with v3', async () => {
    const found = py('discover');
    assert.deepEqual(found['calendars'], ['Tasks']);
    assert.deepEqual(found['components'], ['VTODO']);
    py('add', 'py-1@e2e', 'From Python');
    assert.ok(await byTitle('From Python'), 'a task for v3');
    await v3('/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'From v3' }]) });
    assert.deepEqual(py('todos')['todos'], ['From Python', 'From v3']);

    const tokenFile = join(dir, 'sync-token');
    assert.equal(py('sync', tokenFile)['changed']?.length, 2, 'the first sync: everything');
    const fromV3 = (await byTitle('From v3')) as Task;
    await v3('/3/tasks/edit.php', { tasks: JSON.stringify([{ id: fromV3.id, title: 'From v3, edited' }]) });
    assert.deepEqual(py('sync', tokenFile), { changed: [`tickler-${fromV3.id}.ics`], gone: [] }, 'an edit on v3 moves the sync token');

    py('edit', 'py-1@e2e', 'From Python, edited');
    const edited = await byTitle('From Python, edited');
    assert.ok(edited);
    py('complete', 'py-1@e2e');
    assert.notEqual((await byTitle('From Python, edited'))?.completed, 0);
    assert.deepEqual(py('todos')['todos'], ['From v3, edited']);
    py('delete', 'py-1@e2e');
    const deleted = ((await v3('/3/tasks/deleted.php')) as Array<{ id: number }>).slice(1);
    assert.ok(deleted.some((d) => d.id === edited.id), 'a tombstone for v3');
    await v3('/3/tasks/delete.php', { tasks: JSON.stringify([fromV3.id]) });
    const last = py('sync', tokenFile);
    assert.deepEqual(last['gone'], [`tickler-${fromV3.id}.ics`, 'py-1%40e2e.ics'].sort());

    py('make', 'Groceries');
    const folders = (await v3('/3/folders/get.php')) as Array<{ name: string }>;
    assert.ok(folders.some((f) => f.name === 'Groceries'));
    assert.deepEqual(py('discover')['calendars'], ['Groceries', 'Tasks']);
  });

  it('vdirsyncer and todoman: a two-way sync with edits on both sides and on v3 between syncs ends with both holding the same', async () => {
    const root = join(dir, 'vds');
    const local = join(root, 'tasks');
    mkdirSync(join(root, 'status'), { recursive: true });
    mkdirSync(local, { recursive: true });
    mkdirSync(join(dir, 'todoman'), { recursive: true });
    writeFileSync(
      join(root, 'config'),
      [
        '[general]',
        `status_path = "${join(root, 'status')}/"`,
        '[pair tasks]',
        'a = "remote"',
        'b = "local"',
        'collections = ["from a", "from b"]',
        'metadata = ["displayname"]',
        'conflict_resolution = "a wins"',
        '[storage remote]',
        'type = "caldav"',
        `url = "${server.url}/"`,
        `username = "${email}"`,
        `password = "${password}"`,
        'item_types = ["VTODO"]',
        '[storage local]',
        'type = "filesystem"',
        `path = "${local}/"`,
        'fileext = ".ics"',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'todoman', 'config.py'),
      [`path = "${local}/*"`, 'date_format = "%Y-%m-%d"', 'time_format = "%H:%M"', 'default_list = "Tasks"', 'default_due = 0', `cache_path = "${join(dir, 'todoman', 'cache.sqlite3')}"`, ''].join('\n'),
    );
    const env = { ...process.env, VDIRSYNCER_CONFIG: join(root, 'config'), TODOMAN_CONFIG: join(dir, 'todoman', 'config.py'), LC_ALL: 'C.UTF-8' };
    const run = (cmd: string, args: string[], extra: Record<string, string> = {}, input = ''): string => {
      const r = spawnSync(cmd, args, { env: { ...env, ...extra }, encoding: 'utf8', input });
      assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}${r.stdout}`);
      return r.stdout;
    };
    const sync = (): void => void run('vdirsyncer', ['sync']);
    type Local = { id: number; summary: string; completed: boolean };
    const locals = (): Local[] => JSON.parse(run('todoman', ['--porcelain', 'list', '--status', 'ANY'])) as Local[];
    const localId = (summary: string): string => String(locals().find((t) => t.summary === summary)?.id);

    run('vdirsyncer', ['discover'], {}, 'y\n'.repeat(20));
    sync();
    run('vdirsyncer', ['metasync']);
    await v3('/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'Server one' }, { title: 'Server two' }]) });
    run('todoman', ['new', '-l', 'Tasks', 'Local one']);
    sync();
    assert.ok(await byTitle('Local one'), 'uploaded to the server');
    assert.ok(locals().some((t) => t.summary === 'Server two'), 'downloaded');

    // Both sides change, and v3 between the syncs.
    run('todoman', ['done', localId('Server one')]);
    run('todoman', ['edit', '--raw', localId('Local one')], { EDITOR: "sed -i 's/^SUMMARY:.*/SUMMARY:Local one, edited/'" });
    const two = (await byTitle('Server two')) as Task;
    await v3('/3/tasks/edit.php', { tasks: JSON.stringify([{ id: two.id, title: 'Server two, edited' }]) });
    await v3('/3/tasks/add.php', { tasks: JSON.stringify([{ title: 'Server three' }]) });
    sync();
    run('todoman', ['delete', '--yes', localId('Server three')]);
    sync();
    sync();

    const held = (await tasks()).filter((t) => t.folder === 0).map((t) => `${t.title}${t.completed ? ' (done)' : ''}`).sort();
    const here = locals().map((t) => `${t.summary}${t.completed ? ' (done)' : ''}`).sort();
    assert.deepEqual(here, held);
    assert.deepEqual(held, ['Local one, edited', 'Server one (done)', 'Server two, edited']);
    assert.equal(readFileSync(join(local, 'tasks', 'displayname'), 'utf8').trim(), 'Tasks');
  });
});
