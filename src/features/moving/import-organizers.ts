import { ApiError } from '../../errors.js';
import { lenientInt } from '../../http/params.js';
import { nameKey } from '../../lib/text.js';
import type { ImportMapEntry, OrganizerKind, OrganizerTypes, Repos } from '../../storage/store.js';
import { deleteOrganizer } from '../organizers/organizers.service.js';
import { Failures, readFields, readName, sameRow, type RawInput, type Row } from '../organizers/organizer-fields.js';
import { KINDS, type KindSpec } from '../organizers/organizer-kinds.js';
import { importBatch } from './import-batch.js';
import { sourceIdOf, text, type ImportScope, type SourceRecord } from './import-report.js';

/**
 * Folders, contexts, goals and locations from a source, through the organisers' own rules: names
 * and fields are read by the endpoints' readers (a value the local rules refuse is reported, not
 * stored), goals keep their hierarchy (contributes resolved through the id map, the goal rules
 * applied), and each batch moves the kind's stamp. A source record whose name the account already
 * has (compared as names are) is mapped to that record instead of being added twice.
 */

const specOf = (kind: OrganizerKind): KindSpec => KINDS.find((k) => k.kind === kind) as KindSpec;
const asRecord = (row: Row): OrganizerTypes[OrganizerKind] => row as unknown as OrganizerTypes[OrganizerKind];

/** The source record as the endpoints' raw text, with goal references mapped to local ids. */
function rawOf(r: SourceRecord, localGoal: (sourceId: string) => string | undefined): RawInput {
  const raw: Record<string, string | undefined> = {};
  for (const key of Object.keys(r)) raw[key] = text(r, key);
  if (raw['contributes'] !== undefined) raw['contributes'] = raw['contributes'] === '0' ? '0' : (localGoal(raw['contributes']) ?? '0');
  return raw;
}

/**
 * Every record of the kind as the source holds it now (organisers have no `after` filter): adds
 * the new ones, updates the changed ones, and deletes here the mapped ones the source no longer
 * has. Goals go by level (lifetime first), so that the goal a goal contributes to exists first.
 */
export async function importOrganizers(scope: ImportScope, kind: OrganizerKind, records: readonly SourceRecord[]): Promise<void> {
  const spec = specOf(kind);
  const ordered = kind === 'goal' ? [...records].sort((a, b) => Number(a['level'] ?? 0) - Number(b['level'] ?? 0)) : records;
  const { userPk } = scope.auth;
  await importBatch(scope, async (tx, now) => {
    const mapped = new Map((await tx.imports.allMapped(userPk, scope.source, kind)).map((e) => [e.sourceId, e]));
    const goals = kind === 'goal' ? mapped : new Map((await tx.imports.allMapped(userPk, scope.source, 'goal')).map((e) => [e.sourceId, e]));
    const existing = new Map((await tx.organizers.list(userPk, kind)).map((r) => [nameKey(r.name), r as unknown as Row]));
    let count = existing.size;
    let changed = false;
    const entries: ImportMapEntry[] = [];
    for (const r of ordered) {
      const sourceId = sourceIdOf(r);
      const raw = rawOf(r, (id) => goals.get(id)?.localId);
      const fail = new Failures(spec.codes, spec.noun, sourceId);
      try {
        const name = readName(raw['name'], true, spec.maxNameChars, fail) as string;
        const values = readFields(spec.fields, raw, fail, 'edited');
        const entry = mapped.get(sourceId);
        let current: Row | null = entry ? ((await tx.organizers.get(userPk, kind, Number(entry.localId))) as unknown as Row | null) : null;
        if (entry && !current) {
          scope.report.count(kind, 'skipped');
          continue;
        }
        // Not mapped, but the account has the name: that record is this one (no second "Work").
        if (!current) current = existing.get(nameKey(name)) ?? null;
        if (!current) {
          if (count >= spec.maxRecords) throw fail.error('max', `Max ${spec.plural} reached (${spec.maxRecords})`);
          const id = await tx.accounts.allocateIds(userPk, kind, 1);
          let row: Row = { id, name, ...initials(spec), ...values };
          row = (await spec.prepare?.(tx, userPk, row, null)) ?? row;
          if (kind === 'folder') row = { ...row, ord: sourceOrd(raw) ?? row['ord'] ?? 1 };
          await tx.organizers.insert(userPk, kind, asRecord(row));
          await spec.afterWrite?.(tx, userPk, row, null);
          existing.set(nameKey(name), row);
          count++;
          changed = true;
          scope.report.count(kind, 'created');
          const made = { sourceId, localId: String(id), stamp: 0, pending: null };
          entries.push(made);
          // Later goals of this batch may contribute to this one.
          if (kind === 'goal') mapped.set(sourceId, made);
          continue;
        }
        // A rename onto another record's name keeps the local name (the endpoints would refuse it).
        const taken = existing.get(nameKey(name));
        const keepName = taken !== undefined && taken['id'] !== current['id'];
        let next: Row = { ...current, ...(keepName ? {} : { name }), ...values };
        next = (await spec.prepare?.(tx, userPk, next, current)) ?? next;
        if (kind === 'folder') next = { ...next, ord: sourceOrd(raw) ?? current['ord'] ?? 1 };
        entries.push({ sourceId, localId: String(current['id']), stamp: 0, pending: null });
        if (sameRow(current, next) && sameRow(next, current)) {
          scope.report.count(kind, entry ? 'unchanged' : 'updated');
          continue;
        }
        await tx.organizers.update(userPk, kind, asRecord(next));
        await spec.afterWrite?.(tx, userPk, next, current);
        existing.delete(nameKey(String(current['name'])));
        existing.set(nameKey(String(next['name'])), next);
        changed = true;
        scope.report.count(kind, 'updated');
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        scope.report.refuse(kind, sourceId, err.code, err.desc);
      }
    }
    await tx.imports.setMapped(userPk, scope.source, kind, entries);
    if (changed) await tx.accounts.touch(userPk, [spec.stamp], now);
  });
  if (!scope.partial) await deleteMissing(scope, spec, new Set(records.map(sourceIdOf)));
}

function initials(spec: KindSpec): Row {
  return Object.fromEntries(spec.fields.map((f) => [f.name, f.initial]));
}

/** A folder's place in the source's list (JSON `ord`, XML `order`), kept so the folders sort as they did. */
function sourceOrd(raw: RawInput): number | undefined {
  const n = lenientInt(raw['ord'] ?? raw['order']);
  return n !== undefined && n > 0 ? n : undefined;
}

/**
 * Records this import copied that the source no longer has were deleted there: they are deleted
 * here too, by the organisers' own delete (tasks that pointed at them are cleared, as an edit).
 */
async function deleteMissing(scope: ImportScope, spec: KindSpec, present: ReadonlySet<string>): Promise<void> {
  const { userPk } = scope.auth;
  const gone = (await scope.deps.store.read.imports.allMapped(userPk, scope.source, spec.kind)).filter((e) => !present.has(e.sourceId));
  if (scope.dryRun) {
    scope.report.count(spec.kind, 'deleted', gone.length);
    return;
  }
  for (const e of gone) {
    try {
      await deleteOrganizer(scope.deps, scope.auth, { spec, raw: { id: e.localId } });
      scope.report.count(spec.kind, 'deleted');
    } catch (err) {
      // Already deleted here: nothing more to do than to forget it.
      if (!(err instanceof ApiError)) throw err;
    }
    await scope.deps.store.transaction((tx: Repos) => tx.imports.unmap(userPk, scope.source, spec.kind, [e.sourceId]));
  }
}
