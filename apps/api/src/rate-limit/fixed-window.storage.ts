import { Inject, Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import Redis from 'ioredis';
import { REDIS } from '@app/database';
import { TurnBatch } from '../platform/redis/turn-batch';

/** `numberOfKeys`, every hit's counter and revocation marks, then per hit its mark count and window length in ms. */
type HitBatchCommand = (numberOfKeys: number, ...keysAndArgs: Array<string | number>) => Promise<number[]>;

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** A throttler record that also says when its window ends, for the X-RateLimit-Reset header. */
export interface FixedWindowRecord extends ThrottlerStorageRecord {
  /** End of the window, in milliseconds since the epoch. */
  endsAt: number;
}

/** A hit refused because one of the given revocation marks exists; nothing was counted. */
export const REVOKED = 'revoked';

/**
 * Counts hits and reads their windows, on the Redis clock so that every replica agrees. For each
 * hit, its counter comes first in KEYS and its revocation marks after it; ARGV gives, per hit, the
 * number of marks and the window length. Marks are checked first, so that a revoked credential is
 * not counted against the account. The first hit of a window sets the expiry; the PTTL test also
 * repairs a counter that somehow lost it. Returns, per hit, the count (-1 when revoked) and the end
 * of its window, then the current time, in ms. Hits of one call are counted in order, atomically.
 */
const HIT_BATCH_SCRIPT = `
local results = {}
local k = 1
for h = 1, #ARGV, 2 do
  local counter, marks = KEYS[k], tonumber(ARGV[h])
  local revoked = marks > 0 and redis.call('EXISTS', unpack(KEYS, k + 1, k + marks)) > 0
  k = k + 1 + marks
  if revoked then
    results[#results + 1] = -1
    results[#results + 1] = 0
  else
    results[#results + 1] = redis.call('INCR', counter)
    if redis.call('PTTL', counter) < 0 then redis.call('PEXPIRE', counter, ARGV[h + 1]) end
    results[#results + 1] = redis.call('PEXPIRETIME', counter)
  end
end
local time = redis.call('TIME')
results[#results + 1] = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return results
`;

/** Hits per script call: a burst larger than this is split, so that no call holds Redis long. */
const MAX_HITS_PER_CALL = 256;

/** What the script answers for one hit: its count (-1 when revoked), its window's end, the time. */
interface CountedHit {
  count: number;
  endsAt: number;
  now: number;
}

interface Hit {
  key: string;
  ttl: number;
  marks: readonly string[];
}

/**
 * Fixed-window counters in Redis, shared by every API replica. A window opens with the first hit
 * of its key and lasts `ttl` milliseconds; past `limit` the key is blocked until the window ends.
 *
 * Hits made in the same turn of the event loop go to Redis together, in one script call
 * (TurnBatch): under load a single round trip counts many requests, each still exactly and in order.
 */
@Injectable()
export class FixedWindowStorage implements ThrottlerStorage {
  private readonly hits = new TurnBatch<Hit, CountedHit>((hits) => this.send(hits), MAX_HITS_PER_CALL);

  constructor(@Inject(REDIS) private readonly redis: Redis & { chargeFixedWindows?: HitBatchCommand }) {
    // A defined command runs by EVALSHA: the script is sent once, not with every request.
    if (!redis.chargeFixedWindows) redis.defineCommand('chargeFixedWindows', { lua: HIT_BATCH_SCRIPT });
  }

  async increment(key: string, ttl: number, limit: number): Promise<FixedWindowRecord> {
    const record = await this.hit(key, ttl, limit, []);
    if (record === REVOKED) throw new Error('A hit without revocation marks cannot be revoked.');
    return record;
  }

  /** Counts a hit unless one of `revocationMarks` exists, in the next round trip. */
  async hit(key: string, ttl: number, limit: number, revocationMarks: readonly string[]): Promise<FixedWindowRecord | typeof REVOKED> {
    const { count, endsAt, now } = await this.hits.add({ key, ttl, marks: revocationMarks });
    if (count < 0) return REVOKED;
    const timeToExpire = Math.max(1, Math.ceil((endsAt - now) / 1000));
    const isBlocked = count > limit;
    return { totalHits: count, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0, endsAt };
  }

  private async send(hits: readonly Hit[]): Promise<CountedHit[]> {
    const keys: string[] = [];
    const args: number[] = [];
    for (const hit of hits) {
      keys.push(hit.key, ...hit.marks);
      args.push(hit.marks.length, hit.ttl);
    }
    const command = this.redis.chargeFixedWindows as HitBatchCommand;
    const results = await command.call(this.redis, keys.length, ...keys, ...args);
    const now = results[results.length - 1];
    return hits.map((_hit, index) => ({ count: results[2 * index], endsAt: results[2 * index + 1], now }));
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(key);
  }
}
