import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import Redis from 'ioredis';
import { hostname } from 'node:os';
import { REDIS } from '@app/database';

const HEARTBEAT_INTERVAL_MS = 10_000;
const HEARTBEAT_TTL_SECONDS = 30;

/**
 * Health of a worker replica: a Redis key (under REDIS_PREFIX) that lives while the process
 * beats and expires within 30 seconds of it stopping. The timer also keeps the process alive
 * when no queue is consumed.
 */
@Injectable()
export class WorkerHeartbeat implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly key = `worker:heartbeat:${hostname()}:${process.pid}`;
  private readonly logger = new Logger(WorkerHeartbeat.name);
  private timer?: NodeJS.Timeout;

  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => {
      this.beat().catch((error: Error) => this.logger.warn(`Heartbeat failed: ${error.message}`));
    }, HEARTBEAT_INTERVAL_MS);
  }

  /** A stopped replica disappears at once rather than after the TTL. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.redis.del(this.key);
  }

  private async beat(): Promise<void> {
    await this.redis.set(this.key, new Date().toISOString(), 'EX', HEARTBEAT_TTL_SECONDS);
  }
}
