import type { Collaboration, SavedSearch, Share, ShareMember, SharingRepo, TaskSharing } from '../sharing-port.js';
import type { Dialect, SqlDb } from './db.js';
import { idFilters } from './id-filter.js';

interface CollaborationRow {
  other_pk: number;
  userid: string;
  alias: string;
  state: Collaboration['state'];
  allow_reassign: number;
  allow_share: number;
  other_reassign: number;
  other_share: number;
}

const COLLABORATION = `SELECT c.other_pk, a.userid, a.alias, c.state, c.allow_reassign, c.allow_share,
    o.allow_reassign AS other_reassign, o.allow_share AS other_share
  FROM collaborators c
  JOIN collaborators o ON o.user_pk = c.other_pk AND o.other_pk = c.user_pk
  JOIN accounts a ON a.pk = c.other_pk
  WHERE c.user_pk = ?`;

function toCollaboration(r: CollaborationRow): Collaboration {
  return {
    otherPk: Number(r.other_pk),
    otherUserid: r.userid,
    otherAlias: r.alias,
    state: r.state,
    allowReassign: Number(r.allow_reassign) === 1,
    allowShare: Number(r.allow_share) === 1,
    otherAllowsReassign: Number(r.other_reassign) === 1,
    otherAllowsShare: Number(r.other_share) === 1,
  };
}

const flag = (b: boolean): number => (b ? 1 : 0);

export class SqlSharing implements SharingRepo {
  constructor(
    private readonly db: SqlDb,
    private readonly dialect: Dialect,
  ) {}

  async collaborations(userPk: number): Promise<Collaboration[]> {
    return (await this.db.all<CollaborationRow>(`${COLLABORATION} ORDER BY a.userid`, userPk)).map(toCollaboration);
  }

  async collaboration(userPk: number, otherPk: number): Promise<Collaboration | null> {
    const row = await this.db.get<CollaborationRow>(`${COLLABORATION} AND c.other_pk = ?`, userPk, otherPk);
    return row ? toCollaboration(row) : null;
  }

  async invite(fromPk: number, toPk: number, allow: { reassign: boolean; share: boolean }, now: number): Promise<void> {
    const sql = 'INSERT INTO collaborators (user_pk, other_pk, state, allow_reassign, allow_share, created_at) VALUES (?, ?, ?, ?, ?, ?)';
    await this.db.run(sql, fromPk, toPk, 'sent', flag(allow.reassign), flag(allow.share), now);
    await this.db.run(sql, toPk, fromPk, 'received', 0, 0, now);
  }

  async accept(userPk: number, otherPk: number, allow: { reassign: boolean; share: boolean }): Promise<boolean> {
    const n = await this.db.run(
      "UPDATE collaborators SET state = 'accepted', allow_reassign = ?, allow_share = ? WHERE user_pk = ? AND other_pk = ? AND state = 'received'",
      flag(allow.reassign),
      flag(allow.share),
      userPk,
      otherPk,
    );
    if (n === 0) return false;
    await this.db.run("UPDATE collaborators SET state = 'accepted' WHERE user_pk = ? AND other_pk = ?", otherPk, userPk);
    return true;
  }

  async setAllowed(userPk: number, otherPk: number, allow: { reassign: boolean; share: boolean }): Promise<boolean> {
    const n = await this.db.run(
      'UPDATE collaborators SET allow_reassign = ?, allow_share = ? WHERE user_pk = ? AND other_pk = ?',
      flag(allow.reassign),
      flag(allow.share),
      userPk,
      otherPk,
    );
    return n > 0;
  }

  async end(userPk: number, otherPk: number): Promise<boolean> {
    const n = await this.db.run(
      'DELETE FROM collaborators WHERE (user_pk = ? AND other_pk = ?) OR (user_pk = ? AND other_pk = ?)',
      userPk,
      otherPk,
      otherPk,
      userPk,
    );
    return n > 0;
  }

