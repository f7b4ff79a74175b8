// A namespace import on purpose: crypto.hash exists from Node 20.12 only, and a named import of a
// missing export would stop the module from loading on 20.6-20.11, which package.json allows.
import * as crypto from 'node:crypto';

/** Random lowercase hex string of `bytes` random bytes (40 hex chars = 160 bits by default). */
export function randomHex(bytes = 20): string {
  return crypto.randomBytes(bytes).toString('hex');
}

/** Random URL-safe string for cookies. */
export function randomUrlToken(bytes = 32): string {
  return crypto.randomBytes(bytes).toString('base64url');
}

/** crypto.hash hashes in one call, cheaper than a Hash object on the hot path; absent before Node 20.12. */
const oneShot: typeof crypto.hash | undefined = crypto.hash;

/**
 * SHA-256 of a high-entropy secret (token, code, client secret, session id), hex.
 * These secrets carry >= 160 random bits, so a fast hash is enough to make a stolen database
 * useless: there is nothing to guess. Passwords, which are low-entropy, use scrypt instead.
 */
export function sha256Hex(value: string): string {
  return oneShot ? oneShot('sha256', value, 'hex') : crypto.createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time equality of two strings (lengths may differ; that alone is not secret). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    // Compare anyway so the time does not depend on where the strings differ.
    crypto.timingSafeEqual(ab, ab);
    return false;
  }
  return crypto.timingSafeEqual(ab, bb);
}
