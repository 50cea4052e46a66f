import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '@app/config';
import { dataSourceOptions } from './data-source-options';
import { EventCommitListener } from './event-commit-listener';
import { EventOutbox } from './event-outbox';
import { PooledReads } from './pooled-reads';
import { RedisModule } from './redis/redis.module';
import { Sql } from './sql';
import { WorkerHeartbeatRepository } from './redis/worker-heartbeat.repository';
import { IdempotencyOutcomeRepository } from './repositories/idempotency-outcome.repository';
import { TransactionStatuses } from './transaction-statuses';
import { ENTITIES } from './entities';

const REPOSITORIES = [
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
  providers: [...REPOSITORIES, Sql, PooledReads, EventOutbox, EventCommitListener, TransactionStatuses],
  exports: [...REPOSITORIES, Sql, EventOutbox, EventCommitListener, TransactionStatuses, RedisModule],
})
export class DatabaseModule {}
