import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { RefreshTokenEntity } from '../entities/refresh-token.entity';

export type RotationOutcome = 'rotated' | 'reused' | 'invalid';

@Injectable()
export class RefreshTokenRepository {
  constructor(@InjectRepository(RefreshTokenEntity) private readonly tokens: Repository<RefreshTokenEntity>) {}

  async create(token: Pick<RefreshTokenEntity, 'id' | 'familyId' | 'userId' | 'expiresAt'>): Promise<void> {
    await this.tokens.insert({ ...token, createdAt: new Date(), rotatedAt: null, revokedAt: null });
  }

  /**
   * Marks the token used, atomically: of two concurrent refreshes with one token only one
   * rotates; the other sees a reuse.
   */
  async rotate(id: string): Promise<RotationOutcome> {
    const result = await this.tokens
      .createQueryBuilder()
      .update()
      .set({ rotatedAt: () => 'now()' })
      .where({ id, rotatedAt: IsNull(), revokedAt: IsNull() })
      .andWhere('expires_at > now()')
      .execute();
    if (result.affected === 1) return 'rotated';
    const existing = await this.tokens.findOneBy({ id });
    if (existing && existing.revokedAt === null && existing.rotatedAt !== null) return 'reused';
    return 'invalid';
  }

  async revokeFamily(familyId: string): Promise<void> {
    await this.tokens.update({ familyId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
  }
}
