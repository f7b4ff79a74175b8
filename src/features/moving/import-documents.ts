import { sha256Hex } from '../../lib/crypto.js';
import type { DocumentKind, ImportMapEntry, List, ListColumn, ListRow, Outline } from '../../storage/store.js';
import { DOCUMENT_KINDS, type AnyDocument, type DocumentSpec, type Values } from '../documents/document-kinds.js';
import { readColumns } from '../documents/list-columns.js';
import { deleteDocuments, newHexId } from '../documents/documents.write.js';
import { importBatch } from './import-batch.js';
import { sourceIdOf, whole, type ImportScope, type SourceRecord } from './import-report.js';

/**
 * Notes, outlines, lists and rows from a source, through the kinds' own readers (document-kinds.ts):
 * a value the local rules refuse is reported, not stored. What the API does not let a client set
 * is kept from the source, because it is the person's history rather than sync state: `added`, an
 * outline's, list's or row's `version` (never lower than the local one plus one on an update), a
 * list's column ids (so that rows keep their cells). `modified` is the import's own stamp, so that
 * the account's other clients fetch what arrived.
 */

const specOf = (kind: DocumentKind): DocumentSpec => DOCUMENT_KINDS.find((k) => k.kind === kind) as DocumentSpec;

/** The ref a copied outline, list or row keeps: unique per source, never one a client would send. */
function refOf(source: string, sourceId: string): string {
  return `import:${sha256Hex(source).slice(0, 12)}:${sourceId}`;
}

/** What the kind's reader takes from the source record (ids of other records mapped). */
function itemOf(kind: DocumentKind, r: SourceRecord, folder: (id: string) => string | undefined, current: AnyDocument | null): Record<string, unknown> {
  switch (kind) {
    case 'note': {
      const f = String(r['folder'] ?? '0');
      return { title: r['title'], text: r['text'], private: r['private'], folder: f === '0' ? 0 : (folder(f) ?? 0) };
    }
    case 'outline':
      return { title: r['title'], keywords: r['keywords'], note: r['note'], hidden: r['hidden'], nodes: r['nodes'] ?? [] };
    case 'list':
      return { title: r['title'], keywords: r['keywords'], note: r['note'] };
    case 'row': {
      // The source's cells are the whole row: a cell it no longer has is emptied here too (an
      // edit item only changes the cells it names).
      const emptied = Object.fromEntries(Object.keys((current as ListRow | null)?.cells ?? {}).map((k) => [k, null]));
      return { cells: { ...emptied, ...(r['cells'] as object | undefined) } };
    }
  }
}

/**
 * A list's columns with the source's ids kept: the columns' own reader (types, titles, choices,
 * limits) with the source's columns standing for the list's existing ones, so that each id is
 * taken as sent. New ids continue after the highest the list ever had.
 */
function columnsOf(r: SourceRecord, current: List | null, maxColumns: number): { cols: ListColumn[]; nextCol: number } | { code: number; desc: string } {
  const sent = Array.isArray(r['cols']) ? (r['cols'] as unknown[]) : [];
  const ids = sent.map((c) => Number((c as { id?: unknown }).id)).filter((n) => Number.isInteger(n) && n > 0);
  const known = ids.map((id) => ({ id }) as ListColumn);
  const next = Math.max(current?.nextCol ?? 1, ...ids.map((id) => id + 1));
  const read = readColumns(sent, known, next, maxColumns);
  return 'problem' in read ? read.problem : read.value;
}

/** The source's `added` when it has one, else the import's second. */
const addedOf = (r: SourceRecord, stamp: number): number => (whole(r, 'added') > 0 ? whole(r, 'added') : stamp);

/**
 * Writes one page of records of the kind (rows: of one list, `list` being the source's list id).
 * A record already copied at the source's `modified` is passed over without being read again.
 */
