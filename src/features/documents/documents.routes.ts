import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { apiRoute } from '../../http/api-route.js';
import { batchParam, numberParam } from '../../http/batch-params.js';
import type { Params } from '../../http/params.js';
import { formatOf } from '../../http/reply.js';
import type { RequiredScope } from '../../oauth/scopes.js';
import { isWrittenKind } from '../../storage/documents-port.js';
import { DOCUMENT_KINDS, type DocumentSpec } from './document-kinds.js';
import { deleteBody, documentRecord, pageBody, resultsBody, tombstonesBody, writtenPageBody } from './documents.presenter.js';
import { deletedDocuments, listDocuments, listDocumentsWritten, MAX_PAGE } from './documents.read.js';
import { addDocuments, deleteDocuments, editDocuments } from './documents.write.js';

/** /3/{notes,outlines,lists,rows}/{get,add,edit,delete,deleted}.php, registered from the kinds' descriptions. */
function kindRoutes(app: FastifyInstance, deps: Deps, spec: DocumentSpec): void {
  const base = `/3/${spec.plural}`;
  const read = spec.scope as RequiredScope;
  const write = `${spec.scope} write` as RequiredScope;
  const malformedCode = spec.codes.malformed;
  const num = (p: Params, ...names: string[]) => numberParam(p, malformedCode, ...names);
  const batch = (p: Params) => batchParam(p, spec.plural, spec.codes);

  apiRoute(app, deps, {
    path: `${base}/get.php`,
    scope: read,
    malformedCode,
    handler: async ({ params: p, auth, request }) => {
      const input = {
        spec,
        id: p.text('id'),
        // modafter/modbefore: names some clients use for after/before.
        after: num(p, 'after', 'modafter'),
        before: num(p, 'before', 'modbefore'),
        start: num(p, 'start') ?? 0,
        num: num(p, 'num') ?? MAX_PAGE,
        list: p.text('list'),
      };
      // Where the database writes the kind's records, it writes the JSON answer (docs/decisions/0007).
      if (isWrittenKind(spec.kind) && formatOf(request) === 'json') {
        const written = await listDocumentsWritten(deps, auth, { ...input, kind: spec.kind });
        return writtenPageBody(spec, written.rows, written.total);
      }
      const page = await listDocuments(deps, auth, input);
      return pageBody(spec, page.items.map((d) => documentRecord(spec, d)), page.total);
    },
  });
  apiRoute(app, deps, {
    path: `${base}/add.php`,
    scope: write,
    malformedCode,
    handler: async ({ params: p, auth }) => resultsBody(spec, await addDocuments(deps, auth, spec, batch(p))),
  });
  apiRoute(app, deps, {
    path: `${base}/edit.php`,
    scope: write,
    malformedCode,
    handler: async ({ params: p, auth }) => resultsBody(spec, await editDocuments(deps, auth, spec, batch(p))),
  });
  apiRoute(app, deps, {
    path: `${base}/delete.php`,
    scope: write,
    malformedCode,
    handler: async ({ params: p, auth }) => deleteBody(spec, await deleteDocuments(deps, auth, spec, batch(p))),
  });
  apiRoute(app, deps, {
    path: `${base}/deleted.php`,
    scope: read,
    malformedCode,
    handler: async ({ params: p, auth }) => tombstonesBody(spec, await deletedDocuments(deps, auth, spec, num(p, 'after') ?? 0, p.text('list'))),
  });
}

/** Notes, outlines, lists and rows: get, add, edit, delete, deleted. */
export function documentRoutes(app: FastifyInstance, deps: Deps): void {
  for (const spec of DOCUMENT_KINDS) kindRoutes(app, deps, spec);
}
