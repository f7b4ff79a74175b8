import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { api, testContext } from '../../../test/harness.js';
import { newUser, setup, type Json } from './documents.test-kit.js';

/** notes, outlines, lists: each its own scope to read, and write beside it to change (docs/scopes.md). */
describe('scopes of notes, outlines, lists and rows', () => {
  const env = setup(() => testContext());

  const cases: Array<[scope: string, path: string, allowed: boolean]> = [
    ['basic tasks write', '/3/notes/get.php', false],
    ['notes', '/3/notes/get.php', true],
    ['notes', '/3/notes/deleted.php', true],
    ['notes', '/3/notes/add.php', false],
    ['notes write', '/3/notes/add.php', true],
    ['tasks write', '/3/notes/delete.php', false],
    ['outlines', '/3/outlines/get.php', true],
    ['notes write', '/3/outlines/edit.php', false],
    ['outlines write', '/3/outlines/edit.php', true],
    ['lists', '/3/lists/get.php', true],
    ['lists', '/3/rows/get.php', true],
    ['lists', '/3/rows/add.php', false],
    ['lists write', '/3/rows/delete.php', true],
    ['outlines write', '/3/rows/add.php', false],
    ['notes outlines lists write', '/3/tasks/get.php', false],
  ];
  for (const [scope, path, allowed] of cases) {
    it(`${JSON.stringify(scope)} ${allowed ? 'may' : 'may not'} call ${path}`, async () => {
      const { ctx } = env;
      const user = await newUser(ctx, scope);
      const res = await api(ctx, user.token, path);
      const body = (res.json() as Json | null) ?? {};
      if (allowed) {
        assert.notEqual(res.statusCode, 401, res.body);
        assert.notEqual(body['errorCode'], 2);
      } else {
        assert.equal(res.statusCode, 401);
        assert.equal(body['errorCode'], 2);
        assert.match(body['errorDesc'] as string, /scope does not include/);
      }
    });
  }
});
