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

/** AES-256-GCM key for `purpose`, derived from a high-entropy secret with HKDF-SHA256. */
function keyFor(secret: string, purpose: string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', secret, 'tickler sealed v1', purpose, 32));
}

/**
 * Encrypts `text` so that only a holder of `secret` can read it again: AES-256-GCM under a key
 * derived from the secret (HKDF-SHA256, `purpose` keeping uses apart). The database keeps only
 * SHA-256 of such secrets, and HKDF is another function of them: the stored hash opens nothing.
 * For secrets of at least 128 random bits (tokens); a guessable secret gives a guessable key.
 */
export function sealFor(secret: string, purpose: string, text: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', keyFor(secret, purpose), iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${iv.toString('base64url')}.${body.toString('base64url')}`;
}

/** The text sealFor sealed, or undefined when `secret` or `purpose` is not the one it was sealed for, or it was altered. */
export function openWith(secret: string, purpose: string, sealed: string): string | undefined {
  const [iv, body, extra] = sealed.split('.');
  if (iv === undefined || body === undefined || extra !== undefined) return undefined;
  const bytes = Buffer.from(body, 'base64url');
  if (bytes.length < 16) return undefined;
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', keyFor(secret, purpose), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
