import type { Deps } from '../../deps.js';
import { lockAccount } from '../account/account.service.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import { UniqueViolation, type OrganizerKind, type OrganizerTypes, type Repos } from '../../storage/store.js';
import { Failures, readFields, readId, readName, sameRow, type RawInput, type Row } from './organizer-fields.js';
import type { KindSpec } from './organizer-kinds.js';

/**
 * The rules of get, add, edit and delete, once for all four kinds (organizer-kinds.ts says what
 * differs). Every write locks the account first, then checks, writes and moves the kind's stamp
 * in one transaction, so a failed call changes nothing, stamps included.
 */

/** The port is typed per kind; rows here are generic. The kind's description guarantees the fields. */
const asRecord = (row: Row): OrganizerTypes[OrganizerKind] => row as unknown as OrganizerTypes[OrganizerKind];
const asRow = (record: OrganizerTypes[OrganizerKind]): Row => record as unknown as Row;

/** What the routes hand over: which kind, and the raw text of the parameters that kind reads. */
export interface OrganizerInput {
  readonly spec: KindSpec;
  readonly raw: RawInput;
}

export async function listOrganizers(deps: Deps, auth: AuthContext, { spec }: Pick<OrganizerInput, 'spec'>): Promise<Row[]> {
  return (await deps.store.read.organizers.list(auth.userPk, spec.kind)).map(asRow);
}

/** Adds one record and returns it as stored. */
export async function addOrganizer(deps: Deps, auth: AuthContext, { spec, raw }: OrganizerInput): Promise<Row> {
  const fail = new Failures(spec.codes, spec.noun);
  const name = readName(raw['name'], true, spec.maxNameChars, fail) as string;
  const values = readFields(spec.fields, raw, fail, 'added');
  const userPk = auth.userPk;
  return deps.store.transaction(async (tx) => {
    const { now } = await lockAccount(deps, tx, userPk);
    if ((await tx.organizers.count(userPk, spec.kind)) >= spec.maxRecords) {
      throw fail.error('max', `Max ${spec.plural} reached (${spec.maxRecords})`);
    }
    const id = await tx.accounts.allocateIds(userPk, spec.kind, 1);
    let row: Row = { id, name, ...values };
    if (spec.prepare) row = await spec.prepare(tx, userPk, row, null);
    await write(() => tx.organizers.insert(userPk, spec.kind, asRecord(row)), fail);
    await spec.afterWrite?.(tx, userPk, row, null);
    await tx.accounts.touch(userPk, [spec.stamp], now);
    return stored(tx, userPk, spec, id);
  });
}

/** Edits one record (only the fields sent) and returns it as stored. */
export async function editOrganizer(deps: Deps, auth: AuthContext, { spec, raw }: OrganizerInput): Promise<Row> {
  const blank = new Failures(spec.codes, spec.noun);
  const id = readId(raw['id'], blank);
  const fail = blank.withRef(id);
  const userPk = auth.userPk;
  return deps.store.transaction(async (tx) => {
    const { now } = await lockAccount(deps, tx, userPk);
    // The id is checked before the other parameters: an unknown id is the answer that matters most to a sync client.
    const before = await tx.organizers.get(userPk, spec.kind, id);
    if (!before) throw fail.error('invalid');
    const current = asRow(before);
    const name = readName(raw['name'], spec.nameRequiredOnEdit, spec.maxNameChars, fail);
    let next: Row = { ...current, ...(name !== undefined && { name }), ...readFields(spec.fields, raw, fail, 'edited') };
    if (spec.prepare) next = await spec.prepare(tx, userPk, next, current);
    // Spec 4.6: an edit that changes nothing (nothing sent, or the stored values again) is an error.
    if (sameRow(current, next)) throw fail.error('nothingEdited');
    await write(() => tx.organizers.update(userPk, spec.kind, asRecord(next)), fail);
    await spec.afterWrite?.(tx, userPk, next, current);
    await tx.accounts.touch(userPk, [spec.stamp], now);
    return stored(tx, userPk, spec, id);
  });
}

/**
 * Deletes one record. Tasks that pointed at it get 0 there, as a task edit: their `modified` and
 * the account's `lastedit_task` move together, so syncing clients fetch those tasks again.
 */
export async function deleteOrganizer(deps: Deps, auth: AuthContext, { spec, raw }: OrganizerInput): Promise<number> {
  const blank = new Failures(spec.codes, spec.noun);
  const id = readId(raw['id'], blank);
  const fail = blank.withRef(id);
  const userPk = auth.userPk;
  return deps.store.transaction(async (tx) => {
    const { now } = await lockAccount(deps, tx, userPk);
    if (!(await tx.organizers.remove(userPk, spec.kind, id))) throw fail.error('invalid');
    await spec.afterDelete?.(tx, userPk, id, now);
    // lastedit_task moves only when a task really changes (else clients refetch tasks for nothing),
    // and those tasks take the value it moved to: touch() returns every stamp it was asked to move.
    const referenced = await tx.tasks.hasReference(userPk, spec.kind, id);
    const moved = await tx.accounts.touch(userPk, referenced ? [spec.stamp, 'lastedit_task'] : [spec.stamp], now);
    if (referenced) await tx.tasks.clearReference(userPk, spec.kind, id, moved.lastedit_task as number);
    return id;
  });
}

async function stored(tx: Repos, userPk: number, spec: KindSpec, id: number): Promise<Row> {
  const record = await tx.organizers.get(userPk, spec.kind, id);
  if (!record) throw new Error(`${spec.noun} ${id} missing right after it was written`);
  return asRow(record);
}

/**
 * The name check itself: the unique key on (account, name key) refuses a taken name, and the error
 * rolls the whole transaction back (on PostgreSQL the failed statement has aborted it anyway), so
 * the call changes nothing, its allocated id included. The limit (add) and "nothing edited" (edit)
 * are checked before the write, so they still come first.
 */
async function write(fn: () => Promise<void>, fail: Failures): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof UniqueViolation && err.what === 'name') throw fail.error('nameTaken');
    throw err;
  }
}
