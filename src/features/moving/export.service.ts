import type { Deps } from '../../deps.js';
import { unixSeconds } from '../../lib/clock.js';
import type { Account, DocumentKind, ListedTask, OrganizerKind } from '../../storage/store.js';
import { documentRecord } from '../documents/documents.presenter.js';
import { DOCUMENT_KINDS, type AnyDocument } from '../documents/document-kinds.js';
import { KINDS } from '../organizers/organizer-kinds.js';
import { OPTIONAL_FIELDS, type OptionalField } from '../tasks/task-fields.js';
import { taskWriter } from '../tasks/task-writers.js';
import type { SourceRecord } from './import-report.js';

/**
 * A person's whole account as one document (docs/moving.md, "Export"): every record in the v3
 * API's public shape, so that `import json` reads it back through the same import as a v3 server
 * (json-source.ts), and anyone can read it without Tickler. Services only: the command line and
 * the account page (when it exists) call these and write the bytes where they want.
 */

export const EXPORT_FORMAT = 'tickler-export';
export const EXPORT_VERSION = 1;

/** Every field of a task that holds the person's data (not per-app meta, not sharing). */
const TASK_EXPORT_FIELDS: readonly OptionalField[] = OPTIONAL_FIELDS.filter((f) => !['meta', 'shared', 'sharedowner', 'sharedwith', 'addedby', 'timeron'].includes(f));

export interface AccountExport {
  readonly format: typeof EXPORT_FORMAT;
  readonly version: number;
  /** When it was made (Unix seconds). */
  readonly exported: number;
  readonly account: { readonly userid: string; readonly email: string; readonly alias: string; readonly pro: number };
  readonly folders: readonly SourceRecord[];
  readonly contexts: readonly SourceRecord[];
  readonly goals: readonly SourceRecord[];
  readonly locations: readonly SourceRecord[];
  readonly notes: readonly SourceRecord[];
  readonly outlines: readonly SourceRecord[];
  readonly lists: readonly SourceRecord[];
  /** Each row with `list`, its list's id. */
  readonly rows: readonly SourceRecord[];
  readonly tasks: readonly SourceRecord[];
}

/** Pages through everything a kind holds (the store caps nothing here; pages keep memory flat). */
async function allDocuments(deps: Deps, userPk: number, kind: DocumentKind, list?: string): Promise<AnyDocument[]> {
  const out: AnyDocument[] = [];
  for (let start = 0; ; start += 1000) {
    const page = await deps.store.read.documents.page(userPk, kind, { start, num: 1000, ...(list !== undefined && { list }) });
    out.push(...page.items);
    if (page.items.length < 1000) return out;
  }
}

/** Every task of the account, with its subtask count and attachments, ordered by id. */
export async function allTasks(deps: Deps, userPk: number): Promise<ListedTask[]> {
  const out: ListedTask[] = [];
  for (let start = 0; ; start += 1000) {
    const page = await deps.store.read.tasks.page(userPk, { start, num: 1000, withChildren: true });
    const links = await deps.store.read.attachments.forTasks(userPk, page.tasks.map((t) => t.id));
    out.push(...page.tasks.map((t) => ({ ...t, attachment: links.get(t.id) ?? [] })));
    if (page.tasks.length < 1000) return out;
  }
}

export async function exportAccount(deps: Deps, userPk: number): Promise<AccountExport> {
  const account = (await deps.store.read.accounts.get(userPk)) as Account;
  const organizers = async (kind: OrganizerKind): Promise<SourceRecord[]> => {
    const spec = KINDS.find((k) => k.kind === kind);
    const rows = (await deps.store.read.organizers.list(userPk, kind)) as unknown as Array<Record<string, unknown>>;
    // Every key a record has (goals' `private` too, which goals/get leaves out of its JSON).
    return rows.map((r) => Object.fromEntries((spec?.fullKeys ?? []).map((k) => [k, r[k]])));
  };
  const spec = (kind: DocumentKind) => DOCUMENT_KINDS.find((k) => k.kind === kind) as (typeof DOCUMENT_KINDS)[number];
  const lists = await allDocuments(deps, userPk, 'list');
  const rows: SourceRecord[] = [];
  for (const l of lists) for (const r of await allDocuments(deps, userPk, 'row', String(l.id))) rows.push({ ...documentRecord(spec('row'), r), list: l.id });
  const writer = taskWriter(TASK_EXPORT_FIELDS);
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported: unixSeconds(deps.clock),
    account: { userid: account.userid, email: account.email, alias: account.alias, pro: account.pro },
    folders: await organizers('folder'),
    contexts: await organizers('context'),
    goals: await organizers('goal'),
    locations: await organizers('location'),
    notes: (await allDocuments(deps, userPk, 'note')).map((d) => documentRecord(spec('note'), d)),
    outlines: (await allDocuments(deps, userPk, 'outline')).map((d) => documentRecord(spec('outline'), d)),
    lists: lists.map((d) => documentRecord(spec('list'), d)),
    rows,
    // The tasks' own writer: the export holds exactly what tasks/get answers.
    tasks: (await allTasks(deps, userPk)).map((t) => JSON.parse(writer.json(t)) as SourceRecord),
  };
}
