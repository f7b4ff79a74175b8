import type { Deps } from '../../deps.js';
import { itemError, type ItemError } from '../../errors.js';
import { randomHex } from '../../lib/crypto.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import type { AttachmentKind, DocumentId, List } from '../../storage/store.js';
import { lockAccount } from '../account/account.service.js';
import { idRef } from '../tasks/tasks.write.js';
import { classifyDocumentId, isItem, MAX_REF_CHARS, readWhole, type Item } from './document-fields.js';
import type { AnyDocument, DocumentSpec, Values, WriteScope } from './document-kinds.js';

/**
 * add, edit and delete of notes, outlines, lists and rows, once for the four kinds
 * (document-kinds.ts says what differs). A call is one transaction that first locks the account;
 * each item is judged on its own and answered in order, inline errors among the records.
 */

/** What a write reports per item: the record as it now is (with the client's ref on add), or an inline error. */
export type DocumentResult = { readonly record: AnyDocument; readonly ref?: string | number } | ItemError;
/** What delete reports per item: the id (and a row's list), or an inline error. */
export type DeletedResult = { readonly id: DocumentId; readonly list?: string } | ItemError;

interface Call extends WriteScope {
  readonly spec: DocumentSpec;
  readonly now: number;
  /** The stamps of this call, taken at its first change: every change of the call carries them. */
  editStamp?: number;
  deleteStamp?: number;
  /** Records per account (rows: per list), counted at the first add and kept up to date. */
  readonly counts: Map<string, number>;
  /** The lists the call's rows named, read once each (a call changes no list's columns). */
  readonly lists: Map<string, List | null>;
  /** Refs of the records this call adds (rows: list + NUL + ref) → their ids, for duplicates within a call. */
  readonly refs: Map<string, DocumentId>;
}

async function writeCall<T>(deps: Deps, auth: AuthContext, spec: DocumentSpec, each: (call: Call) => Promise<T>): Promise<T> {
  return deps.store.transaction(async (tx) => {
    const { now } = await lockAccount(deps, tx, auth.userPk);
    return each({ tx, userPk: auth.userPk, limits: deps.config.recordLimits, spec, now, counts: new Map(), lists: new Map(), refs: new Map() });
  });
}

async function editStamp(call: Call): Promise<number> {
  call.editStamp ??= (await call.tx.accounts.touch(call.userPk, [call.spec.editStamp], call.now))[call.spec.editStamp] as number;
  return call.editStamp;
}

async function deleteStamp(call: Call): Promise<number> {
  call.deleteStamp ??= (await call.tx.accounts.touch(call.userPk, [call.spec.deleteStamp], call.now))[call.spec.deleteStamp] as number;
  return call.deleteStamp;
}

/**
 * A new hexadecimal id of 24 characters, like the hosted service's: the second it was made, then
 * 64 random bits (a collision within one account is out of reach).
 */
export function newHexId(stamp: number): string {
  return stamp.toString(16).padStart(8, '0').slice(-8) + randomHex(8);
}

function refOf(item: unknown): string | number | undefined {
  if (!isItem(item)) return undefined;
  const ref = item['ref'];
  return typeof ref === 'string' || typeof ref === 'number' ? ref : undefined;
}

/** The list a row item names: 1001 without one, 1007 when it is not a list of the account. */
async function rowList(call: Call, raw: unknown): Promise<List | ItemError> {
  const id = classifyDocumentId(raw, 'hex');
  if (id === 'none') return itemError(call.spec.codes.required, '', 'Your row must name its list: list is required');
  if (id === 'invalid') return itemError(1007, '', `Invalid list: ${JSON.stringify(raw)}`);
  const key = String(id);
  let list = call.lists.get(key);
  if (list === undefined) call.lists.set(key, (list = await call.tx.documents.get(call.userPk, 'list', id)));
  return list ?? itemError(1007, '', `Invalid list: ${JSON.stringify(raw)}`);
}

/** An add item that passed every check: what the second step stores. */
interface Accepted {
  readonly values: Values;
  readonly ref: string;
  readonly list: string;
  /** Hexadecimal kinds get their id when judged; integer ids come in one block afterwards. */
  readonly id: string | undefined;
}

/**
 * Every item is judged first, in order, each against what the items before it add (counts, refs);
 * then the accepted ones take one block of ids and go in with one multi-row insert, so a call
 * costs a fixed number of statements instead of two per record (docs/decisions/0007). A refused
 * item takes no id.
 */
