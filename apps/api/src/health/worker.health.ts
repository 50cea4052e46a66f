import { Injectable } from '@nestjs/common';
import { WORKER_HEARTBEAT_TTL_MS } from '@app/database';
import { WorkerHeartbeatRepository } from '@app/database/redis/worker-heartbeat.repository';
import { DependencyHealth } from './health.view';

/**
 * The workers, as their heartbeats tell: up with how many beat within the last 30 seconds,
 * down when none did or Redis does not answer in time. Reported, never a reason for 503.
 */
@Injectable()
export class WorkerHealthIndicator {
  constructor(private readonly heartbeats: WorkerHeartbeatRepository) {}

  async check(timeoutMs: number): Promise<DependencyHealth> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const live = await Promise.race([this.heartbeats.countLive(), timeout]);
      if (live === 'timeout') return { status: 'down', message: `no answer from Redis within ${timeoutMs} ms` };
      if (live === 0) return { status: 'down', workers: 0, message: `no worker beat within ${WORKER_HEARTBEAT_TTL_MS / 1000} s` };
      return { status: 'up', workers: live };
    } catch {
      return { status: 'down', message: 'heartbeats unreadable: Redis unreachable' };
    } finally {
      clearTimeout(timer);
    }
  }
}
