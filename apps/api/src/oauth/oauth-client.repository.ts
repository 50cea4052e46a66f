import { Injectable } from '@nestjs/common';
import type { Scope } from '@app/common';
import { Sql, SqlStatement, SqlStatements } from '@app/database';

/** An OAuth client as stored; `secretHash` is null for a public client. */
export interface OAuthClientRecord {
  id: string;
  ownerId: string;
  name: string;
  redirectUris: string[];
  scopes: Scope[];
  confidential: boolean;
  secretHash: string | null;
  createdAt: Date;
}

interface OAuthClientRow {
  id: string;
  owner_id: string;
  name: string;
  redirect_uris: string[];
  scopes: Scope[];
  confidential: boolean;
  secret_hash: string | null;
  created_at: Date;
}

const toRecord = (row: OAuthClientRow): OAuthClientRecord => ({
  id: row.id,
  ownerId: row.owner_id,
  name: row.name,
  redirectUris: row.redirect_uris,
  scopes: row.scopes,
  confidential: row.confidential,
  secretHash: row.secret_hash,
  createdAt: row.created_at,
});

const COLUMNS = 'id, owner_id, name, redirect_uris, scopes, confidential, secret_hash, created_at';

/** The statements of OAuthClientRepository, by name. */
export const OAUTH_CLIENT_SQL = {
  insert: (client: Omit<OAuthClientRecord, 'createdAt'>): SqlStatement => ({
    text: `INSERT INTO oauth_clients (id, owner_id, name, redirect_uris, scopes, confidential, secret_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    values: [client.id, client.ownerId, client.name, client.redirectUris, client.scopes, client.confidential, client.secretHash],
  }),
  pageOwned: (ownerId: string, offset: number, limit: number): SqlStatement => ({
    text: `SELECT ${COLUMNS}, count(*) OVER ()::int AS total FROM oauth_clients
       WHERE owner_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3`,
    values: [ownerId, offset, limit],
  }),
  countOwned: (ownerId: string): SqlStatement => ({
    text: `SELECT count(*)::int AS total FROM oauth_clients WHERE owner_id = $1`,
    values: [ownerId],
  }),
  findOwned: (ownerId: string, id: string): SqlStatement => ({
    text: `SELECT ${COLUMNS} FROM oauth_clients WHERE id = $1 AND owner_id = $2`,
    values: [id, ownerId],
  }),
  find: (id: string): SqlStatement => ({ text: `SELECT ${COLUMNS} FROM oauth_clients WHERE id = $1`, values: [id] }),
  deleteOwned: (ownerId: string, id: string): SqlStatement => ({
    text: `DELETE FROM oauth_clients WHERE id = $1 AND owner_id = $2`,
    values: [id, ownerId],
  }),
} satisfies SqlStatements;

/** SQL for OAuth clients. Reads by id for management are narrowed to the owner. */
@Injectable()
export class OAuthClientRepository {
  constructor(private readonly sql: Sql) {}

  async insert(client: Omit<OAuthClientRecord, 'createdAt'>): Promise<OAuthClientRecord> {
    const [row] = await this.sql.rows<OAuthClientRow>(OAUTH_CLIENT_SQL.insert(client));
    return toRecord(row);
  }

  /** A page of the owner's clients, newest first, and how many there are. */
  async listOwned(ownerId: string, offset: number, limit: number): Promise<[OAuthClientRecord[], number]> {
    const rows = await this.sql.rows<OAuthClientRow & { total: number }>(OAUTH_CLIENT_SQL.pageOwned(ownerId, offset, limit));
    if (rows.length === 0 && offset > 0) {
      const [{ total }] = await this.sql.rows<{ total: number }>(OAUTH_CLIENT_SQL.countOwned(ownerId));
      return [[], total];
    }
    return [rows.map(toRecord), rows[0]?.total ?? 0];
  }

  async findOwned(ownerId: string, id: string): Promise<OAuthClientRecord | null> {
    const [row] = await this.sql.rows<OAuthClientRow>(OAUTH_CLIENT_SQL.findOwned(ownerId, id));
    return row ? toRecord(row) : null;
  }

  /** Any client by its `client_id`, for the authorization server. */
  async find(id: string): Promise<OAuthClientRecord | null> {
    const [row] = await this.sql.rows<OAuthClientRow>(OAUTH_CLIENT_SQL.find(id));
    return row ? toRecord(row) : null;
  }

  /** Deletes one of the owner's clients, and with it every code and token it holds; false when there is none. */
  async deleteOwned(ownerId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.sql.run(OAUTH_CLIENT_SQL.deleteOwned(ownerId, id));
    return rowCount === 1;
  }
}
