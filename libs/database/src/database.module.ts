import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '@app/config';
import { dataSourceOptions } from './data-source-options';
import { EventCommitListener } from './event-commit-listener';
import { EventOutbox } from './event-outbox';
import { PooledReads } from './pooled-reads';
import { RedisModule } from './redis/redis.module';
import { WorkerHeartbeatRepository } from './redis/worker-heartbeat.repository';
import { ApiKeyRepository } from './repositories/api-key.repository';
import { EventRepository } from './repositories/event.repository';
import { IdempotencyOutcomeRepository } from './repositories/idempotency-outcome.repository';
import { LegacyTokenRepository } from './repositories/legacy-token.repository';
import { OAuthClientRepository } from './repositories/oauth-client.repository';
import { OAuthGrantRepository } from './repositories/oauth-grant.repository';
import { OrganizationRepository } from './repositories/organization.repository';
import { RefreshTokenRepository } from './repositories/refresh-token.repository';
import { ResourceRepository } from './repositories/resource.repository';
import { UserRepository } from './repositories/user.repository';
import { WebhookDeliveryRepository } from './repositories/webhook-delivery.repository';
import { WebhookRepository } from './repositories/webhook.repository';
import { ENTITIES } from './entities';

const REPOSITORIES = [
  EventRepository,
  UserRepository,
  RefreshTokenRepository,
  ApiKeyRepository,
  LegacyTokenRepository,
  ResourceRepository,
  OrganizationRepository,
  WebhookRepository,
  WebhookDeliveryRepository,
  OAuthClientRepository,
  OAuthGrantRepository,
  WorkerHeartbeatRepository,
  IdempotencyOutcomeRepository,
];

/** PostgreSQL through TypeORM, Redis, the event outbox and the repositories of every context. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => dataSourceOptions(config),
    }),
    TypeOrmModule.forFeature(ENTITIES),
    RedisModule,
  ],
  providers: [...REPOSITORIES, PooledReads, EventOutbox, EventCommitListener],
  exports: [...REPOSITORIES, PooledReads, EventOutbox, EventCommitListener, RedisModule],
})
export class DatabaseModule {}
