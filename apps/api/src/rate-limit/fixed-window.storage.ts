import { Inject, Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import Redis from 'ioredis';
import { REDIS } from '@app/database';

/** `numberOfKeys`, the counter, the revocation marks, then the window length in ms. */
type HitCommand = (numberOfKeys: number, ...keysAndTtl: Array<string | number>) => Promise<[number, number, number]>;

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** A throttler record that also says when its window ends, for the X-RateLimit-Reset header. */
export interface FixedWindowRecord extends ThrottlerStorageRecord {
  /** End of the window, in milliseconds since the epoch. */
  endsAt: number;
}

/** A hit refused because one of the given revocation marks exists; nothing was counted. */
export const REVOKED = 'revoked';

/**
 * Counts a hit and reads its window in one round trip, on the Redis clock so that every replica
 * agrees. KEYS[1] is the counter; any further keys are the revocation marks of the request's
 * credential, checked first so that a revoked credential costs no second round trip and is not
 * counted against the account. The first hit of a window sets the expiry; the PTTL test also
 * repairs a counter that somehow lost it. Returns the count (-1 when revoked), the end of the
 * window and the current time, in ms.
 */
const HIT_SCRIPT = `
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then return { -1, 0, 0 } end
end
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
  constructor(@Inject(REDIS) private readonly redis: Redis & { chargeFixedWindow?: HitCommand }) {
    // A defined command runs by EVALSHA: the script is sent once, not with every request.
    if (!redis.chargeFixedWindow) redis.defineCommand('chargeFixedWindow', { lua: HIT_SCRIPT });
  }

  async increment(key: string, ttl: number, limit: number): Promise<FixedWindowRecord> {
    const record = await this.hit(key, ttl, limit, []);
    if (record === REVOKED) throw new Error('A hit without revocation marks cannot be revoked.');
    return record;
  }

  /** Counts a hit unless one of `revocationMarks` exists, in one round trip. */
  async hit(key: string, ttl: number, limit: number, revocationMarks: readonly string[]): Promise<FixedWindowRecord | typeof REVOKED> {
    const command = this.redis.chargeFixedWindow as HitCommand;
    const [count, endsAt, now] = await command.call(this.redis, 1 + revocationMarks.length, key, ...revocationMarks, ttl);
    if (count < 0) return REVOKED;
    const timeToExpire = Math.max(1, Math.ceil((endsAt - now) / 1000));
    const isBlocked = count > limit;
    return { totalHits: count, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0, endsAt };
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(key);
  }
}