export async function importDocuments(scope: ImportScope, kind: DocumentKind, records: readonly SourceRecord[], list?: string): Promise<void> {
  const spec = specOf(kind);
  const { userPk } = scope.auth;
  const limits = scope.deps.config.recordLimits;
  await importBatch(scope, async (tx, now) => {
    const entries = await tx.imports.mapped(userPk, scope.source, kind, records.map(sourceIdOf));
    const folders = kind === 'note' ? new Map((await tx.imports.allMapped(userPk, scope.source, 'folder')).map((e) => [e.sourceId, e.localId])) : new Map<string, string>();
    let localList: List | null = null;
    if (kind === 'row') {
      const listEntry = (await tx.imports.mapped(userPk, scope.source, 'list', [list ?? ''])).get(list ?? '');
      localList = listEntry ? await tx.documents.get(userPk, 'list', listEntry.localId) : null;
      if (!localList) {
        scope.report.count('row', 'skipped', records.length);
        return;
      }
    }
    const writeScope = { tx, userPk, limits };
    let stamp: number | undefined;
    const takeStamp = async (): Promise<number> => (stamp ??= (await tx.accounts.touch(userPk, [spec.editStamp], now))[spec.editStamp] as number);
    let count: number | undefined;
    const written: ImportMapEntry[] = [];
    for (const r of records) {
      const sourceId = sourceIdOf(r);
      const entry = entries.get(sourceId);
      const sourceStamp = whole(r, 'modified');
      if (entry && sourceStamp !== 0 && entry.stamp === sourceStamp) {
        scope.report.count(kind, 'unchanged');
        continue;
      }
      const current = entry ? await tx.documents.get(userPk, kind, kind === 'note' ? Number(entry.localId) : entry.localId) : null;
      if (entry && !current) {
        scope.report.count(kind, 'skipped');
        continue;
      }
      const values = await spec.read(itemOf(kind, r, (id) => folders.get(id), current), current, writeScope, localList);
      if ('problem' in values) {
        scope.report.refuse(kind, sourceId, values.problem.code, values.problem.desc);
        continue;
      }
      let extra: Values = {};
      if (kind === 'list') {
        const cols = columnsOf(r, current as List | null, limits.listColumns);
        if ('code' in cols) {
          scope.report.refuse(kind, sourceId, cols.code, cols.desc);
          continue;
        }
        extra = cols;
      }
      const all = { ...values.value, ...extra };
      const version = whole(r, 'version');
      if (!current) {
        count ??= await tx.documents.count(userPk, kind, localList?.id);
        const max = spec.maxRecords(limits);
        if (count >= max) {
          scope.report.refuse(kind, sourceId, spec.codes.max, `Max ${spec.plural} reached: ${kind === 'row' ? 'a list' : 'an account'} holds at most ${max}`);
          continue;
        }
        const s = await takeStamp();
        const id = kind === 'note' ? await tx.accounts.allocateIds(userPk, 'note', 1) : newHexId(s);
        let record = spec.create(all, { id, ref: refOf(scope.source, sourceId), stamp: s, list: localList?.id ?? '' }) as AnyDocument & { version?: number };
        record = { ...record, added: addedOf(r, s), ...(kind !== 'note' && version > 0 && { version }) };
        await tx.documents.insert(userPk, kind, record);
        await spec.afterWrite?.(writeScope, [{ next: record, stored: null }], s);
        count++;
        scope.report.count(kind, 'created');
        written.push({ sourceId, localId: String(record.id), stamp: sourceStamp, pending: null });
        continue;
      }
      written.push({ sourceId, localId: String(current.id), stamp: sourceStamp, pending: null });
      const same = { ...spec.merge(current, all, current.modified), added: addedOf(r, current.added) } as AnyDocument & { version?: number };
      if (JSON.stringify({ ...same, version: 0 }) === JSON.stringify({ ...current, version: 0 })) {
        scope.report.count(kind, 'unchanged');
        continue;
      }
      const s = await takeStamp();
      let next = { ...spec.merge(current, all, s), added: addedOf(r, current.added) } as AnyDocument & { version?: number };
      if (next.version !== undefined) next = { ...next, version: Math.max(next.version, version) };
      if (kind === 'outline') next = keepTreeStamp(next as Outline, current as Outline, s);
      await tx.documents.update(userPk, kind, next);
      await spec.afterWrite?.(writeScope, [{ next, stored: current }], s);
      scope.report.count(kind, 'updated');
    }
    await tx.imports.setMapped(userPk, scope.source, kind, written);
  });
}

/** An outline whose tree did not change keeps its tree's stamp (the merge moves it only for a new tree). */
function keepTreeStamp(next: Outline, current: Outline, stamp: number): Outline {
  return JSON.stringify(next.nodes.children) === JSON.stringify(current.nodes.children) ? { ...next, nodes: current.nodes } : { ...next, nodes: { ...next.nodes, updated_at: stamp } };
}

/**
 * Records the source deleted (its `deleted.php`, rows with their list): deleted here by the kinds'
 * own delete, which moves the stamps and removes links from tasks, then forgotten by the map.
 */
export async function deleteDocumentsGone(scope: ImportScope, kind: DocumentKind, gone: ReadonlyArray<{ id: string; list?: string }>): Promise<void> {
  const spec = specOf(kind);
  const { userPk } = scope.auth;
  const store = scope.deps.store;
  const entries = await store.read.imports.mapped(userPk, scope.source, kind, gone.map((g) => g.id));
  const lists = kind === 'row' ? await store.read.imports.mapped(userPk, scope.source, 'list', gone.map((g) => g.list ?? '')) : new Map<string, ImportMapEntry>();
  const items = gone.flatMap((g) => {
    const e = entries.get(g.id);
    if (!e) return [];
    const localList = lists.get(g.list ?? '')?.localId;
    return [{ sourceId: g.id, item: kind === 'row' ? { list: localList, row: e.localId } : kind === 'note' ? Number(e.localId) : e.localId }];
  });
  if (scope.dryRun) {
    scope.report.count(kind, 'deleted', items.length);
    return;
  }
  for (let i = 0; i < items.length; i += 50) {
    const part = items.slice(i, i + 50);
    const results = await deleteDocuments(scope.deps, scope.auth, spec, part.map((p) => p.item));
    scope.report.count(kind, 'deleted', results.filter((r) => !('errorCode' in r)).length);
    await store.transaction((tx) => tx.imports.unmap(userPk, scope.source, kind, part.map((p) => p.sourceId)));
  }
}
