import { Injectable } from '@nestjs/common';
import { RefreshTokenEntity, Sql, SqlStatement, SqlStatements } from '@app/database';

export type RotationOutcome = 'rotated' | 'reused' | 'invalid';

export type NewRefreshToken = Pick<RefreshTokenEntity, 'id' | 'familyId' | 'userId' | 'expiresAt'>;

/** The presented token, as its signed claims name it. */
export type PresentedRefreshToken = Pick<RefreshTokenEntity, 'id' | 'familyId' | 'userId'>;

/** The statements of RefreshTokenRepository, by name. */
export const REFRESH_TOKEN_SQL = {
  insert: (token: NewRefreshToken, createdAt: Date): SqlStatement => ({
    text: `INSERT INTO refresh_tokens (id, family_id, user_id, expires_at, created_at, rotated_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, NULL, NULL)`,
    values: [token.id, token.familyId, token.userId, token.expiresAt, createdAt],
  }),
  markRotated: (presented: PresentedRefreshToken): SqlStatement => ({
    text: `UPDATE refresh_tokens SET rotated_at = now()
       WHERE id = $1 AND family_id = $2 AND user_id = $3 AND rotated_at IS NULL AND revoked_at IS NULL
         AND expires_at > now()
         AND NOT EXISTS (SELECT 1 FROM refresh_tokens revoked WHERE revoked.family_id = $2 AND revoked.revoked_at IS NOT NULL)`,
    values: [presented.id, presented.familyId, presented.userId],
  }),
  findState: (id: string): SqlStatement => ({
    text: `SELECT rotated_at AS "rotatedAt", revoked_at AS "revokedAt" FROM refresh_tokens WHERE id = $1`,
    values: [id],
  }),
  revokeFamily: (familyId: string): SqlStatement => ({
    text: `UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL`,
    values: [familyId],
  }),
} satisfies SqlStatements;

@Injectable()
export class RefreshTokenRepository {
  constructor(private readonly sql: Sql) {}

  async create(token: NewRefreshToken): Promise<void> {
    await this.sql.run(REFRESH_TOKEN_SQL.insert(token, new Date()));
  }

  /**
   * Marks the presented token used and stores its successor in one transaction. The row lock
   * of the UPDATE makes it atomic: of two concurrent refreshes with one token only one rotates,
   * the other sees a reuse, and by then the successor is committed, so revoking the family
   * reaches it too. A family with any revoked token never rotates again.
   */
  async rotate(presented: PresentedRefreshToken, successor: NewRefreshToken): Promise<RotationOutcome> {
    return this.sql.transaction(async (manager) => {
      const { rowCount } = await this.sql.run(REFRESH_TOKEN_SQL.markRotated(presented), manager);
      if (rowCount === 1) {
        await this.sql.run(REFRESH_TOKEN_SQL.insert(successor, new Date()), manager);
        return 'rotated';
      }
      const [existing] = await this.sql.rows<Pick<RefreshTokenEntity, 'rotatedAt' | 'revokedAt'>>(
        REFRESH_TOKEN_SQL.findState(presented.id),
        manager,
      );
      if (existing && existing.revokedAt === null && existing.rotatedAt !== null) return 'reused';
      return 'invalid';
    });
  }

  async revokeFamily(familyId: string): Promise<void> {
    await this.sql.run(REFRESH_TOKEN_SQL.revokeFamily(familyId));
  }
}
