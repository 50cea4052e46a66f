import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { WebhookDeliveryRepository } from '@app/database/delivery-data/webhook-delivery.repository';
import { queueNextAttempts, WEBHOOK_DELIVERIES_QUEUE, WebhookDeliveryJob } from '@app/queue';

/** How often the sweeper looks for overdue deliveries. */
const SWEEP_INTERVAL_MS = 30_000;
/** An attempt this late has lost its job: a backlog drains well within it. */
const OVERDUE_AFTER_MS = 60_000;
/** Deliveries requeued per sweep at most; the next sweep takes the rest. */
const SWEEP_LIMIT = 500;

/**
 * Keeps at-least-once when a job is gone: a pending delivery whose attempt is long overdue gets
 * its job back (queued again if Redis lost it, retried if it failed before recording an
 * attempt, say because PostgreSQL did not answer). A job still waiting, delayed or running is
 * left alone, and the job id is the attempt's, so replicas sweeping together queue it once.
 */
@Injectable()
export class DeliverySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliverySweeper.name);
  private timer?: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    @InjectQueue(WEBHOOK_DELIVERIES_QUEUE) private readonly queue: Queue<WebhookDeliveryJob>,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.running = this.sweep().then(
        (requeued) => {
          if (requeued > 0) this.logger.warn({ requeued }, 'overdue deliveries queued again');
        },
        (error: Error) => this.logger.warn({ err: error }, 'delivery sweep failed; retrying'),
      );
    }, SWEEP_INTERVAL_MS);
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Gives each overdue delivery its job back; returns how many it requeued. */
  async sweep(): Promise<number> {
    return queueNextAttempts(this.queue, await this.deliveries.findOverdue(OVERDUE_AFTER_MS, SWEEP_LIMIT));
  }
}
