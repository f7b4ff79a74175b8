import type { Deps } from '../../deps.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import type { ResourceScope } from '../../oauth/scopes.js';
import type { ChangeKind } from '../../storage/changes-port.js';
import type { DocumentId, PublicTaskField, RecordForm } from '../../storage/store.js';
import { DOCUMENT_KINDS } from '../documents/document-kinds.js';
import { documentRecordText } from '../documents/documents.presenter.js';
import { KINDS as ORGANIZER_KINDS } from '../organizers/organizer-kinds.js';
import { organizerRecordText } from '../organizers/organizers.presenter.js';
import type { Row } from '../organizers/organizer-fields.js';
import { ALWAYS_FIELDS, OPTIONAL_FIELDS } from '../tasks/task-fields.js';

/**
 * What the change feed knows of each kind it serves: the scope that lets a token read it, and how
 * to read records of it by id, each written exactly as the kind's own get writes it (every
 * optional field of a task, with the calling app's meta). One description per kind drives the one
 * service (changes.service.ts); the records come from each kind's own presenter or, for tasks,
 * from the database as tasks/get has them written.
 */
export interface FeedKind {
  readonly kind: ChangeKind;
  readonly scope: ResourceScope;
  /** The records of `ids` that exist now: id as text → the record's text in `form`. */
  readonly read: (deps: Deps, auth: AuthContext, ids: readonly string[], form: RecordForm) => Promise<Map<string, string>>;
}

const EVERY_TASK_FIELD: readonly PublicTaskField[] = [...ALWAYS_FIELDS, ...OPTIONAL_FIELDS];
/** A written task's id: the first field of its record in either form. */
const TASK_ID: Readonly<Record<RecordForm, RegExp>> = { json: /^\{"id":(\d+)/, xml: /^<task><id>(\d+)<\/id>/ };

const TASKS: FeedKind = {
  kind: 'task',
  scope: 'tasks',
  read: async (deps, auth, ids, form) => {
    const numbers = ids.map(Number);
    const page = await deps.store.read.tasks.pageWritten(
      auth.userPk,
      { where: { ids: numbers }, start: 0, num: numbers.length, withChildren: true, metaFor: auth.clientPk },
      EVERY_TASK_FIELD,
      form,
    );
    const out = new Map<string, string>();
    for (const record of page.rows) {
      const id = TASK_ID[form].exec(record)?.[1];
      if (id === undefined) throw new Error('a written task does not start with its id');
      out.set(id, record);
    }
    return out;
  },
};

const ORGANIZERS: FeedKind[] = ORGANIZER_KINDS.map((spec) => ({
  kind: spec.kind,
  scope: 'tasks',
  // At most a thousand of a kind per account: read them all, keep the ones asked for.
  read: async (deps, auth, ids, form) => {
    const wanted = new Set(ids);
    const out = new Map<string, string>();
    for (const record of await deps.store.read.organizers.list(auth.userPk, spec.kind)) {
      const id = String(record.id);
      if (wanted.has(id)) out.set(id, organizerRecordText(spec, record as unknown as Row, form));
    }
    return out;
  },
}));

const SCOPE_OF: Readonly<Record<string, ResourceScope>> = { note: 'notes', outline: 'outlines', list: 'lists', row: 'lists' };

const DOCUMENTS: FeedKind[] = DOCUMENT_KINDS.map((spec) => ({
  kind: spec.kind,
  scope: SCOPE_OF[spec.kind] as ResourceScope,
  read: async (deps, auth, ids, form) => {
    const asked: DocumentId[] = spec.kind === 'note' ? ids.map(Number) : [...ids];
    const found = await deps.store.read.documents.getMany(auth.userPk, spec.kind, asked);
    const out = new Map<string, string>();
    for (const [id, record] of found) out.set(String(id), documentRecordText(spec, record, form));
    return out;
  },
}));

export const FEED_KINDS: readonly FeedKind[] = [TASKS, ...ORGANIZERS, ...DOCUMENTS];

/** The kinds a token may read, by the scopes it holds. */
export function kindsFor(scopes: ReadonlySet<string>): FeedKind[] {
  return FEED_KINDS.filter((k) => scopes.has(k.scope));
}
