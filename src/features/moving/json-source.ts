import type { OrganizerKind } from '../../storage/store.js';
import { EXPORT_FORMAT, type AccountExport } from './export.service.js';
import type { SourceRecord } from './import-report.js';
import type { Gone, ImportSource, PagedKind, SourcePage } from './import-source.js';

/** An export document that is not one: the command line reports it as a usage error. */
export class NotAnExport extends Error {
  override name = 'NotAnExport';
}

const PLURAL: Readonly<Record<PagedKind | OrganizerKind, keyof AccountExport>> = {
  folder: 'folders',
  context: 'contexts',
  goal: 'goals',
  location: 'locations',
  note: 'notes',
  outline: 'outlines',
  list: 'lists',
  row: 'rows',
  task: 'tasks',
};

/**
 * A Tickler export document (export.service.ts) as an import source: read whole every time (it
 * has no stamps), keyed by the exported account's userid, so that importing the same account's
 * export again updates what the first import made instead of copying it twice.
 */
export class JsonSource implements ImportSource {
  readonly key: string;

  constructor(private readonly doc: AccountExport) {
    this.key = `json:${doc.account.userid}`;
  }

  static parse(text: string): JsonSource {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw new NotAnExport(`not JSON: ${(err as Error).message}`);
    }
    const d = doc as Partial<AccountExport> | null;
    if (!d || d.format !== EXPORT_FORMAT || typeof d.account?.userid !== 'string') throw new NotAnExport(`not a ${EXPORT_FORMAT} document`);
    if (d.version !== 1) throw new NotAnExport(`version ${String(d.version)} of the export format is not known here (1 is)`);
    return new JsonSource(d as AccountExport);
  }

  async stamps(): Promise<null> {
    return null;
  }

  private records(kind: PagedKind | OrganizerKind): readonly SourceRecord[] {
    const v = this.doc[PLURAL[kind]];
    return Array.isArray(v) ? (v as SourceRecord[]) : [];
  }

  async organizers(kind: OrganizerKind): Promise<readonly SourceRecord[]> {
    return this.records(kind);
  }

  async page(kind: PagedKind, query: { after: number; start: number; list?: string }): Promise<SourcePage> {
    const all = kind === 'row' ? this.records('row').filter((r) => String(r['list']) === query.list) : this.records(kind);
    return { records: all.slice(query.start, query.start + 1000), total: all.length };
  }

  async deleted(): Promise<readonly Gone[]> {
    return [];
  }
}
