import { daysFromCivil, weekday } from '../../repeat/calendar.js';

/**
 * The one-line syntax of quick add (docs/web-app.md), read into what will be saved. Pure: the
 * caller passes today's date in the account's timezone; names of folders and contexts are
 * resolved later, by the service. Every loop is bounded by the capped length of the line.
 *
 *   Call the plumber #home @phone +house !2 * tomorrow 9am every week
 *
 * `#folder`, `@context`, `+tag` (several), `!-1`…`!3` priority, `*` star; a due date (today,
 * tomorrow, a weekday, `in 3 days`, `2026-03-20`), a time (9am, 9:30pm, 14:00) and a repeat
 * (`every day`, `every 2 weeks`, `every monday`, `every weekday`, daily…yearly). Names with spaces:
 * `#"Home office"` or `#home_office`. A word starting with `\` is kept as title text, without it.
 */

/** Longer lines are refused unread: a title is at most 255 characters, a line more is a mistake. */
export const MAX_QUICK_ADD = 1000;

export interface QuickAdd {
  readonly title: string;
  readonly folder?: string;
  readonly context?: string;
  readonly tags: readonly string[];
  readonly priority?: number;
  readonly star: boolean;
  /** Days since 1970-01-01 (the account's calendar day). */
  readonly dueDay?: number;
  /** Seconds after midnight, a floating clock time. */
  readonly dueTime?: number;
  /** RRULE text as the API stores it. */
  readonly repeat?: string;
}

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const WEEKDAY_CODES = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
const UNITS: Readonly<Record<string, 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY'>> = {
  day: 'DAILY', days: 'DAILY', week: 'WEEKLY', weeks: 'WEEKLY', month: 'MONTHLY', months: 'MONTHLY', year: 'YEARLY', years: 'YEARLY',
};
const ADVERBS: Readonly<Record<string, string>> = { daily: 'DAILY', weekly: 'WEEKLY', monthly: 'MONTHLY', yearly: 'YEARLY', annually: 'YEARLY' };

/** A weekday's name or its first three letters (mon, tue…), 0 = Monday; -1 otherwise. */
function weekdayOf(word: string): number {
  const w = word.toLowerCase();
  return WEEKDAYS.findIndex((d) => d === w || d.slice(0, 3) === w);
}

