import type { Deps } from '../../deps.js';
import type { AuthContext } from '../../oauth/access-tokens.js';
import type { ImportKind } from '../../storage/store.js';

/** A record as the source gave it: the v3 API's public record (JSON), or the same shape read from a file. */
export type SourceRecord = Readonly<Record<string, unknown>>;

/** What happened to each record of a kind in one run. */
export interface Tally {
  /** New local records. */
  created: number;
  /** Mapped records the source changed since they were copied, written again. */
  updated: number;
  /** Records already copied as the source holds them now (nothing written). */
  unchanged: number;
  /** Local records deleted because the source deleted them. */
  deleted: number;
  /** Records whose local copy was deleted here: left deleted. */
  skipped: number;
  /** Records the local rules refused (see Report.refusals). */
  refused: number;
}

export interface Refusal {
  readonly kind: ImportKind;
  readonly sourceId: string;
  readonly code: number;
  readonly desc: string;
}

export const IMPORT_KINDS: readonly ImportKind[] = ['folder', 'context', 'goal', 'location', 'note', 'outline', 'list', 'row', 'task'];

/** The summary of one import run, filled in as it goes. */
export class Report {
  readonly tallies: Record<ImportKind, Tally> = Object.fromEntries(
    IMPORT_KINDS.map((k) => [k, { created: 0, updated: 0, unchanged: 0, deleted: 0, skipped: 0, refused: 0 }]),
  ) as Record<ImportKind, Tally>;
  readonly refusals: Refusal[] = [];
  /** Things copied differently from the source (a subtask without its parent…), each said once. */
  readonly warnings: string[] = [];

  count(kind: ImportKind, what: keyof Tally, n = 1): void {
    this.tallies[kind][what] += n;
  }

  refuse(kind: ImportKind, sourceId: string, code: number, desc: string): void {
    this.count(kind, 'refused');
    // The first few hundred are kept: enough to act on, bounded whatever the source holds.
    if (this.refusals.length < 500) this.refusals.push({ kind, sourceId, code, desc });
  }

  warn(text: string): void {
    if (!this.warnings.includes(text)) this.warnings.push(text);
  }

  /** How many records of the kind were looked at. */
  seen(kind: ImportKind): number {
    const t = this.tallies[kind];
    return t.created + t.updated + t.unchanged + t.skipped + t.refused;
  }
}

/** What the import writers share: where to write, the source's key in the id map, the report. */
export interface ImportScope {
  readonly deps: Deps;
  /** The local account, as the services take it (no app: imports write no app's meta). */
  readonly auth: AuthContext;
  readonly source: string;
  readonly report: Report;
  /** Count and judge, write nothing (--dry-run). */
  readonly dryRun: boolean;
  /** The source holds part of the account (ImportSource.partial): nothing missing from it is deleted here. */
  readonly partial?: boolean;
}

/** The services' caller for an import into the account `userPk`. */
export function importAuth(userPk: number): AuthContext {
  return { userPk, clientPk: 0, grantId: 0, scopes: new Set(), expiresAt: Number.MAX_SAFE_INTEGER };
}

/** A source record's field as text (organiser endpoints read text), or undefined. */
export function text(r: SourceRecord, key: string): string | undefined {
  const v = r[key];
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
}

/** A source record's field as a whole number (0 when absent or not a number). */
export function whole(r: SourceRecord, key: string): number {
  const n = Number(r[key]);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}

/** The record's id at the source, as text. */
export function sourceIdOf(r: SourceRecord): string {
  return String(r['id'] ?? '');
}
