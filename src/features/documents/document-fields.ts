import type { ErrorCode } from '../../errors.js';
import { classifyId, lenientInt } from '../../http/params.js';
import { storableText, textLength, utf8Bytes } from '../../lib/text.js';
import type { DocumentId } from '../../storage/store.js';

/**
 * Reading one value of a notes, outlines, lists or rows item (a JSON object of the batch) into its
 * stored form. Pure: no storage, no HTTP. A reader answers the value, or a problem: the error code
 * (the kind's, chosen by the caller) and a description naming the field.
 */
export type Read<T> = { readonly value: T } | { readonly problem: Problem };

export interface Problem {
  readonly code: ErrorCode;
  readonly desc: string;
}

export type Item = Readonly<Record<string, unknown>>;

export function isItem(v: unknown): v is Item {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export const problem = (code: ErrorCode, desc: string): { problem: Problem } => ({ problem: { code, desc } });

/**
 * Text: a string (numbers and booleans as their text; null as ""), in storable form, within a
 * limit of characters (code points of the NFC form) or bytes of UTF-8. Trimmed when `trim`.
 * Over the limit is refused, never cut (docs/notes-and-lists.md).
 */
export function readText(
  v: unknown,
  what: string,
  limit: { readonly chars?: number; readonly bytes?: number },
  malformed: ErrorCode,
  trim = false,
): Read<string> {
  if (v === null || v === undefined) return { value: '' };
  if (typeof v === 'number' || typeof v === 'boolean') v = String(v);
  if (typeof v !== 'string') return problem(malformed, `Malformed request: ${what} must be text`);
  const text = trim ? storableText(v).trim() : storableText(v);
  if (limit.chars !== undefined && textLength(text) > limit.chars) {
    return problem(malformed, `Malformed request: ${what} is longer than ${limit.chars} characters`);
  }
  if (limit.bytes !== undefined && utf8Bytes(text) > limit.bytes) {
    return problem(malformed, `Malformed request: ${what} is larger than ${limit.bytes} bytes`);
  }
  return { value: text };
}

const FLAG_WORDS: ReadonlyMap<unknown, number> = new Map<unknown, number>([[true, 1], [false, 0], ['true', 1], ['false', 0]]);

/** 0 or 1 in any lenient spelling (1, "1", 1.0, true); null and "" are 0; anything else is refused. */
export function readFlag(v: unknown, what: string, malformed: ErrorCode): Read<number> {
  if (v === null || v === '') return { value: 0 };
  const n = FLAG_WORDS.get(typeof v === 'string' ? v.trim().toLowerCase() : v) ?? lenientInt(v);
  return n === 0 || n === 1 ? { value: n } : problem(malformed, `Malformed request: ${what} must be 0 or 1`);
}

/** A whole number within [min, max] (5, "5", 5.0); fractions are refused rather than cut. */
export function readWhole(v: unknown, what: string, min: number, max: number, malformed: ErrorCode): Read<number> {
  const n = typeof v === 'boolean' ? undefined : lenientInt(v);
  if (n === undefined || n < min || n > max || Number(typeof v === 'string' ? v.trim() : v) !== n) {
    return problem(malformed, `Malformed request: ${what} must be a whole number from ${min} to ${max}`);
  }
  return { value: n };
}

/** How the kinds' ids look: notes have integers from the account's counter, the others hex strings. */
export type IdForm = 'integer' | 'hex';

const HEX_ID = /^[0-9a-f]{24,36}$/i;

/**
 * An id as a client sends it. 'none' when missing, blank or 0 (the kind's "empty id"); 'invalid'
 * when it cannot be an id of the kind (its "invalid" error, like an unknown id). Hex ids are
 * matched without regard to case and stored in lower case.
 */
export function classifyDocumentId(v: unknown, form: IdForm): DocumentId | 'none' | 'invalid' {
  if (form === 'integer') return classifyId(v);
  if (v === undefined || v === null || v === 0 || (typeof v === 'string' && (v.trim() === '' || v.trim() === '0'))) return 'none';
  return typeof v === 'string' && HEX_ID.test(v.trim()) ? v.trim().toLowerCase() : 'invalid';
}

/** The longest `ref` a client may send on add (stored for outlines, lists and rows). */
export const MAX_REF_CHARS = 100;