  async partners(userPk: number): Promise<number[]> {
    // The first statement of a write call that may reach its partners: it can carry the BEGIN.
    const rows = await this.db.allRawOpening(
      `SELECT other_pk AS pk FROM collaborators WHERE user_pk = ?
       UNION
       SELECT m.user_pk AS pk FROM task_shares mine JOIN task_shares m ON m.share_pk = mine.share_pk WHERE mine.user_pk = ? AND m.user_pk <> ?
       ORDER BY pk`,
      userPk,
      userPk,
      userPk,
    );
    return rows.map((r) => Number(r[0]));
  }

  private async shareByPk(pk: number): Promise<Share | null> {
    const owner = await this.db.get<{ user_pk: number }>('SELECT user_pk FROM shares WHERE pk = ?', pk);
    if (!owner) return null;
    const members = await this.db.all<{ user_pk: number; task_id: number }>(
      'SELECT user_pk, task_id FROM task_shares WHERE share_pk = ? ORDER BY user_pk',
      pk,
    );
    return { pk, ownerPk: Number(owner.user_pk), members: members.map((m) => ({ userPk: Number(m.user_pk), taskId: Number(m.task_id) })) };
  }

  async shareOf(userPk: number, taskId: number): Promise<Share | null> {
    const row = await this.db.get<{ share_pk: number }>('SELECT share_pk FROM task_shares WHERE user_pk = ? AND task_id = ?', userPk, taskId);
    return row ? this.shareByPk(Number(row.share_pk)) : null;
  }

  async sharesOf(userPk: number, taskIds: readonly number[]): Promise<Map<number, Share>> {
    const of = new Map<number, Share>();
    if (taskIds.length === 0) return of;
    // Every copy of each share a task of the list is in, in one read: shareOf() for each.
    const rows = await this.db.allRaw(
      `SELECT mine.task_id, s.pk, s.user_pk, m.user_pk, m.task_id
         FROM task_shares mine JOIN shares s ON s.pk = mine.share_pk JOIN task_shares m ON m.share_pk = mine.share_pk
        WHERE mine.user_pk = ? AND ${this.dialect.inIdList('mine.task_id')}
        ORDER BY mine.task_id, m.user_pk`,
      userPk,
      [...new Set(taskIds.map((id) => Math.trunc(id)))].join(','),
    );
    const members = new Map<number, ShareMember[]>();
    for (const [taskId, pk, ownerPk, memberPk, memberTask] of rows) {
      const id = Number(taskId);
      let list = members.get(id);
      if (!list) {
        members.set(id, (list = []));
        of.set(id, { pk: Number(pk), ownerPk: Number(ownerPk), members: list });
      }
      list.push({ userPk: Number(memberPk), taskId: Number(memberTask) });
    }
    return of;
  }

  async createShare(ownerPk: number, taskId: number): Promise<number> {
    const row = await this.db.get<{ pk: number }>('INSERT INTO shares (user_pk, task_id) VALUES (?, ?) RETURNING pk', ownerPk, taskId);
    const pk = Number((row as { pk: number }).pk);
    await this.addMember(pk, { userPk: ownerPk, taskId });
    return pk;
  }

  async addMember(sharePk: number, m: ShareMember): Promise<void> {
    await this.db.run('INSERT INTO task_shares (user_pk, task_id, share_pk) VALUES (?, ?, ?)', m.userPk, m.taskId, sharePk);
  }

  async removeMember(m: ShareMember): Promise<void> {
    await this.db.run('DELETE FROM task_shares WHERE user_pk = ? AND task_id = ?', m.userPk, m.taskId);
  }

  async dropShare(ownerPk: number, taskId: number): Promise<void> {
    await this.db.run('DELETE FROM shares WHERE user_pk = ? AND task_id = ?', ownerPk, taskId);
  }

  async sharesBetween(ownerPk: number, memberPk: number): Promise<Share[]> {
    const rows = await this.db.all<{ pk: number }>(
      'SELECT s.pk FROM shares s JOIN task_shares m ON m.share_pk = s.pk WHERE s.user_pk = ? AND m.user_pk = ? ORDER BY s.pk',
      ownerPk,
      memberPk,
    );
    const out: Share[] = [];
    for (const r of rows) {
      const share = await this.shareByPk(Number(r.pk));
      if (share) out.push(share);
    }
    return out;
  }

