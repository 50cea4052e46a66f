import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import type { QueueOptions } from 'bullmq';
import { AppConfig } from '@app/config';
import { WEBHOOK_DELIVERIES_QUEUE } from './queues';

/**
 * BullMQ on the app's Redis. BullMQ ignores ioredis' keyPrefix, so its keys get their own
 * prefix under the deployment's: `${REDIS_PREFIX}:bull:<queue>:...`.
 */
export function queueOptions(config: AppConfig): QueueOptions {
  return {
    connection: { url: config.REDIS_URL },
    prefix: `${config.REDIS_PREFIX}:bull`,
    defaultJobOptions: {
      // Retries are scheduled by the job's own rows (webhook schedule), not by BullMQ.
      attempts: 1,
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 5000 },
    },
  };
}

const QUEUES = BullModule.registerQueue({ name: WEBHOOK_DELIVERIES_QUEUE });

/**
 * Registers the queue. The API imports it to enqueue (`@InjectQueue(WEBHOOK_DELIVERIES_QUEUE)`);
 * the worker imports it to enqueue too and hosts the queue's `@Processor`.
 */
@Module({
  imports: [
    BullModule.forRootAsync({ inject: [AppConfig], useFactory: (config: AppConfig) => queueOptions(config) }),
    QUEUES,
  ],
  exports: [QUEUES],
})
export class QueueModule {}
