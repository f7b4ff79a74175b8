import type { RecordLimits } from '../../config.js';
import { tableCode, type ErrorCode } from '../../errors.js';
import type { ResourceScope } from '../../oauth/scopes.js';
import type { DocumentKind, DocumentTypes, List, Repos, StampName } from '../../storage/store.js';
import { problem, readText, type IdForm, type Item, type Read } from './document-fields.js';

/**
 * What a description of notes, outlines, lists or rows says (document-kinds.ts holds the four),
 * and the small readers the descriptions share.
 */

export type AnyDocument = DocumentTypes[DocumentKind];
/** The fields an item sets, in stored form (a partial record of the kind). */
export type Values = Readonly<Record<string, unknown>>;

/** The state a kind's rules may consult while one write call runs. */
export interface WriteScope {
  readonly tx: Repos;
  readonly userPk: number;
  readonly limits: RecordLimits;
}

export interface DocumentCodes {
  /** x01: a title is required (rows: the list is). */
  readonly required: ErrorCode;
  /** x02: more than 50 items in one call. */
  readonly tooMany: ErrorCode;
  /** x03: the per-account (rows: per-list) maximum. */
  readonly max: ErrorCode;
  readonly emptyId: ErrorCode;
  readonly invalid: ErrorCode;
  readonly nothingEdited: ErrorCode;
  readonly malformed: ErrorCode;
  /** x09, x12, x14: kinds that keep refs and versions. */
  readonly alreadyAdded?: ErrorCode;
  readonly missingRef?: ErrorCode;
  readonly stale?: ErrorCode;
}

export interface DocumentSpec {
  readonly kind: DocumentKind;
  /** Path segment, form field of writes, and XML root of lists (`notes`). */
  readonly plural: string;
  /** Word of descriptions and XML element of one record (`note`). */
  readonly noun: string;
  readonly scope: ResourceScope;
  readonly codes: DocumentCodes;
  readonly idForm: IdForm;
  /** Outlines, lists, rows: `version` +1 per edit, and an edit must carry the version it was made on. */
  readonly versioned: boolean;
  /** Outlines, lists, rows: add needs a `ref`, kept, and a second add with it is refused. */
  readonly keepsRef: boolean;
  readonly editStamp: StampName;
  /** The stamp a delete moves (notes: lastdelete_note; the others have none of their own). */
  readonly deleteStamp: StampName;
  /** get answers `[{num,total}, …]` (notes) or a bare array, `null` when empty (the others). */
  readonly pageSummary: boolean;
  /** Rows: each belongs to a list, named by `list` on add, get and delete. */
  readonly inList: boolean;
  /** How many records of the kind the account (rows: the list) may hold. */
  readonly maxRecords: (limits: RecordLimits) => number;
  /**
   * Reads the item's settable fields. On add (`stored` null) every required field must be there;
   * on edit only the fields sent are read. `list` is the row's list (rows only).
   */
  readonly read: (item: Item, stored: AnyDocument | null, scope: WriteScope, list: List | null) => Promise<Read<Values>>;
  /** The stored record of an add, from the values read and what the service assigned. */
  readonly create: (values: Values, base: { id: number | string; ref: string; stamp: number; list: string }) => AnyDocument;
  /** The record after an edit (values merged, at the new stamp). */
  readonly merge: (stored: AnyDocument, values: Values, stamp: number) => AnyDocument;
  /**
   * Keeps other records consistent after writes of the kind (lists: rows after a change of
   * columns; rows: their lists' stamps). Given a call's adds at once (stored null), an edit alone.
   */
  readonly afterWrite?: (scope: WriteScope, changes: ReadonlyArray<{ readonly next: AnyDocument; readonly stored: AnyDocument | null }>, stamp: number) => Promise<void>;
}

/** The kind's codes from its base (700 for notes…); with `extra`, those of refs and versions too. */
export function codesFrom(base: number, extra: boolean): DocumentCodes {
  const code = tableCode;
  return {
    required: code(base + 1),
    tooMany: code(base + 2),
    max: code(base + 3),
    emptyId: code(base + 4),
    invalid: code(base + 5),
    nothingEdited: code(base + 6),
    malformed: code(base + 11),
    ...(extra && { alreadyAdded: code(base + 9), missingRef: code(base + 12), stale: code(base + 14) }),
  };
}

/** Reads `key` when the item has it, into `out`; false (with the problem kept) when it is refused. */
export function take(out: Record<string, unknown>, item: Item, key: string, read: (v: unknown) => Read<unknown>): Read<null> {
  if (!Object.hasOwn(item, key)) return { value: null };
  const r = read(item[key]);
  if ('problem' in r) return r;
  out[key] = r.value;
  return { value: null };
}

/** A title: required on add, never blank; trimmed; over the limit is malformed (never cut). */
export function readTitle(out: Record<string, unknown>, item: Item, adding: boolean, maxChars: number, codes: DocumentCodes, noun: string): Read<null> {
  if (!Object.hasOwn(item, 'title') && !adding) return { value: null };
  const r = readText(item['title'], 'title', { chars: maxChars }, codes.malformed, true);
  if ('problem' in r) return r;
  if (r.value === '') return problem(codes.required, `Your ${noun} must have a title`);
  out['title'] = r.value;
  return { value: null };
}

/** Runs readers in order and stops at the first problem. */
export function firstProblem(...steps: Array<() => Read<null>>): Read<null> {
  for (const step of steps) {
    const r = step();
    if ('problem' in r) return r;
  }
  return { value: null };
}

/** Title, keywords and note of outlines and lists (the hosted service's limits). */
export function readHeader(out: Record<string, unknown>, item: Item, adding: boolean, codes: DocumentCodes, noun: string): Read<null> {
  return firstProblem(
    () => readTitle(out, item, adding, 100, codes, noun),
    () => take(out, item, 'keywords', (v) => readText(v, 'keywords', { chars: 200 }, codes.malformed, true)),
    () => take(out, item, 'note', (v) => readText(v, 'note', { chars: 2000 }, codes.malformed)),
  );
}


/** Title, keywords and note of a new outline or list: as read, or empty when not sent. */
export function headerOf(v: Values): { title: string; keywords: string; note: string } {
  return { title: v['title'] as string, keywords: (v['keywords'] as string | undefined) ?? '', note: (v['note'] as string | undefined) ?? '' };
}
