import { stringify } from 'csv-stringify/sync';
import type { Deps } from '../../deps.js';
import { utcOffsetMinutes } from '../../lib/account-clock.js';
import { NOTHING_KEPT, type KeptIcal } from '../../ical/vtodo-model.js';
import { calendarText } from '../../ical/vtodo-write.js';
import type { Account, OrganizerKind } from '../../storage/store.js';
import { allTasks } from './export.service.js';
import { STATUS_WORDS } from './hosted-words.js';

/**
 * A person's tasks as CSV and as iCalendar (docs/moving.md). Services: the command line and the
 * account page call them and send the text where they need it.
 */


/** The hosted service's CSV export columns (docs/moving.md, "The hosted service's files"), then Tickler's own. */
export const CSV_COLUMNS = ['TASK', 'FOLDER', 'CONTEXT', 'GOAL', 'LOCATION', 'STARTDATE', 'STARTTIME', 'DUEDATE', 'DUETIME', 'REPEAT', 'LENGTH', 'TIMER', 'PRIORITY', 'TAG', 'STATUS', 'STAR', 'NOTE', 'COMPLETED', 'ID', 'PARENT', 'ADDED'] as const;

async function names(deps: Deps, userPk: number, kind: OrganizerKind): Promise<Map<number, string>> {
  return new Map((await deps.store.read.organizers.list(userPk, kind)).map((r) => [r.id, r.name]));
}

const day = (ts: number): string => (ts === 0 ? '' : new Date(ts * 1000).toISOString().slice(0, 10));

/** A floating clock time as the hosted service's CSV writes it ("8:00 pm"). */
function clock(seconds: number | null): string {
  if (seconds === null) return '';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return `${h % 12 === 0 ? 12 : h % 12}:${String(m).padStart(2, '0')} ${h < 12 ? 'am' : 'pm'}`;
}

/**
 * Tasks as CSV, one row each, with the hosted service's columns (names of folders, contexts,
 * goals and locations; dates YYYY-MM-DD; floating times as clock times; STAR Yes or No), then
 * ID, PARENT and ADDED so that subtasks stay recognisable. REPEAT holds the rule as stored
 * (RRULE text): the hosted service's own wording of rules is not documented. Quoting of commas,
 * quotes and line breaks in notes is csv-stringify's (RFC 4180).
 */
export async function exportTasksCsv(deps: Deps, userPk: number): Promise<string> {
  const folders = await names(deps, userPk, 'folder');
  const contexts = await names(deps, userPk, 'context');
  const goals = await names(deps, userPk, 'goal');
  const locations = await names(deps, userPk, 'location');
  const rows = (await allTasks(deps, userPk)).map((t) => [
    t.title,
    folders.get(t.folder) ?? '',
    contexts.get(t.context) ?? '',
    goals.get(t.goal) ?? '',
    locations.get(t.location) ?? '',
    day(t.startdate),
    clock(t.starttime),
    day(t.duedate),
    clock(t.duetime),
    t.repeat,
    t.length === 0 ? '' : t.length,
    t.timer === 0 ? '' : t.timer,
    t.priority,
    t.tag,
    STATUS_WORDS[t.status] ?? '',
    t.star === 1 ? 'Yes' : 'No',
    t.note,
    day(t.completed),
    t.id,
    t.parent === 0 ? '' : t.parent,
    day(t.added),
  ]);
  return stringify([[...CSV_COLUMNS], ...rows], { record_delimiter: 'windows' });
}

/**
 * Tasks as iCalendar to-dos (RFC 5545), one VTODO per task, by the one mapping CalDAV serves them
 * with (src/ical/, docs/caldav.md): DUE and DTSTART as dates, or as UTC moments of the clock times
 * in the account's timezone; RRULE, with the v3 rule whole in X-TICKLER-REPEAT whenever RRULE
 * cannot say all of it (from completion, fast-forward, PARENT); the v3 fields iCalendar has no word
 * for as X-TICKLER-…; the names and UIDs CalDAV apps gave tasks, and what they keep in them. The
 * folder, which a CalDAV calendar is, is one more CATEGORIES value here, as one file holds every
 * folder's tasks.
 */
export async function exportTasksIcal(deps: Deps, userPk: number): Promise<string> {
  const account = (await deps.store.read.accounts.get(userPk)) as Account;
  const folders = await names(deps, userPk, 'folder');
  const tasks = await allTasks(deps, userPk);
  const rows = await deps.store.read.caldav.objectsOf(userPk, tasks.map((t) => t.id));
  const uid = (id: number): string => rows.get(id)?.uid ?? `task-${id}-${account.userid}@tickler`;
  const offsetMinutes = utcOffsetMinutes(account.prefs);
  return calendarText(
    tasks.map((t) => {
      const row = rows.get(t.id);
      const kept = row && row.kept !== '' ? (JSON.parse(row.kept) as KeptIcal) : NOTHING_KEPT;
      const folder = folders.get(t.folder);
      const ctx = { uid: uid(t.id), parentUid: t.parent === 0 ? undefined : uid(t.parent), kept, offsetMinutes, moreCategories: folder === undefined ? [] : [folder] };
      return { task: t, ctx };
    }),
  );
}
