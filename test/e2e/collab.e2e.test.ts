import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freshDatabase, type TestDatabase } from '../database.js';
import { addUser } from './accounts.js';
import { cli, type CliResult } from './processes.js';

/** bin/tickler collab: invitations and collaborations as an operator makes them (docs/sharing.md). */
describe('bin/tickler collab', () => {
  let dir: string;
  let database: TestDatabase;
  let env: Record<string, string>;
  const json = (r: CliResult): Record<string, unknown> => {
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tickler-collab-'));
    database = await freshDatabase(dir);
    env = { DATABASE_URL: database.url, ...database.env, PUBLIC_URL: 'https://todo.example.org' };
    assert.equal(cli(['migrate'], env).code, 0);
  });
  after(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('invite, list, accept, allow, end; refusals are one line and exit 2', () => {
    const ann = addUser(env, 'ann@example.org', 'correct horse battery');
    const bob = addUser(env, 'bob@example.org', 'correct horse battery');
    const sent = json(cli(['collab', 'invite', '--email', 'ann@example.org', '--with', 'bob@example.org', '--sharable', '0'], env));
    assert.deepEqual([sent['id'], sent['state'], sent['allowshare']], [bob, 'sent', 0]);
    const listed = cli(['collab', 'list', '--email', 'bob@example.org'], env);
    assert.deepEqual(JSON.parse(listed.stdout.trim()), { id: ann, name: 'ann', reassignable: 1, sharable: 0, state: 'received', allowreassign: 0, allowshare: 0 });
    const accepted = json(cli(['collab', 'accept', '--email', 'bob@example.org', '--with', ann], env));
    assert.deepEqual([accepted['state'], accepted['sharable'], accepted['allowshare']], ['accepted', 0, 1]);
    const allowed = json(cli(['collab', 'allow', '--email', 'bob@example.org', '--with', ann, '--reassignable', '0', '--sharable', '1'], env));
    assert.equal(allowed['allowreassign'], 0);
    const twice = cli(['collab', 'invite', '--email', 'ann@example.org', '--with', bob], env);
    assert.equal(twice.code, 2);
    assert.match(twice.stderr, /616/);
    assert.equal(cli(['collab', 'allow', '--email', 'bob@example.org', '--with', ann, '--sharable', '1'], env).code, 2);
    assert.deepEqual(json(cli(['collab', 'end', '--email', 'ann@example.org', '--with', bob], env)), { ended: bob });
    assert.equal(cli(['collab', 'list', '--email', 'ann@example.org'], env).stdout.trim(), '');
    assert.match(cli(['collab', 'end', '--email', 'ann@example.org', '--with', 'nobody'], env).stderr, /615/);
  });
});
