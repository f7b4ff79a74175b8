import type { FastifyReply } from 'fastify';
import type { Quota } from '../lib/rate-limiter.js';
import type { RateRule } from '../lib/rate-rule.js';

/**
 * The RateLimit-Policy and RateLimit fields of draft-ietf-httpapi-ratelimit-headers, in the syntax
 * it has had since draft 08: each a Structured Fields list of String items (the policy's name)
 * with parameters; a policy has `q` (its quota) and `w` (its window in seconds), the current
 * state `r` (what remains) and `t` (seconds until the window ends). For example
 * `RateLimit-Policy: "user";q=3600;w=3600, "app";q=100000;w=3600` and
 * `RateLimit: "user";r=3599;t=1800, "app";r=99990;t=1800`. Names are Tickler's constants.
 */

/** A policy item; undefined for a limit that is off (no policy). */
export function policyItem(name: string, rule: RateRule): string | undefined {
  return rule.limit > 0 ? `"${name}";q=${rule.limit};w=${rule.windowSeconds}` : undefined;
}

/** A service limit item; undefined when the quota is not known. */
export function limitItem(name: string, quota: Quota | undefined): string | undefined {
  return quota ? `"${name}";r=${quota.remaining};t=${quota.resetSeconds}` : undefined;
}

/** Appends an item to a list field of the answer (one field, comma-separated, as Structured Fields lists are). */
function append(reply: FastifyReply, field: string, item: string): void {
  const held = reply.getHeader(field);
  reply.header(field, typeof held === 'string' && held !== '' ? `${held}, ${item}` : item);
}

/** Adds one limit to the answer's two fields, when it is on and its state is known. */
export function addRateLimit(reply: FastifyReply, name: string, rule: RateRule, quota: Quota | undefined): void {
  const policy = policyItem(name, rule);
  const limit = limitItem(name, quota);
  if (policy === undefined || limit === undefined) return;
  append(reply, 'ratelimit-policy', policy);
  append(reply, 'ratelimit', limit);
}
