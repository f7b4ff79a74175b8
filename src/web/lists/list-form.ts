import { COLUMN_TYPES, readColumns } from '../../features/documents/list-columns.js';
import type { Params } from '../../http/params.js';
import type { ListColumn } from '../../storage/store.js';

/**
 * A list's form: its title, keywords and note, and its columns as numbered slots (each a title,
 * a type and, for pick one and pick several, choices separated by commas, which no choice may
 * hold). Pure: the columns' rules are readColumns's (list-columns.ts), which judges what the
 * form makes of its slots.
 */

/** Blank slots a form offers below a list's columns (a new list gets one more). */
export const BLANK_SLOTS = 3;

/** One column of the form: an existing column (its id) or a blank slot. */
export interface Slot {
  readonly id?: number | undefined;
  readonly title: string;
  /** A type code as text ('19', '12.2'). */
  readonly type: string;
  readonly choices: string;
  readonly remove: boolean;
}

export interface ListValues {
  readonly title: string;
  readonly keywords: string;
  readonly note: string;
}

export const slotName = (i: number, part: 'id' | 'title' | 'type' | 'choices' | 'remove'): string => `col.${i}.${part}`;

const isPick = (type: string): boolean => type === '9' || type === '10';

/** The type codes in the hosted service's order, each with its name as a person reads it. */
export const TYPE_OPTIONS: ReadonlyArray<readonly [string, string]> = [...COLUMN_TYPES].map(([code, t]) => [String(code), t.name.charAt(0).toUpperCase() + t.name.slice(1)]);

/** The slots of a form: the list's columns in order, then `blanks` blank ones (short text). */
export function slotsOf(cols: readonly ListColumn[], blanks: number): Slot[] {
  return [
    ...cols.map((c) => ({ id: c.id, title: c.title, type: String(c.type), choices: (c.choices ?? []).join(', '), remove: false })),
    ...Array.from({ length: blanks }, () => ({ title: '', type: '19', choices: '', remove: false })),
  ];
}

/** Every field name a list form with `count` slots can send, for the check that none came twice. */
export function fieldNames(count: number): string[] {
  return ['title', 'keywords', 'note', 'slots', ...Array.from({ length: count }, (_, i) => (['id', 'title', 'type', 'choices', 'remove'] as const).map((part) => slotName(i, part))).flat()];
}

/** The slots a form sent (`count` of them, as its hidden `slots` field says). */
export function postedSlots(p: Params, count: number): Slot[] {
  return Array.from({ length: count }, (_, i) => {
    const id = Number(p.get(slotName(i, 'id')) ?? '');
    return {
      ...(Number.isSafeInteger(id) && id > 0 && { id }),
      title: p.get(slotName(i, 'title')) ?? '',
      type: p.get(slotName(i, 'type')) ?? '',
      choices: p.get(slotName(i, 'choices')) ?? '',
      remove: p.get(slotName(i, 'remove')) === '1',
    };
  });
}

/** A slot as the API's `cols` takes a column; undefined for a removed column or a blank slot (no title). */
function columnOf(slot: Slot, existing: readonly ListColumn[]): Record<string, unknown> | undefined {
  if (slot.id === undefined && slot.title.trim() === '') return undefined;
  if (slot.remove) return undefined;
  const kept = existing.find((c) => c.id === slot.id);
  return {
    ...(slot.id !== undefined && { id: slot.id }),
    title: slot.title,
    type: slot.type,
    // Width and sort are the apps' (how they draw the column): kept as they were.
    ...(kept && { width: kept.width, sort: kept.sort }),
    ...(isPick(slot.type) && { choices: slot.choices.split(',').map((x) => x.trim()).filter((x) => x !== '') }),
  };
}

/** The `cols` of a lists/add or lists/edit item from the form's slots, in their order. */
export function columnsOf(slots: readonly Slot[], existing: readonly ListColumn[]): Array<Record<string, unknown>> {
  return slots.flatMap((s) => {
    const c = columnOf(s, existing);
    return c ? [c] : [];
  });
}

/**
 * The field a refusal of the columns is about: the first slot whose column alone the API refuses
 * (its own reader, so no rule is written twice), and the part its words name. Undefined when no
 * one slot is at fault (too many columns).
 */
export function slotOfProblem(slots: readonly Slot[], existing: readonly ListColumn[], nextCol: number, maxColumns: number): string | undefined {
  for (const [i, slot] of slots.entries()) {
    const c = columnOf(slot, existing);
    if (!c) continue;
    const r = readColumns([c], existing, nextCol, maxColumns);
    if (!('problem' in r)) continue;
    const desc = r.problem.desc;
    return slotName(i, /choice/.test(desc) ? 'choices' : /type/.test(desc) ? 'type' : 'title');
  }
  return undefined;
}
