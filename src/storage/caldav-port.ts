/**
 * The CalDAV part of the storage port (docs/caldav.md): what a calendar object keeps beside its
 * task (the resource name and UID its client chose, and what of its VTODO Tickler does not model),
 * and the properties clients set on calendars. A task without an object row has names of
 * Tickler's own; a row outlives its task for as long as the task's exit from its folder is logged,
 * so that a calendar can report the name gone.
 */

export interface CalendarObject {
  readonly taskId: number;
  /** The resource's name in its calendar ("…ics"), as the client chose it. */
  readonly name: string;
  readonly uid: string;
  /** What Tickler keeps of the VTODO unmodelled (src/ical/vtodo-model.ts KeptIcal, as JSON); '' for nothing. */
  readonly kept: string;
}

export interface CaldavRepo {
  /** The rows of these tasks, whether or not the tasks still exist. */
  objectsOf(userPk: number, taskIds: readonly number[]): Promise<Map<number, CalendarObject>>;
  byName(userPk: number, name: string): Promise<CalendarObject | null>;
  /** byName() of many names in one read: name → row; names no row holds are absent. */
  byNames(userPk: number, names: readonly string[]): Promise<Map<string, CalendarObject>>;
  byUid(userPk: number, uid: string): Promise<CalendarObject | null>;
  /**
   * Stores the task's row (replacing its own), first removing the rows of tasks that no longer
   * exist which hold the same name or UID (a client that deleted an object and makes it again).
   */
  put(userPk: number, object: CalendarObject): Promise<void>;
  /** Forgets the rows of tasks that no longer exist and whose exit from their folder is no longer logged; returns how many. */
  prune(): Promise<number>;
  /** The properties kept for each calendar (folder; 0 for the tasks without one): XML text by property. */
  calendarProps(userPk: number): Promise<Map<number, Readonly<Record<string, string>>>>;
  setCalendarProps(userPk: number, folder: number, props: Readonly<Record<string, string>>): Promise<void>;
}
