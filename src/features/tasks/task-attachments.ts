import type { ErrorCode } from '../../errors.js';
import type { AttachmentKind, DocumentId, Repos } from '../../storage/store.js';
import { classifyDocumentId, isItem } from '../documents/document-fields.js';
import type { InputError } from './task-input.js';

/**
 * Tickler's addition for linking notes, outlines and lists to a task (docs/notes-and-lists.md,
 * "Attachments"). The hosted service made these links on its website only; the API shows them in
 * the read-only `attachment` field. A tasks/add or tasks/edit item may carry
 * `attach: [{"kind":"note","id":12}, …]` and (edit) `detach: […]`. `attachment` itself stays
 * read-only: clients send it back unchanged with every edit, and it must not undo a link.
 */

export interface LinkTarget {
  readonly kind: AttachmentKind;
  readonly id: DocumentId;
}

export interface LinkChanges {
  readonly attach: readonly LinkTarget[];
  readonly detach: readonly LinkTarget[];
}

/** Links one task may hold: far more than a person attaches, few enough to list cheaply. */
export const MAX_LINKS_PER_TASK = 100;

const KINDS: ReadonlyMap<string, { readonly form: 'integer' | 'hex'; readonly invalid: ErrorCode; readonly noun: string }> = new Map([
  ['note', { form: 'integer', invalid: 705, noun: 'note' }],
  ['outline', { form: 'hex', invalid: 805, noun: 'outline' }],
  ['list', { form: 'hex', invalid: 905, noun: 'list' }],
]);

/** Reads `attach` or `detach` of an item: an array of {kind, id}; anything else is 611 naming the field. */
function readTargets(v: unknown, field: string): LinkTarget[] | InputError {
  const bad = (rule: string): InputError => ({ code: 611, desc: `Malformed request: ${field} ${rule}` });
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) return bad('must be an array of {"kind":…,"id":…}');
  const out: LinkTarget[] = [];
  for (const t of v) {
    if (!isItem(t)) return bad('must be an array of {"kind":…,"id":…}');
    const kind = typeof t['kind'] === 'string' ? KINDS.get(t['kind']) : undefined;
    if (!kind) return bad('kind must be note, outline or list');
    const id = classifyDocumentId(t['id'], kind.form);
    if (id === 'none' || id === 'invalid') return { code: kind.invalid, desc: `Invalid ${kind.noun}: ${JSON.stringify(t['id'] ?? null)} in ${field}` };
    if (!out.some((o) => o.kind === t['kind'] && o.id === id)) out.push({ kind: t['kind'] as AttachmentKind, id });
  }
  return out;
}

/** The link changes an item asks for, or undefined when it asks for none. */
export function readLinkChanges(item: Readonly<Record<string, unknown>>): LinkChanges | InputError | undefined {
  if (!Object.hasOwn(item, 'attach') && !Object.hasOwn(item, 'detach')) return undefined;
  const attach = readTargets(item['attach'], 'attach');
  if (!Array.isArray(attach)) return attach;
  const detach = readTargets(item['detach'], 'detach');
  if (!Array.isArray(detach)) return detach;
  return { attach, detach };
}

/**
 * Checks, before anything is written, that each record to attach is one of the account's (the
 * kind's "invalid" error otherwise) and that the task will not hold more than MAX_LINKS_PER_TASK
 * (611; counted as if every record attached were new and every one detached were linked).
 * `taskId` is null on add.
 */
export async function checkLinkChanges(tx: Repos, userPk: number, taskId: number | null, changes: LinkChanges): Promise<InputError | undefined> {
  const held = taskId === null ? 0 : await tx.attachments.count(userPk, taskId);
  if (changes.attach.length > 0 && held - changes.detach.length + changes.attach.length > MAX_LINKS_PER_TASK) {
    return { code: 611, desc: `Malformed request: attach: a task holds at most ${MAX_LINKS_PER_TASK} attachments` };
  }
  for (const t of changes.attach) {
    if (!(await tx.documents.get(userPk, t.kind, t.id))) {
      const kind = KINDS.get(t.kind) as { invalid: ErrorCode; noun: string };
      return { code: kind.invalid, desc: `Invalid ${kind.noun}: ${String(t.id)} in attach` };
    }
  }
  return undefined;
}

/**
 * Applies the changes to a task (detach first, so an item may move a link to the end); returns
 * whether any link changed. Call inside the writing transaction, after checkLinkChanges.
 */
export async function applyLinkChanges(tx: Repos, userPk: number, taskId: number, changes: LinkChanges): Promise<boolean> {
  let changed = false;
  for (const t of changes.detach) changed = (await tx.attachments.unlink(userPk, taskId, t.kind, t.id)) || changed;
  for (const t of changes.attach) changed = (await tx.attachments.link(userPk, taskId, t.kind, t.id)) || changed;
  return changed;
}
