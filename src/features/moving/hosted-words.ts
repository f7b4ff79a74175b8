/**
 * The values of the hosted service's export files (docs/moving.md, "The hosted service's own
 * export files") read into the v3 API's values: pure functions, one per column. Each returns the
 * value, or `{ problem }` when the text is not one of the wordings listed in docs/moving.md: the
 * caller decides what a problem costs (the field is left out and the summary says so).
 */

export type Read<T> = { readonly value: T } | { readonly problem: string };

const ok = <T>(value: T): Read<T> => ({ value });
const no = (problem: string): { problem: string } => ({ problem });

/** Empty, or the hosted service's "no date" (`0000-00-00`, its XML backup's placeholder). */
export function isBlank(v: string | undefined): boolean {
  const t = (v ?? '').trim();
  return t === '' || t === '0' || /^0000-00-00/.test(t);
}

/**
 * A calendar date `YYYY-MM-DD` (a time after it, as some files add, is ignored), given to the
 * tasks' own reader as text: it checks the day exists. Anything else (the "relative" dates an
 * export can be asked for, a locale's 09/14/2017) is refused: guessing the order of day and month
 * would move tasks silently.
 */
export function calendarDate(v: string | undefined): Read<string | undefined> {
  if (isBlank(v)) return ok(undefined);
  const m = /^\s*(\d{4}-\d{2}-\d{2})(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?\s*$/.exec(v ?? '');
  return m ? ok(m[1]) : no(`the date ${JSON.stringify(v)} is not YYYY-MM-DD (export again with "relative dates" off)`);
}

/** A date as a Unix timestamp at 12:00 GMT of its day (how the API keeps dates), or 0. */
export function dateStamp(v: string | undefined): number {
  const d = calendarDate(v);
  if (!('value' in d) || d.value === undefined) return 0;
  const ms = Date.parse(`${d.value}T12:00:00Z`);
  return Number.isFinite(ms) ? ms / 1000 : 0;
}

/**
 * A clock time as seconds after midnight: `8:00 pm`, `8pm`, `8:00PM`, `12:30 am`, or 24-hour
 * `20:00` and `20:00:00`.
 */
export function clockTime(v: string | undefined): Read<number | undefined> {
  if (isBlank(v)) return ok(undefined);
  const t = (v ?? '').trim().toLowerCase().replace(/\./g, '');
  const m = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm)?$/.exec(t);
  if (m) {
    const [h, min, s, half] = [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0), m[4]];
    const valid = min < 60 && s < 60 && (half ? h >= 1 && h <= 12 : h <= 23 && m[2] !== undefined);
    if (valid) return ok(((half ? (h % 12) + (half === 'pm' ? 12 : 0) : h) * 60 + min) * 60 + s);
  }
  return no(`the time ${JSON.stringify(v)} is not a clock time such as "8:00 pm" or "20:00"`);
}

const PRIORITY_WORDS: Readonly<Record<string, number>> = { negative: -1, low: 0, medium: 1, high: 2, top: 3 };

/** The priority: the API's number (-1 … 3) or its name (`Negative`, `Low`, `Medium`, `High`, `Top`). */
export function priority(v: string | undefined): Read<number | undefined> {
  if ((v ?? '').trim() === '') return ok(undefined);
  const t = (v ?? '').trim().toLowerCase();
  if (/^-?\d+$/.test(t) && Number(t) >= -1 && Number(t) <= 3) return ok(Number(t));
  const word = PRIORITY_WORDS[t.replace(/^\d+\s*-\s*/, '')];
  return word !== undefined ? ok(word) : no(`the priority ${JSON.stringify(v)} is not -1 to 3 nor Negative, Low, Medium, High or Top`);
}

/** The star: `Yes`/`No` (the CSV), `1`/`0` (the XML backup), `true`/`false`. */
export function star(v: string | undefined): Read<number | undefined> {
  const t = (v ?? '').trim().toLowerCase();
  if (t === '') return ok(undefined);
  if (['yes', '1', 'true', 'y'].includes(t)) return ok(1);
  if (['no', '0', 'false', 'n'].includes(t)) return ok(0);
  return no(`the star ${JSON.stringify(v)} is not Yes or No`);
}

