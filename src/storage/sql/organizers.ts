import type { OrganizerKind, OrganizersRepo, OrganizerTypes } from '../store.js';
import { nameKey } from '../../lib/text.js';
import { translateUnique, type Dialect, type SqlDb } from './db.js';

/** Table and columns of each kind; column names equal the record's field names. */
const KINDS: Record<OrganizerKind, { table: string; columns: readonly string[]; order: string }> = {
  folder: { table: 'folders', columns: ['id', 'name', 'private', 'archived', 'ord'], order: 'ord, id' },
  context: { table: 'contexts', columns: ['id', 'name', 'private'], order: 'id' },
  goal: { table: 'goals', columns: ['id', 'name', 'level', 'contributes', 'archived', 'private', 'note'], order: 'id' },
  location: { table: 'locations', columns: ['id', 'name', 'description', 'lat', 'lon'], order: 'id' },
};

function kindOf(kind: OrganizerKind): (typeof KINDS)[OrganizerKind] {
  const k = KINDS[kind];
  if (!k) throw new Error(`unknown organizer kind ${String(kind)}`);
  return k;
}

export class SqlOrganizers implements OrganizersRepo {
  constructor(
    private readonly db: SqlDb,
    private readonly dialect: Dialect,
  ) {}

  async list<K extends OrganizerKind>(userPk: number, kind: K): Promise<Array<OrganizerTypes[K]>> {
    const k = kindOf(kind);
    return this.db.all<OrganizerTypes[K]>(`SELECT ${k.columns.join(', ')} FROM ${k.table} WHERE user_pk = ? ORDER BY ${k.order}`, userPk);
  }

  async get<K extends OrganizerKind>(userPk: number, kind: K, id: number): Promise<OrganizerTypes[K] | null> {
    const k = kindOf(kind);
    return (await this.db.get<OrganizerTypes[K]>(`SELECT ${k.columns.join(', ')} FROM ${k.table} WHERE user_pk = ? AND id = ?`, userPk, id)) ?? null;
  }

  async exists(userPk: number, kind: OrganizerKind, id: number): Promise<boolean> {
    return (await this.db.get(`SELECT 1 AS x FROM ${kindOf(kind).table} WHERE user_pk = ? AND id = ?`, userPk, id)) !== undefined;
  }

  async count(userPk: number, kind: OrganizerKind): Promise<number> {
    return Number(((await this.db.get<{ n: number }>(`SELECT count(*) AS n FROM ${kindOf(kind).table} WHERE user_pk = ?`, userPk)) as { n: number }).n);
  }

  async nextFolderOrd(userPk: number): Promise<number> {
    return Number(((await this.db.get<{ n: number }>('SELECT COALESCE(max(ord), 0) + 1 AS n FROM folders WHERE user_pk = ?', userPk)) as { n: number }).n);
  }

  // name_key is derived here, from the name being written, so no caller can store a key that does not match it.
  async insert<K extends OrganizerKind>(userPk: number, kind: K, record: OrganizerTypes[K]): Promise<void> {
    const k = kindOf(kind);
    const fields = record as unknown as Record<string, string | number>;
    await translateUnique(this.dialect, { name_key: 'name' }, () =>
      this.db.run(
        `INSERT INTO ${k.table} (user_pk, name_key, ${k.columns.join(', ')}) VALUES (?, ?, ${k.columns.map(() => '?').join(', ')})`,
        userPk,
        nameKey(record.name),
        ...k.columns.map((c) => fields[c] as string | number),
      ),
    );
  }

  async update<K extends OrganizerKind>(userPk: number, kind: K, record: OrganizerTypes[K]): Promise<void> {
    const k = kindOf(kind);
    const fields = record as unknown as Record<string, string | number>;
    const settable = k.columns.filter((c) => c !== 'id');
    await translateUnique(this.dialect, { name_key: 'name' }, () =>
      this.db.run(
        `UPDATE ${k.table} SET name_key = ?, ${settable.map((c) => `${c} = ?`).join(', ')} WHERE user_pk = ? AND id = ?`,
        nameKey(record.name),
        ...settable.map((c) => fields[c] as string | number),
        userPk,
        fields['id'] as number,
      ),
    );
  }

  async remove(userPk: number, kind: OrganizerKind, id: number): Promise<boolean> {
    return (await this.db.run(`DELETE FROM ${kindOf(kind).table} WHERE user_pk = ? AND id = ?`, userPk, id)) > 0;
  }

  async clearContributions(userPk: number, goalId: number, maxLevel?: number): Promise<number> {
    const sql = 'UPDATE goals SET contributes = 0 WHERE user_pk = ? AND contributes = ?';
    return maxLevel === undefined ? this.db.run(sql, userPk, goalId) : this.db.run(`${sql} AND level <= ?`, userPk, goalId, maxLevel);
  }
}
