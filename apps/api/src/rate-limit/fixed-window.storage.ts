import { Inject, Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import Redis from 'ioredis';
import { REDIS } from '@app/database';

type HitCommand = (key: string, ttl: number) => Promise<[number, number, number]>;

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** A throttler record that also says when its window ends, for the X-RateLimit-Reset header. */
export interface FixedWindowRecord extends ThrottlerStorageRecord {
  /** End of the window, in milliseconds since the epoch. */
  endsAt: number;
}

/**
 * Counts a hit and reads its window in one round trip, on the Redis clock so that every replica
 * agrees. The first hit of a window sets the expiry; the PTTL test also repairs a counter that
 * somehow lost it. Returns the count, the end of the window and the current time, in ms.
 */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local time = redis.call('TIME')
return { count, redis.call('PEXPIRETIME', KEYS[1]), tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) }
`;

/**
 * Fixed-window counters in Redis, shared by every API replica. A window opens with the first hit
 * of its key and lasts `ttl` milliseconds; past `limit` the key is blocked until the window ends.
 */
@Injectable()
export class FixedWindowStorage implements ThrottlerStorage {
  constructor(@Inject(REDIS) private readonly redis: Redis & { rateLimitHit?: HitCommand }) {
    // A defined command runs by EVALSHA: the script is sent once, not with every request.
    if (!redis.rateLimitHit) redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  }

  async increment(key: string, ttl: number, limit: number): Promise<FixedWindowRecord> {
    const hit = this.redis.rateLimitHit as HitCommand;
    const [count, endsAt, now] = await hit.call(this.redis, key, ttl);
    const timeToExpire = Math.max(1, Math.ceil((endsAt - now) / 1000));
    const isBlocked = count > limit;
    return { totalHits: count, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0, endsAt };
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(key);
  }
}