/** The status names of the API (spec 2.1), in the order of their numbers. */
export const STATUS_WORDS = ['None', 'Next Action', 'Active', 'Planning', 'Delegated', 'Waiting', 'Hold', 'Postponed', 'Someday', 'Canceled', 'Reference'] as const;

const squash = (s: string): string => s.trim().toLowerCase().replace(/[\s_-]+/g, '');

/** The status: its name (`Next Action`, `Waiting`…, `Cancelled` too) or its number 0 … 10. */
export function status(v: string | undefined): Read<number | undefined> {
  const t = squash(v ?? '');
  if (t === '') return ok(undefined);
  if (/^\d+$/.test(t) && Number(t) <= 10) return ok(Number(t));
  const i = STATUS_WORDS.findIndex((w) => squash(w) === (t === 'cancelled' ? 'canceled' : t));
  return i >= 0 ? ok(i) : no(`the status ${JSON.stringify(v)} is not one of ${STATUS_WORDS.join(', ')}`);
}

const DUEDATE_MODS: Readonly<Record<string, number>> = { dueby: 0, dueon: 1, dueafter: 2, optionally: 3 };

/** The XML backup's `duedatemodifier`: 0 … 3, or its words (`Due By`, `Due On`, `Due After`, `Optionally`). */
export function dueDateModifier(v: string | undefined): Read<number | undefined> {
  const t = squash(v ?? '');
  if (t === '') return ok(undefined);
  if (/^[0-3]$/.test(t)) return ok(Number(t));
  const n = DUEDATE_MODS[t];
  return n !== undefined ? ok(n) : no(`the due-date modifier ${JSON.stringify(v)} is not 0 to 3`);
}

/** A whole number of minutes (LENGTH) or seconds (TIMER); `1:30` is read as hours and minutes. */
export function wholeNumber(v: string | undefined, what: string): Read<number | undefined> {
  const t = (v ?? '').trim();
  if (t === '') return ok(undefined);
  if (/^\d{1,9}$/.test(t)) return ok(Number(t));
  const hm = /^(\d{1,5}):(\d{2})$/.exec(t);
  if (hm && Number(hm[2]) < 60 && what === 'length') return ok(Number(hm[1]) * 60 + Number(hm[2]));
  return no(`the ${what} ${JSON.stringify(v)} is not a whole number`);
}

const FREQ_OF: Readonly<Record<string, string>> = { day: 'DAILY', week: 'WEEKLY', month: 'MONTHLY', year: 'YEARLY' };

/** The repeat names of the hosted service's earlier API, as rules (docs/moving.md lists them). */
const NAMED_RULES: Readonly<Record<string, string>> = {
  daily: 'FREQ=DAILY',
  weekly: 'FREQ=WEEKLY',
  biweekly: 'FREQ=WEEKLY;INTERVAL=2',
  monthly: 'FREQ=MONTHLY',
  bimonthly: 'FREQ=MONTHLY;INTERVAL=2',
  quarterly: 'FREQ=MONTHLY;INTERVAL=3',
  semiannually: 'FREQ=MONTHLY;INTERVAL=6',
  yearly: 'FREQ=YEARLY',
  annually: 'FREQ=YEARLY',
  withparent: 'PARENT',
};

const WEEKDAYS: ReadonlyArray<readonly [string, string]> = [
  ['monday', 'MO'],
  ['tuesday', 'TU'],
  ['wednesday', 'WE'],
  ['thursday', 'TH'],
  ['friday', 'FR'],
  ['saturday', 'SA'],
  ['sunday', 'SU'],
];

