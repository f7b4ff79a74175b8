import type { Client, ClientsRepo, NewClient } from '../store.js';
import { translateUnique, type Conn } from './connection.js';

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
  return {
    pk: r.pk,
    clientId: r.client_id,
    secretHash: r.secret_hash,
    name: r.name,
    redirectUri: r.redirect_uri,
    createdAt: r.created_at,
  };
}

export class SqliteClients implements ClientsRepo {
  constructor(private readonly c: Conn) {}

  async create(n: NewClient): Promise<Client> {
    const row = translateUnique({ 'clients.client_id': 'client_id' }, () =>
      this.c.get<ClientRow>(
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
    const row = this.c.get<ClientRow>(`SELECT ${COLUMNS} FROM clients WHERE client_id = ?`, clientId);
    return row ? toClient(row) : null;
  }

  async get(pk: number): Promise<Client | null> {
    const row = this.c.get<ClientRow>(`SELECT ${COLUMNS} FROM clients WHERE pk = ?`, pk);
    return row ? toClient(row) : null;
  }

  async list(): Promise<Client[]> {
    return this.c.all<ClientRow>(`SELECT ${COLUMNS} FROM clients ORDER BY pk`).map(toClient);
  }
}