  async forTasks(userPk: number, ids: readonly number[]): Promise<Map<number, TaskSharing>> {
    const out = new Map<number, { owner?: string; with?: string[]; addedby?: string }>();
    const wanted = new Set(ids);
    for (const f of idFilters('mine.task_id', ids)) {
      // Every participant of this account's shared tasks, with the owner's userid: one read per page.
      const rows = await this.db.all<{ task_id: number; other: string; owner: string; other_pk: number; owner_pk: number }>(
        `SELECT mine.task_id, a.userid AS other, oa.userid AS owner, m.user_pk AS other_pk, s.user_pk AS owner_pk
         FROM task_shares mine
         JOIN shares s ON s.pk = mine.share_pk
         JOIN accounts oa ON oa.pk = s.user_pk
         JOIN task_shares m ON m.share_pk = mine.share_pk
         JOIN accounts a ON a.pk = m.user_pk
         WHERE mine.user_pk = ? AND ${f.where}
         ORDER BY mine.task_id, a.pk`,
        userPk,
        ...f.params,
      );
      for (const r of rows) {
        const id = Number(r.task_id);
        if (!wanted.has(id)) continue;
        const entry = out.get(id) ?? { with: [] };
        entry.owner = r.owner;
        if (Number(r.other_pk) !== userPk && Number(r.other_pk) !== Number(r.owner_pk)) entry.with?.push(r.other);
        out.set(id, entry);
      }
    }
    for (const f of idFilters('b.task_id', ids)) {
      const added = await this.db.all<{ task_id: number; userid: string }>(
        `SELECT b.task_id, a.userid FROM task_added_by b JOIN accounts a ON a.pk = b.by_pk WHERE b.user_pk = ? AND ${f.where}`,
        userPk,
        ...f.params,
      );
      for (const r of added) {
        const id = Number(r.task_id);
        if (wanted.has(id)) out.set(id, { ...out.get(id), addedby: r.userid });
      }
    }
    return out;
  }

  async setAddedBy(userPk: number, taskId: number, byPk: number): Promise<void> {
    await this.db.run(
      'INSERT INTO task_added_by (user_pk, task_id, by_pk) VALUES (?, ?, ?) ON CONFLICT (user_pk, task_id) DO UPDATE SET by_pk = excluded.by_pk',
      userPk,
      taskId,
      byPk,
    );
  }

  async searches(userPk: number): Promise<SavedSearch[]> {
    return (await this.db.all<SavedSearch>('SELECT id, name, bool, rules, modified FROM saved_searches WHERE user_pk = ? ORDER BY id', userPk)).map(toSearch);
  }

  async search(userPk: number, id: number): Promise<SavedSearch | null> {
    const row = await this.db.get<SavedSearch>('SELECT id, name, bool, rules, modified FROM saved_searches WHERE user_pk = ? AND id = ?', userPk, id);
    return row ? toSearch(row) : null;
  }

  async addSearch(userPk: number, s: Omit<SavedSearch, 'id'>): Promise<number> {
    const row = await this.db.get<{ id: number }>(
      'INSERT INTO saved_searches (user_pk, name, bool, rules, modified) VALUES (?, ?, ?, ?, ?) RETURNING id',
      userPk,
      s.name,
      s.bool,
      s.rules,
      s.modified,
    );
    return Number((row as { id: number }).id);
  }

  async updateSearch(userPk: number, s: SavedSearch): Promise<boolean> {
    return (
      (await this.db.run('UPDATE saved_searches SET name = ?, bool = ?, rules = ?, modified = ? WHERE user_pk = ? AND id = ?', s.name, s.bool, s.rules, s.modified, userPk, s.id)) > 0
    );
  }

  async deleteSearch(userPk: number, id: number): Promise<boolean> {
    return (await this.db.run('DELETE FROM saved_searches WHERE user_pk = ? AND id = ?', userPk, id)) > 0;
  }

  async countSearches(userPk: number): Promise<number> {
    return Number((await this.db.get<{ n: number }>('SELECT count(*) AS n FROM saved_searches WHERE user_pk = ?', userPk))?.n ?? 0);
  }
}

function toSearch(r: SavedSearch): SavedSearch {
  return { id: Number(r.id), name: r.name, bool: r.bool, rules: r.rules, modified: Number(r.modified) };
}