/** A weekday's name or a beginning of it of three letters or more (`Mon`, `Tues`, `Thurs`) → `MO` …. */
function weekday(word: string): string | undefined {
  const w = word.trim().toLowerCase().replace(/\.$/, '');
  if (w.length < 3) return undefined;
  return WEEKDAYS.find(([name]) => name.startsWith(w))?.[1];
}

const ORDINALS: Readonly<Record<string, number>> = { '1st': 1, first: 1, '2nd': 2, second: 2, '3rd': 3, third: 3, '4th': 4, fourth: 4, '5th': 5, fifth: 5, last: -1 };

/**
 * A REPEAT value as the rule the tasks store (spec 2.1: RRULE text and its extensions):
 * - empty or `None`: no repeat;
 * - RRULE text (`FREQ=…`, `PARENT`, with `;FROMCOMP`…), as Tickler's own CSV export writes it: kept;
 * - the names `Daily`, `Weekly`, `Biweekly`, `Monthly`, `Bimonthly`, `Quarterly`, `Semiannually`,
 *   `Yearly` (and `Annually`), `With Parent`;
 * - `Every day|week|month|year`, `Every N days|weeks|months|years`;
 * - `Every Mon, Wed` (weekday names or three-letter forms, `and` allowed), `Every weekday`, `Every weekend`;
 * - `The 2nd Tue of each month`, `On the last Friday of every month` (1st … 5th, last);
 * each optionally followed by `from completion` (or `from completion date`), which is `;FROMCOMP`.
 * Anything else is a problem: the wording is not documented anywhere public, and a rule guessed
 * wrong would schedule the person's task on the wrong days.
 */
export function repeatRule(v: string | undefined, fromCompletion = false): Read<string> {
  const raw = (v ?? '').trim();
  if (raw === '' || /^none$/i.test(raw) || raw === '0') return ok('');
  if (/^(RRULE:)?FREQ=/i.test(raw) || /^PARENT(;|$)/i.test(raw)) return ok(raw.replace(/^RRULE:/i, ''));
  let t = raw.toLowerCase().replace(/\s+/g, ' ');
  let fromComp = fromCompletion;
  const comp = /,? ?(?:\(?from (?:the )?completion(?: date)?\)?)$/.exec(t);
  if (comp) {
    fromComp = true;
    t = t.slice(0, comp.index).trim();
  }
  const rule = ruleOf(t);
  if (rule === undefined) return no(`the repeat ${JSON.stringify(raw)} is not a wording understood here (docs/moving.md lists them)`);
  return ok(fromComp && rule !== 'PARENT' ? `${rule};FROMCOMP` : rule);
}

function ruleOf(t: string): string | undefined {
  const named = NAMED_RULES[t.replace(/[\s-]+/g, '')];
  if (named) return named;
  let m = /^every (?:(\d{1,3}|other) )?(day|week|month|year)s?$/.exec(t);
  if (m) {
    const n = m[1] === 'other' ? 2 : Number(m[1] ?? 1);
    if (n < 1) return undefined;
    return `FREQ=${FREQ_OF[m[2] as string]}${n > 1 ? `;INTERVAL=${n}` : ''}`;
  }
  if (t === 'every weekday') return 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR';
  if (t === 'every weekend') return 'FREQ=WEEKLY;BYDAY=SA,SU';
  m = /^every ([a-z., ]+)$/.exec(t);
  if (m) {
    const days = (m[1] as string).split(/\s*(?:,|\band\b)\s*/).filter((d) => d !== '');
    const codes = days.map(weekday);
    if (codes.length > 0 && codes.every((c) => c !== undefined)) return `FREQ=WEEKLY;BYDAY=${[...new Set(codes)].join(',')}`;
    return undefined;
  }
  m = /^(?:on )?the (\w+) ([a-z.]+) of (?:each|every) month$/.exec(t);
  if (m) {
    const n = ORDINALS[m[1] as string];
    const day = weekday(m[2] as string);
    if (n !== undefined && day !== undefined) return `FREQ=MONTHLY;BYDAY=${n}${day}`;
  }
  return undefined;
}