export async function addDocuments(deps: Deps, auth: AuthContext, spec: DocumentSpec, items: readonly unknown[]): Promise<DocumentResult[]> {
  return writeCall(deps, auth, spec, async (call) => {
    const judged: Array<Accepted | ItemError> = [];
    for (const item of items) judged.push(await judgeAdd(call, item));
    const accepted = judged.filter((j): j is Accepted => !('errorCode' in j));
    const records = accepted.length === 0 ? [] : await storeAdds(call, accepted);
    let next = 0;
    return judged.map((j, i) => {
      const ref = refOf(items[i]);
      if ('errorCode' in j) return { ...j, ref: ref ?? '' };
      return { record: records[next++] as AnyDocument, ...(ref !== undefined && { ref }) };
    });
  });
}

async function judgeAdd(call: Call, item: unknown): Promise<Accepted | ItemError> {
  const { spec, tx, userPk } = call;
  const c = spec.codes;
  if (!isItem(item)) return itemError(c.malformed, '', `Malformed request: each ${spec.noun} must be a JSON object`);
  let list: List | null = null;
  if (spec.inList) {
    const found = await rowList(call, item['list']);
    if ('errorCode' in found) return found;
    list = found;
  }
  const listId = list?.id ?? '';
  const ref = await readRef(call, item, listId);
  if (typeof ref !== 'string') return ref;
  const values = await spec.read(item, null, call, list);
  if ('problem' in values) return itemError(values.problem.code, '', values.problem.desc);
  // Counted once per call and kept up to date, so a batch reads the count once.
  const count = call.counts.get(listId) ?? (await tx.documents.count(userPk, spec.kind, list?.id));
  const max = spec.maxRecords(call.limits);
  if (count >= max) return itemError(c.max, '', `Max ${spec.plural} reached: ${spec.inList ? 'a list' : 'an account'} holds at most ${max}`);
  call.counts.set(listId, count + 1);
  const id = spec.idForm === 'hex' ? newHexId(await editStamp(call)) : undefined;
  if (ref !== '' && id !== undefined) call.refs.set(refKey(listId, ref), id);
  return { values: values.value, ref, list: listId, id };
}

/** Stores the accepted adds of a call: one block of ids, one multi-row insert, then what follows from them. */
async function storeAdds(call: Call, accepted: readonly Accepted[]): Promise<AnyDocument[]> {
  const { spec, tx, userPk } = call;
  const stamp = await editStamp(call);
  const first = spec.idForm === 'integer' ? await tx.accounts.allocateIds(userPk, 'note', accepted.length) : 0;
  const records = accepted.map((a, i) => spec.create(a.values, { id: a.id ?? first + i, ref: a.ref, stamp, list: a.list }));
  await tx.documents.insertMany(userPk, spec.kind, records);
  await spec.afterWrite?.(call, records.map((next) => ({ next, stored: null })), stamp);
  return records;
}

const refKey = (list: string, ref: string): string => `${list}\u0000${ref}`;

/** The `ref` a kept-ref kind's add must carry (x12 without; x09 when a record already has it). */
async function readRef(call: Call, item: Item, list: string): Promise<string | ItemError> {
  const { spec } = call;
  const c = spec.codes;
  if (!spec.keepsRef || !c.missingRef || !c.alreadyAdded) return '';
  const raw = item['ref'];
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return itemError(c.missingRef, '', `Missing ref: each new ${spec.noun} needs the client's ref`);
  if ((typeof raw !== 'string' && typeof raw !== 'number') || String(raw).trim().length > MAX_REF_CHARS) {
    return itemError(c.malformed, '', `Malformed request: ref must be text of at most ${MAX_REF_CHARS} characters`);
  }
  const ref = String(raw).trim();
  const existing = call.refs.get(refKey(list, ref)) ?? (await call.tx.documents.idByRef(call.userPk, spec.kind, ref, list));
  if (existing !== null) return itemError(c.alreadyAdded, '', `This ${spec.noun} was already added: it is ${existing}`);
  return ref;
}

/** The id of an edit or delete item: x04 when empty, x05 when it cannot be one or names no record. */
async function stored(call: Call, raw: unknown): Promise<AnyDocument | ItemError> {
  const { spec } = call;
  const id = classifyDocumentId(raw, spec.idForm);
  if (id === 'none') return itemError(spec.codes.emptyId, idRef(raw));
  const record = id === 'invalid' ? null : await call.tx.documents.get(call.userPk, spec.kind, id);
  return record ?? itemError(spec.codes.invalid, idRef(raw));
}

export async function editDocuments(deps: Deps, auth: AuthContext, spec: DocumentSpec, items: readonly unknown[]): Promise<DocumentResult[]> {
  return writeCall(deps, auth, spec, async (call) => {
    const results: DocumentResult[] = [];
    for (const item of items) results.push(await editOne(call, item));
    return results;
  });
}

