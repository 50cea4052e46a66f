import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { getOptionsToken, getStorageToken } from '@nestjs/throttler';
import { FixedWindowStorage } from './fixed-window.storage';
import { LoginAttemptLimiter } from './login-attempt.limiter';
import { RATE_LIMIT_THROTTLERS, RateLimitGuard } from './rate-limit.guard';
import { RateLimitService } from './rate-limit.service';
import { RateLimitedErrorFilter } from './rate-limited-error.filter';

/**
 * Request limits per plan and the failed-login limit, counted in Redis so that every replica
 * enforces one limit. Global, so login code injects LoginAttemptLimiter without importing this
 * module: its guard must come after AuthenticationGuard, which holds while only AppModule imports
 * it, after AuthModule.
 */
@Global()
@Module({
  providers: [
    FixedWindowStorage,
    RateLimitService,
    LoginAttemptLimiter,
    { provide: getOptionsToken(), useValue: RATE_LIMIT_THROTTLERS },
    { provide: getStorageToken(), useExisting: FixedWindowStorage },
    RateLimitGuard,
    { provide: APP_GUARD, useExisting: RateLimitGuard },
    { provide: APP_FILTER, useClass: RateLimitedErrorFilter },
  ],
  exports: [LoginAttemptLimiter],
})
export class RateLimitModule {}
