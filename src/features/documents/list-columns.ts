import { lenientFloat } from '../../http/params.js';
import type { CellValue, ListColumn } from '../../storage/store.js';
import { noonOf } from '../tasks/task-rules.js';
import { isItem, problem, readFlag, readText, readWhole, type Read } from './document-fields.js';

/**
 * A list's columns and what each column type lets a cell hold (docs/notes-and-lists.md, "Column
 * types"). Pure: the service loads the list and the rows; this module only judges values.
 */

type Check = (v: unknown, column: ListColumn) => Read<CellValue>;

const bad = (column: ListColumn, rule: string): { problem: { code: 1013; desc: string } } =>
  problem(1013, `Invalid cell: c${column.id} (${column.title || 'untitled'}) ${rule}`) as { problem: { code: 1013; desc: string } };

const MAX_TIMESTAMP = 253_402_300_799;
const ISO_DATE = /^\s*(\d{4})-(\d{2})-(\d{2})\s*$/;

function number(decimals?: number): Check {
  return (v, c) => {
    const n = typeof v === 'boolean' ? undefined : lenientFloat(v);
    if (n === undefined) return bad(c, 'must be a number');
    if (decimals === undefined) return { value: n };
    const f = 10 ** decimals;
    // A number shown with `decimals` places is stored so: 2.345 in a currency column is 2.35.
    return { value: Math.round(n * f) / f + 0 };
  };
}

function whole(min: number, max: number, what: string): Check {
  return (v, c) => {
    const r = readWhole(v, '', min, max, 1013);
    return 'problem' in r ? bad(c, `must be ${what}`) : r;
  };
}

function text(maxChars: number, pattern?: RegExp, what?: string): Check {
  return (v, c) => {
    if (typeof v !== 'string' && typeof v !== 'number') return bad(c, 'must be text');
    const r = readText(v, '', { chars: maxChars }, 1013, true);
    if ('problem' in r) return bad(c, `is longer than ${maxChars} characters`);
    if (pattern && !pattern.test(r.value)) return bad(c, `must be ${what}`);
    return r;
  };
}

/** A Unix timestamp, or YYYY-MM-DD; `day` keeps the day only (noon GMT, like task dates). */
function timestamp(day: boolean): Check {
  return (v, c) => {
    const m = typeof v === 'string' ? ISO_DATE.exec(v) : null;
    let t: number | undefined;
    if (m) {
      const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 12);
      const back = new Date(ms);
      if (back.getUTCFullYear() === Number(m[1]) && back.getUTCMonth() === Number(m[2]) - 1 && back.getUTCDate() === Number(m[3])) t = ms / 1000;
    } else if (typeof v !== 'boolean') {
      const n = lenientFloat(v);
      t = n === undefined ? undefined : Math.trunc(n);
    }
    if (t === undefined || t < 0 || t > MAX_TIMESTAMP) return bad(c, `must be a ${day ? 'date' : 'date and time'} (a Unix timestamp or YYYY-MM-DD)`);
    return { value: day ? noonOf(t) : t };
  };
}

const pickOne: Check = (v, c) => {
  if (typeof v !== 'string' && typeof v !== 'number') return bad(c, 'must be one of its choices');
  const choice = String(v).trim();
  return c.choices?.includes(choice) ? { value: choice } : bad(c, `must be one of its choices (${(c.choices ?? []).map((x) => JSON.stringify(x)).join(', ')})`);
};

const pickSeveral: Check = (v, c) => {
  const items = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',').filter((x) => x.trim() !== '') : undefined;
  if (!items) return bad(c, 'must be an array of its choices');
  const picked: string[] = [];
  for (const item of items) {
    const one = pickOne(item, c);
    if ('problem' in one) return one;
    if (!picked.includes(one.value as string)) picked.push(one.value as string);
  }
  // Kept in the column's order of choices, so that the same picks are the same value.
  return { value: (c.choices ?? []).filter((x) => picked.includes(x)) };
};

/** Every column type of the hosted service's documentation, by its code. */
export const COLUMN_TYPES: ReadonlyMap<number, { readonly name: string; readonly check: Check }> = new Map([
  [1, { name: 'checkbox', check: (v: unknown, c: ListColumn) => ('problem' in readFlag(v, '', 1013) ? bad(c, 'must be 0 or 1') : readFlag(v, '', 1013)) }],
  [2, { name: 'currency', check: number(2) }],
  [3, { name: 'date', check: timestamp(true) }],
  [4, { name: 'date and time', check: timestamp(false) }],
  [5, { name: 'e-mail', check: text(254, /^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'an e-mail address') }],
  [6, { name: 'icon', check: whole(0, 999, 'an icon number from 0 to 999') }],
  [8, { name: 'duration', check: whole(0, 2_147_483_647, 'a number of minutes') }],
  [9, { name: 'pick several', check: pickSeveral }],
  [10, { name: 'pick one', check: pickOne }],
  [12.1, { name: 'number, 1 decimal', check: number(1) }],
  [12.2, { name: 'number, 2 decimals', check: number(2) }],
  [12.3, { name: 'number, 3 decimals', check: number(3) }],
  [12.4, { name: 'number, 4 decimals', check: number(4) }],
  [13, { name: 'integer', check: whole(-9_007_199_254_740_991, 9_007_199_254_740_991, 'a whole number') }],
  [14, { name: 'percent', check: number() }],
  [15, { name: 'phone', check: text(40, /^(?=.*\d)[\d\s+().\-/x]+$/i, 'a phone number (digits, spaces and + - ( ) . / x)') }],
  [16, { name: 'rating', check: whole(0, 5, 'a rating from 0 to 5') }],
  [17, { name: 'star', check: (v: unknown, c: ListColumn) => ('problem' in readFlag(v, '', 1013) ? bad(c, 'must be 0 or 1') : readFlag(v, '', 1013)) }],
  [18, { name: 'long text', check: text(10_000) }],
  [19, { name: 'short text', check: text(255) }],
  [21, { name: 'URL', check: text(2048, /^[a-z][a-z0-9+.-]*:\S+$/i, 'an absolute URL') }],
  [22, { name: 'year', check: whole(1, 9999, 'a year from 1 to 9999') }],
]);

