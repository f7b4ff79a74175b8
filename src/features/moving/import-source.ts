import type { DocumentKind, OrganizerKind, Stamps } from '../../storage/store.js';
import type { SourceRecord } from './import-report.js';

/** The kinds a source pages through (`after=`, `start`), as opposed to organisers, read whole. */
export type PagedKind = DocumentKind | 'task';

export interface SourcePage {
  readonly records: readonly SourceRecord[];
  /** How many match, when the source says (tasks and notes); otherwise undefined. */
  readonly total?: number | undefined;
}

/** A deleted record as the source lists it (rows with their list). */
export interface Gone {
  readonly id: string;
  readonly list?: string;
}

/**
 * Where an import reads from: another v3 server (v3-source.ts), a Tickler export document
 * (json-source.ts), or the hosted service's export files (hosted-source.ts). Records come in the
 * v3 API's public shapes.
 */
export interface ImportSource {
  /** The source's key in the id map: a server's base address, or a file's identity. */
  readonly key: string;
  /**
   * True when the source holds part of an account (an export file of some of its tasks): what it
   * lacks was not deleted at the source, so the import deletes nothing.
   */
  readonly partial?: boolean;
  /** What the source could not read, for the summary's warnings (each said once). */
  warnings?(): readonly string[];
  /** The source account's stamps now (account/get), or null when the source is read whole each time. */
  stamps(): Promise<Stamps | null>;
  /** Every record of the kind. */
  organizers(kind: OrganizerKind): Promise<readonly SourceRecord[]>;
  /** Records changed after `after` (0: all), from `start`; rows of the source's list `list`. */
  page(kind: PagedKind, query: { readonly after: number; readonly start: number; readonly list?: string }): Promise<SourcePage>;
  /** Records deleted after `after`. */
  deleted(kind: PagedKind, after: number): Promise<readonly Gone[]>;
}
