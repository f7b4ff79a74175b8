import { XMLParser } from 'fast-xml-parser';
import { STAMP_NAMES, type OrganizerKind, type Stamps } from '../../storage/store.js';
import type { SourceRecord } from './import-report.js';
import type { Gone, ImportSource, PagedKind, SourcePage } from './import-source.js';
import type { V3Client } from './v3-client.js';

/** Records per page: the v3 API's default and maximum `num`. */
export const PAGE = 1000;

/**
 * The optional fields of tasks/get an import asks for: all of spec 4.2's list that hold the
 * person's data (not `meta`, which belongs to each app, nor the sharing fields, which Tickler does
 * not serve). Only names the spec lists: the hosted service refuses others (613).
 */
export const TASK_FIELDS = 'folder,context,goal,location,tag,startdate,duedate,duedatemod,starttime,duetime,remind,repeat,status,star,priority,length,timer,added,note,parent,children,order,previous,via,attachment';

const PATH: Readonly<Record<PagedKind, string>> = { task: 'tasks', note: 'notes', outline: 'outlines', list: 'lists', row: 'rows' };

/** Another v3 server (the hosted service, another Tickler) read the way any client syncs. */
export class V3Source implements ImportSource {
  readonly key: string;

  constructor(
    private readonly client: V3Client,
    base: string,
  ) {
    // One key per server: the same account imported again is recognised, whatever the spelling of its address.
    this.key = new URL(base).href.replace(/\/+$/, '');
  }

  async stamps(): Promise<Stamps> {
    const account = (await this.client.json('/3/account/get.php')) as Record<string, unknown>;
    return Object.fromEntries(STAMP_NAMES.map((n) => [n, Number(account[n] ?? 0)])) as Stamps;
  }

  async organizers(kind: OrganizerKind): Promise<readonly SourceRecord[]> {
    if (kind !== 'goal') return asRecords(await this.client.json(`/3/${kind}s/get.php`));
    // goals/get in JSON leaves out `private` (spec 2.2); its XML carries it.
    const xml = await this.client.call('/3/goals/get.php', { f: 'xml' });
    const parsed = new XMLParser({ parseTagValue: false, isArray: (name) => name === 'goal' }).parse(xml) as { goals?: { goal?: SourceRecord[] } | string };
    return typeof parsed.goals === 'object' ? (parsed.goals.goal ?? []) : [];
  }

  async page(kind: PagedKind, query: { after: number; start: number; list?: string }): Promise<SourcePage> {
    const params: Record<string, string> = { start: String(query.start), num: String(PAGE) };
    if (query.after > 0) params['after'] = String(query.after);
    if (kind === 'task') params['fields'] = TASK_FIELDS;
    if (kind === 'row') params['list'] = query.list ?? '';
    const answer = await this.client.json(`/3/${PATH[kind]}/get.php`, params);
    const items = asRecords(answer);
    // tasks and notes start with {num, total}; outlines, lists and rows are bare arrays (or null).
    if (kind === 'task' || kind === 'note') return { records: items.slice(1), total: Number(items[0]?.['total'] ?? 0) };
    return { records: items };
  }

  async deleted(kind: PagedKind, after: number): Promise<readonly Gone[]> {
    const items = asRecords(await this.client.json(`/3/${PATH[kind]}/deleted.php`, { after: String(after) }));
    return items.slice(1).map((r) => ({ id: String(r['id']), ...(r['list'] !== undefined && { list: String(r['list']) }) }));
  }
}

function asRecords(answer: unknown): SourceRecord[] {
  return Array.isArray(answer) ? (answer as SourceRecord[]) : [];
}
