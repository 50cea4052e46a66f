import { Module, Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import pino from 'pino';
import { logDestination, logLineOptions, NestPinoLogger, WebhookHostResolver } from '@app/common';
import { AppConfig, ConfigModule } from '@app/config';
import { DatabaseModule } from '@app/database';
import { DeliveryDataModule } from '@app/database/delivery-data/delivery-data.module';
import { QueueModule } from '@app/queue';
import { withTraceFields } from '@app/telemetry';
import { DeliverySweeper } from './delivery/delivery-sweeper.service';
import { WebhookAgents } from './delivery/webhook-agents';
import { WebhookDeliveryProcessor } from './delivery/webhook-delivery.processor';
import { WebhookHostLookup } from './delivery/webhook-host-lookup';
import { JobDrain } from './job-drain.service';
import { WorkerMetrics } from './metrics/worker-metrics';
import { WorkerMetricsServer } from './metrics/worker-metrics-server';
import { OutboxRelay } from './relay/outbox-relay.service';
import { RetentionModule } from './retention/retention.module';
import { WorkerHeartbeat } from './worker-heartbeat.service';

/** One `@Processor(<queue>)` class per queue, each in its own `<job>.processor.ts`. */
const PROCESSORS: Provider[] = [WebhookDeliveryProcessor];

/** The worker: BullMQ consumers on the API's database and Redis, without an HTTP server. */
@Module({
  imports: [
    ConfigModule,
    DatabaseModule,
    DeliveryDataModule,
    QueueModule,
    DiscoveryModule,
    RetentionModule,
  ],
  providers: [
    {
      provide: NestPinoLogger,
      inject: [AppConfig],
      useFactory: (config: AppConfig) =>
        new NestPinoLogger(pino(withTraceFields(logLineOptions('worker', config.LOG_LEVEL, config.logEnvironment)), logDestination(config.logFormat, false))),
    },
    {
      provide: WebhookAgents,
      inject: [AppConfig],
      useFactory: (config: AppConfig) =>
        new WebhookAgents({ allowPrivateTargets: config.allowPrivateWebhookTargets, allowLoopbackHttp: config.allowLoopbackHttpWebhookTargets }),
    },
    {
      provide: WebhookHostLookup,
      inject: [AppConfig],
      // A lookup runs inside a delivery, so as many resolvers as deliveries at once: only an owner's cap holds one back.
      useFactory: (config: AppConfig) =>
        new WebhookHostLookup(new WebhookHostResolver({ servers: config.webhookDnsServers, concurrency: config.WEBHOOK_DELIVERY_CONCURRENCY }), {
          perOwner: config.WEBHOOK_DNS_LOOKUPS_PER_OWNER,
          allowPrivateTargets: config.allowPrivateWebhookTargets,
        }),
    },
    ...PROCESSORS,
    OutboxRelay,
    DeliverySweeper,
    WorkerHeartbeat,
    JobDrain,
    WorkerMetrics,
    WorkerMetricsServer,
  ],
})
export class WorkerModule {}
