import { Module, Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import pino, { LevelWithSilent } from 'pino';
import { AppConfig, ConfigModule } from '@app/config';
import { DatabaseModule } from '@app/database';
import { QueueModule } from '@app/queue';
import { JobDrain } from './job-drain.service';
import { WorkerHeartbeat } from './worker-heartbeat.service';

/** One `@Processor(<queue>)` class per queue, each in its own `<job>.processor.ts`. */
const PROCESSORS: Provider[] = [];

/** The worker: BullMQ consumers on the API's database and Redis, without an HTTP server. */
@Module({
  imports: [
    ConfigModule,
    LoggerModule.forRootAsync({
      inject: [AppConfig],
      // The same JSON line shape as the API's logs, told apart by `service`.
      useFactory: (config: AppConfig) => ({
        pinoHttp: {
          level: config.LOG_LEVEL as LevelWithSilent,
          base: { service: 'worker', env: config.APP_ENV, pid: process.pid },
          timestamp: pino.stdTimeFunctions.isoTime,
          formatters: { level: (label: string) => ({ level: label }) },
        },
      }),
    }),
    DatabaseModule,
    QueueModule,
    DiscoveryModule,
  ],
  providers: [...PROCESSORS, WorkerHeartbeat, JobDrain],
})
export class WorkerModule {}
