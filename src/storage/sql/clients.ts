import type { Client, ClientChanges, ClientIcon, ClientsRepo, NewClient } from '../store.js';
import { matchable, translateUnique, type Dialect, type SqlDb } from './db.js';

interface ClientRow {
  pk: number;
  client_id: string;
  secret_hash: string;
  name: string;
  website: string | null;
  owner_pk: number | null;
  icon_updated_at: number | null;
  created_at: number;
}

const COLUMNS = 'c.pk, c.client_id, c.secret_hash, c.name, c.website, c.owner_pk, i.updated_at AS icon_updated_at, c.created_at';
const FROM = 'clients c LEFT JOIN client_icons i ON i.client_pk = c.pk';

function toClient(r: ClientRow, redirectUris: readonly string[]): Client {
  return {
    pk: r.pk,
    clientId: r.client_id,
    secretHash: r.secret_hash,
    name: r.name,
    redirectUris,
    website: r.website,
    ownerPk: r.owner_pk,
    iconUpdatedAt: r.icon_updated_at,
    createdAt: r.created_at,
  };
}

export class SqlClients implements ClientsRepo {
  constructor(
    private readonly db: SqlDb,
    private readonly dialect: Dialect,
  ) {}

  async create(n: NewClient): Promise<Client> {
    const row = await translateUnique(this.dialect, { client_id: 'client_id' }, () =>
      this.db.get<{ pk: number }>(
        'INSERT INTO clients (client_id, secret_hash, name, website, owner_pk, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING pk',
        n.clientId,
        n.secretHash,
        n.name,
        n.website ?? null,
        n.ownerPk ?? null,
        n.createdAt,
      ),
    );
    const pk = (row as { pk: number }).pk;
    await this.writeRedirects(pk, n.redirectUris);
    return (await this.get(pk)) as Client;
  }

  /** Replaces the app's addresses, keeping their order. */
  private async writeRedirects(pk: number, uris: readonly string[]): Promise<void> {
    await this.db.run('DELETE FROM client_redirects WHERE client_pk = ?', pk);
    for (const [position, uri] of uris.entries()) {
      await this.db.run('INSERT INTO client_redirects (client_pk, position, uri) VALUES (?, ?, ?)', pk, position, uri);
    }
  }

  private async redirectsOf(pks: readonly number[]): Promise<Map<number, string[]>> {
    const out = new Map<number, string[]>(pks.map((pk) => [pk, []]));
    if (pks.length === 0) return out;
    const rows =
      pks.length === 1
        ? await this.db.all<{ client_pk: number; uri: string }>('SELECT client_pk, uri FROM client_redirects WHERE client_pk = ? ORDER BY position', pks[0] as number)
        : await this.db.all<{ client_pk: number; uri: string }>('SELECT client_pk, uri FROM client_redirects ORDER BY client_pk, position');
    for (const r of rows) out.get(r.client_pk)?.push(r.uri);
    return out;
  }

  private async withRedirects(rows: ClientRow[]): Promise<Client[]> {
    const redirects = await this.redirectsOf(rows.map((r) => r.pk));
    return rows.map((r) => toClient(r, redirects.get(r.pk) ?? []));
  }

  async byClientId(clientId: string): Promise<Client | null> {
    if (!matchable(clientId)) return null;
    const row = await this.db.get<ClientRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE c.client_id = ?`, clientId);
    return row ? ((await this.withRedirects([row]))[0] as Client) : null;
  }

  async get(pk: number): Promise<Client | null> {
    const row = await this.db.get<ClientRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE c.pk = ?`, pk);
    return row ? ((await this.withRedirects([row]))[0] as Client) : null;
  }

  async list(ownerPk?: number): Promise<Client[]> {
    const rows =
      ownerPk === undefined
        ? await this.db.all<ClientRow>(`SELECT ${COLUMNS} FROM ${FROM} ORDER BY c.pk`)
        : await this.db.all<ClientRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE c.owner_pk = ? ORDER BY c.pk`, ownerPk);
    return this.withRedirects(rows);
  }

  async update(pk: number, c: ClientChanges): Promise<Client | null> {
    const sets: string[] = [];
    const values: Array<string | null> = [];
    if (c.name !== undefined) (sets.push('name = ?'), values.push(c.name));
    if (c.website !== undefined) (sets.push('website = ?'), values.push(c.website));
    if (c.secretHash !== undefined) (sets.push('secret_hash = ?'), values.push(c.secretHash));
    if (sets.length > 0 && (await this.db.run(`UPDATE clients SET ${sets.join(', ')} WHERE pk = ?`, ...values, pk)) === 0) return null;
    if (c.redirectUris !== undefined) await this.writeRedirects(pk, c.redirectUris);
    return this.get(pk);
  }

  async delete(pk: number): Promise<boolean> {
    return (await this.db.run('DELETE FROM clients WHERE pk = ?', pk)) > 0;
  }

  async icon(pk: number): Promise<ClientIcon | null> {
    const r = await this.db.get<{ media_type: string; data: string; updated_at: number }>(
      'SELECT media_type, data, updated_at FROM client_icons WHERE client_pk = ?',
      pk,
    );
    return r ? { mediaType: r.media_type, data: Buffer.from(r.data, 'base64'), updatedAt: r.updated_at } : null;
  }

  async setIcon(pk: number, icon: ClientIcon | null): Promise<void> {
    if (icon === null) {
      await this.db.run('DELETE FROM client_icons WHERE client_pk = ?', pk);
      return;
    }
    await this.db.run(
      `INSERT INTO client_icons (client_pk, media_type, data, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (client_pk) DO UPDATE SET media_type = excluded.media_type, data = excluded.data, updated_at = excluded.updated_at`,
      pk,
      icon.mediaType,
      icon.data.toString('base64'),
      icon.updatedAt,
    );
  }
}
