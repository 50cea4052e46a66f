import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { ApiKeyEntity } from '../entities/api-key.entity';

export type NewApiKey = Pick<ApiKeyEntity, 'id' | 'userId' | 'name' | 'scopes' | 'prefix' | 'secretHash' | 'expiresAt'>;

/** What rolling a key did: the new key, or why there was none to roll. */
export type RollOutcome = { rolled: ApiKeyEntity } | { refused: 'unknown' | 'revoked' | 'expired' };

/** SQL for API keys. Reads by id are always narrowed to the owner. */
@Injectable()
export class ApiKeyRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  async insert(key: NewApiKey): Promise<ApiKeyEntity> {
    await this.keys.insert({ ...key, createdAt: new Date(), lastUsedAt: null, revokedAt: null });
    return this.keys.findOneByOrFail({ id: key.id });
  }

  /** A page of the owner's live keys, newest first, and how many there are. */
  listLive(ownerId: string, offset: number, limit: number): Promise<[ApiKeyEntity[], number]> {
    return this.keys.findAndCount({
      where: { userId: ownerId, revokedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: offset,
      take: limit,
    });
  }

  /**
   * Replaces one of the owner's live keys by `replacement` (same name and scopes) in one
   * transaction: the old key's `expires_at` becomes `oldExpiresAt`, or stays when it was sooner.
   * The old row is locked first, so that two rolls of one key make one new key.
   */
  rollLive(ownerId: string, id: string, replacement: Omit<NewApiKey, 'userId' | 'name' | 'scopes'>, oldExpiresAt: Date): Promise<RollOutcome> {
    return this.keys.manager.transaction(async (manager): Promise<RollOutcome> => {
      const keys = manager.getRepository(ApiKeyEntity);
      const old = await keys
        .createQueryBuilder('key')
        .setLock('pessimistic_write')
        .where('key.id = :id AND key.userId = :ownerId', { id, ownerId })
        .getOne();
      if (!old) return { refused: 'unknown' };
      if (old.revokedAt) return { refused: 'revoked' };
      if (old.expiresAt && old.expiresAt.getTime() <= Date.now()) return { refused: 'expired' };
      const expiresAt = old.expiresAt && old.expiresAt < oldExpiresAt ? old.expiresAt : oldExpiresAt;
      await keys.update({ id }, { expiresAt });
      await keys.insert({ ...replacement, userId: ownerId, name: old.name, scopes: old.scopes, createdAt: new Date(), lastUsedAt: null, revokedAt: null });
      return { rolled: await keys.findOneByOrFail({ id: replacement.id }) };
    });
  }

  /** One of the owner's live keys (expired or not), or null. */
  findLive(ownerId: string, id: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOneBy({ id, userId: ownerId, revokedAt: IsNull() });
  }

  /** Revokes one of the owner's live keys; false when there is no such key. */
  async revoke(ownerId: string, id: string): Promise<boolean> {
    const result = await this.keys.update({ id, userId: ownerId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    return result.affected === 1;
  }

  /** The key (revoked or not) whose secret has this hash. */
  findBySecretHash(secretHash: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOneBy({ secretHash });
  }

  /** Records a use, at most once a minute per key, so that busy keys do not write on every request. */
  async touch(id: string): Promise<void> {
    await this.keys
      .createQueryBuilder()
      .update()
      .set({ lastUsedAt: () => 'now()' })
      .where('id = :id', { id })
      .andWhere(`(last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`)
      .execute();
  }
}
