import ICAL from 'ical.js';
import { parseRepeat } from '../repeat/index.js';
import type { Task } from '../storage/store.js';
import { dayOf, icalDate, icalUtc, momentOf } from './times.js';
import { rruleOf } from './vtodo-write.js';

/**
 * The RRULE of a repeating task's event in a calendar feed (docs/feeds.md, "Repeating tasks").
 * Tickler holds one occurrence of a repeating task at a time: its due date. A calendar shown the
 * rule draws the later occurrences too, which is worth it only where they fall where Tickler will
 * put them. So a rule is written only when all of this holds, and otherwise the event is the
 * current occurrence alone:
 *
 * - the repeat engine reschedules by it (src/repeat: not `unsupported`, not PARENT), and RRULE can
 *   say it (rruleOf, the VTODO's);
 * - it repeats from the due date: with FROMCOMP the next date depends on when the task is done;
 * - occurrences are left after the current one (COUNT, counted by the task's repeatIndex as the
 *   engine counts them, and UNTIL);
 * - the due date is itself a date of the rule (a task due on a Tuesday that repeats on Mondays is
 *   not): calendars differ on a DTSTART outside its rule, and some (ical.js among them) leave it
 *   out, which would hide the one occurrence that is sure;
 * - the task has no due time, or its due time is on the same day in UTC as in the account's clock.
 *   A calendar expands the rule of a UTC DTSTART in UTC days, so a Monday 21:00 at UTC-5, which is
 *   a Tuesday in UTC, would repeat on Tuesdays there. The account's clock has a fixed offset (no
 *   summer time), so a same-day start keeps every occurrence on its day.
 *
 * FASTFORWARD is left out of the rule: it changes only what happens when an overdue task is done.
 */
export function eventRrule(t: Task, offsetMinutes: number): ICAL.Recur | undefined {
  const spec = parseRepeat(t.repeat);
  if (spec.kind !== 'rule' || spec.fromCompletion) return undefined;
  const rule = rruleOf(t.repeat);
  if (!rule) return undefined;
  // A Recur of its own: COUNT and UNTIL are changed below.
  const recur = ICAL.Recur.fromString(rule);
  const day = dayOf(t.duedate);
  if (t.duetime !== null) {
    const start = momentOf(day, t.duetime, offsetMinutes);
    if (Math.floor(start / 86400) !== day) return undefined;
  }
  if (spec.count !== null) {
    // The engine counts the occurrences used, the current one included (1 for a task never rescheduled).
    const used = Number.isSafeInteger(t.repeatIndex) && t.repeatIndex >= 1 ? t.repeatIndex : 1;
    const left = spec.count - used + 1;
    if (left <= 1) return undefined;
    recur.count = left;
  }
  if (spec.untilDay !== null) {
    if (spec.untilDay <= day) return undefined;
    // UNTIL takes DTSTART's type (RFC 5545 3.3.10): a date, or the last occurrence's moment in UTC.
    recur.until = t.duetime === null ? icalDate(spec.untilDay) : icalUtc(momentOf(spec.untilDay, t.duetime, offsetMinutes));
  }
  const start = t.duetime === null ? icalDate(day) : icalUtc(momentOf(day, t.duetime, offsetMinutes));
  if (recur.iterator(start).next()?.compare(start) !== 0) return undefined;
  return recur;
}
