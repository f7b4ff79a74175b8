import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import type { DocumentId, DocumentQuery, DocumentTombstone, DocumentWrittenPage, List, WrittenKind } from '../../storage/store.js';
import { classifyDocumentId } from './document-fields.js';
import type { AnyDocument, DocumentSpec } from './document-kinds.js';

/** Default and maximum of `num` (like tasks/get); larger values are capped, not refused. */
export const MAX_PAGE = 1000;

export interface DocumentListInput {
  readonly spec: DocumentSpec;
  /** The `id` parameter as sent (text), when there was one. */
  readonly id?: string | undefined;
  readonly after?: number | undefined;
  readonly before?: number | undefined;
  readonly start: number;
  readonly num: number;
  /** Rows: the `list` parameter as sent. */
  readonly list?: string | undefined;
}

export interface DocumentListing {
  readonly total: number;
  readonly items: readonly AnyDocument[];
}

/**
 * The list a rows call names: 1001 when it names none, 1007 when it is not a list of the account
 * (never existed, deleted, another account's). A whole-request error: get and deleted read one list.
 */
export async function listOfRows(deps: Deps, auth: AuthContext, raw: string | undefined): Promise<List> {
  const id = classifyDocumentId(raw, 'hex');
  if (id === 'none') throw new ApiError(1001, { desc: 'Your row must name its list: list is required' });
  const list = id === 'invalid' ? null : await deps.store.read.documents.get(auth.userPk, 'list', id);
  if (!list) throw new ApiError(1007, { ref: raw });
  return list;
}

/** The page a get asks for, or null when its id names no record any kind can have. */
async function queryOf(deps: Deps, auth: AuthContext, input: DocumentListInput): Promise<DocumentQuery | null> {
  const { spec } = input;
  // The list read here also gives a full page of its rows its total (its kept row count).
  const list = spec.inList ? await listOfRows(deps, auth, input.list) : undefined;
  let id: DocumentId | undefined;
  if (input.id !== undefined) {
    const classified = classifyDocumentId(input.id, spec.idForm);
    // An id no record can have matches nothing, like an unknown id (as tasks/get does).
    if (classified === 'none' || classified === 'invalid') return null;
    id = classified;
  }
  return {
    id,
    after: input.after,
    before: input.before,
    list: list?.id,
    listRows: list?.rows,
    start: Math.max(0, input.start),
    num: Math.min(MAX_PAGE, Math.max(0, input.num)),
  };
}

export async function listDocuments(deps: Deps, auth: AuthContext, input: DocumentListInput): Promise<DocumentListing> {
  const query = await queryOf(deps, auth, input);
  if (!query) return { total: 0, items: [] };
  const page = await deps.store.read.documents.page(auth.userPk, input.spec.kind, query);
  return { total: page.total, items: page.items };
}

/** listDocuments() of a kind whose records the database writes, each as its public JSON. */
export async function listDocumentsWritten(deps: Deps, auth: AuthContext, input: DocumentListInput & { readonly kind: WrittenKind }): Promise<DocumentWrittenPage> {
  const query = await queryOf(deps, auth, input);
  if (!query) return { total: 0, rows: [] };
  return deps.store.read.documents.pageWritten(auth.userPk, input.kind, query);
}

/**
 * The kind's tombstones after `after`. rows/deleted.php may name a `list` (it need not exist any
 * more): then only that list's rows; a value that cannot be a list id matches nothing.
 */
export async function deletedDocuments(deps: Deps, auth: AuthContext, spec: DocumentSpec, after: number, list: string | undefined): Promise<DocumentTombstone[]> {
  if (!spec.inList || list === undefined) return deps.store.read.documents.deletedAfter(auth.userPk, spec.kind, after);
  const listId = classifyDocumentId(list, 'hex');
  if (listId === 'none' || listId === 'invalid') return [];
  return deps.store.read.documents.deletedAfter(auth.userPk, spec.kind, after, String(listId));
}
