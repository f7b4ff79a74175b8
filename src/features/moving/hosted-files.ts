import { parse as parseCsv } from 'csv-parse/sync';
import { XMLParser } from 'fast-xml-parser';
import { NotAnExport } from './json-source.js';

/**
 * The hosted service's export files read into rows of text (docs/moving.md, "The hosted
 * service's own export files"): the CSV export of tasks (current or completed), its notebook CSV,
 * and its XML backup. Keys are the lower-case names of the columns or elements, the CSV's TASK
 * column called `title` as the XML calls it, so that one reader (hosted-source.ts) turns both
 * into records. Values are read, not judged: hosted-words.ts does that.
 */

export type Row = Readonly<Record<string, string>>;

export interface HostedFile {
  readonly format: 'csv' | 'xml';
  /** Tasks, or a notebook's notes. */
  readonly contents: 'tasks' | 'notes';
  readonly rows: readonly Row[];
}

/** The columns a file must have for its contents to be recognised. */
const TASK_COLUMNS = ['TASK'];
const NOTEBOOK_COLUMNS = ['TITLE', 'NOTE'];

/**
 * The CSV export: a header line, then one task (or note) per line, RFC 4180 quoting (notes hold
 * line breaks and commas; the sample export quotes every value). A byte-order mark is skipped.
 * Header names are compared without case and surrounding spaces; unknown columns are ignored.
 */
export function readHostedCsv(text: string): HostedFile {
  let records: string[][];
  try {
    records = parseCsv(text, { bom: true, skip_empty_lines: true, relax_column_count: true }) as string[][];
  } catch (err) {
    throw new NotAnExport(`not a CSV file: ${(err as Error).message}`);
  }
  const [header, ...lines] = records;
  const names = (header ?? []).map((h) => h.trim().toUpperCase());
  const has = (cols: readonly string[]): boolean => cols.every((c) => names.includes(c));
  const contents = has(TASK_COLUMNS) ? 'tasks' : has(NOTEBOOK_COLUMNS) ? 'notes' : undefined;
  if (contents === undefined) throw new NotAnExport('not an export of tasks or notes: its first line names no TASK column (nor TITLE and NOTE)');
  const keys = names.map((n) => (n === 'TASK' ? 'title' : n.toLowerCase()));
  const rows = lines
    .filter((cells) => cells.some((c) => c.trim() !== ''))
    .map((cells) => Object.fromEntries(keys.map((k, i) => [k, cells[i] ?? ''] as const).filter(([k]) => k !== '')));
  return { format: 'csv', contents, rows };
}

/** The elements of an item whose value is kept; anything else inside an item is ignored. */
const ITEM_FIELDS = [
  'id', 'parent', 'order', 'title', 'tag', 'folder', 'context', 'goal', 'location', 'startdate', 'starttime', 'duedate',
  'duedatemodifier', 'duetime', 'completed', 'repeat', 'repeatfrom', 'priority', 'length', 'timer', 'status', 'star', 'note', 'added',
] as const;

/**
 * The XML backup: a root `<xml>` with one `<item>` per task. XML's own entities are decoded; a
 * document with a DOCTYPE is refused before parsing (no entity of its own is ever expanded);
 * values are kept as text (`0001` stays `0001`, a title `123` stays text).
 */
export function readHostedXml(text: string): HostedFile {
  // A backup has no document type; one that declares entities could make them expand without end.
  if (/<!DOCTYPE/i.test(text)) throw new NotAnExport('not an XML backup of tasks: it has a document type declaration, which is not read');
  const parser = new XMLParser({
    ignoreAttributes: true,
    parseTagValue: false,
    trimValues: false,
    processEntities: true,
    htmlEntities: false,
    isArray: (_name, path) => path === 'xml.item',
  });
  let doc: unknown;
  try {
    doc = parser.parse(text, true);
  } catch (err) {
    throw new NotAnExport(`not an XML file: ${(err as Error).message.split('\n')[0] ?? 'unreadable'}`);
  }
  const root = (doc as { xml?: unknown } | null)?.xml;
  if (root === undefined || root === null || typeof root !== 'object') throw new NotAnExport('not an XML backup of tasks: its root element is not <xml>');
  const items = (root as { item?: unknown }).item;
  const rows = (Array.isArray(items) ? items : []).map((item: unknown) => {
    const row: Record<string, string> = {};
    const fields = item !== null && typeof item === 'object' ? (item as Record<string, unknown>) : {};
    for (const key of ITEM_FIELDS) {
      const v = fields[key];
      // An element given twice, or with elements inside, is not a value: left out.
      if (typeof v === 'string' || typeof v === 'number') row[key] = String(v);
    }
    return row;
  });
  return { format: 'xml', contents: 'tasks', rows };
}
