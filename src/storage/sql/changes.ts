import { CHANGE_KINDS, type ChangeKind, type ChangePosition, type ChangeRange, type ChangesRepo, type FolderMember, type LoggedChange } from '../changes-port.js';
import { textList, type Dialect, type SqlDb } from './db.js';

/**
 * The change log (changes-port.ts), read here; the database's triggers write it (migration 17).
 * Reads go along `changes_by_seq` and `task_folder_exits_by_seq`: one change at 80,000 tasks costs
 * what it costs at 100.
 */
export class SqlChanges implements ChangesRepo {
  constructor(
    private readonly db: SqlDb,
    private readonly dialect: Dialect,
  ) {}

  async position(userPk: number): Promise<ChangePosition | null> {
    const r = await this.db.getRaw('SELECT change_seq, changes_floor FROM accounts WHERE pk = ?', userPk);
    return r ? { seq: r[0] as number, floor: r[1] as number } : null;
  }

  async since(userPk: number, range: ChangeRange): Promise<LoggedChange[]> {
    const every = CHANGE_KINDS.every((k) => range.kinds.includes(k));
    if (range.kinds.length === 0 || range.limit <= 0) return [];
    const rows = await this.db.allRaw(
      `SELECT seq, kind, rec_id, gone FROM changes WHERE user_pk = ? AND seq > ? AND seq <= ?${range.live ? ' AND gone = 0' : ''}` +
        `${every ? '' : ` AND ${this.dialect.inTextList('kind')}`} ORDER BY seq LIMIT ?`,
      userPk,
      range.after,
      range.upTo,
      ...(every ? [] : [textList(range.kinds)]),
      range.limit,
    );
    return rows.map((r) => ({ seq: r[0] as number, kind: r[1] as ChangeKind, id: r[2] as string, gone: r[3] === 1 }));
  }

  async folderSince(userPk: number, folder: number, after: number, upTo: number): Promise<{ members: FolderMember[]; left: FolderMember[] }> {
    const members = await this.db.allRaw(
      `SELECT t.id, c.seq FROM changes c JOIN tasks t ON t.user_pk = c.user_pk AND t.id = CAST(c.rec_id AS INTEGER)
       WHERE c.user_pk = ? AND c.seq > ? AND c.seq <= ? AND c.kind = 'task' AND c.gone = 0 AND t.folder = ? ORDER BY c.seq`,
      userPk,
      after,
      upTo,
      folder,
    );
    const left = await this.db.allRaw(
      `SELECT e.task_id, e.seq FROM task_folder_exits e
       WHERE e.user_pk = ? AND e.folder = ? AND e.seq > ? AND e.seq <= ?
         AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.user_pk = e.user_pk AND t.id = e.task_id AND t.folder = e.folder)
       ORDER BY e.seq`,
      userPk,
      folder,
      after,
      upTo,
    );
    const member = (r: unknown[]): FolderMember => ({ id: r[0] as number, seq: r[1] as number });
    return { members: members.map(member), left: left.map(member) };
  }

  async taskPositions(userPk: number, taskIds: readonly number[]): Promise<Map<number, number>> {
    if (taskIds.length === 0) return new Map();
    // One lookup by the whole primary key per task, whatever the planner knows of the table.
    const rows = await this.db.allRaw(
      `SELECT x.v, (SELECT c.seq FROM changes c WHERE c.user_pk = ? AND c.kind = 'task' AND c.rec_id = x.v) FROM ${this.dialect.textTable('x')}`,
      userPk,
      textList(taskIds.map(String)),
    );
    return new Map(rows.flatMap((r) => (r[1] === null || r[1] === undefined ? [] : [[Number(r[0]), Number(r[1])] as [number, number]])));
  }

  async kindsSince(userPk: number, after: number, upTo: number): Promise<ChangeKind[]> {
    if (upTo <= after) return [];
    const rows = await this.db.allRaw('SELECT DISTINCT kind FROM changes WHERE user_pk = ? AND seq > ? AND seq <= ?', userPk, after, upTo);
    const found = new Set(rows.map((r) => r[0] as string));
    return CHANGE_KINDS.filter((k) => found.has(k));
  }

  async folderMembers(userPk: number, folder: number): Promise<FolderMember[]> {
    const rows = await this.db.allRaw(
      `SELECT t.id, c.seq FROM tasks t JOIN changes c ON c.user_pk = t.user_pk AND c.kind = 'task' AND c.rec_id = CAST(t.id AS TEXT)
       WHERE t.user_pk = ? AND t.folder = ? ORDER BY t.id`,
      userPk,
      folder,
    );
    return rows.map((r) => ({ id: r[0] as number, seq: r[1] as number }));
  }

  async prune(before: number): Promise<number> {
    // The floor first, from what is about to go, in the same transaction as the deletes.
    await this.db.run(
      `UPDATE accounts SET changes_floor = p.top FROM (
         SELECT user_pk, max(seq) AS top FROM (
           SELECT user_pk, seq FROM changes WHERE gone = 1 AND at < ?
           UNION ALL SELECT user_pk, seq FROM task_folder_exits WHERE at < ?
         ) x GROUP BY user_pk
       ) p WHERE accounts.pk = p.user_pk AND p.top > accounts.changes_floor`,
      before,
      before,
    );
    const gone = await this.db.run('DELETE FROM changes WHERE gone = 1 AND at < ?', before);
    const exits = await this.db.run('DELETE FROM task_folder_exits WHERE at < ?', before);
    return gone + exits;
  }
}
