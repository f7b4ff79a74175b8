import { ApiError, type ErrorCode } from '../errors.js';
import { lenientInt, type Params } from './params.js';

/**
 * The parameters every batch resource reads the same way (tasks, notes, outlines, lists, rows),
 * with the resource's own error codes.
 */

/** A numeric parameter: absent or empty → undefined; anything but a number → `malformed` for the request. */
export function numberParam(p: Params, malformed: ErrorCode, ...names: string[]): number | undefined {
  for (const name of names) {
    const text = p.text(name);
    if (text === undefined) continue;
    const n = lenientInt(text);
    if (n === undefined) throw new ApiError(malformed, { desc: `Malformed request: ${name} must be a number` });
    return n;
  }
  return undefined;
}

/** Items one add, edit or delete call may carry (spec 4.3, and the same for the other resources). */
export const MAX_BATCH = 50;

/**
 * The JSON array of an add, edit or delete, in the parameter `name`: at most 50 items. Anything
 * else fails the whole request (`malformed`, or `tooMany`) before anything is stored.
 */
export function batchParam(p: Params, name: string, codes: { readonly malformed: ErrorCode; readonly tooMany: ErrorCode }): unknown[] {
  const raw = p.get(name);
  if (raw === undefined || raw.trim() === '') throw new ApiError(codes.malformed, { desc: `Malformed request: ${name} is required (a JSON array)` });
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ApiError(codes.malformed, { desc: `Malformed request: ${name} is not valid JSON` });
  }
  if (!Array.isArray(value)) throw new ApiError(codes.malformed, { desc: `Malformed request: ${name} must be a JSON array` });
  if (value.length > MAX_BATCH) throw new ApiError(codes.tooMany);
  return value;
}
