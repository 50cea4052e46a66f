import { Inject, Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { ChainableCommander } from 'ioredis';
import { REDIS, RedisClient } from '@app/database';
import { PipelineLane, PipelineReply, RedisTurn } from './redis-turn';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** A throttler record that also says when its window ends, for the X-RateLimit-Reset header. */
export interface FixedWindowRecord extends ThrottlerStorageRecord {
  /** End of the window, in milliseconds since the epoch. */
  endsAt: number;
}

/**
 * Counts hits on the Redis clock, so that every replica agrees. KEYS are the hits' counters, ARGV
 * their window lengths in ms. The first hit of a window sets the expiry; the PTTL test also
 * repairs a counter that somehow lost it. Returns, per hit, its count and the end of its window,
 * then the current time, in ms. Hits of one call are counted in order, atomically.
 */
const COUNT_SCRIPT = `
local results = {}
for h = 1, #KEYS do
  local counter = KEYS[h]
  results[#results + 1] = redis.call('INCR', counter)
  if redis.call('PTTL', counter) < 0 then redis.call('PEXPIRE', counter, ARGV[h]) end
  results[#results + 1] = redis.call('PEXPIRETIME', counter)
end
local time = redis.call('TIME')
results[#results + 1] = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return results
`;

/** Takes one hit back from a window that still runs; an ended window is left ended. */
const GIVE_BACK_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end
return 0
`;

/** The count script as ioredis defines it on pipelines: run by EVALSHA, the script sent once per connection. */
interface CountingPipeline extends ChainableCommander {
  countFixedWindows(numberOfKeys: number, ...keysAndArgs: Array<string | number>): ChainableCommander;
}

/** The give-back script as ioredis defines it on the client. */
type GivingBackClient = RedisClient & {
  giveBackFixedWindowHit(key: string): Promise<number>;
};

/** Hits per script call: a burst larger than this is split, so that no call holds Redis long. */
const MAX_HITS_PER_CALL = 256;

interface Hit {
  key: string;
  ttl: number;
}

/** What the script answers for one hit: its count, its window's end, and the time. */
interface CountedHit {
  count: number;
  endsAt: number;
  now: number;
}

/**
 * Fixed-window counters in Redis, shared by every API replica: the storage of the request limit's
 * throttler and of the failed-login limit. A window opens with the first hit of its key and lasts
 * `ttl` milliseconds; past `limit` the key is blocked until the window ends.
 *
 * Hits go in the turn's Redis pipeline (RedisTurn), those of one turn in one script call, so that
 * a request's count shares its round trip with the rest of the request's Redis work and, under
 * load, one round trip counts many requests, each still exactly and in order.
 */
@Injectable()
export class FixedWindowStorage implements ThrottlerStorage {
  private readonly counts: PipelineLane<Hit, CountedHit> = {
    append: (pipeline, hits) => appendCounts(pipeline as CountingPipeline, hits),
    read: readCounts,
  };

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly turn: RedisTurn,
  ) {
    if (!('countFixedWindows' in redis)) redis.defineCommand('countFixedWindows', { lua: COUNT_SCRIPT });
    if (!('giveBackFixedWindowHit' in redis)) redis.defineCommand('giveBackFixedWindowHit', { lua: GIVE_BACK_SCRIPT, numberOfKeys: 1 });
  }

  /** Counts a hit in the next round trip. A fixed window blocks until it ends, whatever `blockDuration`. */
  async increment(key: string, ttl: number, limit: number): Promise<FixedWindowRecord> {
    const { count, endsAt, now } = await this.turn.add(this.counts, { key, ttl });
    const timeToExpire = Math.max(1, Math.ceil((endsAt - now) / 1000));
    const isBlocked = count > limit;
    return { totalHits: count, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0, endsAt };
  }

  /** Takes back a hit counted where it did not belong, while its window runs. */
  async giveBack(key: string): Promise<void> {
    await (this.redis as GivingBackClient).giveBackFixedWindowHit(key);
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(key);
  }
}

/** One script call per MAX_HITS_PER_CALL hits; returns how many calls it appended. */
function appendCounts(pipeline: CountingPipeline, hits: readonly Hit[]): number {
  let calls = 0;
  for (let first = 0; first < hits.length; first += MAX_HITS_PER_CALL) {
    const call = hits.slice(first, first + MAX_HITS_PER_CALL);
    pipeline.countFixedWindows(call.length, ...call.map((hit) => hit.key), ...call.map((hit) => hit.ttl));
    calls += 1;
  }
  return calls;
}

/** Each hit's count and window end, from the replies of its script calls. */
function readCounts(replies: readonly PipelineReply[], hits: readonly Hit[]): CountedHit[] {
  return hits.map((_hit, index) => {
    const [error, reply] = replies[Math.floor(index / MAX_HITS_PER_CALL)];
    if (error) throw error;
    const results = reply as number[];
    const position = index % MAX_HITS_PER_CALL;
    return { count: results[2 * position], endsAt: results[2 * position + 1], now: results[results.length - 1] };
  });
}
