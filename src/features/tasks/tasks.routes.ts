import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { apiRoute } from '../../http/api-route.js';
import { batchParam, numberParam as numberOf } from '../../http/batch-params.js';
import { classifyId, type Params } from '../../http/params.js';
import { formatOf } from '../../http/reply.js';
import { runSearch } from '../sharing/searches.service.js';
import { ALWAYS_FIELDS, parseFields, type FieldSet } from './task-fields.js';
import { asksReschedule } from './task-input.js';
import { deleteResultsBody, taskPageBody, taskWrittenPageBody, taskResultsBody, tombstonesBody } from './tasks.presenter.js';
import { deletedTasks, listTasksWritten, MAX_PAGE } from './tasks.read.js';
import { addTasks, deleteTasks, editTasks, type Wanted } from './tasks.write.js';

/** A numeric parameter of tasks/get or deleted: anything but a number is 611 for the request. */
function numberParam(p: Params, ...names: string[]): number | undefined {
  return numberOf(p, 611, ...names);
}

/** The `tasks` parameter of add, edit and delete: a JSON array of at most 50 items (611, 602). */
function batchOf(p: Params): unknown[] {
  return batchParam(p, 'tasks', { malformed: 611, tooMany: 602 });
}

/** The fields read from the sharing tables (docs/sharing.md). */
const SHARING_FIELDS: ReadonlySet<string> = new Set(['shared', 'sharedowner', 'sharedwith', 'addedby']);

export function wantedOf(fields: FieldSet): Wanted {
  return {
    children: fields.includes('children'),
    meta: fields.includes('meta'),
    attachment: fields.includes('attachment'),
    sharing: fields.some((f) => SHARING_FIELDS.has(f)),
  };
}

function compOf(p: Params): 0 | 1 | undefined {
  const comp = numberParam(p, 'comp');
  if (comp === undefined || comp === -1) return undefined;
  if (comp === 0 || comp === 1) return comp;
  throw new ApiError(611, { desc: 'Malformed request: comp must be 0, 1 or -1' });
}

export function taskRoutes(app: FastifyInstance, deps: Deps): void {
  apiRoute(app, deps, {
    path: '/3/tasks/get.php',
    scope: 'tasks',
    malformedCode: 611,
    handler: async ({ params: p, auth, request }) => {
      const fields = parseFields(p.get('fields'));
      const id = numberParam(p, 'id');
      // A number no task can have as id (0, 2.9, past the largest id) matches nothing, like an unknown id.
      if (id !== undefined && typeof classifyId(p.text('id')) !== 'number') return taskPageBody([], fields, 0);
      const input = {
        id,
        // modafter/modbefore: names some clients use for after/before.
        after: numberParam(p, 'after', 'modafter'),
        before: numberParam(p, 'before', 'modbefore'),
        comp: compOf(p),
        start: numberParam(p, 'start') ?? 0,
        num: numberParam(p, 'num') ?? MAX_PAGE,
        ...wantedOf(fields),
      };
      // The database writes each task's public record, in JSON or in XML (docs/decisions/0007); a
      // saved search run on the server (an addition: docs/sharing.md) too.
      const form = formatOf(request);
      if (p.has('search')) {
        const found = await runSearch(deps, auth, { ...input, search: p.get('search') }, [...ALWAYS_FIELDS, ...fields], form);
        return taskWrittenPageBody(found.rows, found.total, form);
      }
      const page = await listTasksWritten(deps, auth, input, [...ALWAYS_FIELDS, ...fields], form);
      return taskWrittenPageBody(page.rows, page.total, form);
    },
  });

  apiRoute(app, deps, {
    path: '/3/tasks/add.php',
    scope: 'write',
    malformedCode: 611,
    handler: async ({ params: p, auth }) => {
      const fields = parseFields(p.get('fields'));
      return taskResultsBody(await addTasks(deps, auth, batchOf(p), wantedOf(fields)), fields);
    },
  });

  apiRoute(app, deps, {
    path: '/3/tasks/edit.php',
    scope: 'write',
    malformedCode: 611,
    handler: async ({ params: p, auth }) => {
      const fields = parseFields(p.get('fields'));
      const items = batchOf(p);
      // `reschedule` arrives as a top-level parameter or inside each task (compat notes); 1 or
      // true asks for it, anything else does not.
      const reschedule = asksReschedule(p.text('reschedule'));
      return taskResultsBody(await editTasks(deps, auth, items, { wanted: wantedOf(fields), reschedule }), fields);
    },
  });

  apiRoute(app, deps, {
    path: '/3/tasks/delete.php',
    scope: 'write',
    malformedCode: 611,
    handler: async ({ params: p, auth }) => deleteResultsBody(await deleteTasks(deps, auth, batchOf(p))),
  });

  // deleted.php, and get_deleted.php: the name the spec's sync guidance uses.
  for (const path of ['/3/tasks/deleted.php', '/3/tasks/get_deleted.php']) {
    apiRoute(app, deps, {
      path,
      scope: 'tasks',
      malformedCode: 611,
      handler: async ({ params: p, auth }) => tombstonesBody(await deletedTasks(deps, auth, numberParam(p, 'after') ?? 0)),
    });
  }
}
