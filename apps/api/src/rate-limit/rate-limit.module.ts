import { Module } from '@nestjs/common';
import { getOptionsToken, getStorageToken } from '@nestjs/throttler';
import { AuthModule } from '../auth/auth.module';
import { FixedWindowStorage } from '../platform/redis/fixed-window.storage';
import { RedisPipelineBatchModule } from '../platform/redis/redis-pipeline-batch.module';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimitService } from './rate-limit.service';
import { RateLimitedErrorFilter } from './rate-limited-error.filter';

/**
 * Request limits per plan, counted in Redis so that every replica enforces one limit, with
 * @nestjs/throttler's guard over the fixed-window storage. Its guard and filter are registered,
 * in their place, by the request pipeline.
 */
@Module({
  // AuthModule for CredentialRevocationService: the count carries the revocation check in its round
  // trip.
  imports: [AuthModule, RedisPipelineBatchModule],
  providers: [
    RateLimitService,
    { provide: getOptionsToken(), inject: [RateLimitService], useFactory: (rateLimits: RateLimitService) => rateLimits.throttlerOptions() },
    { provide: getStorageToken(), useExisting: FixedWindowStorage },
    RateLimitGuard,
    RateLimitedErrorFilter,
  ],
  exports: [RateLimitGuard, RateLimitedErrorFilter],
})
export class RateLimitModule {}
