import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { apiRoute } from '../../http/api-route.js';
import type { Params } from '../../http/params.js';
import { KINDS, type KindSpec } from './organizer-kinds.js';
import { deletedBody, listBodyOf, writtenBodyOf } from './organizers.presenter.js';
import { addOrganizer, deleteOrganizer, editOrganizer, listOrganizers, type OrganizerInput } from './organizers.service.js';

/** The parameters a kind reads, as raw text; everything else a client sends is ignored. */
function input(spec: KindSpec, params: Params): OrganizerInput {
  const raw: Record<string, string | undefined> = { id: params.get('id'), name: params.get('name') };
  for (const field of spec.fields) raw[field.name] = params.get(field.name);
  return { spec, raw };
}

function kindRoutes(app: FastifyInstance, deps: Deps, spec: KindSpec): void {
  const base = `/3/${spec.plural}`;
  apiRoute(app, deps, {
    path: `${base}/get.php`,
    scope: 'tasks',
    handler: async ({ auth }) => listBodyOf(spec, await listOrganizers(deps, auth, { spec })),
  });
  apiRoute(app, deps, {
    path: `${base}/add.php`,
    scope: 'write',
    handler: async ({ auth, params }) => writtenBodyOf(spec, await addOrganizer(deps, auth, input(spec, params))),
  });
  apiRoute(app, deps, {
    path: `${base}/edit.php`,
    scope: 'write',
    handler: async ({ auth, params }) => writtenBodyOf(spec, await editOrganizer(deps, auth, input(spec, params))),
  });
  apiRoute(app, deps, {
    path: `${base}/delete.php`,
    scope: 'write',
    handler: async ({ auth, params }) => deletedBody(await deleteOrganizer(deps, auth, input(spec, params))),
  });
}

/** /3/folders, /3/contexts, /3/goals, /3/locations: get, add, edit, delete. */
export function organizerRoutes(app: FastifyInstance, deps: Deps): void {
  for (const spec of KINDS) kindRoutes(app, deps, spec);
}
