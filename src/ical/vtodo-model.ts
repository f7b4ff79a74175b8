import type { ClockDay } from './times.js';

/**
 * What a VTODO says, in the terms of a v3 task (docs/caldav.md, the mapping table), between the
 * pure reader and writer (vtodo-read.ts, vtodo-write.ts) and the CalDAV service, which turns it
 * into a tasks/add or tasks/edit item.
 */

/** The v3 fields that travel as `X-TICKLER-…` properties: iCalendar has no word for them. */
export const TICKLER_FIELDS = ['star', 'context', 'goal', 'location', 'status', 'length', 'duedatemod'] as const;
export type TicklerField = (typeof TICKLER_FIELDS)[number];

/** What Tickler keeps of a client's calendar object that it does not model, as jCal, written back as it came. */
export interface KeptIcal {
  /** The VTODO's other properties (X-APPLE-SORT-ORDER, X-MOZ-…, ATTACH, SEQUENCE…), in order. */
  readonly props: readonly unknown[];
  /** The VTODO's other components (alarms other than the reminder). */
  readonly comps: readonly unknown[];
  /** The calendar's other components (the time zones kept properties name, overrides of occurrences). */
  readonly calendar: readonly unknown[];
}

export const NOTHING_KEPT: KeptIcal = Object.freeze({ props: [], comps: [], calendar: [] });

export interface TodoFields {
  readonly uid: string;
  readonly title: string;
  readonly note: string;
  readonly due: ClockDay | null;
  readonly start: ClockDay | null;
  /** Whether the object carries DTSTART or X-TICKLER-START (without either, start is null). */
  readonly startTold: boolean;
  /** The day it was completed; 'undated' for a VTODO completed without a COMPLETED time; null when open. */
  readonly completed: number | 'undated' | null;
  /** v3 priority, -1 to 3. */
  readonly priority: number;
  /** v3 tags: "a, b". */
  readonly tags: string;
  /** v3 repeat text, extensions included. */
  readonly repeat: string;
  /** Minutes before due (0: none). */
  readonly remind: number;
  /** The UID of the parent task (RELATED-TO;RELTYPE=PARENT), when it names one. */
  readonly parentUid: string | null;
  /** The `X-TICKLER-…` fields the object carries; those it does not carry stay as they are. */
  readonly tickler: Readonly<Partial<Record<TicklerField, number>>>;
  /** iCalendar's STATUS, upper case; undefined without one. With `tickler.status`, statusAsked() decides the v3 status. */
  readonly icalStatus: string | undefined;
  readonly kept: KeptIcal;
}

/**
 * iCalendar's PRIORITY (1 highest … 9 lowest, 0 undefined) of the v3 priorities 3 (Top) … -1
 * (Negative): Top 1, High 3, Medium 5, Low 0, Negative 9.
 */
export const ICAL_PRIORITY: Readonly<Record<number, number>> = { 3: 1, 2: 3, 1: 5, 0: 0, [-1]: 9 };

/**
 * The v3 priority of an iCalendar PRIORITY: 0 (undefined), 7 and 8 are Low; the others the nearest
 * of 1, 3, 5 and 9, a value halfway between two taking the lower priority.
 */
export function v3Priority(p: number): number {
  if (!Number.isInteger(p) || p <= 0 || p > 9) return 0;
  if (p === 7 || p === 8) return 0;
  if (p === 1) return 3;
  if (p <= 3) return 2;
  if (p <= 5) return 1;
  if (p === 6) return 0;
  return -1;
}

/**
 * iCalendar's STATUS of an open task of a v3 status: 9 (Canceled) is CANCELLED, 2 (Active)
 * IN-PROCESS, every other NEEDS-ACTION. A completed task's is COMPLETED, whatever its status.
 */
export function icalStatusOf(status: number): 'CANCELLED' | 'IN-PROCESS' | 'NEEDS-ACTION' {
  return status === 9 ? 'CANCELLED' : status === 2 ? 'IN-PROCESS' : 'NEEDS-ACTION';
}

/** The v3 status a STATUS says by itself: CANCELLED 9, IN-PROCESS 2. */
const SAID_BY_STATUS: Readonly<Record<string, number>> = { CANCELLED: 9, 'IN-PROCESS': 2 };

/**
 * The v3 status a VTODO asks for; undefined leaves the task's as it is. X-TICKLER-STATUS (the v3
 * value) holds while STATUS is what Tickler writes for it: clients keep X- properties they do not
 * know, so a STATUS changed beside a kept X-TICKLER-STATUS is the person's change, and wins. Then
 * STATUS says 9 or 2 itself; NEEDS-ACTION (or none) says neither, so a task that was 9 or 2 becomes
 * 0, and any other status, which STATUS cannot say, stays. COMPLETED says nothing of the status.
 * `current` is the task's status now (undefined for a new task).
 */
export function statusAsked(icalStatus: string | undefined, tickler: number | undefined, current: number | undefined): number | undefined {
  const word = icalStatus ?? 'NEEDS-ACTION';
  if (tickler !== undefined && (word === 'COMPLETED' || word === icalStatusOf(tickler))) return tickler;
  const said = SAID_BY_STATUS[word];
  if (said !== undefined) return said;
  if (word === 'COMPLETED') return undefined;
  // A status STATUS would say (9, 2) is no longer so, whether X-TICKLER-STATUS still claims it or the task had it.
  const claimed = tickler ?? current;
  return claimed !== undefined && icalStatusOf(claimed) !== 'NEEDS-ACTION' ? 0 : undefined;
}
