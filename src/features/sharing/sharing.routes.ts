import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { apiRoute } from '../../http/api-route.js';
import type { Params } from '../../http/params.js';
import { listBody, objectBody } from '../../http/reply.js';
import { OPTIONAL_FIELDS, parseFields } from '../tasks/task-fields.js';
import { taskResultsBody } from '../tasks/tasks.presenter.js';
import { accept, ALLOW_ALL, endCollaboration, invite, listCollaborations, setAllowed, type Allowed } from './collaborators.service.js';
import { collaboratorRecord, invitationRecord } from './sharing.presenter.js';
import { reassignTask, shareTask } from './task-sharing.service.js';
import { deletedSearchesBody, searchesBody } from './searches.presenter.js';
import { addSearches, deleteSearches, editSearches, listSearches } from './searches.service.js';
import { batchParam } from '../../http/batch-params.js';

/** A 0/1 flag parameter; absent: `fallback`; anything else: 611. */
function flag(p: Params, name: string, fallback: boolean): boolean {
  const v = p.text(name);
  if (v === undefined) return fallback;
  if (v === '0' || v === '1') return v === '1';
  throw new ApiError(611, { desc: `Malformed request: ${name} must be 0 or 1` });
}

function allowedOf(p: Params, fallback: Allowed): Allowed {
  return { reassign: flag(p, 'reassignable', fallback.reassign), share: flag(p, 'sharable', fallback.share) };
}

/** The other account of a collaboration call: `id` (a user id) or, for invitations, an e-mail address. */
function whoOf(p: Params, ...names: string[]): string {
  for (const n of names) {
    const v = p.text(n);
    if (v !== undefined && v !== '') return v;
  }
  throw new ApiError(615, { desc: `Invalid collaborator: ${names.join(' or ')} is missing` });
}

export function sharingRoutes(app: FastifyInstance, deps: Deps): void {
  // The hosted service's call: accepted collaborators only, with what each lets the caller do.
  apiRoute(app, deps, {
    path: '/3/account/collaborators.php',
    scope: 'share',
    handler: async ({ auth }) => {
      const accepted = (await listCollaborations(deps, auth.userPk)).filter((c) => c.state === 'accepted');
      return listBody('users', 'user', accepted.map(collaboratorRecord));
    },
  });

  // Additions (docs/api-notes.md): invitations and their answers for apps and scripts; the web pages
  // (/account/collaborators) call the same service.
  apiRoute(app, deps, {
    path: '/3/account/invitations.php',
    scope: 'share',
    handler: async ({ auth }) => listBody('invitations', 'invitation', (await listCollaborations(deps, auth.userPk)).map(invitationRecord)),
  });
  apiRoute(app, deps, {
    path: '/3/account/collaborators_invite.php',
    scope: 'share write',
    handler: async ({ params: p, auth }) => objectBody('invitation', invitationRecord(await invite(deps, auth.userPk, whoOf(p, 'invite', 'email', 'id'), allowedOf(p, ALLOW_ALL)))),
  });
  apiRoute(app, deps, {
    path: '/3/account/collaborators_accept.php',
    scope: 'share write',
    handler: async ({ params: p, auth }) => objectBody('invitation', invitationRecord(await accept(deps, auth.userPk, whoOf(p, 'id'), allowedOf(p, ALLOW_ALL)))),
  });
  apiRoute(app, deps, {
    path: '/3/account/collaborators_edit.php',
    scope: 'share write',
    handler: async ({ params: p, auth }) => {
      const who = whoOf(p, 'id');
      const current = (await listCollaborations(deps, auth.userPk)).find((c) => c.otherUserid === who);
      const fallback = current ? { reassign: current.allowReassign, share: current.allowShare } : ALLOW_ALL;
      return objectBody('invitation', invitationRecord(await setAllowed(deps, auth.userPk, who, allowedOf(p, fallback))));
    },
  });
  apiRoute(app, deps, {
    path: '/3/account/collaborators_end.php',
    scope: 'share write',
    handler: async ({ params: p, auth }) => {
      const who = whoOf(p, 'id');
      await endCollaboration(deps, auth.userPk, who);
      return objectBody('ended', { id: who });
    },
  });

  apiRoute(app, deps, {
    path: '/3/tasks/share.php',
    scope: 'share write',
    malformedCode: 611,
    handler: async ({ params: p, auth }) => {
      // The answer always carries the sharing fields, plus any others asked for.
      const asked = new Set([...parseFields(p.get('fields')), 'shared', 'sharedowner', 'sharedwith']);
      const fields = OPTIONAL_FIELDS.filter((f) => asked.has(f));
      const task = await shareTask(deps, auth, p.get('id'), p.get('share'));
      return taskResultsBody([{ task }], fields);
    },
  });

  apiRoute(app, deps, {
    path: '/3/tasks/reassign.php',
    scope: 'share write',
    malformedCode: 611,
    handler: async ({ params: p, auth }) => listBody('tasks', 'task', [await reassignTask(deps, auth, p.get('id'), p.get('assign'))]),
  });

  // Saved searches: the hosted service's read, and additions to write them (docs/sharing.md).
  apiRoute(app, deps, {
    path: '/3/tasks/search.php',
    scope: 'tasks',
    handler: async ({ auth }) => searchesBody(await listSearches(deps, auth)),
  });
  const searchesOf = (p: Params) => batchParam(p, 'searches', { malformed: 611, tooMany: 618 });
  apiRoute(app, deps, {
    path: '/3/tasks/search_add.php',
    scope: 'write',
    handler: async ({ params: p, auth }) => searchesBody(await addSearches(deps, auth, searchesOf(p))),
  });
  apiRoute(app, deps, {
    path: '/3/tasks/search_edit.php',
    scope: 'write',
    handler: async ({ params: p, auth }) => searchesBody(await editSearches(deps, auth, searchesOf(p))),
  });
  apiRoute(app, deps, {
    path: '/3/tasks/search_delete.php',
    scope: 'write',
    handler: async ({ params: p, auth }) => deletedSearchesBody(await deleteSearches(deps, auth, searchesOf(p))),
  });
}
