import ICAL from 'ical.js';

/**
 * Times between the v3 API and iCalendar (docs/caldav.md, "Dates and times"). The v3 API stores a
 * date as its calendar day at noon GMT and a time as a floating clock time (spec 2.1); iCalendar
 * writes a day as a DATE and a moment as a DATE-TIME. Tickler places a floating time in the
 * account's clock (its `timezone`, lib/account-clock.ts) and writes the moment in UTC, so that
 * every client shows the time the person chose, and reads any moment back into that clock.
 */

const DAY = 86400;
const NOON = 43200;

/** A day and, when it has one, a clock time (seconds after midnight) in the account's clock. */
export interface ClockDay {
  /** Days since 1970-01-01. */
  readonly day: number;
  readonly time: number | null;
}

/** The stored v3 date (noon GMT of its day) of a day. */
export function storedDate(day: number): number {
  return day * DAY + NOON;
}

/** The day of a stored v3 date. */
export function dayOf(stored: number): number {
  return Math.floor(stored / DAY);
}

/** The UTC moment of a clock time on a day, in an account whose clock is `offsetMinutes` east of UTC. */
export function momentOf(day: number, time: number, offsetMinutes: number): number {
  return day * DAY + time - offsetMinutes * 60;
}

/** The account's clock day and time of a UTC moment. */
export function clockOf(moment: number, offsetMinutes: number): ClockDay {
  const local = moment + offsetMinutes * 60;
  const day = Math.floor(local / DAY);
  return { day, time: local - day * DAY };
}

/** A DATE value of a day. */
export function icalDate(day: number): ICAL.Time {
  const d = new Date(day * DAY * 1000);
  return ICAL.Time.fromData({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), isDate: true });
}

/** A UTC DATE-TIME value of a moment (whole seconds). */
export function icalUtc(moment: number): ICAL.Time {
  return ICAL.Time.fromJSDate(new Date(moment * 1000), true);
}

/** A date, or a moment at a clock time of that date, as an iCalendar value. */
export function icalOf(clock: ClockDay, offsetMinutes: number): ICAL.Time {
  return clock.time === null ? icalDate(clock.day) : icalUtc(momentOf(clock.day, clock.time, offsetMinutes));
}

/** The offset east of UTC, in seconds, of an IANA zone at a moment; undefined for a name Intl does not know. */
function zoneOffsetSeconds(tzid: string, moment: number): number | undefined {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone: tzid,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    }).formatToParts(new Date(moment * 1000));
  } catch {
    return undefined;
  }
  const n = (type: string): number => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second')) / 1000;
  return Number.isFinite(asUtc) ? asUtc - moment : undefined;
}

/**
 * The account's clock day and time of an iCalendar DATE or DATE-TIME:
 * - a DATE is that day, without a time;
 * - a UTC DATE-TIME, or one whose TZID the calendar defines (a VTIMEZONE) or that names an IANA
 *   zone, is a moment, read in the account's clock;
 * - a floating DATE-TIME (no zone) is already a clock time, as v3's own times are.
 */
export function clockOfIcal(value: ICAL.Time, tzid: string | undefined, offsetMinutes: number): ClockDay {
  const wall = Date.UTC(value.year, value.month - 1, value.day, value.hour, value.minute, value.second) / 1000;
  const wallDay = Math.floor(wall / DAY);
  if (value.isDate) return { day: wallDay, time: null };
  const zone = value.zone?.tzid;
  if (zone === 'UTC' || zone === 'Z') return clockOf(wall, offsetMinutes);
  if (zone !== undefined && zone !== 'floating') return clockOf(value.toUnixTime(), offsetMinutes);
  if (tzid !== undefined) {
    // A TZID without its VTIMEZONE: the IANA name, as most clients use, read with Intl (twice, so
    // that a moment near a change of offset gets the offset in force at that moment).
    const first = zoneOffsetSeconds(tzid, wall);
    if (first !== undefined) {
      const second = zoneOffsetSeconds(tzid, wall - first) ?? first;
      return clockOf(wall - second, offsetMinutes);
    }
  }
  return { day: wallDay, time: wall - wallDay * DAY };
}

const two = (n: number): string => String(n).padStart(2, '0');

/** A clock day and time as iCalendar writes a floating value: `20261208` or `20261208T090000`. */
export function wallText(clock: ClockDay): string {
  const d = new Date(clock.day * DAY * 1000);
  const date = `${d.getUTCFullYear()}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}`;
  if (clock.time === null) return date;
  return `${date}T${two(Math.floor(clock.time / 3600))}${two(Math.floor((clock.time % 3600) / 60))}${two(clock.time % 60)}`;
}

/** wallText's reverse; undefined for anything else. */
export function wallOf(text: string): ClockDay | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2}))?$/.exec(text.trim());
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (!Number.isFinite(ms)) return undefined;
  const time = m[4] === undefined ? null : Number(m[4]) * 3600 + Number(m[5]) * 60 + Number(m[6]);
  if (time !== null && time >= DAY) return undefined;
  return { day: ms / 1000 / DAY, time };
}
