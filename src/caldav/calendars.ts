import type { Deps } from '../deps.js';

/**
 * The calendars of an account (docs/caldav.md): one per folder that is not archived, named after
 * it, and one for the tasks without a folder. A calendar's path segment is the one its client
 * chose when it made it (MKCALENDAR), else one of Tickler's own.
 */

export interface Calendar {
  /** The folder (0: the tasks without one). */
  readonly folder: number;
  readonly segment: string;
  readonly displayName: string;
  /** Properties clients set and Tickler keeps: XML text by `{namespace}name`. */
  readonly props: Readonly<Record<string, string>>;
}

/** Where a calendar's path segment is kept among its kept properties. */
export const SEGMENT_KEY = '@segment';
/** Where the name a client gave the calendar of tasks without a folder is kept (the others' are their folders'). */
export const NAME_KEY = '@displayname';
export const UNFILED_SEGMENT = 'tasks';
export const UNFILED_NAME = 'Tasks';

const defaultSegment = (folder: number): string => (folder === 0 ? UNFILED_SEGMENT : `folder-${folder}`);

/** Every calendar of the account, the one without a folder first, then the folders in their order. */
export async function listCalendars(deps: Deps, userPk: number): Promise<Calendar[]> {
  const [folders, kept] = await Promise.all([deps.store.read.organizers.list(userPk, 'folder'), deps.store.read.caldav.calendarProps(userPk)]);
  const calendar = (folder: number, displayName: string): Calendar => {
    const { [SEGMENT_KEY]: segment, [NAME_KEY]: name, ...props } = kept.get(folder) ?? {};
    return { folder, segment: segment ?? defaultSegment(folder), displayName: name ?? displayName, props };
  };
  return [calendar(0, UNFILED_NAME), ...folders.filter((f) => f.archived === 0).map((f) => calendar(f.id, f.name))];
}

/** The calendar at a path segment, if the account has one there. */
export async function calendarAt(deps: Deps, userPk: number, segment: string): Promise<Calendar | undefined> {
  return (await listCalendars(deps, userPk)).find((c) => c.segment === segment);
}
