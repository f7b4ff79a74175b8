import * as crypto from 'node:crypto';

/** Random lowercase hex string of `bytes` random bytes (40 hex chars = 160 bits by default). */
export function randomHex(bytes = 20): string {
  return crypto.randomBytes(bytes).toString('hex');
}

/** Random URL-safe string for cookies. */
export function randomUrlToken(bytes = 32): string {
  return crypto.randomBytes(bytes).toString('base64url');
}

/**
 * SHA-256 of a high-entropy secret (token, code, client secret, session id), hex.
 * These secrets carry >= 160 random bits, so a fast hash is enough to make a stolen database
 * useless: there is nothing to guess. Passwords, which are low-entropy, use scrypt instead.
 */
export function sha256Hex(value: string): string {
  // crypto.hash hashes in one call, cheaper than a Hash object on this hot path.
  return crypto.hash('sha256', value, 'hex');
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
