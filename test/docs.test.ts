import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEFAULTS } from '../src/config.js';
import { ERRORS } from '../src/errors.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string): string => readFileSync(`${root}${path}`, 'utf8');

describe('the docs stay true', () => {
  it('docs/errors.md has a row for every code of the error table, and no other', () => {
    const doc = read('docs/errors.md').split('## The table')[1] ?? '';
    const rows = [...doc.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    assert.deepEqual(rows, Object.keys(ERRORS).map(Number));
  });

  it('the README documents every setting the config reads, with its default', () => {
    const readme = read('README.md');
    for (const [name, value] of Object.entries(DEFAULTS)) {
      assert.match(readme, new RegExp(`\\| \`${name}\` \\| \`${value.replace(/[/.]/g, '\\$&')}\` \\|`), name);
    }
    for (const name of ['PUBLIC_URL', 'SMTP_URL', 'MAIL_FROM']) assert.match(readme, new RegExp(`\\| \`${name}\` \\|`), name);
  });

  it('the README shows the two quick-start commands', () => {
    const readme = read('README.md');
    assert.match(readme, /npm install && npm start/);
    assert.match(readme, /npm test/);
  });
});
