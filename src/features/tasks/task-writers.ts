import { BoundedMap } from '../../lib/bounded-map.js';
import { escapeText, writeValue, type PublicValue } from '../../http/xml.js';
import type { ListedTask } from '../../storage/store.js';
import { ALWAYS_FIELDS, type FieldSet, type OptionalField } from './task-fields.js';
import { floatingTime } from './task-rules.js';

/**
 * The public task record, described once: for each public field, how it is read from a task
 * (a JavaScript expression over `t`, a ListedTask) and what kind of value it is. The JSON and the
 * XML writers of every field set are compiled from this table, so the two formats cannot differ.
 *
 * Why compiled writers: the earlier record object, grown key by key up to 35 keys, turned into a
 * dictionary in V8, and building it then JSON.stringify cost 5 ms per 1000 tasks; writing the text
 * straight from the task costs 0.7 ms, below JSON.stringify of the finished body (2.2 ms), and less
 * than fast-json-stringify over a fixed-shape record (0.9 ms; docs/decisions/0007). The code is
 * built only from this table's constant fragments, never from input.
 */
type Kind = 'int' | 'text' | 'nullableText' | 'list' | 'userOrZero';

const FIELDS: Readonly<Record<(typeof ALWAYS_FIELDS)[number] | OptionalField, { readonly read: string; readonly kind: Kind }>> = {
  id: { read: 't.id', kind: 'int' },
  title: { read: 't.title', kind: 'text' },
  modified: { read: 't.modified', kind: 'int' },
  completed: { read: 't.completed', kind: 'int' },
  tag: { read: 't.tag', kind: 'text' },
  folder: { read: 't.folder', kind: 'int' },
  context: { read: 't.context', kind: 'int' },
  goal: { read: 't.goal', kind: 'int' },
  location: { read: 't.location', kind: 'int' },
  parent: { read: 't.parent', kind: 'int' },
  children: { read: 't.children', kind: 'int' },
  order: { read: 't.ord', kind: 'int' },
  duedate: { read: 't.duedate', kind: 'int' },
  duedatemod: { read: 't.duedatemod', kind: 'int' },
  startdate: { read: 't.startdate', kind: 'int' },
  duetime: { read: 'h.floatingTime(t.duedate, t.duetime)', kind: 'int' },
  starttime: { read: 'h.floatingTime(t.startdate, t.starttime)', kind: 'int' },
  remind: { read: 't.remind', kind: 'int' },
  repeat: { read: 't.repeat', kind: 'text' },
  status: { read: 't.status', kind: 'int' },
  length: { read: 't.length', kind: 'int' },
  priority: { read: 't.priority', kind: 'int' },
  star: { read: 't.star', kind: 'int' },
  added: { read: 't.added', kind: 'int' },
  timer: { read: 't.timer', kind: 'int' },
  timeron: { read: 't.timeron', kind: 'int' },
  note: { read: 't.note', kind: 'text' },
  meta: { read: 't.meta', kind: 'nullableText' },
  previous: { read: 't.previous', kind: 'int' },
  // Joint tasks and reassigned ones (docs/sharing.md): user ids are text, 0 when there is none.
  shared: { read: '(t.sharing?.owner === undefined ? 0 : 1)', kind: 'int' },
  sharedowner: { read: 't.sharing?.owner', kind: 'userOrZero' },
  sharedwith: { read: '(t.sharing?.with ?? h.none)', kind: 'list' },
  addedby: { read: 't.sharing?.addedby', kind: 'userOrZero' },
  via: { read: 't.via', kind: 'int' },
  // The linked notes, outlines and lists (read-only; linked with attach/detach, an addition).
  attachment: { read: 'h.attachments(t)', kind: 'list' },
};

/** What the compiled code may call: nothing else is in its scope. */
const HELPERS = Object.freeze({
  floatingTime,
  escapeText,
  writeValue,
  none: Object.freeze([]) as readonly PublicValue[],
  attachments: (t: ListedTask): PublicValue[] => (t.attachment ?? []).map((a) => ({ id: a.id, kind: a.kind, name: a.name })),
});

type Field = keyof typeof FIELDS;

/** A piece of a compiled writer: constant text, or a JavaScript expression giving text. */
type Piece = { readonly text: string } | { readonly code: string };

function jsonPieces(name: Field, first: boolean): Piece[] {
  const { read, kind } = FIELDS[name];
  const key = { text: `${first ? '{' : ','}"${name}":` };
  if (kind === 'userOrZero') return [key, { code: `(${read} === undefined ? '0' : JSON.stringify(${read}))` }];
  const value = kind === 'int' ? read : kind === 'nullableText' ? `(${read} === null ? 'null' : JSON.stringify(${read}))` : `JSON.stringify(${read})`;
  return [key, { code: `${value}` }];
}

function xmlPieces(name: Field): Piece[] {
  const { read, kind } = FIELDS[name];
  if (kind === 'list') return [{ code: `h.writeValue(${JSON.stringify(name)}, ${read})` }];
  const value = kind === 'int' ? read : kind === 'userOrZero' ? `(${read} === undefined ? 0 : h.escapeText(${read}))` : `h.escapeText(${read})`;
  return [{ text: `<${name}>` }, { code: value }, { text: `</${name}>` }];
}

/**
 * The pieces as one expression, each run of constant text as one literal: `"</id><title>"` rather
 * than `"</id>" + "<title>"`, so that a record is about half as many joins (V8 does not fold
 * literals that follow a value).
 */
function expression(pieces: readonly Piece[]): string {
  const merged: Piece[] = [];
  for (const p of pieces) {
    const last = merged[merged.length - 1];
    if ('text' in p && last && 'text' in last) merged[merged.length - 1] = { text: last.text + p.text };
    else merged.push(p);
  }
  return merged.map((p) => ('text' in p ? JSON.stringify(p.text) : `(${p.code})`)).join(' + ');
}

/** Writes one task as JSON or XML text; `ref` (the client's, on add) comes last when given. */
export interface TaskWriter {
  json(task: ListedTask, ref?: string | number): string;
  xml(task: ListedTask, ref?: string | number): string;
}

function compile(names: readonly Field[]): TaskWriter {
  const json = `return ${expression(names.flatMap((n, i) => jsonPieces(n, i === 0)))} + (ref === undefined ? "}" : ',"ref":' + JSON.stringify(ref) + "}");`;
  const xml = `return ${expression([{ text: '<task>' }, ...names.flatMap(xmlPieces)])} + (ref === undefined ? "" : "<ref>" + h.escapeText(ref) + "</ref>") + "</task>";`;
  const toJson = new Function('h', 't', 'ref', json) as (h: typeof HELPERS, t: ListedTask, ref?: string | number) => string;
  const toXml = new Function('h', 't', 'ref', xml) as (h: typeof HELPERS, t: ListedTask, ref?: string | number) => string;
  return { json: (t, ref) => toJson(HELPERS, t, ref), xml: (t, ref) => toXml(HELPERS, t, ref) };
}

/**
 * One writer per field set, compiled on first use. A bounded cache: field sets are few in
 * practice, and a client inventing new ones costs a compile each (well under a millisecond), not
 * memory.
 */
const writers = new BoundedMap<string, TaskWriter>(512);

export function taskWriter(fields: FieldSet): TaskWriter {
  const key = fields.join(',');
  let w = writers.get(key);
  if (!w) {
    w = compile([...ALWAYS_FIELDS, ...fields]);
    writers.set(key, w);
  }
  return w;
}
