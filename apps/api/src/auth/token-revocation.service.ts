import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS } from '@app/database';
import { ACCESS_TOKEN_TTL_SECONDS } from './token.service';

/**
 * A family mark outlives the access tokens it covers by a minute, so that a replica whose
 * clock runs ahead (later `exp` claims) is still covered.
 */
const FAMILY_MARK_TTL_SECONDS = ACCESS_TOKEN_TTL_SECONDS + 60;

/**
 * Revoked access tokens and refresh families, kept in Redis so that every API replica honours
 * them. Entries expire when the longest-lived access token they could cover would.
 */
@Injectable()
export class TokenRevocationService {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async revokeAccessToken(jti: string, expiresAt: number): Promise<void> {
    const ttl = Math.max(1, expiresAt - Math.floor(Date.now() / 1000));
    await this.redis.set(`revoked:jti:${jti}`, '1', 'EX', ttl);
  }

  async revokeFamily(familyId: string): Promise<void> {
    await this.redis.set(`revoked:fam:${familyId}`, '1', 'EX', FAMILY_MARK_TTL_SECONDS);
  }

  /** One round trip for both checks. */
  async isRevoked(jti: string, familyId: string): Promise<boolean> {
    return (await this.redis.exists(`revoked:jti:${jti}`, `revoked:fam:${familyId}`)) > 0;
  }
}
