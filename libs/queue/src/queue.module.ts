import { BullModule } from '@nestjs/bullmq';
import { Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import type { QueueOptions } from 'bullmq';
import type { Cluster } from 'ioredis';
import { AppConfig } from '@app/config';
import { connectRedisCluster } from '@app/database';
import { WEBHOOK_DELIVERIES_QUEUE } from './queues';

/** The cluster client BullMQ shares, when Redis is a cluster; closed with the app. */
const QUEUE_CLUSTER = Symbol('QUEUE_CLUSTER');

/**
 * BullMQ on the app's Redis. BullMQ ignores ioredis' keyPrefix, so its keys get their own
 * prefix under the deployment's: `${REDIS_PREFIX}:bull:<queue>:...`. On a Redis Cluster every
 * key of a queue must share a slot for BullMQ's scripts, so the prefix is a hash tag,
 * `{${REDIS_PREFIX}:bull}`; BullMQ needs a client instance there, whose blocking connections
 * (`maxRetriesPerRequest: null`) it duplicates from it.
 */
export function queueOptions(config: AppConfig, cluster: Cluster | null): QueueOptions {
  return {
    connection: cluster ?? { url: config.REDIS_URL },
    prefix: cluster ? `{${config.REDIS_PREFIX}:bull}` : `${config.REDIS_PREFIX}:bull`,
    defaultJobOptions: {
      // Retries are scheduled by the job's own rows (webhook schedule), not by BullMQ.
      attempts: 1,
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 5000 },
    },
  };
}

@Injectable()
class QueueClusterShutdown implements OnApplicationShutdown {
  constructor(@Inject(QUEUE_CLUSTER) private readonly cluster: Cluster | null) {}

  async onApplicationShutdown(): Promise<void> {
    await this.cluster?.quit().catch(() => this.cluster?.disconnect());
  }
}

const QUEUE_CLUSTER_PROVIDER = {
  provide: QUEUE_CLUSTER,
  inject: [AppConfig],
  useFactory: (config: AppConfig): Cluster | null => {
    const seeds = config.redisClusterSeeds;
    return seeds ? connectRedisCluster(seeds, { maxRetriesPerRequest: null }) : null;
  },
};

/** Holds the queue's cluster client apart, so that BullMQ's root options can be built from it. */
@Module({
  providers: [QUEUE_CLUSTER_PROVIDER, QueueClusterShutdown],
  exports: [QUEUE_CLUSTER],
})
class QueueClusterModule {}

const QUEUES = BullModule.registerQueue({ name: WEBHOOK_DELIVERIES_QUEUE });

/**
 * Registers the queue. The API imports it to enqueue (`@InjectQueue(WEBHOOK_DELIVERIES_QUEUE)`);
 * the worker imports it to enqueue too and hosts the queue's `@Processor`.
 */
@Module({
  imports: [
    BullModule.forRootAsync({
      imports: [QueueClusterModule],
      inject: [AppConfig, QUEUE_CLUSTER],
      useFactory: (config: AppConfig, cluster: Cluster | null) => queueOptions(config, cluster),
    }),
    QUEUES,
  ],
  exports: [QUEUES],
})
export class QueueModule {}
