import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing with scrypt (memory-hard, in node:crypto, no native add-on to build).
 * Parameters are OWASP's scrypt minimum (N=2^17, r=8, p=1: 128 MiB and ~0.4 s per hash here). They are
 * stored in each hash, so raising them later only affects new hashes.
 */
export const PRODUCTION_SCRYPT_N = 1 << 17;
const R = 8;
const P = 1;
const KEYLEN = 32;
const MAXMEM = 256 * 1024 * 1024;

export const MIN_PASSWORD_LENGTH = 8;
/** Long inputs cost scrypt nothing extra, but a bound keeps request bodies honest. */
export const MAX_PASSWORD_LENGTH = 1024;

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password.normalize('NFC'), salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/**
 * A new hash. `n` is scrypt's cost, stored in the hash: production's unless the caller's deps say
 * otherwise (the test harness chooses a cheap one; the password tests keep this one).
 */
export async function hashPassword(password: string, n = PRODUCTION_SCRYPT_N): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEYLEN, { N: n, r: R, p: P, maxmem: MAXMEM });
  return `scrypt$${n}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Parameters a stored hash may carry; anything else is refused rather than trusted. */
function storedParams(stored: string): { n: number; r: number; p: number; salt: Buffer; key: Buffer } | undefined {
  const m = /^scrypt\$(\d{1,8})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9+/]{22,}={0,2})\$([A-Za-z0-9+/]{43,}={0,2})$/.exec(stored);
  if (!m) return undefined;
  const [n, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const salt = Buffer.from(m[4] as string, 'base64');
  const key = Buffer.from(m[5] as string, 'base64');
  // N a power of two that scrypt accepts within our memory bound, and a key long enough that an
  // empty comparison (which would match anything) is impossible.
  const powerOfTwo = n >= 2 && n <= 1 << 20 && (n & (n - 1)) === 0;
  if (!powerOfTwo || r < 1 || r > 32 || p < 1 || p > 16 || salt.length < 16 || key.length < 32) return undefined;
  return { n, r, p, salt, key };
}

/** True only for the right password and a well-formed stored hash; never throws for a bad one. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const params = storedParams(stored);
  if (!params) return false;
  try {
    const key = await scrypt(password, params.salt, params.key.length, { N: params.n, r: params.r, p: params.p, maxmem: MAXMEM });
    return timingSafeEqual(key, params.key);
  } catch {
    return false;
  }
}

/**
 * A real hash of a random password at cost `n` (that of the accounts' hashes), computed once.
 * Sign-in with an unknown e-mail verifies against it so that the answer takes as long as for a
 * known one (no account enumeration by time).
 */
const decoys = new Map<number, Promise<string>>();
export function decoyHash(n = PRODUCTION_SCRYPT_N): Promise<string> {
  let decoy = decoys.get(n);
  if (!decoy) {
    decoy = hashPassword(randomBytes(16).toString('hex'), n);
    decoys.set(n, decoy);
  }
  return decoy;
}
