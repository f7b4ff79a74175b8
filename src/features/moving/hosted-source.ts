import { sha256Hex } from '../../lib/crypto.js';
import { nameKey } from '../../lib/text.js';
import type { OrganizerKind } from '../../storage/store.js';
import { readHostedCsv, readHostedXml, type HostedFile, type Row } from './hosted-files.js';
import * as words from './hosted-words.js';
import type { SourceRecord } from './import-report.js';
import type { Gone, ImportSource, PagedKind, SourcePage } from './import-source.js';

/**
 * The hosted service's export files as an import source (docs/moving.md): each row becomes the
 * v3 record a client would have sent, and the import writes it through the same rules, id map,
 * dry run and summary as `import v3` and `import json`.
 *
 * - **Keys**: one per format and account (`hosted-csv`, `hosted-xml`), so that importing a file
 *   again, or a later export of the same account, finds what the first import made.
 * - **Identity**: the XML backup's `<id>` (and the `ID` column of Tickler's own CSV export); a CSV
 *   of the hosted service has no ids, so a task is its title with its folder, context, goal and
 *   location names (`Call Ann | Home`), the second of two alike `… #2`. A task whose title or
 *   organisers changed between two exports therefore arrives as a new task.
 * - **Changes**: a file has no change stamps; a digest of the row stands for `modified`, so that an
 *   unchanged row is passed over without a write and a changed one is written again.
 * - **Organisers** are named, not numbered: a name is its own id, and the account's record of that
 *   name is used (the organisers' import matches names already).
 * - **Partial**: a file holds part of an account (current and completed tasks come in two files):
 *   what a file lacks was not deleted at the source, so nothing is deleted here.
 * - **What it cannot read** (a repeat wording, a date that is not YYYY-MM-DD…) leaves that field
 *   out of the task and is counted in the summary's warnings.
 */

const ORGANIZERS: readonly OrganizerKind[] = ['folder', 'context', 'goal', 'location'];

/** Warnings of one kind kept distinct; past this many, the rest are counted together. */
const MAX_DISTINCT_WARNINGS = 50;

export class HostedFileSource implements ImportSource {
  readonly key: string;
  readonly partial = true;
  private readonly names = new Map<OrganizerKind, Map<string, string>>(ORGANIZERS.map((k) => [k, new Map()]));
  private readonly tasks: SourceRecord[] = [];
  private readonly notes: SourceRecord[] = [];
  private readonly problems = new Map<string, number>();

  constructor(file: HostedFile) {
    this.key = `hosted-${file.format}`;
    const seen = new Map<string, number>();
    for (const row of file.rows) {
      const identity = (base: string): string => {
        const n = (seen.get(base) ?? 0) + 1;
        seen.set(base, n);
        return n === 1 ? base : `${base} #${n}`;
      };
      if (file.contents === 'notes') this.notes.push(this.noteOf(row, identity));
      else this.tasks.push(this.taskOf(row, identity));
    }
  }

  /** Reads a file's text; throws NotAnExport when it is not one of the hosted service's files. */
  static parse(format: 'csv' | 'xml', text: string): HostedFileSource {
    return new HostedFileSource(format === 'csv' ? readHostedCsv(text) : readHostedXml(text));
  }

  /** How many tasks and notes the file holds. */
  get counts(): { tasks: number; notes: number } {
    return { tasks: this.tasks.length, notes: this.notes.length };
  }

  warnings(): readonly string[] {
    const out = [...this.problems].slice(0, MAX_DISTINCT_WARNINGS).map(([p, n]) => `${p}: left out of ${n} record${n === 1 ? '' : 's'}`);
    const more = [...this.problems.values()].slice(MAX_DISTINCT_WARNINGS).reduce((a, b) => a + b, 0);
    if (more > 0) out.push(`${more} more values of other kinds could not be read and were left out`);
    return out;
  }

  async stamps(): Promise<null> {
    return null;
  }

  async organizers(kind: OrganizerKind): Promise<readonly SourceRecord[]> {
    return [...(this.names.get(kind) ?? new Map<string, string>())].map(([id, name]) => ({ id, name }));
  }

