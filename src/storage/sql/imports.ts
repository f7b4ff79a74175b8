import type { ImportKind, ImportMapEntry, ImportsRepo } from '../store.js';
import type { SqlDb } from './db.js';

interface MapRow {
  source_id: string;
  local_id: string;
  stamp: number | string;
  pending: string | null;
}

const entryOf = (r: MapRow): ImportMapEntry => ({ sourceId: r.source_id, localId: r.local_id, stamp: Number(r.stamp), pending: r.pending });

/** Ids per statement: well under both databases' limits on parameters. */
const CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

export class SqlImports implements ImportsRepo {
  constructor(private readonly db: SqlDb) {}

  async mapped(userPk: number, source: string, kind: ImportKind, sourceIds: readonly string[]): Promise<Map<string, ImportMapEntry>> {
    const out = new Map<string, ImportMapEntry>();
    for (const ids of chunks(sourceIds)) {
      const rows = await this.db.all<MapRow>(
        `SELECT source_id, local_id, stamp, pending FROM import_map
         WHERE user_pk = ? AND source = ? AND kind = ? AND source_id IN (${ids.map(() => '?').join(', ')})`,
        userPk,
        source,
        kind,
        ...ids,
      );
      for (const r of rows) out.set(r.source_id, entryOf(r));
    }
    return out;
  }

  async allMapped(userPk: number, source: string, kind: ImportKind): Promise<ImportMapEntry[]> {
    const rows = await this.db.all<MapRow>('SELECT source_id, local_id, stamp, pending FROM import_map WHERE user_pk = ? AND source = ? AND kind = ?', userPk, source, kind);
    return rows.map(entryOf);
  }

  async pending(userPk: number, source: string, kind: ImportKind): Promise<ImportMapEntry[]> {
    const rows = await this.db.all<MapRow>(
      'SELECT source_id, local_id, stamp, pending FROM import_map WHERE user_pk = ? AND source = ? AND kind = ? AND pending IS NOT NULL',
      userPk,
      source,
      kind,
    );
    return rows.map(entryOf);
  }

  async setMapped(userPk: number, source: string, kind: ImportKind, entries: readonly ImportMapEntry[]): Promise<void> {
    for (const part of chunks(entries)) {
      await this.db.run(
        `INSERT INTO import_map (user_pk, source, kind, source_id, local_id, stamp, pending)
         VALUES ${part.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}
         ON CONFLICT (user_pk, source, kind, source_id) DO UPDATE SET local_id = excluded.local_id, stamp = excluded.stamp, pending = excluded.pending`,
        ...part.flatMap((e) => [userPk, source, kind, e.sourceId, e.localId, e.stamp, e.pending]),
      );
    }
  }

  async unmap(userPk: number, source: string, kind: ImportKind, sourceIds: readonly string[]): Promise<void> {
    for (const ids of chunks(sourceIds)) {
      await this.db.run(
        `DELETE FROM import_map WHERE user_pk = ? AND source = ? AND kind = ? AND source_id IN (${ids.map(() => '?').join(', ')})`,
        userPk,
        source,
        kind,
        ...ids,
      );
    }
  }

  async run(userPk: number, source: string): Promise<string | null> {
    const r = await this.db.get<{ state: string }>('SELECT state FROM import_runs WHERE user_pk = ? AND source = ?', userPk, source);
    return r?.state ?? null;
  }

  async setRun(userPk: number, source: string, state: string, nowSeconds: number): Promise<void> {
    await this.db.run(
      `INSERT INTO import_runs (user_pk, source, state, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_pk, source) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
      userPk,
      source,
      state,
      nowSeconds,
    );
  }
}