const isPick = (type: number): boolean => type === 9 || type === 10;

/** A cell's value checked against its column; undefined for null or "" (the cell is emptied). */
export function readCell(v: unknown, column: ListColumn): Read<CellValue | undefined> {
  if (v === null || v === undefined || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0)) return { value: undefined };
  const type = COLUMN_TYPES.get(column.type);
  if (!type) return bad(column, 'has an unknown type');
  return type.check(v, column);
}

export const MAX_COLUMN_TITLE_CHARS = 100;
export const MAX_CHOICES = 100;
const MAX_CHOICE_CHARS = 100;

/**
 * The `cols` of a list add or edit: the whole new set of columns, in order. A column with an `id`
 * of the list keeps it (and its cells); one without an id is new and takes the list's next id;
 * a column of the list left out is removed. Problems: 913 (not columns), 907 (an id the list does
 * not have), 908 (more than `maxColumns`).
 */
export function readColumns(v: unknown, existing: readonly ListColumn[], nextCol: number, maxColumns: number): Read<{ cols: ListColumn[]; nextCol: number }> {
  if (!Array.isArray(v)) return problem(913, 'Invalid columns: cols must be an array of columns');
  if (v.length > maxColumns) return problem(908, `Max columns reached: a list has at most ${maxColumns} columns`);
  const cols: ListColumn[] = [];
  let next = nextCol;
  for (const raw of v) {
    if (!isItem(raw)) return problem(913, 'Invalid columns: each column must be a JSON object');
    let id: number;
    const sentId = raw['id'];
    if (sentId === undefined || sentId === null || sentId === '' || sentId === 0) id = next++;
    else {
      const n = readWhole(sentId, 'id', 1, 2_147_483_647, 907);
      if ('problem' in n || !existing.some((c) => c.id === n.value)) return problem(907, `Invalid column id: the list has no column ${JSON.stringify(sentId)}`);
      if (cols.some((c) => c.id === n.value)) return problem(907, `Invalid column id: column ${n.value} is listed twice`);
      id = n.value;
    }
    const type = lenientFloat(raw['type']);
    if (type === undefined || !COLUMN_TYPES.has(type)) return problem(913, `Invalid columns: type ${JSON.stringify(raw['type'] ?? null)} is not a column type (${[...COLUMN_TYPES.keys()].join(', ')})`);
    const title = readText(raw['title'], 'a column title', { chars: MAX_COLUMN_TITLE_CHARS }, 913, true);
    if ('problem' in title) return title;
    const width = raw['width'] === undefined ? { value: 100 } : readWhole(raw['width'], 'a column width', 0, 10_000, 913);
    if ('problem' in width) return width;
    const sort = raw['sort'] === undefined ? { value: 0 } : readWhole(raw['sort'], 'a column sort', -1000, 1000, 913);
    if ('problem' in sort) return sort;
    // Keys in the order the list is stored and answered (orderedColumn), so that a column read
    // here and the same column read back compare equal as JSON (an import passes over a list
    // that did not change).
    const column: ListColumn = { title: title.value, type, id, sort: sort.value, width: width.value };
    if (!isPick(type)) {
      cols.push(column);
      continue;
    }
    const choices = readChoices(raw['choices']);
    if ('problem' in choices) return choices;
    cols.push({ ...column, choices: choices.value });
  }
  return { value: { cols, nextCol: next } };
}

function readChoices(v: unknown): Read<string[]> {
  if (!Array.isArray(v) || v.length === 0) return problem(913, 'Invalid columns: a pick-one or pick-several column needs choices (an array of texts)');
  if (v.length > MAX_CHOICES) return problem(913, `Invalid columns: at most ${MAX_CHOICES} choices`);
  const out: string[] = [];
  for (const c of v) {
    if (typeof c !== 'string' && typeof c !== 'number') return problem(913, 'Invalid columns: each choice must be text');
    const r = readText(c, 'a choice', { chars: MAX_CHOICE_CHARS }, 913, true);
    if ('problem' in r) return r;
    if (r.value === '' || out.includes(r.value) || r.value.includes(',')) return problem(913, `Invalid columns: choices must be distinct, not blank, and without commas (${JSON.stringify(r.value)})`);
    out.push(r.value);
  }
  return { value: out };
}

/**
 * A row's cells after its list's columns changed: cells of removed columns go, and a cell whose
 * value the column's new type or choices no longer allow is emptied.
 */
export function refitCells(cells: Readonly<Record<string, CellValue>>, cols: readonly ListColumn[]): Record<string, CellValue> {
  const out: Record<string, CellValue> = {};
  for (const column of cols) {
    const key = `c${column.id}`;
    if (!Object.hasOwn(cells, key)) continue;
    const r = readCell(cells[key], column);
    if ('value' in r && r.value !== undefined) out[key] = r.value;
  }
  return out;
}
