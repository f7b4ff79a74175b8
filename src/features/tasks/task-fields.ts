import { ApiError } from '../../errors.js';
import { BoundedMap } from '../../lib/bounded-map.js';

/** Returned for every task whatever `fields` says (spec 4.2); naming one in `fields` is error 613. */
export const ALWAYS_FIELDS = ['id', 'title', 'modified', 'completed'] as const;

/**
 * Optional output fields in the order they are written (the order of spec 2.1's table), whatever
 * order `fields` lists them in.
 */
export const OPTIONAL_FIELDS = [
  'tag',
  'folder',
  'context',
  'goal',
  'location',
  'parent',
  'children',
  'order',
  'duedate',
  'duedatemod',
  'startdate',
  'duetime',
  'starttime',
  'remind',
  'repeat',
  'status',
  'length',
  'priority',
  'star',
  'added',
  'timer',
  'timeron',
  'note',
  'meta',
  'previous',
  'shared',
  'sharedowner',
  'sharedwith',
  'addedby',
  'via',
  'attachment',
] as const;

export type OptionalField = (typeof OPTIONAL_FIELDS)[number];

/** Other names clients use for an optional field (spec 2.1 notes: `attachments`, `duration`). */
const ALIASES: ReadonlyMap<string, OptionalField> = new Map([
  ['attachments', 'attachment'],
  ['duration', 'length'],
]);

const KNOWN: ReadonlySet<string> = new Set(OPTIONAL_FIELDS);
const ALWAYS: ReadonlySet<string> = new Set(ALWAYS_FIELDS);

/** The optional fields a call asked for, in output order. */
export type FieldSet = readonly OptionalField[];

/**
 * Reads the `fields` parameter: comma-separated names, spaces and case ignored, empty entries
 * skipped. An always-returned or unknown name is error 613 for the whole request.
 */
export function parseFields(text: string | undefined): FieldSet {
  if (text === undefined) return [];
  const known = parsed.get(text);
  if (known) return known;
  const set = Object.freeze(fieldsOf(text));
  if (text.length <= KEPT_TEXT) parsed.set(text, set);
  return set;
}

/**
 * Field lists as sent, read: a client sends the same list on every sync, and reading its 31
 * names again took 3 % of an `after=` fetch's CPU. Only lists that read without error are kept,
 * and only texts of a usual length (every name once, with spaces: under 300 characters), so that
 * the cache holds a few kilobytes whatever clients send.
 */
const parsed = new BoundedMap<string, FieldSet>(64);
const KEPT_TEXT = 512;

function fieldsOf(text: string): OptionalField[] {
  const asked = new Set<OptionalField>();
  for (const raw of text.split(',')) {
    const name = raw.trim().toLowerCase();
    if (name === '') continue;
    if (ALWAYS.has(name)) {
      throw new ApiError(613, { desc: `Incorrect field parameters: "${name}" is always returned; do not list it in fields` });
    }
    // A Map, not an object: names such as "constructor" must not find Object.prototype's members.
    const field = ALIASES.get(name) ?? (KNOWN.has(name) ? (name as OptionalField) : undefined);
    if (!field) throw new ApiError(613, { desc: `Incorrect field parameters: unknown field "${name}"` });
    asked.add(field);
  }
  return OPTIONAL_FIELDS.filter((f) => asked.has(f));
}
