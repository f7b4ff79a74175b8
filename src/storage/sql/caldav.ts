import type { CaldavRepo, CalendarObject } from '../caldav-port.js';
import { idList, matchable, textList, type Dialect, type SqlDb } from './db.js';

const COLUMNS = 'task_id, name, uid, kept';

function toObject(r: unknown[]): CalendarObject {
  return { taskId: r[0] as number, name: r[1] as string, uid: r[2] as string, kept: r[3] as string };
}

/** Rows whose task is gone: a new object may take their name or UID. */
const DEAD = 'NOT EXISTS (SELECT 1 FROM tasks t WHERE t.user_pk = caldav_objects.user_pk AND t.id = caldav_objects.task_id)';

export class SqlCaldav implements CaldavRepo {
  constructor(
    private readonly db: SqlDb,
    private readonly dialect: Dialect,
  ) {}

  async objectsOf(userPk: number, taskIds: readonly number[]): Promise<Map<number, CalendarObject>> {
    if (taskIds.length === 0) return new Map();
    const rows = await this.db.allRaw(`SELECT ${COLUMNS} FROM caldav_objects WHERE user_pk = ? AND ${this.dialect.inIdList('task_id')}`, userPk, idList(taskIds));
    return new Map(rows.map((r) => [r[0] as number, toObject(r)]));
  }

  async byName(userPk: number, name: string): Promise<CalendarObject | null> {
    if (!matchable(name)) return null;
    const r = await this.db.getRaw(`SELECT ${COLUMNS} FROM caldav_objects WHERE user_pk = ? AND name = ?`, userPk, name);
    return r ? toObject(r) : null;
  }

  async byNames(userPk: number, names: readonly string[]): Promise<Map<string, CalendarObject>> {
    const asked = names.filter(matchable);
    if (asked.length === 0) return new Map();
    const rows = await this.db.allRaw(`SELECT ${COLUMNS} FROM caldav_objects WHERE user_pk = ? AND ${this.dialect.inTextList('name')}`, userPk, textList(asked));
    return new Map(rows.map((r) => [r[1] as string, toObject(r)]));
  }

  async byUid(userPk: number, uid: string): Promise<CalendarObject | null> {
    if (!matchable(uid)) return null;
    const r = await this.db.getRaw(`SELECT ${COLUMNS} FROM caldav_objects WHERE user_pk = ? AND uid = ?`, userPk, uid);
    return r ? toObject(r) : null;
  }

  async put(userPk: number, o: CalendarObject): Promise<void> {
    await this.db.run(`DELETE FROM caldav_objects WHERE user_pk = ? AND task_id <> ? AND (name = ? OR uid = ?) AND ${DEAD}`, userPk, o.taskId, o.name, o.uid);
    await this.db.run(
      `INSERT INTO caldav_objects (user_pk, ${COLUMNS}) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (user_pk, task_id) DO UPDATE SET name = excluded.name, uid = excluded.uid, kept = excluded.kept`,
      userPk,
      o.taskId,
      o.name,
      o.uid,
      o.kept,
    );
  }

  async prune(): Promise<number> {
    return this.db.run(
      `DELETE FROM caldav_objects WHERE ${DEAD}
         AND NOT EXISTS (SELECT 1 FROM task_folder_exits e WHERE e.user_pk = caldav_objects.user_pk AND e.task_id = caldav_objects.task_id)`,
    );
  }

  async calendarProps(userPk: number): Promise<Map<number, Readonly<Record<string, string>>>> {
    const rows = await this.db.allRaw('SELECT folder, props FROM caldav_calendars WHERE user_pk = ?', userPk);
    return new Map(rows.map((r) => [r[0] as number, JSON.parse(r[1] as string) as Record<string, string>]));
  }

  async setCalendarProps(userPk: number, folder: number, props: Readonly<Record<string, string>>): Promise<void> {
    if (Object.keys(props).length === 0) {
      await this.db.run('DELETE FROM caldav_calendars WHERE user_pk = ? AND folder = ?', userPk, folder);
      return;
    }
    await this.db.run(
      'INSERT INTO caldav_calendars (user_pk, folder, props) VALUES (?, ?, ?) ON CONFLICT (user_pk, folder) DO UPDATE SET props = excluded.props',
      userPk,
      folder,
      JSON.stringify(props),
    );
  }
}
