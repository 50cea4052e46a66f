import { Module } from '@nestjs/common';
import { FixedWindowStorage } from './fixed-window.storage';
import { RedisPipelineBatch } from './redis-pipeline-batch';

/**
 * The turn's Redis pipeline and the fixed-window counters sent through it: one instance of each
 * for the whole app, so that whatever a request sends to Redis (its revocation check, its
 * rate-limit count) shares one round trip.
 */
@Module({
  providers: [RedisPipelineBatch, FixedWindowStorage],
  exports: [RedisPipelineBatch, FixedWindowStorage],
})
export class RedisPipelineBatchModule {}
