import type { Attachment, AttachmentKind, AttachmentsRepo, DocumentId } from '../store.js';
import { textList, type Dialect, type SqlDb } from './db.js';
import { CHUNK, idFilters, padded } from './id-filter.js';

/** The table of each kind a task can link to, for the linked record's title. */
const TITLES: Readonly<Record<AttachmentKind, string>> = { note: 'notes', outline: 'outlines', list: 'lists' };

export class SqlAttachments implements AttachmentsRepo {
  constructor(
    private readonly db: SqlDb,
    private readonly dialect: Dialect,
  ) {}

  async forTasks(userPk: number, taskIds: readonly number[]): Promise<Map<number, Attachment[]>> {
    const out = new Map<number, Attachment[]>();
    if (taskIds.length === 0) return out;
    const wanted = new Set(taskIds);
    const links: Array<{ task_id: number; kind: AttachmentKind; target: string }> = [];
    for (const f of idFilters('task_id', taskIds)) {
      const rows = await this.db.all<{ task_id: number; kind: AttachmentKind; target: string }>(
        `SELECT task_id, kind, target FROM task_attachments WHERE user_pk = ? AND ${f.where} ORDER BY task_id, seq`,
        userPk,
        ...f.params,
      );
      for (const r of rows) if (wanted.has(Number(r.task_id))) links.push(r);
    }
    if (links.length === 0) return out;
    // Titles are read per kind, for the linked records only: links are few, records may be many.
    const titles = new Map<string, string>();
    for (const kind of Object.keys(TITLES) as AttachmentKind[]) {
      const targets = [...new Set(links.filter((l) => l.kind === kind).map((l) => l.target))];
      for (let i = 0; i < targets.length; i += CHUNK) {
        const part = targets.slice(i, i + CHUNK);
        const ids: Array<string | number> = padded<string | number>(kind === 'note' ? part.map(Number) : part);
        const rows = await this.db.all<{ id: DocumentId; title: string }>(
          `SELECT id, title FROM ${TITLES[kind]} WHERE user_pk = ? AND id IN (${ids.map(() => '?').join(', ')})`,
          userPk,
          ...ids,
        );
        for (const r of rows) titles.set(`${kind}:${String(r.id)}`, r.title);
      }
    }
    for (const l of links) {
      const name = titles.get(`${l.kind}:${l.target}`);
      // A link always names a live record (deleting one removes its links); skip one that does not.
      if (name === undefined) continue;
      const list = out.get(Number(l.task_id)) ?? [];
      list.push({ kind: l.kind, id: l.kind === 'note' ? Number(l.target) : l.target, name });
      out.set(Number(l.task_id), list);
    }
    return out;
  }

  async link(userPk: number, taskId: number, kind: AttachmentKind, id: DocumentId): Promise<boolean> {
    const next = await this.db.get<{ n: number }>('SELECT COALESCE(max(seq), 0) + 1 AS n FROM task_attachments WHERE user_pk = ? AND task_id = ?', userPk, taskId);
    const added = await this.db.run(
      `INSERT INTO task_attachments (user_pk, task_id, kind, target, seq) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (user_pk, task_id, kind, target) DO NOTHING`,
      userPk,
      taskId,
      kind,
      String(id),
      Number(next?.n ?? 1),
    );
    return added > 0;
  }

  async unlink(userPk: number, taskId: number, kind: AttachmentKind, id: DocumentId): Promise<boolean> {
    return (await this.db.run('DELETE FROM task_attachments WHERE user_pk = ? AND task_id = ? AND kind = ? AND target = ?', userPk, taskId, kind, String(id))) > 0;
  }

  async count(userPk: number, taskId: number): Promise<number> {
    return Number((await this.db.get<{ n: number }>('SELECT count(*) AS n FROM task_attachments WHERE user_pk = ? AND task_id = ?', userPk, taskId))?.n ?? 0);
  }

  async isLinked(userPk: number, kind: AttachmentKind, id: DocumentId): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS x FROM task_attachments WHERE user_pk = ? AND kind = ? AND target = ? LIMIT 1', userPk, kind, String(id))) !== undefined;
  }

  async linkedOf(userPk: number, kind: AttachmentKind, ids: readonly DocumentId[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    // Targets are kept as text, note ids too.
    const rows = await this.db.allRaw(
      `SELECT DISTINCT target FROM task_attachments WHERE user_pk = ? AND kind = ? AND ${this.dialect.inTextList('target')}`,
      userPk,
      kind,
      textList(ids.map(String)),
    );
    return new Set(rows.map(([target]) => String(target)));
  }

  async removeTarget(userPk: number, kind: AttachmentKind, id: DocumentId, stamp: number): Promise<number> {
    const changed = await this.db.run(
      `UPDATE tasks SET modified = ? WHERE user_pk = ? AND id IN (SELECT task_id FROM task_attachments WHERE user_pk = ? AND kind = ? AND target = ?)`,
      stamp,
      userPk,
      userPk,
      kind,
      String(id),
    );
    await this.db.run('DELETE FROM task_attachments WHERE user_pk = ? AND kind = ? AND target = ?', userPk, kind, String(id));
    return changed;
  }
}
