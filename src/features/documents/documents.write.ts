import type { Deps } from '../../deps.js';
import { itemError, type ItemError } from '../../errors.js';
import { randomHex } from '../../lib/crypto.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import { nextStamp } from '../../lib/clock.js';
import type { AttachmentKind, DocumentId, IdBlock, List, LockedAccount } from '../../storage/store.js';
import { lockAccount, useTakenIds, type TakenIds } from '../account/account.service.js';
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
  /** The account as the call's lock read it. */
  readonly locked: LockedAccount;
  /** The note ids the call took with its lock (writeCall's `ids`). */
  readonly ids?: TakenIds;
  /** The stamps of this call, taken at its first change: every change of the call carries them. */
  editStamp?: number;
  deleteStamp?: number;
  /** Records per account (rows: per list): the account's as its lock read them, a list's read at its first add; kept up to date. */
  readonly counts: Map<string, number>;
  /** The lists the call's rows named, read once each (a call changes no list's columns). */
  readonly lists: Map<string, List | null>;
  /**
   * Refs (rows: list + NUL + ref) → the id of the record added with it, by this call or before
   * (null: free), as far as known: read at once for the call's items (takenRefs), kept up to date
   * as the call adds, so that a ref given twice in a call is refused the second time.
   */
  readonly refs: Map<string, DocumentId | null>;
  /**
   * The records of the call's kind that edit and delete look at, by String(id), as the call last
   * read or changed them (null: not there, or deleted by the call): read at once (prefetch), so
   * that a call of 50 makes a handful of statements rather than a few per item (docs/decisions/0007).
   */
  readonly records: Map<string, AnyDocument | null>;
}

/** `ids`: an add of a kind with integer ids takes one for each item with the lock (AccountsRepo.lock). */
async function writeCall<T>(deps: Deps, auth: AuthContext, spec: DocumentSpec, each: (call: Call) => Promise<T>, ids?: IdBlock): Promise<T> {
  return deps.store.transaction(async (tx) => {
    const { now, account, taken } = await lockAccount(deps, tx, auth.userPk, ids);
    // An account's count of notes, outlines or lists comes with the lock; a list's rows are counted at its first add.
    const counts = new Map(spec.kind === 'row' ? [] : [['', account.documentCounts[spec.kind]]]);
    return each({ tx, userPk: auth.userPk, limits: deps.config.recordLimits, spec, now, counts, lists: new Map(), refs: new Map(), records: new Map(), locked: account, ...(taken && { ids: taken }) });
  });
}

async function editStamp(call: Call): Promise<number> {
  call.editStamp ??= (await call.tx.accounts.touch(call.userPk, [call.spec.editStamp], call.now))[call.spec.editStamp] as number;
  return call.editStamp;
}

/**
 * The stamp of `count` new records, whether their insert must move it, and the first of their
 * integer ids (0 for the other kinds). In a call whose lock took its ids (Call.ids: an add of
 * notes), the ids are that block, whose unused tail goes back, and the insert moves the stamp if
 * the call has not yet (documents.insertMany's `editStamp`: no statement of its own; the account
 * cache counts on such a lock, see storage/account-cache.ts); the stamp is the one touch() would
 * give, from the account as its lock read it (only a holder of the lock moves it). Otherwise,
 * touch() and, for integer ids, a block taken now.
 */
