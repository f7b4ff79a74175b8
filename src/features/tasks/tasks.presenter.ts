import type { ItemError } from '../../errors.js';
import { joinedBytes } from '../../http/joined-bytes.js';
import { errorNode, listBody, XML_DECLARATION, type ApiBody, type TextBody } from '../../http/reply.js';
import { writeXmlNode } from '../../http/xml.js';
import type { ListedTask, RecordForm, Tombstone } from '../../storage/store.js';
import type { FieldSet } from './task-fields.js';
import { taskWriter } from './task-writers.js';

/**
 * Tasks or inline errors, each written by itself and joined: one array in JSON, one root in XML.
 * Joined as bytes (joinedBytes), instead of one long concatenation that sending would first
 * flatten, then measure, then encode (a third of the cost of a 1000-task XML answer, measured).
 */
function written(items: ReadonlyArray<{ task: ListedTask; ref?: string | number | undefined } | ItemError>, fields: FieldSet, head?: { json: string; xml: string }): TextBody {
  const w = taskWriter(fields);
  return {
    text: {
      json() {
        const records = items.map((it) => ('errorCode' in it ? JSON.stringify(it) : w.json(it.task, it.ref)));
        return joinedBytes('[', head ? [head.json, ...records] : records, ',', ']');
      },
      xml() {
        const records = items.map((it) => ('errorCode' in it ? writeXmlNode(errorNode(it)) : w.xml(it.task, it.ref)));
        return joinedBytes(`${XML_DECLARATION}${head ? head.xml : '<tasks>'}`, records, '', '</tasks>');
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
  return written(
    tasks.map((task) => ({ task })),
    fields,
    pageHead(tasks.length, total),
  );
}

/** What opens a page of tasks/get: the JSON array's first member, the XML root's start tag. */
function pageHead(num: number, total: number): { json: string; xml: string } {
  return { json: `{"num":${num},"total":${total}}`, xml: `<tasks num="${num}" total="${total}">` };
}


/**
 * tasks/get from tasks the database wrote (listTasksWritten), in the form they were written in:
 * only joined, as bytes (joinedBytes).
 */
export function taskWrittenPageBody(rows: readonly string[], total: number, form: RecordForm): TextBody {
  const json = form === 'json';
  const join = (): Buffer => {
    const head = pageHead(rows.length, total);
    return json ? joinedBytes('[', [head.json, ...rows], ',', ']') : joinedBytes(`${XML_DECLARATION}${head.xml}`, rows, '', '</tasks>');
  };
  const wrong = (): never => {
    throw new Error(`taskWrittenPageBody holds ${form} records`);
  };
  return { text: { json: json ? join : wrong, xml: json ? wrong : join } };
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