/** Whether two records differ in anything but their version and stamp. */
function sameContent(a: AnyDocument, b: AnyDocument): boolean {
  const strip = (r: AnyDocument) => JSON.stringify({ ...r, version: 0, modified: 0 });
  return strip(a) === strip(b);
}

async function editOne(call: Call, item: unknown): Promise<DocumentResult> {
  const { spec, tx, userPk } = call;
  const c = spec.codes;
  if (!isItem(item)) return itemError(c.malformed, '', `Malformed request: each ${spec.noun} must be a JSON object`);
  const current = await stored(call, item['id']);
  if ('errorCode' in current) return current;
  const ref = idRef(current.id);
  if (spec.versioned && c.stale) {
    // The version the client's copy had: any other is stale, and the edit changes nothing.
    if (!Object.hasOwn(item, 'version')) return itemError(c.malformed, ref, `Malformed request: version is required (the ${spec.noun}'s version the edit was made on)`);
    const version = readWhole(item['version'], 'version', 0, Number.MAX_SAFE_INTEGER, c.malformed);
    if ('problem' in version) return itemError(c.malformed, ref, version.problem.desc);
    const at = (current as { version: number }).version;
    if (version.value !== at) return itemError(c.stale, ref, `The ${spec.noun} was changed since this version: it is at version ${at}, the edit was made on version ${version.value}`);
  }
  const list = spec.inList ? await tx.documents.get(userPk, 'list', (current as { list: string }).list) : null;
  const values = await spec.read(item, current, call, list);
  if ('problem' in values) return itemError(values.problem.code, ref, values.problem.desc);
  if (Object.keys(values.value).length === 0) return itemError(c.nothingEdited, ref, `Nothing was edited: the ${spec.noun} carried no field that can be changed`);
  // The stored values again (clients send whole copies) are no change and no error, as for tasks:
  // the record comes back as it is, its version and stamp unmoved.
  if (sameContent(spec.merge(current, values.value, current.modified), current)) return { record: current };
  const stamp = await editStamp(call);
  const next = spec.merge(current, values.value, stamp);
  await tx.documents.update(userPk, spec.kind, next);
  await spec.afterWrite?.(call, [{ next, stored: current }], stamp);
  return { record: next };
}

export async function deleteDocuments(deps: Deps, auth: AuthContext, spec: DocumentSpec, items: readonly unknown[]): Promise<DeletedResult[]> {
  return writeCall(deps, auth, spec, async (call) => {
    const results: DeletedResult[] = [];
    for (const item of items) results.push(await deleteOne(call, item));
    return results;
  });
}

const ATTACHABLE: ReadonlySet<string> = new Set<AttachmentKind>(['note', 'outline', 'list']);

async function deleteOne(call: Call, item: unknown): Promise<DeletedResult> {
  const { spec, tx, userPk } = call;
  // Rows are named by {list, row} pairs; the other kinds by ids (numbers, strings or {id} objects).
  const raw = isItem(item) ? (spec.inList ? (item['row'] ?? item['id']) : item['id']) : spec.inList ? undefined : item;
  if (spec.inList && !isItem(item)) return itemError(spec.codes.malformed, idRef(item), 'Malformed request: rows are deleted by {"list":…,"row":…} pairs');
  const current = await stored(call, raw);
  if ('errorCode' in current) return current;
  if (spec.inList) {
    const list = classifyDocumentId((item as Item)['list'], 'hex');
    if (list === 'none') return itemError(spec.codes.required, idRef(raw), 'Your row must name its list: list is required');
    // A row is named within its list: the pair must match.
    if ((current as { list: string }).list !== list) return itemError(spec.codes.invalid, idRef(raw));
  }
  const stamp = await deleteStamp(call);
  await tx.documents.remove(userPk, spec.kind, current.id, stamp);
  if (spec.inList) {
    // The list's rows changed: the list counts as changed for sync (docs/sync.md), not its version.
    const list = (current as { list: string }).list;
    await tx.documents.touchList(userPk, list, stamp);
    return { id: current.id, list };
  }
  if (ATTACHABLE.has(spec.kind)) await unlinkDeleted(call, spec.kind as AttachmentKind, current.id);
  return { id: current.id };
}

/**
 * A deleted record leaves the `attachment` of the tasks that linked to it: an edit of those tasks,
 * so their `modified` and the account's `lastedit_task` move (only when a task had a link).
 */
async function unlinkDeleted(call: Call, kind: AttachmentKind, id: DocumentId): Promise<void> {
  const { tx, userPk } = call;
  if (!(await tx.attachments.isLinked(userPk, kind, id))) return;
  const moved = await tx.accounts.touch(userPk, ['lastedit_task'], call.now);
  await tx.attachments.removeTarget(userPk, kind, id, moved.lastedit_task as number);
}
