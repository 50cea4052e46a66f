import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '@app/config';
import { dataSourceOptions } from './data-source-options';
import { EventCommitListener } from './event-commit-listener';
import { EventOutbox } from './event-outbox';
import { useCompiledRowMakers } from './pg-row-maker';
import { RedisModule } from './redis/redis.module';
import { useRowDescriptionCache } from './row-description-cache';
import { WorkerHeartbeatRepository } from './redis/worker-heartbeat.repository';
import { Sql } from './sql';

/** Repositories of what no context's module owns yet: the worker's heartbeat in Redis. */
const REPOSITORIES = [WorkerHeartbeatRepository];

/**
 * PostgreSQL through TypeORM (its DataSource, its pool, transactions), Redis, `Sql` (how every
 * repository sends its statements) and the event outbox. Each context's repositories are its own
 * module's providers; webhooks and deliveries, which both apps use, are DeliveryDataModule's.
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => {
        useCompiledRowMakers();
        useRowDescriptionCache();
        return dataSourceOptions(config);
      },
    }),
    RedisModule,
  ],
  providers: [...REPOSITORIES, Sql, EventOutbox, EventCommitListener],
  exports: [...REPOSITORIES, Sql, EventOutbox, EventCommitListener, RedisModule],
})
export class DatabaseModule {}