  async page(kind: PagedKind, query: { after: number; start: number }): Promise<SourcePage> {
    const all = kind === 'task' ? this.tasks : kind === 'note' ? this.notes : [];
    return { records: all.slice(query.start, query.start + 1000), total: all.length };
  }

  async deleted(): Promise<readonly Gone[]> {
    return [];
  }

  /** The id of the organiser named `name` (its name, compared as names are), or '0' for none. */
  private organizer(kind: OrganizerKind, name: string | undefined): string {
    const n = (name ?? '').trim();
    if (n === '' || n === '0' || /^no (folder|context|goal|location)$/i.test(n)) return '0';
    const key = nameKey(n);
    const known = this.names.get(kind) as Map<string, string>;
    if (!known.has(key)) known.set(key, n);
    return key;
  }

  /** The value of a field, or undefined (and one problem counted) when it cannot be read. */
  private value<T>(read: words.Read<T>): T | undefined {
    if ('value' in read) return read.value;
    this.problems.set(read.problem, (this.problems.get(read.problem) ?? 0) + 1);
    return undefined;
  }

  private taskOf(row: Row, identity: (base: string) => string): SourceRecord {
    const title = (row['title'] ?? '').trim();
    const refs = Object.fromEntries(ORGANIZERS.map((k) => [k, this.organizer(k, row[k])]));
    const id = row['id']?.trim() || identity([title, ...ORGANIZERS.map((k) => (refs[k] === '0' ? '' : (row[k] ?? '').trim()))].join(' | ').replace(/( \| )+$/, ''));
    const duedate = this.value(words.calendarDate(row['duedate']));
    const startdate = this.value(words.calendarDate(row['startdate']));
    const record: Record<string, unknown> = {
      id,
      title,
      ...refs,
      tag: row['tag'] ?? '',
      note: row['note'] ?? '',
      duedate: duedate ?? 0,
      startdate: startdate ?? 0,
      duetime: this.floating(duedate, row['duetime']),
      starttime: this.floating(startdate, row['starttime']),
      repeat: this.value(words.repeatRule(row['repeat'], (row['repeatfrom'] ?? '').trim() === '1')) ?? '',
      duedatemod: this.value(words.dueDateModifier(row['duedatemodifier'])) ?? 0,
      priority: this.value(words.priority(row['priority'])) ?? 0,
      star: this.value(words.star(row['star'])) ?? 0,
      status: this.value(words.status(row['status'])) ?? 0,
      length: this.value(words.wholeNumber(row['length'], 'length')) ?? 0,
      timer: this.value(words.wholeNumber(row['timer'], 'timer')) ?? 0,
      completed: this.value(words.calendarDate(row['completed'])) ?? 0,
      parent: row['parent']?.trim() || '0',
      order: Number(row['order'] ?? 0) || 0,
      added: words.dateStamp(row['added']),
    };
    return { ...record, modified: digest(record) };
  }

  private noteOf(row: Row, identity: (base: string) => string): SourceRecord {
    const title = (row['title'] ?? '').trim();
    const folder = this.organizer('folder', row['folder']);
    const record = { id: identity(folder === '0' ? title : `${title} | ${(row['folder'] ?? '').trim()}`), title, text: row['note'] ?? '', folder, private: 0, added: words.dateStamp(row['added']) };
    return { ...record, modified: digest(record) };
  }

  /** A floating time on the day of `date` (1 Jan 1970 without one), as the API sends it; 0 for none. */
  private floating(date: string | undefined, time: string | undefined): number {
    const seconds = this.value(words.clockTime(time));
    if (seconds === undefined) return 0;
    return (date === undefined ? 0 : words.dateStamp(date) - 12 * 3600) + seconds;
  }
}

/** A positive whole number that changes when the record does: the row's stand-in for `modified`. */
function digest(record: Readonly<Record<string, unknown>>): number {
  return Number.parseInt(sha256Hex(JSON.stringify(record)).slice(0, 7), 16) + 1;
}
