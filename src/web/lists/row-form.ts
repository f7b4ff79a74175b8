import { MAX_CHOICES } from '../../features/documents/list-columns.js';
import type { Params } from '../../http/params.js';
import { storedLines } from '../forms.js';
import type { Account, CellValue, ListColumn } from '../../storage/store.js';

/**
 * A list row as a form, and a posted form as the `cells` of a rows/add or rows/edit item. Pure:
 * what a cell may hold is the API's rule (list-columns.ts, readCell), which judges whatever this
 * sends; this module only turns a form's fields into values the API reads, and back.
 */

type Who = Pick<Account, 'prefs'>;

/** What one field of the row form holds: text, a tick, or the picks of a pick-several column. */
export type FieldValue = string | boolean | readonly string[];

export const isFlag = (c: ListColumn): boolean => c.type === 1 || c.type === 17;
export const isPickSeveral = (c: ListColumn): boolean => c.type === 9;

/** The field of a column (its cell's key). */
export const fieldName = (c: ListColumn): string => `c${c.id}`;
/**
 * One choice's box of a pick-several column, whose value is the choice itself (not its place: an
 * app may reorder the choices while the form is open). Numbered, so that no name is sent twice.
 */
export const choiceName = (c: ListColumn, i: number): string => `c${c.id}.${i}`;
/** The hidden field holding what the form showed for a column, so that a stale save can tell what was changed. */
export const shownName = (c: ListColumn): string => `was.c${c.id}`;

/** Every field name a list's row form can send, for the check that none came twice. */
export function fieldNames(cols: readonly ListColumn[]): string[] {
  return cols.flatMap((c) => [shownName(c), ...(isPickSeveral(c) ? Array.from({ length: MAX_CHOICES }, (_, i) => choiceName(c, i)) : [fieldName(c)])]);
}

/** The account's offset from UTC in seconds (account/get's `timezone`: half hours from UTC-5). */
const offsetOf = (who: Who): number => (who.prefs.timezone - 10) * 1800;
const two = (n: number): string => String(n).padStart(2, '0');

function isoDay(d: Date): string {
  return `${String(d.getUTCFullYear()).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`;
}

/** The decimals a number column keeps (currency 2, 12.1–12.4 one to four), or undefined. */
function decimalsOf(c: ListColumn): number | undefined {
  if (c.type === 2) return 2;
  if (c.type > 12 && c.type < 13) return Math.round((c.type - 12) * 10);
  return undefined;
}

/**
 * What the form shows for a stored cell: a date as YYYY-MM-DD (the day it is stored at noon UTC
 * of), a date and time as the account's local YYYY-MM-DDTHH:MM (what a datetime-local field
 * holds), a number with its column's decimals, flags as a tick, a pick-several cell's picks.
 */