const TOKEN = /[#@+]"[^"]*"|\S+/g;
const TIME = /^(?:(\d{1,2})(?::(\d{2}))?(am|pm)|(\d{1,2}):(\d{2}))$/i;
const ISO = /^(\d{4})-(\d{2})-(\d{2})$/;
const PRIORITY = /^!(-1|0|1|2|3)$/;

/** A time word (9am, 9:30pm, 14:00) as seconds after midnight, or undefined. */
export function timeOf(word: string): number | undefined {
  const m = TIME.exec(word);
  if (!m) return undefined;
  if (m[3] !== undefined) {
    const hour = Number(m[1]);
    const minute = m[2] === undefined ? 0 : Number(m[2]);
    if (hour < 1 || hour > 12 || minute > 59) return undefined;
    const h24 = (hour % 12) + (m[3].toLowerCase() === 'pm' ? 12 : 0);
    return h24 * 3600 + minute * 60;
  }
  const [hour, minute] = [Number(m[4]), Number(m[5])];
  if (hour > 23 || minute > 59) return undefined;
  return hour * 3600 + minute * 60;
}

function isoDay(word: string): number | undefined {
  const m = ISO.exec(word);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (y < 1970 || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return daysFromCivil(y, mo, d);
}

/** The next `wd` (0 = Monday) on or after `today`. */
function nextWeekday(today: number, wd: number): number {
  return today + ((wd - weekday(today) + 7) % 7);
}

/** A name after # or @: quotes removed, underscores read as spaces. */
function nameOf(raw: string): string {
  return (raw.startsWith('"') ? raw.slice(1, -1) : raw.replace(/_/g, ' ')).trim();
}

interface Acc {
  title: string[];
  folder?: string;
  context?: string;
  tags: string[];
  priority?: number;
  star: boolean;
  dueDay?: number;
  dueTime?: number;
  repeat?: string;
  /** The weekday a weekly repeat falls on, to choose the first due date. */
  repeatDay?: number;
}

/**
 * Tries a repeat at words[i] ("every 2 weeks", "every monday", "daily"); how many words it took
 * (0: none).
 */
function readRepeat(words: readonly string[], i: number, acc: Acc): number {
  const w = (words[i] ?? '').toLowerCase();
  const adverb = ADVERBS[w];
  if (adverb) {
    acc.repeat = `FREQ=${adverb}`;
    return 1;
  }
  if (w === 'biweekly') {
    acc.repeat = 'FREQ=WEEKLY;INTERVAL=2';
    return 1;
  }
  if (w !== 'every') return 0;
  const next = (words[i + 1] ?? '').toLowerCase();
  if (next === 'weekday') {
    acc.repeat = 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR';
    return 2;
  }
  const wd = weekdayOf(next);
  if (wd >= 0) {
    acc.repeat = `FREQ=WEEKLY;BYDAY=${WEEKDAY_CODES[wd]}`;
    acc.repeatDay = wd;
    return 2;
  }
  const unit = UNITS[next];
  if (unit && !next.endsWith('s')) {
    acc.repeat = `FREQ=${unit}`;
    return 2;
  }
  if (/^[1-9]\d{0,2}$/.test(next)) {
    const plural = UNITS[(words[i + 2] ?? '').toLowerCase()];
    if (plural) {
      const n = Number(next);
      acc.repeat = n === 1 ? `FREQ=${plural}` : `FREQ=${plural};INTERVAL=${n}`;
      return 3;
    }
  }
  return 0;
}

/** Tries a due date at words[i]; how many words it took (0: none). */
function readDate(words: readonly string[], i: number, today: number, acc: Acc): number {
  const w = (words[i] ?? '').toLowerCase();
  if (w === 'today' || w === 'tod') return (acc.dueDay = today), 1;
  if (w === 'tomorrow' || w === 'tom') return (acc.dueDay = today + 1), 1;
  const iso = isoDay(w);
  if (iso !== undefined) return (acc.dueDay = iso), 1;
  if (w === 'next' || w === 'on') {
    const wd = weekdayOf(words[i + 1] ?? '');
    // "next friday": the one after the coming one only when the coming one is today.
    if (wd >= 0) return (acc.dueDay = nextWeekday(today + (w === 'next' ? 1 : 0), wd)), 2;
    if (w === 'next' && (words[i + 1] ?? '').toLowerCase() === 'week') return (acc.dueDay = today + 7), 2;
    return 0;
  }
  const wd = weekdayOf(w);
  if (wd >= 0) return (acc.dueDay = nextWeekday(today, wd)), 1;
  if (w === 'in' && /^[1-9]\d{0,2}$/.test(words[i + 1] ?? '')) {
    const n = Number(words[i + 1]);
    const unit = (words[i + 2] ?? '').toLowerCase();
    const days = { day: 1, days: 1, week: 7, weeks: 7 }[unit];
    if (days !== undefined) return (acc.dueDay = today + n * days), 3;
  }
  return 0;
}

function readTime(words: readonly string[], i: number, acc: Acc): number {
  const w = words[i] ?? '';
  const at = w.toLowerCase() === 'at' ? 1 : 0;
  const t = timeOf(words[i + at] ?? '');
  if (t === undefined) return 0;
  acc.dueTime = t;
  return 1 + at;
}

/**
 * Reads one line. `today`: the account's calendar day (days since 1970-01-01). Each part is taken
 * once: a second date or folder is title text, so nothing typed is silently dropped.
 */
export function parseQuickAdd(line: string, today: number): QuickAdd {
  const acc: Acc = { title: [], tags: [], star: false };
  const words = line.slice(0, MAX_QUICK_ADD).match(TOKEN) ?? [];
  for (let i = 0; i < words.length; ) {
    const word = words[i] as string;
    if (word.startsWith('\\') && word.length > 1) {
      acc.title.push(word.slice(1));
      i++;
      continue;
    }
    const sigil = word[0];
    const rest = word.slice(1);
    if (sigil === '#' && rest !== '' && acc.folder === undefined && nameOf(rest) !== '') {
      acc.folder = nameOf(rest);
      i++;
      continue;
    }
    if (sigil === '@' && rest !== '' && acc.context === undefined && nameOf(rest) !== '') {
      acc.context = nameOf(rest);
      i++;
      continue;
    }
    if (sigil === '+' && rest !== '' && !/^\d/.test(rest) && nameOf(rest) !== '' && !nameOf(rest).includes(',')) {
      const tag = nameOf(rest);
      if (!acc.tags.some((t) => t.toLowerCase() === tag.toLowerCase())) acc.tags.push(tag);
      i++;
      continue;
    }
    const p = PRIORITY.exec(word);
    if (p && acc.priority === undefined) {
      acc.priority = Number(p[1]);
      i++;
      continue;
    }
    if (word === '*' && !acc.star) {
      acc.star = true;
      i++;
      continue;
    }
    const taken = (acc.repeat === undefined ? readRepeat(words, i, acc) : 0) || (acc.dueDay === undefined ? readDate(words, i, today, acc) : 0) || (acc.dueTime === undefined ? readTime(words, i, acc) : 0);
    if (taken > 0) {
      i += taken;
      continue;
    }
    acc.title.push(word);
    i++;
  }
  return finish(acc, today);
}

function finish(acc: Acc, today: number): QuickAdd {
  let dueDay = acc.dueDay;
  // A time or a repeat needs a day to happen on: the first one from today.
  if (dueDay === undefined && acc.repeat !== undefined) dueDay = acc.repeatDay === undefined ? today : nextWeekday(today, acc.repeatDay);
  if (dueDay === undefined && acc.dueTime !== undefined) dueDay = today;
  return {
    title: acc.title.join(' '),
    ...(acc.folder !== undefined && { folder: acc.folder }),
    ...(acc.context !== undefined && { context: acc.context }),
    tags: acc.tags,
    ...(acc.priority !== undefined && { priority: acc.priority }),
    star: acc.star,
    ...(dueDay !== undefined && { dueDay }),
    ...(acc.dueTime !== undefined && { dueTime: acc.dueTime }),
    ...(acc.repeat !== undefined && { repeat: acc.repeat }),
  };
}
