import { createHmac, randomBytes } from 'node:crypto';
import { randomHex } from '../lib/crypto.js';

/**
 * Standard Webhooks signatures: the secret is `whsec_` and the base64 of its key; each delivery
 * carries `webhook-id` (the message, the same on every retry of one message), `webhook-timestamp`
 * (Unix seconds of the attempt) and `webhook-signature: v1,<base64 of HMAC-SHA256 of
 * "id.timestamp.body" under the key>`. Receivers check the signature with any Standard Webhooks
 * library, and refuse a timestamp far from their clock (a replay).
 */

/** 32 random bytes: within the 24 to 64 the specification asks for. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A message id (`webhook-id`): unique per message, never per attempt. */
export function newMessageId(): string {
  return `msg_${randomHex(12)}`;
}

export function keyOf(secret: string): Buffer {
  if (!secret.startsWith('whsec_')) throw new Error('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice('whsec_'.length), 'base64');
}

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The headers of one attempt. */
export function signedHeaders(secret: string, id: string, timestamp: number, body: string): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': sign(secret, id, timestamp, body) };
}
