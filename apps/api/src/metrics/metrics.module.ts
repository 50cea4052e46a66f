import { Module } from '@nestjs/common';
import { HttpMetrics } from './http-metrics';
import { MetricsController } from './metrics.controller';

/** `GET /metrics` and the request counters; `createApiApp()` mounts `HttpMetrics.middleware`. */
@Module({
  controllers: [MetricsController],
  providers: [HttpMetrics],
  exports: [HttpMetrics],
})
export class MetricsModule {}
