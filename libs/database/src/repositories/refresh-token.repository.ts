import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { RefreshTokenEntity } from '../entities/refresh-token.entity';

export type RotationOutcome = 'rotated' | 'reused' | 'invalid';

export type NewRefreshToken = Pick<RefreshTokenEntity, 'id' | 'familyId' | 'userId' | 'expiresAt'>;

/** The presented token, as its signed claims name it. */
export type PresentedRefreshToken = Pick<RefreshTokenEntity, 'id' | 'familyId' | 'userId'>;

@Injectable()
export class RefreshTokenRepository {
  constructor(@InjectRepository(RefreshTokenEntity) private readonly tokens: Repository<RefreshTokenEntity>) {}

  async create(token: NewRefreshToken): Promise<void> {
    await this.tokens.insert({ ...token, createdAt: new Date(), rotatedAt: null, revokedAt: null });
  }

  /**
   * Marks the presented token used and stores its successor in one transaction. The row lock
   * of the UPDATE makes it atomic: of two concurrent refreshes with one token only one rotates,
   * the other sees a reuse, and by then the successor is committed, so revoking the family
   * reaches it too. A family with any revoked token never rotates again.
   */
  async rotate(presented: PresentedRefreshToken, successor: NewRefreshToken): Promise<RotationOutcome> {
    return this.tokens.manager.transaction(async (manager) => {
      const tokens = manager.getRepository(RefreshTokenEntity);
      const result = await tokens
        .createQueryBuilder()
        .update()
        .set({ rotatedAt: () => 'now()' })
        .where({
          id: presented.id,
          familyId: presented.familyId,
          userId: presented.userId,
          rotatedAt: IsNull(),
          revokedAt: IsNull(),
        })
        .andWhere('expires_at > now()')
        .andWhere(
          'NOT EXISTS (SELECT 1 FROM refresh_tokens revoked WHERE revoked.family_id = :familyId AND revoked.revoked_at IS NOT NULL)',
          { familyId: presented.familyId },
        )
        .execute();
      if (result.affected === 1) {
        await tokens.insert({ ...successor, createdAt: new Date(), rotatedAt: null, revokedAt: null });
        return 'rotated';
      }
      const existing = await tokens.findOneBy({ id: presented.id });
      if (existing && existing.revokedAt === null && existing.rotatedAt !== null) return 'reused';
      return 'invalid';
    });
  }

  async revokeFamily(familyId: string): Promise<void> {
    await this.tokens.update({ familyId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
  }
}
