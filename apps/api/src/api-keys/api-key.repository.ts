import { Injectable } from '@nestjs/common';
import { ApiKeyEntity, Sql, SqlStatement, SqlStatements } from '@app/database';

export type NewApiKey = Pick<ApiKeyEntity, 'id' | 'userId' | 'name' | 'scopes' | 'prefix' | 'secretHash' | 'expiresAt'>;

/** What rolling a key did: the new key, or why there was none to roll. */
export type RollOutcome = { rolled: ApiKeyEntity } | { refused: 'unknown' | 'revoked' | 'expired' };

/** Every column under the entity's property names, but the secret's hash. */
const COLUMNS = `id, user_id AS "userId", name, scopes, prefix, created_at AS "createdAt", last_used_at AS "lastUsedAt",
  expires_at AS "expiresAt", revoked_at AS "revokedAt"`;

/** The statements of ApiKeyRepository, by name. */
export const API_KEY_SQL = {
  insert: (key: NewApiKey, createdAt: Date): SqlStatement => ({
    text: `INSERT INTO api_keys (id, user_id, name, scopes, prefix, secret_hash, expires_at, created_at, last_used_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, NULL) RETURNING ${COLUMNS}`,
    values: [key.id, key.userId, key.name, key.scopes, key.prefix, key.secretHash, key.expiresAt, createdAt],
  }),
  pageLive: (ownerId: string, offset: number, limit: number): SqlStatement => ({
    text: `SELECT ${COLUMNS}, count(*) OVER ()::int AS total FROM api_keys
       WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3`,
    values: [ownerId, offset, limit],
  }),
  countLive: (ownerId: string): SqlStatement => ({
    text: `SELECT count(*)::int AS total FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL`,
    values: [ownerId],
  }),
  lockOwned: (ownerId: string, id: string): SqlStatement => ({
    text: `SELECT ${COLUMNS} FROM api_keys WHERE id = $1 AND user_id = $2 FOR UPDATE`,
    values: [id, ownerId],
  }),
  setExpiry: (id: string, expiresAt: Date): SqlStatement => ({
    text: `UPDATE api_keys SET expires_at = $2 WHERE id = $1`,
    values: [id, expiresAt],
  }),
  findLive: (ownerId: string, id: string): SqlStatement => ({
    text: `SELECT ${COLUMNS} FROM api_keys WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL`,
    values: [id, ownerId],
  }),
  revoke: (ownerId: string, id: string): SqlStatement => ({
    text: `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL`,
    values: [id, ownerId],
  }),
  findBySecretHash: (secretHash: string): SqlStatement => ({
    text: `SELECT ${COLUMNS} FROM api_keys WHERE secret_hash = $1`,
    values: [secretHash],
  }),
  touch: (id: string): SqlStatement => ({
    text: `UPDATE api_keys SET last_used_at = now()
       WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    values: [id],
  }),
} satisfies SqlStatements;

/** SQL for API keys. Reads by id are always narrowed to the owner. */
@Injectable()
export class ApiKeyRepository {
  constructor(private readonly sql: Sql) {}

  async insert(key: NewApiKey): Promise<ApiKeyEntity> {
    const [created] = await this.sql.rows<ApiKeyEntity>(API_KEY_SQL.insert(key, new Date()));
    return created;
  }

  /** A page of the owner's live keys, newest first, and how many there are. */
  async listLive(ownerId: string, offset: number, limit: number): Promise<[ApiKeyEntity[], number]> {
    const rows = await this.sql.rows<ApiKeyEntity & { total: number }>(API_KEY_SQL.pageLive(ownerId, offset, limit));
    if (rows.length === 0 && offset > 0) {
      const [{ total }] = await this.sql.rows<{ total: number }>(API_KEY_SQL.countLive(ownerId));
      return [[], total];
    }
    return [rows.map(({ total: _total, ...key }) => key), rows[0]?.total ?? 0];
  }

  /**
   * Replaces one of the owner's live keys by `replacement` (same name and scopes) in one
   * transaction: the old key's `expires_at` becomes `oldExpiresAt`, or stays when it was sooner.
   * The old row is locked first, so that two rolls of one key make one new key.
   */
  rollLive(ownerId: string, id: string, replacement: Omit<NewApiKey, 'userId' | 'name' | 'scopes'>, oldExpiresAt: Date): Promise<RollOutcome> {
    return this.sql.transaction(async (manager): Promise<RollOutcome> => {
      const [old] = await this.sql.rows<ApiKeyEntity>(API_KEY_SQL.lockOwned(ownerId, id), manager);
      if (!old) return { refused: 'unknown' };
      if (old.revokedAt) return { refused: 'revoked' };
      if (old.expiresAt && old.expiresAt.getTime() <= Date.now()) return { refused: 'expired' };
      const expiresAt = old.expiresAt && old.expiresAt < oldExpiresAt ? old.expiresAt : oldExpiresAt;
      await this.sql.run(API_KEY_SQL.setExpiry(id, expiresAt), manager);
      const key = { ...replacement, userId: ownerId, name: old.name, scopes: old.scopes };
      const [rolled] = await this.sql.rows<ApiKeyEntity>(API_KEY_SQL.insert(key, new Date()), manager);
      return { rolled };
    });
  }

  /** One of the owner's live keys (expired or not), or null. */
  async findLive(ownerId: string, id: string): Promise<ApiKeyEntity | null> {
    const [key] = await this.sql.rows<ApiKeyEntity>(API_KEY_SQL.findLive(ownerId, id));
    return key ?? null;
  }

  /** Revokes one of the owner's live keys; false when there is no such key. */
  async revoke(ownerId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.sql.run(API_KEY_SQL.revoke(ownerId, id));
    return rowCount === 1;
  }

  /** The key (revoked or not) whose secret has this hash. */
  async findBySecretHash(secretHash: string): Promise<ApiKeyEntity | null> {
    const [key] = await this.sql.rows<ApiKeyEntity>(API_KEY_SQL.findBySecretHash(secretHash));
    return key ?? null;
  }

  /** Records a use, at most once a minute per key, so that busy keys do not write on every request. */
  async touch(id: string): Promise<void> {
    await this.sql.run(API_KEY_SQL.touch(id));
  }
}
