import { ApiError, type ErrorCode } from '../../errors.js';
import { classifyId, lenientFloat, lenientId, lenientInt } from '../../http/params.js';
import { storableText, textLength, utf8Bytes } from '../../lib/text.js';

/**
 * Reading the plain form parameters of the organiser endpoints into checked values. Pure: no
 * storage, no HTTP. Every kind describes its fields with FieldSpec (organizer-kinds.ts) and this
 * module turns raw text into numbers and strings, or throws the kind's error.
 */

/** A stored organiser as the generic code sees it: field name → value (ids and flags are numbers). */
export type Row = Readonly<Record<string, string | number>>;

/** The raw text of each parameter the endpoint reads (undefined when not sent). */
export type RawInput = Readonly<Record<string, string | undefined>>;

type FieldType =
  /** 0 or 1 (lenient: "1", 1.0, "1.0", true/false). */
  | { readonly type: 'flag' }
  /** One of a few integers (a goal's level). */
  | { readonly type: 'choice'; readonly values: readonly number[] }
  /**
   * An id of another goal. Never an error: the spec resets an invalid id to 0, so anything that
   * is not a non-negative integer becomes 0 here and the kind's hook checks the rest.
   */
  | { readonly type: 'goal-ref' }
  /** Free text kept exactly as sent (not trimmed: white space in a note is the user's). */
  | { readonly type: 'text'; readonly maxBytes: number }
  /** A number within [-limit, limit] (latitude, longitude). */
  | { readonly type: 'coordinate'; readonly limit: number };

export interface FieldSpec {
  /** Parameter name, record field and JSON key at once. */
  readonly name: string;
  readonly type: FieldType;
  /** Value of a new record when the add does not send it. */
  readonly initial: string | number;
  /** False for fields that only edit may set (a goal's `archived`); add ignores them. */
  readonly onAdd: boolean;
}

/** The error codes of one kind, in the order of the hosted service's tables (x01…x06). */
export interface KindCodes {
  readonly noName: ErrorCode;
  readonly nameTaken: ErrorCode;
  readonly max: ErrorCode;
  readonly emptyId: ErrorCode;
  readonly invalid: ErrorCode;
  readonly nothingEdited: ErrorCode;
  /** A value out of range (a name too long, a level of 5): x11, the description names the field. */
  readonly malformed: ErrorCode;
}

/**
 * Whole-request errors of one call: the same ref (the attempted id of edit/delete) on each. A ref
 * is the id as text, as the hosted service's documentation shows it ("ref":"5678"), whatever
 * type the client sent it as (docs/api-notes.md).
 */
export class Failures {
  constructor(
    readonly codes: KindCodes,
    readonly noun: string,
    readonly ref?: string,
  ) {}

  withRef(ref: number | string): Failures {
    return new Failures(this.codes, this.noun, String(ref));
  }

  error(code: keyof KindCodes, desc?: string): ApiError {
    return new ApiError(this.codes[code], { desc, ref: this.ref });
  }
}



/**
 * The name to store (trimmed), or undefined when not sent and not required. A blank name is the
 * kind's "no name" error; a name too long is "malformed request" (x11) naming the field: "no
 * name" would tell the user something false, and "nothing edited" could make a sync client take
 * the change as already made and drop it.
 */
export function readName(raw: string | undefined, required: boolean, maxChars: number, fail: Failures): string | undefined {
  if (raw === undefined && !required) return undefined;
  const name = storableText(raw ?? '').trim();
  if (name === '') throw fail.error('noName');
  const length = textLength(name);
  if (length > maxChars) {
    throw fail.error('malformed', `Malformed request: the ${fail.noun} name is too long: at most ${maxChars} characters are allowed, this one has ${length}`);
  }
  return name;
}

/**
 * The id of edit and delete. Missing, empty and 0 are the kind's "empty id"; anything else that
 * cannot name a record (text, a negative number) is "invalid", like an unknown id.
 */
export function readId(raw: string | undefined, fail: Failures): number {
  const text = raw?.trim() ?? '';
  // Whole numbers up to the largest id only: "2.9" or "true" must not act on record 2 or 1.
  const id = classifyId(text);
  if (id === 'none') throw (text === '' ? fail : fail.withRef(0)).error('emptyId');
  if (id === 'invalid') throw fail.withRef(text).error('invalid', `Invalid ${fail.noun}: ${JSON.stringify(text)} is not an id`);
  return id;
}

const FLAG_WORDS: ReadonlyMap<string, number> = new Map([['true', 1], ['false', 0]]);
/**
 * One field's value from its raw text, or undefined when not sent. Empty text counts as not sent,
 * except for free text, where "" is a value (it clears the note). A value the field cannot hold is
 * the kind's "malformed request" error (x11) with a description naming the field (see readName).
 */
export function readField(field: FieldSpec, raw: string | undefined, fail: Failures): string | number | undefined {
  if (raw === undefined) return undefined;
  const type = field.type;
  if (type.type === 'text') {
    const bytes = utf8Bytes(raw);
    if (bytes > type.maxBytes) {
      throw fail.error('malformed', `Malformed request: ${field.name} is ${bytes} bytes long, at most ${type.maxBytes} are allowed`);
    }
    return storableText(raw);
  }
  const text = raw.trim();
  if (text === '') return undefined;
  const bad = (rule: string): ApiError => fail.error('malformed', `Malformed request: ${field.name} ${rule}`);
  switch (type.type) {
    case 'flag': {
      const n = FLAG_WORDS.get(text.toLowerCase()) ?? lenientInt(text);
      if (n !== 0 && n !== 1) throw bad('must be 0 or 1');
      return n;
    }
    case 'choice': {
      const n = lenientInt(text);
      if (n === undefined || !type.values.includes(n)) throw bad(`must be ${type.values.join(', ').replace(/, (\d+)$/, ' or $1')}`);
      return n;
    }
    case 'goal-ref':
      // Anything that cannot name a goal is reset to 0, as spec 2.2 says of invalid ids.
      return lenientId(text) ?? 0;
    case 'coordinate': {
      const n = lenientFloat(text);
      if (n === undefined || Math.abs(n) > type.limit) throw bad(`must be a number from -${type.limit} to ${type.limit}`);
      return n;
    }
  }
}

/** The values a call sets: on add every field (sent, or initial when not sent or not settable on add), on edit only those sent. */
export function readFields(fields: readonly FieldSpec[], raw: RawInput, fail: Failures, action: 'added' | 'edited'): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const field of fields) {
    if (action === 'added' && !field.onAdd) {
      out[field.name] = field.initial;
      continue;
    }
    const value = readField(field, raw[field.name], fail);
    if (value !== undefined) out[field.name] = value;
    else if (action === 'added') out[field.name] = field.initial;
  }
  return out;
}

/** True when the two rows hold the same value in every field of `a`. */
export function sameRow(a: Row, b: Row): boolean {
  return Object.keys(a).every((k) => a[k] === b[k]);
}
