import type { ItemError } from '../../errors.js';
import { errorNode, listBody, XML_DECLARATION, type ApiBody, type TextBody } from '../../http/reply.js';
import { writeXmlNode } from '../../http/xml.js';
import type { ListedTask, Tombstone } from '../../storage/store.js';
import type { FieldSet } from './task-fields.js';
import { taskWriter } from './task-writers.js';

/** Tasks or inline errors, each written by itself and joined: one array in JSON, one root in XML. */
function written(items: ReadonlyArray<{ task: ListedTask; ref?: string | number | undefined } | ItemError>, fields: FieldSet, head?: { json: string; xml: string }): TextBody {
  const w = taskWriter(fields);
  return {
    text: {
      json() {
        let s = head ? `[${head.json}` : '[';
        let first = head === undefined;
        for (const it of items) {
          s += (first ? '' : ',') + ('errorCode' in it ? JSON.stringify(it) : w.json(it.task, it.ref));
          first = false;
        }
        return `${s}]`;
      },
      xml() {
        let s = `${XML_DECLARATION}${head ? head.xml : '<tasks>'}`;
        for (const it of items) s += 'errorCode' in it ? writeXmlNode(errorNode(it)) : w.xml(it.task, it.ref);
        return `${s}</tasks>`;
      },
    },
  };
}

/**
 * tasks/get: `[{num, total}, task…]`; XML `<tasks num total><task>…</task></tasks>`. Each task has
 * id, title, modified, completed, then the optional fields asked for in the spec's order (strict
 * clients reject keys they did not ask for).
 */
export function taskPageBody(tasks: readonly ListedTask[], fields: FieldSet, total: number): ApiBody {
  const n = tasks.length;
  return written(
    tasks.map((task) => ({ task })),
    fields,
    { json: `{"num":${n},"total":${total}}`, xml: `<tasks num="${n}" total="${total}">` },
  );
}

/** tasks/get in JSON from tasks the database wrote (listTasksJson): only joined. */
export function taskJsonPageBody(rows: readonly string[], total: number): TextBody {
  return {
    text: {
      json: () => `[{"num":${rows.length},"total":${total}}${rows.length > 0 ? ',' : ''}${rows.join(',')}]`,
      xml: () => {
        throw new Error('taskJsonPageBody is for JSON answers only');
      },
    },
  };
}

/** tasks/add and tasks/edit: results in submission order, inline errors among them; `ref` as sent on add. */
export function taskResultsBody(results: ReadonlyArray<{ task: ListedTask; ref?: string | number | undefined } | ItemError>, fields: FieldSet): ApiBody {
  return written(results, fields);
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