export function fieldValue(who: Who, c: ListColumn, v: CellValue | undefined): FieldValue {
  if (isFlag(c)) return v === 1;
  if (isPickSeveral(c)) return Array.isArray(v) ? v : [];
  if (v === undefined) return '';
  if (Array.isArray(v)) return v.join(', ');
  // Line breaks as a browser sends them back (postedValue): a text an app stored with CRLF, left
  // as shown, is no change.
  if (typeof v !== 'number') return storedLines(String(v));
  if (c.type === 3) return isoDay(new Date(v * 1000));
  if (c.type === 4) {
    const d = new Date((v + offsetOf(who)) * 1000);
    return `${isoDay(d)}T${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
  }
  const decimals = decimalsOf(c);
  return decimals === undefined ? String(v) : v.toFixed(decimals);
}

/**
 * The field of column `c` as the form sent it (an unticked box, or a field left out, sends
 * nothing). Line breaks as stored (\n): browsers send a text area's as CRLF.
 */
export function postedValue(p: Params, c: ListColumn): FieldValue {
  if (isFlag(c)) return p.get(fieldName(c)) === '1';
  if (isPickSeveral(c)) {
    const sent = new Set(Array.from({ length: MAX_CHOICES }, (_, i) => p.get(choiceName(c, i))));
    // In the column's order; a choice the column no longer has is not sent.
    return (c.choices ?? []).filter((x) => sent.has(x));
  }
  return storedLines(p.get(fieldName(c)) ?? '');
}

/** A field's value as the hidden field that keeps what the form showed (choices hold no comma). */
export function shownText(v: FieldValue): string {
  return typeof v === 'boolean' ? (v ? '1' : '0') : typeof v === 'string' ? v : v.join(',');
}

function sameField(a: FieldValue, b: FieldValue): boolean {
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}

const LOCAL_TIME = /^\s*(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?\s*$/;

/**
 * A date and time typed in the account's timezone, as the Unix time the API stores; anything else
 * as typed, for the API to judge (it takes YYYY-MM-DD and Unix times, and refuses the rest).
 */
export function localTime(who: Who, typed: string): string | number {
  const m = LOCAL_TIME.exec(typed);
  if (!m) return typed;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  // 2026-02-30T25:00 is no moment: sent as typed, the API refuses it with its own words.
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || back.getUTCHours() !== h || back.getUTCMinutes() !== mi) return typed;
  return ms / 1000 - offsetOf(who);
}

/**
 * The `cells` of a rows/add or rows/edit item from a posted row form. Every column is sent: a
 * field left as the form showed it sends the stored value itself (so saving an unchanged form is
 * no change: no second lost to a time shown in minutes, no 0 for an empty box), an emptied one
 * '' (which empties the cell), anything else what was typed, for the API to judge.
 */
export function postedCells(who: Who, cols: readonly ListColumn[], p: Params, stored: Readonly<Record<string, CellValue>> = {}): Record<string, unknown> {
  const cells: Record<string, unknown> = {};
  for (const c of cols) {
    const key = fieldName(c);
    const before = stored[key];
    const sent = postedValue(p, c);
    if (sameField(sent, fieldValue(who, c, before))) cells[key] = before ?? '';
    else if (typeof sent === 'boolean') cells[key] = sent ? 1 : 0;
    else if (typeof sent !== 'string') cells[key] = sent;
    else cells[key] = c.type === 4 ? localTime(who, sent) : sent;
  }
  return cells;
}

/**
 * Whether a row's cells already show what a posted form sent, field for field: a stale save of
 * it (a second click on Save, whose first click saved) has nothing left to do.
 */
export function holdsPosted(who: Who, cols: readonly ListColumn[], p: Params, cells: Readonly<Record<string, CellValue>>): boolean {
  return cols.every((c) => sameField(postedValue(p, c), fieldValue(who, c, cells[fieldName(c)])));
}

/** What the form shows for every column: a stored row's cells, or a new row's (all empty). */
export function formValues(who: Who, cols: readonly ListColumn[], cells: Readonly<Record<string, CellValue>> = {}): Record<string, FieldValue> {
  return Object.fromEntries(cols.map((c) => [fieldName(c), fieldValue(who, c, cells[fieldName(c)])]));
}

/** The posted form's values, to show again after a refusal: what was typed is kept. */
export function postedValues(cols: readonly ListColumn[], p: Params): Record<string, FieldValue> {
  return Object.fromEntries(cols.map((c) => [fieldName(c), postedValue(p, c)]));
}

/**
 * After a stale save: what was typed where the person changed a field (it differs from what the
 * form showed, kept in its hidden field), the row as it now is everywhere else, so that saving
 * again replaces only what the person changed.
 */
export function mergedValues(who: Who, cols: readonly ListColumn[], p: Params, now: Readonly<Record<string, CellValue>>): Record<string, FieldValue> {
  return Object.fromEntries(
    cols.map((c) => {
      const sent = postedValue(p, c);
      const was = p.get(shownName(c));
      // A column the form did not show (added since) was not changed by the person: the row's value stands.
      const changed = was !== undefined && shownText(sent) !== storedLines(was);
      return [fieldName(c), changed ? sent : fieldValue(who, c, now[fieldName(c)])];
    }),
  );
}

/** The column a refusal of the API is about ("Invalid cell: c3 (…) must be …"), as its field. */
export function fieldOfProblem(desc: string): string | undefined {
  return /^Invalid cell: (c\d+) /.exec(desc)?.[1];
}

/**
 * A refusal of a cell said with its column's title, as the form labels it ("Qty must be a whole
 * number", not the API's "Invalid cell: c2 (Qty) must be …"); any other as the API said it.
 */
export function problemText(cols: readonly ListColumn[], desc: string): string {
  const field = fieldOfProblem(desc);
  const c = cols.find((x) => fieldName(x) === field);
  const prefix = c ? `Invalid cell: ${fieldName(c)} (${c.title || 'untitled'}) ` : undefined;
  return c && prefix && desc.startsWith(prefix) ? `${c.title || 'Untitled'} ${desc.slice(prefix.length)}` : desc;
}
