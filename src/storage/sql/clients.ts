import type { Client, ClientsRepo, NewClient } from '../store.js';
import { matchable, translateUnique, type Dialect, type SqlDb } from './db.js';

interface ClientRow {
  pk: number;
  client_id: string;
  secret_hash: string;
  name: string;
  redirect_uri: string;
  created_at: number;
}

const COLUMNS = 'pk, client_id, secret_hash, name, redirect_uri, created_at';

function toClient(r: ClientRow): Client {
  return { pk: r.pk, clientId: r.client_id, secretHash: r.secret_hash, name: r.name, redirectUri: r.redirect_uri, createdAt: r.created_at };
}

export class SqlClients implements ClientsRepo {
  constructor(
    private readonly db: SqlDb,
    private readonly dialect: Dialect,
  ) {}

  async create(n: NewClient): Promise<Client> {
    const row = await translateUnique(this.dialect, { client_id: 'client_id' }, () =>
      this.db.get<ClientRow>(
        `INSERT INTO clients (client_id, secret_hash, name, redirect_uri, created_at) VALUES (?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
        n.clientId,
        n.secretHash,
        n.name,
        n.redirectUri,
        n.createdAt,
      ),
    );
    return toClient(row as ClientRow);
  }

  async byClientId(clientId: string): Promise<Client | null> {
    if (!matchable(clientId)) return null;
    const row = await this.db.get<ClientRow>(`SELECT ${COLUMNS} FROM clients WHERE client_id = ?`, clientId);
    return row ? toClient(row) : null;
  }

  async get(pk: number): Promise<Client | null> {
    const row = await this.db.get<ClientRow>(`SELECT ${COLUMNS} FROM clients WHERE pk = ?`, pk);
    return row ? toClient(row) : null;
  }

  async list(): Promise<Client[]> {
    return (await this.db.all<ClientRow>(`SELECT ${COLUMNS} FROM clients ORDER BY pk`)).map(toClient);
  }
}
