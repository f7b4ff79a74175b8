import type { ItemError } from '../../errors.js';
import { errorNode, listBody, type ApiBody, type PublicRecord, type PublicValue } from '../../http/reply.js';
import type { ListedTask, Tombstone } from '../../storage/store.js';
import type { FieldSet, OptionalField } from './task-fields.js';
import { floatingTime } from './task-rules.js';

type Getter = (t: ListedTask) => PublicValue;

const none: Getter = () => 0;
const emptyList: Getter = () => [];

/** How each optional field is read from a task; a table of getters is cheaper than a switch per value. */
const GETTERS: Readonly<Record<OptionalField, Getter>> = {
  tag: (t) => t.tag,
  folder: (t) => t.folder,
  context: (t) => t.context,
  goal: (t) => t.goal,
  location: (t) => t.location,
  parent: (t) => t.parent,
  children: (t) => t.children,
  order: (t) => t.ord,
  duedate: (t) => t.duedate,
  duedatemod: (t) => t.duedatemod,
  startdate: (t) => t.startdate,
  duetime: (t) => floatingTime(t.duedate, t.duetime),
  starttime: (t) => floatingTime(t.startdate, t.starttime),
  remind: (t) => t.remind,
  repeat: (t) => t.repeat,
  status: (t) => t.status,
  length: (t) => t.length,
  priority: (t) => t.priority,
  star: (t) => t.star,
  added: (t) => t.added,
  timer: (t) => t.timer,
  timeron: (t) => t.timeron,
  note: (t) => t.note,
  meta: (t) => t.meta,
  previous: (t) => t.previous,
  // Collaboration is not offered yet: nothing is shared, nobody assigned anything.
  shared: none,
  sharedowner: none,
  sharedwith: emptyList,
  addedby: none,
  via: (t) => t.via,
  // The linked notes, outlines and lists (read-only; linked with attach/detach, an addition).
  attachment: (t) => (t.attachment ?? []).map((a) => ({ id: a.id, kind: a.kind, name: a.name })),
};

/**
 * The public task record: always id, title, modified, completed; then the requested optional
 * fields in the spec's order (strict clients reject keys they did not ask for); then `ref` when
 * the client sent one on add.
 */
export function taskRecord(t: ListedTask, fields: FieldSet, ref?: string | number): PublicRecord {
  const record: Record<string, PublicValue> = { id: t.id, title: t.title, modified: t.modified, completed: t.completed };
  for (const f of fields) record[f] = GETTERS[f](t);
  if (ref !== undefined) record['ref'] = ref;
  return record;
}

/** tasks/get: `[{num, total}, task…]`; XML `<tasks num total><task>…</task></tasks>`. */
export function taskPageBody(records: readonly PublicRecord[], total: number): ApiBody {
  return listBody('tasks', 'task', records, { num: records.length, total });
}

/** tasks/add and tasks/edit: results in submission order, inline errors among them. */
export function taskResultsBody(results: ReadonlyArray<PublicRecord | ItemError>): ApiBody {
  return listBody('tasks', 'task', results);
}

/** tasks/delete: `[{id}…]` with inline errors; XML `<deleted><id>1</id>…</deleted>`. */
export function deleteResultsBody(results: ReadonlyArray<{ id: number } | ItemError>): ApiBody {
  return {
    json: results,
    xml: () => ({
      name: 'deleted',
      children: results.map((r) => ('errorCode' in r ? errorNode(r) : { name: 'id', text: r.id })),
    }),
  };
}

/** tasks/deleted: `[{num}, {id, stamp}…]`; XML `<deleted num><task><id/><stamp/></task></deleted>`. */
export function tombstonesBody(tombstones: readonly Tombstone[]): ApiBody {
  const records = tombstones.map((t) => ({ id: t.id, stamp: t.stamp }));
  return listBody('deleted', 'task', records, { num: records.length });
}
