import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';
import { HttpDrain } from './http-drain.service';
import { RedisHealthIndicator } from './redis.health';
import { WorkerHealthIndicator } from './worker.health';

/** Liveness and readiness probes, and the drain that makes readiness meaningful on shutdown. */
@Module({
  imports: [TerminusModule.forRoot({ errorLogStyle: 'json' })],
  controllers: [HealthController],
  providers: [HealthService, RedisHealthIndicator, WorkerHealthIndicator, HttpDrain],
})
export class HealthModule {}
