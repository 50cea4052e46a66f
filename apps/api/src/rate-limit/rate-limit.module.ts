import { Global, Module } from '@nestjs/common';
import { getOptionsToken, getStorageToken } from '@nestjs/throttler';
import { AuthModule } from '../auth/auth.module';
import { FixedWindowStorage } from './fixed-window.storage';
import { LoginAttemptLimiter } from './login-attempt.limiter';
import { RATE_LIMIT_THROTTLERS, RateLimitGuard } from './rate-limit.guard';
import { RateLimitService } from './rate-limit.service';
import { RateLimitedErrorFilter } from './rate-limited-error.filter';

/**
 * Request limits per plan and the failed-login limit, counted in Redis so that every replica
 * enforces one limit. Global, so login code injects LoginAttemptLimiter without importing this
 * module. Its guard and filter are registered, in their place, by the request pipeline.
 */
@Global()
@Module({
  // For TokenRevocationService: the count also checks a token's revocation marks.
  imports: [AuthModule],
  providers: [
    FixedWindowStorage,
    RateLimitService,
    LoginAttemptLimiter,
    { provide: getOptionsToken(), useValue: RATE_LIMIT_THROTTLERS },
    { provide: getStorageToken(), useExisting: FixedWindowStorage },
    RateLimitGuard,
    RateLimitedErrorFilter,
  ],
  exports: [LoginAttemptLimiter, RateLimitGuard, RateLimitedErrorFilter],
})
export class RateLimitModule {}
