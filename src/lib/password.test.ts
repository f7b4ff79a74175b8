import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { describe, test } from 'node:test';
import { hashPassword, verifyPassword } from './password.js';

/**
 * A stored hash built here with cheap parameters. Real hashes cost ~0.4 s each by design, so this
 * file makes only three; the cheap ones also show that verification reads the parameters from the
 * stored string (hashes made before a parameter change keep working).
 */
function cheapHash(password: string, N = 1024): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize('NFC'), salt, 32, { N, r: 8, p: 1 });
  return `scrypt$${N}$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

const PASSWORD = 'correct horse battery staple';

describe('hashPassword and verifyPassword', () => {
  test('a hash verifies its own password and no other', async () => {
    const [a, b] = await Promise.all([hashPassword(PASSWORD), hashPassword(PASSWORD)]);
    // salt and key in standard base64: 16 bytes of salt, 32 bytes of key.
    assert.match(a, /^scrypt\$131072\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    // A fresh salt each time: equal passwords do not give equal hashes.
    assert.notEqual(a, b);
    assert.notEqual(a.split('$')[4], b.split('$')[4]);
    const [okA, okB, wrong] = await Promise.all([
      verifyPassword(PASSWORD, a),
      verifyPassword(PASSWORD, b),
      verifyPassword(`${PASSWORD}!`, a),
    ]);
    assert.equal(okA, true);
    assert.equal(okB, true);
    assert.equal(wrong, false);
  });

  test('a password set with a combining accent verifies when typed precomposed', async () => {
    const stored = await hashPassword('cafe\u0301 cre\u0300me');
    assert.equal(await verifyPassword('caf\u00e9 cr\u00e8me', stored), true);
  });

  const cheap = cheapHash('caf\u00e9 Secret');
  // [typed password, accepted]
  const attempts: Array<[string, boolean]> = [
    ['caf\u00e9 Secret', true],
    // The same text with a combining accent: canonically equal, so accepted.
    ['cafe\u0301 Secret', true],
    ['cafe Secret', false],
    ['caf\u00e9 secret', false],
    ['caf\u00e9 Secret ', false],
    ['caf\u00e9 Secre', false],
    ['', false],
  ];
  for (const [typed, ok] of attempts) {
    test(`${JSON.stringify(typed)} ${ok ? 'verifies' : 'does not verify'}`, async () => {
      assert.equal(await verifyPassword(typed, cheap), ok);
    });
  }
});

describe('verifyPassword with a malformed stored value', () => {
  const good = cheapHash('pw');
  const [, n, r, p, salt, key] = good.split('$') as [string, string, string, string, string, string];
  // A damaged or foreign stored value must never let anyone in, nor crash the sign-in.
  const malformed: Array<[string, string]> = [
    ['empty', ''],
    ['plain text', 'pw'],
    ['another algorithm', `bcrypt$${n}$${r}$${p}$${salt}$${key}`],
    ['upper-case prefix', `SCRYPT$${n}$${r}$${p}$${salt}$${key}`],
    ['a part missing', `scrypt$${n}$${r}$${p}$${salt}`],
    ['a part too many', `${good}$x`],
    ['N not a number', `scrypt$abc$${r}$${p}$${salt}$${key}`],
    ['N not a power of two', `scrypt$1000$${r}$${p}$${salt}$${key}`],
    ['N zero', `scrypt$0$${r}$${p}$${salt}$${key}`],
    ['r empty', `scrypt$${n}$$${p}$${salt}$${key}`],
    ['parameters needing more memory than allowed', `scrypt$1048576$${r}$${p}$${salt}$${key}`],
    // An empty key would make every password "match" an empty comparison.
    ['empty key', `scrypt$${n}$${r}$${p}$${salt}$`],
    ['key that is not base64', `scrypt$${n}$${r}$${p}$${salt}$!!!!`],
    ['all parts empty', 'scrypt$$$$$'],
  ];
  for (const [name, stored] of malformed) {
    test(`${name}: false, not an exception`, async () => {
      let result: boolean | string;
      try {
        result = await verifyPassword('pw', stored);
      } catch (e) {
        result = `threw ${e instanceof Error ? e.message : String(e)}`;
      }
      assert.equal(result, false);
    });
  }

  test('the well-formed cheap hash used above does verify (so the cases above test the damage)', async () => {
    assert.equal(await verifyPassword('pw', good), true);
  });
});
