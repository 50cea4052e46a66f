import { Inject, Injectable } from '@nestjs/common';
import { RedisClient } from './redis-client';
import { REDIS } from './redis.module';

/** A worker that has not beaten for this long is gone (three missed beats). */
export const WORKER_HEARTBEAT_TTL_MS = 30_000;

/** Every worker's last beat in one sorted set (score: milliseconds), read in one command. */
const HEARTBEATS = 'worker:heartbeats';

/**
 * Worker heartbeats in Redis: the worker writes them, the API's readiness counts them. Each
 * replica keeps its own key, expiring on its own, for operators with `redis-cli --scan`, and
 * its entry in the sorted set, which counting reads without scanning the keyspace.
 */
@Injectable()
export class WorkerHeartbeatRepository {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  /** The key of one replica (`worker:heartbeat:<host>:<pid>`, under REDIS_PREFIX). */
  static keyOf(replica: string): string {
    return `worker:heartbeat:${replica}`;
  }

  /**
   * Records a beat and forgets replicas that stopped beating without saying so. The replica's key
   * and the set may live on different nodes of a Redis Cluster, so they are written apart; the
   * set's two commands stay in one transaction.
   */
  async beat(replica: string): Promise<void> {
    const now = Date.now();
    await Promise.all([
      this.redis.set(WorkerHeartbeatRepository.keyOf(replica), new Date(now).toISOString(), 'PX', WORKER_HEARTBEAT_TTL_MS),
      this.redis.multi().zadd(HEARTBEATS, now, replica).zremrangebyscore(HEARTBEATS, '-inf', now - WORKER_HEARTBEAT_TTL_MS).exec(),
    ]);
  }

  async remove(replica: string): Promise<void> {
    await Promise.all([this.redis.del(WorkerHeartbeatRepository.keyOf(replica)), this.redis.zrem(HEARTBEATS, replica)]);
  }

  /** Replicas that beat within the heartbeat lifetime. */
  countLive(): Promise<number> {
    return this.redis.zcount(HEARTBEATS, Date.now() - WORKER_HEARTBEAT_TTL_MS, '+inf');
  }
}
