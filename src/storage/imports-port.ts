/**
 * What bin/tickler import keeps in the database (docs/moving.md): the id map from a source's
 * records to the local ones, and each import's progress. Both are keyed by the local account and
 * the source (a server's base address, or a file's fingerprint), so an interrupted import resumes
 * on any instance, and a second run updates what the first copied instead of copying it again.
 */

/** The kinds of records an import copies. */
export type ImportKind = 'folder' | 'context' | 'goal' | 'location' | 'note' | 'outline' | 'list' | 'row' | 'task';

export interface ImportMapEntry {
  /** The record's id at the source, as text. */
  readonly sourceId: string;
  /** The local record it became, as text (a number for tasks, notes and organisers). */
  readonly localId: string;
  /** The source's stamp of the record when it was copied (its `modified`; 0 for kinds without one). */
  readonly stamp: number;
  /** References not resolved yet (JSON, the importer's own), or null. */
  readonly pending: string | null;
}

export interface ImportsRepo {
  /** The entries of these source ids (absent ones are not in the map). */
  mapped(userPk: number, source: string, kind: ImportKind, sourceIds: readonly string[]): Promise<Map<string, ImportMapEntry>>;
  /** Every entry of the kind, ordered by source id (as text). */
  allMapped(userPk: number, source: string, kind: ImportKind): Promise<ImportMapEntry[]>;
  /** Entries whose references wait to be resolved. */
  pending(userPk: number, source: string, kind: ImportKind): Promise<ImportMapEntry[]>;
  /** Adds or replaces entries. */
  setMapped(userPk: number, source: string, kind: ImportKind, entries: readonly ImportMapEntry[]): Promise<void>;
  /** Removes entries (their records were deleted). */
  unmap(userPk: number, source: string, kind: ImportKind, sourceIds: readonly string[]): Promise<void>;
  /** The import's saved progress (the importer's JSON), or null before its first run. */
  run(userPk: number, source: string): Promise<string | null>;
  setRun(userPk: number, source: string, state: string, nowSeconds: number): Promise<void>;
}
