import { Inject, Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { REDIS, RedisClient } from '@app/database';
import { ANY_KEY_EXISTS, PipelinedCommand, PipelineReply, RedisCommands, RedisPipelineBatch } from './redis-pipeline-batch';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** A throttler record that also says when its window ends, for the X-RateLimit-Reset header. */
export interface FixedWindowRecord extends ThrottlerStorageRecord {
  /** End of the window, in milliseconds since the epoch. */
  endsAt: number;
}

/**
 * Counts hits on the Redis clock, so that every replica agrees. ARGV[1] is the number of hits;
 * then, per hit, its window length in ms and the number of revocation marks it names. KEYS are,
 * per hit, its counter, then its marks: so that a request's count and its credential's revocation
 * check are one script call, and a revoked credential's request is not counted against the
 * account (the error filter counts it against its client IP, once refused). The first hit of a
 * window sets the expiry; the PTTL test also repairs a counter that somehow lost it. Returns, per
 * hit, its count and the end of its window (both 0 for a hit not counted), and whether a mark was
 * set (1 or 0), then the current time, in ms. Hits of one call are counted in order, atomically.
 */
const COUNT_SCRIPT = `
local results = {}
local k = 1
for h = 1, tonumber(ARGV[1]) do
  local ttl = ARGV[2 * h]
  local marks = tonumber(ARGV[2 * h + 1])
  local counter = KEYS[k]
  k = k + 1 + marks
  if marks > 0 and redis.call('EXISTS', unpack(KEYS, k - marks, k - 1)) > 0 then
    results[#results + 1] = 0
    results[#results + 1] = 0
    results[#results + 1] = 1
  else
    results[#results + 1] = redis.call('INCR', counter)
    if redis.call('PTTL', counter) < 0 then redis.call('PEXPIRE', counter, ttl) end
    results[#results + 1] = redis.call('PEXPIRETIME', counter)
    results[#results + 1] = 0
  end
end
local time = redis.call('TIME')
results[#results + 1] = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return results
`;

/** The count script as ioredis defines it on the client and its pipelines: run by EVALSHA, the script sent once per connection. */
interface CountingCommands extends RedisCommands {
  countFixedWindows(numberOfKeys: number, ...keysAndArgs: Array<string | number>): unknown;
}

/** Hits per script call: a burst larger than this is split, so that no call holds Redis long. */
const MAX_HITS_PER_CALL = 256;

/** A hit on one counter, in a window `ttl` ms long, at `limit` hits per window. */
export interface Hit {
  key: string;
  ttl: number;
  limit: number;
}

/** A hit on `key` that is not counted when any of `marks` is set. */
interface CountedHitRequest {
  key: string;
  ttl: number;
  marks: readonly string[];
}

/** What the script answers for one hit: its count, its window's end, whether a mark was set, and the time. */
interface CountedHit {
  count: number;
  endsAt: number;
  marked: boolean;
  now: number;
}

/** A hit counted unless marked: a mark was set (and nothing counted), or the counter's window. */
export type MarkedCount = { marked: true } | { marked: false; window: FixedWindowRecord };

/**
 * Fixed-window counters in Redis, shared by every API replica: the storage of the request limit's
 * throttler and of the failed-login limit. A window opens with the first hit of its key and lasts
 * `ttl` milliseconds; past `limit` the key is blocked until the window ends.
 *
 * Hits go in the turn's Redis pipeline (RedisPipelineBatch), those of one turn in one script call, so that
 * a request's count shares its round trip with the rest of the request's Redis work and, under
 * load, one round trip counts many requests, each still exactly and in order.
 */
@Injectable()
export class FixedWindowStorage implements ThrottlerStorage {
  private readonly counts: PipelinedCommand<CountedHitRequest, CountedHit> = {
    // ioredis sends a defined command by its script's digest, and the script itself only when Redis lacks it.
    name: 'EVALSHA',
    commandsFor: (hitCount) => Math.ceil(hitCount / MAX_HITS_PER_CALL),
    append: (commands, hits) => appendCounts(commands as CountingCommands, hits),
    read: readCounts,
  };
  /** One EXISTS per call, of marks in one slot. */
  private readonly marks = ANY_KEY_EXISTS;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly turn: RedisPipelineBatch,
  ) {
    if (!('countFixedWindows' in redis)) redis.defineCommand('countFixedWindows', { lua: COUNT_SCRIPT });
  }

  /** Counts a hit in the next round trip. A fixed window blocks until it ends, whatever `blockDuration`. */
  async increment(key: string, ttl: number, limit: number): Promise<FixedWindowRecord> {
    const counted = await this.turn.add(this.counts, { key, ttl, marks: NO_MARKS });
    return windowOf(counted, limit);
  }

  /**
   * Counts `hit`, unless any of `marks` is set. One script call in the turn's round trip; on a
   * Redis Cluster, where the marks live in other slots than the counter, the marks are checked
   * first (one EXISTS per mark, together), then the counter is counted when none is set.
   */
  async countUnlessMarked(hit: Hit, marks: readonly string[]): Promise<MarkedCount> {
    if (marks.length > 0 && this.redis.isCluster) {
      const found = await Promise.all(marks.map((mark) => this.turn.add(this.marks, [mark])));
      if (found.includes(true)) return { marked: true };
      return { marked: false, window: await this.increment(hit.key, hit.ttl, hit.limit) };
    }
    const counted = await this.turn.add(this.counts, { key: hit.key, ttl: hit.ttl, marks });
    return counted.marked ? { marked: true } : { marked: false, window: windowOf(counted, hit.limit) };
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(key);
  }
}

const NO_MARKS: readonly string[] = [];

function windowOf({ count, endsAt, now }: CountedHit, limit: number): FixedWindowRecord {
  const timeToExpire = Math.max(1, Math.ceil((endsAt - now) / 1000));
  const isBlocked = count > limit;
  return { totalHits: count, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0, endsAt };
}

/** One script call per MAX_HITS_PER_CALL hits; returns what each call returned. */
function appendCounts(commands: CountingCommands, hits: readonly CountedHitRequest[]): unknown[] {
  const calls: unknown[] = [];
  for (let first = 0; first < hits.length; first += MAX_HITS_PER_CALL) {
    const last = Math.min(hits.length, first + MAX_HITS_PER_CALL);
    const keys: string[] = [];
    const args: number[] = [last - first];
    for (let index = first; index < last; index += 1) {
      const { key, ttl, marks } = hits[index];
      keys.push(key, ...marks);
      args.push(ttl, marks.length);
    }
    calls.push(commands.countFixedWindows(keys.length, ...keys, ...args));
  }
  return calls;
}

/** Each hit's count, window end and mark, from the replies of its script calls. */
function readCounts(replies: readonly PipelineReply[], hits: readonly CountedHitRequest[]): CountedHit[] {
  return hits.map((_hit, index) => {
    const [error, reply] = replies[Math.floor(index / MAX_HITS_PER_CALL)];
    if (error) throw error;
    const results = reply as number[];
    const position = 3 * (index % MAX_HITS_PER_CALL);
    return { count: results[position], endsAt: results[position + 1], marked: results[position + 2] === 1, now: results[results.length - 1] };
  });
}