async function stampAndIdsForAdd(call: Call, count: number, integerIds: boolean): Promise<{ stamp: number; first: number; moveStamp: boolean }> {
  if (!call.ids) return { stamp: await editStamp(call), first: integerIds ? await call.tx.accounts.allocateIds(call.userPk, 'note', count) : 0, moveStamp: false };
  const moveStamp = call.editStamp === undefined;
  const stamp = (call.editStamp ??= nextStamp(call.locked.stamps[call.spec.editStamp], call.now));
  return { stamp, first: await useTakenIds(call.tx, call.userPk, call.ids, count), moveStamp };
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
 * then the accepted ones go in with one multi-row insert, which moves the stamp, so a call costs
 * a fixed number of statements instead of two per record (docs/decisions/0007). Integer ids are
 * taken with the lock, one per item; a refused item's goes back, so it takes none.
 */
export async function addDocuments(deps: Deps, auth: AuthContext, spec: DocumentSpec, items: readonly unknown[]): Promise<DocumentResult[]> {
  // Integer ids come with the lock, one for each item; those of refused items go back.
  const ids = spec.idForm === 'integer' && items.length > 0 ? { kind: 'note' as const, count: items.length } : undefined;
  const add = async (call: Call): Promise<DocumentResult[]> => {
    await takenRefs(call, items);
    const judged: Array<Accepted | ItemError> = [];
    for (const item of items) judged.push(await judgeAdd(call, item));
    const accepted = judged.filter((j): j is Accepted => !('errorCode' in j));
    if (accepted.length === 0 && call.ids) await useTakenIds(call.tx, call.userPk, call.ids, 0);
    const records = accepted.length === 0 ? [] : await storeAdds(call, accepted);
    let next = 0;
    return judged.map((j, i) => {
      const ref = refOf(items[i]);
      if ('errorCode' in j) return { ...j, ref: ref ?? '' };
      return { record: records[next++] as AnyDocument, ...(ref !== undefined && { ref }) };
    });
  };
  return writeCall(deps, auth, spec, add, ids);
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

/** Stores the accepted adds of a call: their ids (the lock's block, for notes), one multi-row insert that moves the stamp, then what follows from them. */
async function storeAdds(call: Call, accepted: readonly Accepted[]): Promise<AnyDocument[]> {
  const { spec, tx, userPk } = call;
  const { stamp, first, moveStamp } = await stampAndIdsForAdd(call, accepted.length, spec.idForm === 'integer');
  const records = accepted.map((a, i) => spec.create(a.values, { id: a.id ?? first + i, ref: a.ref, stamp, list: a.list }));
  await tx.documents.insertMany(userPk, spec.kind, records, moveStamp ? { name: spec.editStamp, value: stamp } : undefined);
  await spec.afterWrite?.(call, records.map((next) => ({ next, stored: null })), stamp);
  return records;
}

const refKey = (list: string, ref: string): string => `${list}\u0000${ref}`;

/**
 * For a kind that keeps refs: the records already added with the refs the items carry, read at
 * once (one statement per list the items name), into `refs`, which readRef() consults first; a
 * ref not found there is free.
 */
async function takenRefs(call: Call, items: readonly unknown[]): Promise<void> {
  const { spec, tx, userPk } = call;
  if (!spec.keepsRef) return;
  const byList = new Map<string, string[]>();
  for (const item of items) {
    if (!isItem(item)) continue;
    const raw = item['ref'];
    if ((typeof raw !== 'string' && typeof raw !== 'number') || String(raw).trim() === '') continue;
    const list = spec.inList ? classifyDocumentId(item['list'], 'hex') : '';
    if (list === 'none' || list === 'invalid') continue;
    const refs = byList.get(String(list)) ?? [];
    byList.set(String(list), [...refs, String(raw).trim()]);
  }
  for (const [list, refs] of byList) {
    const taken = await tx.documents.idsByRef(userPk, spec.kind, refs, spec.inList ? list : undefined);
    for (const ref of refs) call.refs.set(refKey(list, ref), taken.get(ref) ?? null);
  }
}

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
  const known = call.refs.get(refKey(list, ref));
  const existing = known !== undefined ? known : await call.tx.documents.idByRef(call.userPk, spec.kind, ref, list);
  if (existing !== null) return itemError(c.alreadyAdded, '', `This ${spec.noun} was already added: it is ${existing}`);
  return ref;
}

/** The id of an edit or delete item: x04 when empty, x05 when it cannot be one or names no record. */
async function stored(call: Call, raw: unknown): Promise<AnyDocument | ItemError> {
  const { spec } = call;
  const id = classifyDocumentId(raw, spec.idForm);
  if (id === 'none') return itemError(spec.codes.emptyId, idRef(raw));
  let record: AnyDocument | null | undefined = id === 'invalid' ? null : call.records.get(String(id));
  if (record === undefined) call.records.set(String(id), (record = await call.tx.documents.get(call.userPk, spec.kind, id as DocumentId)));
  return record ?? itemError(spec.codes.invalid, idRef(raw));
}

/**
 * Reads the records the items name, in one statement, and with `lists` (an edit of rows reads
 * their columns) the rows' lists, in another: stored() and listOf() then answer from memory.
 */
async function prefetch(call: Call, raws: readonly unknown[], { lists: withLists = false } = {}): Promise<void> {
  const { spec, tx, userPk } = call;
  const ids = raws.flatMap((raw) => {
    const id = classifyDocumentId(raw, spec.idForm);
    return id === 'none' || id === 'invalid' ? [] : [id];
  });
  if (ids.length === 0) return;
  const found = await tx.documents.getMany(userPk, spec.kind, ids);
  for (const id of ids) call.records.set(String(id), found.get(String(id)) ?? null);
  if (!spec.inList || !withLists) return;
  const lists = [...new Set([...found.values()].map((r) => (r as { list: string }).list))].filter((l) => !call.lists.has(l));
  const listed = await tx.documents.getMany(userPk, 'list', lists);
  for (const l of lists) call.lists.set(l, listed.get(l) ?? null);
}

/** The list a stored row belongs to, read once per call. */
async function listOf(call: Call, id: string): Promise<List | null> {
  let list = call.lists.get(id);
  if (list === undefined) call.lists.set(id, (list = await call.tx.documents.get(call.userPk, 'list', id)));
  return list;
}

export async function editDocuments(deps: Deps, auth: AuthContext, spec: DocumentSpec, items: readonly unknown[]): Promise<DocumentResult[]> {
  return writeCall(deps, auth, spec, async (call) => {
    await prefetch(call, items.map((item) => (isItem(item) ? item['id'] : undefined)), { lists: true });
    const results: DocumentResult[] = [];
    const changes: Changes = [];
    for (const item of items) results.push(await editOne(call, item, changes));
    if (changes.length === 0) return results;
    // Every edit at once, the last of each record (each item saw the ones before it in `records`),
    // then what follows from them (afterWrite), as one change of the call.
    const last = new Map(changes.map(({ next }) => [String(next.id), next]));
    await call.tx.documents.updateMany(call.userPk, spec.kind, [...last.values()]);
    await spec.afterWrite?.(call, changes, await editStamp(call));
    return results;
  });
}

/** The edits of a call, in order: each record as it was before the edit and after. */
type Changes = Array<{ readonly next: AnyDocument; readonly stored: AnyDocument }>;

/** Whether two records differ in anything but their version and stamp. */
function sameContent(a: AnyDocument, b: AnyDocument): boolean {
  const strip = (r: AnyDocument) => JSON.stringify({ ...r, version: 0, modified: 0 });
  return strip(a) === strip(b);
}

async function editOne(call: Call, item: unknown, changes: Changes): Promise<DocumentResult> {
  const { spec } = call;
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
  const list = spec.inList ? await listOf(call, (current as { list: string }).list) : null;
  const values = await spec.read(item, current, call, list);
  if ('problem' in values) return itemError(values.problem.code, ref, values.problem.desc);
  if (Object.keys(values.value).length === 0) return itemError(c.nothingEdited, ref, `Nothing was edited: the ${spec.noun} carried no field that can be changed`);
  // The stored values again (clients send whole copies) are no change and no error, as for tasks:
  // the record comes back as it is, its version and stamp unmoved.
  if (sameContent(spec.merge(current, values.value, current.modified), current)) return { record: current };
  const stamp = await editStamp(call);
  const next = spec.merge(current, values.value, stamp);
  call.records.set(String(next.id), next);
  changes.push({ next, stored: current });
  return { record: next };
}

export async function deleteDocuments(deps: Deps, auth: AuthContext, spec: DocumentSpec, items: readonly unknown[]): Promise<DeletedResult[]> {
  return writeCall(deps, auth, spec, async (call) => {
    await prefetch(call, items.map((item) => deletedId(spec, item)));
    const results: DeletedResult[] = [];
    for (const item of items) results.push(await deleteOne(call, item));
    const gone = results.flatMap((r) => ('errorCode' in r ? [] : [r]));
    if (gone.length === 0) return results;
    // Every record the call deletes, at once, with the call's one stamp.
    const stamp = await deleteStamp(call);
    await call.tx.documents.removeMany(call.userPk, spec.kind, gone.map((r) => r.id), stamp);
    // A list's rows changed: the list counts as changed for sync (docs/sync.md), not its version.
    for (const list of new Set(gone.flatMap((r) => (r.list === undefined ? [] : [r.list])))) await call.tx.documents.touchList(call.userPk, list, stamp);
    if (ATTACHABLE.has(spec.kind)) await unlinkDeleted(call, spec.kind as AttachmentKind, gone.map((r) => r.id));
    return results;
  });
}

const ATTACHABLE: ReadonlySet<string> = new Set<AttachmentKind>(['note', 'outline', 'list']);

/** The id a delete item names: rows by {list, row} pairs; the other kinds by ids (numbers, strings or {id} objects). */
function deletedId(spec: DocumentSpec, item: unknown): unknown {
  return isItem(item) ? (spec.inList ? (item['row'] ?? item['id']) : item['id']) : spec.inList ? undefined : item;
}

/** One delete item judged: the record it deletes (marked deleted for the items after it), or its error. */
async function deleteOne(call: Call, item: unknown): Promise<DeletedResult> {
  const { spec } = call;
  const raw = deletedId(spec, item);
  if (spec.inList && !isItem(item)) return itemError(spec.codes.malformed, idRef(item), 'Malformed request: rows are deleted by {"list":…,"row":…} pairs');
  const current = await stored(call, raw);
  if ('errorCode' in current) return current;
  if (spec.inList) {
    const list = classifyDocumentId((item as Item)['list'], 'hex');
    if (list === 'none') return itemError(spec.codes.required, idRef(raw), 'Your row must name its list: list is required');
    // A row is named within its list: the pair must match.
    if ((current as { list: string }).list !== list) return itemError(spec.codes.invalid, idRef(raw));
  }
  // Gone for the items after this one: naming it again is the kind's invalid code, as it was
  // when each item was deleted at once.
  call.records.set(String(current.id), null);
  return spec.inList ? { id: current.id, list: (current as { list: string }).list } : { id: current.id };
}

/**
 * A deleted record leaves the `attachment` of the tasks that linked to it: an edit of those tasks,
 * so their `modified` and the account's `lastedit_task` move (only when a task had a link).
 */
async function unlinkDeleted(call: Call, kind: AttachmentKind, ids: readonly DocumentId[]): Promise<void> {
  const { tx, userPk } = call;
  const linked = await tx.attachments.linkedOf(userPk, kind, ids);
  if (linked.size === 0) return;
  const moved = await tx.accounts.touch(userPk, ['lastedit_task'], call.now);
  for (const id of ids) if (linked.has(String(id))) await tx.attachments.removeTarget(userPk, kind, id, moved.lastedit_task as number);
}
