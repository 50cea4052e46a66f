import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { hostname } from 'node:os';
import { WorkerHeartbeatRepository } from '@app/database/redis/worker-heartbeat.repository';

const HEARTBEAT_INTERVAL_MS = 10_000;

/**
 * Health of a worker replica: a heartbeat in Redis (under REDIS_PREFIX) that lives while the
 * process beats and expires within 30 seconds of it stopping; the API's readiness counts them.
 * The timer also keeps the process alive when no queue is consumed.
 */
@Injectable()
export class WorkerHeartbeat implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly replica = `${hostname()}:${process.pid}`;
  readonly key = WorkerHeartbeatRepository.keyOf(this.replica);
  private readonly logger = new Logger(WorkerHeartbeat.name);
  private timer?: NodeJS.Timeout;

  constructor(private readonly heartbeats: WorkerHeartbeatRepository) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.heartbeats.beat(this.replica);
    this.timer = setInterval(() => {
      this.heartbeats.beat(this.replica).catch((error: Error) => this.logger.warn(`Heartbeat failed: ${error.message}`));
    }, HEARTBEAT_INTERVAL_MS);
  }

  /** A stopped replica disappears at once rather than after the TTL. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.heartbeats.remove(this.replica);
  }
}
