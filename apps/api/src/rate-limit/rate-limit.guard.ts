import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  ThrottlerModuleOptions,
  ThrottlerRequest,
  ThrottlerStorage,
} from '@nestjs/throttler';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '../common/decorators/auth.decorator';
import { PLAN_LIMITS, RATE_WINDOW_MS } from './rate-limit.policy';
import { RateLimitService } from './rate-limit.service';

/**
 * One throttler, named `default` so that a bare `@SkipThrottle()` opts a route out; the guard
 * counts each request once, and RateLimitService picks the limit from the plan.
 */
export const RATE_LIMIT_THROTTLERS: ThrottlerModuleOptions = { throttlers: [{ ttl: RATE_WINDOW_MS, limit: PLAN_LIMITS.free }] };

/**
 * Counts every routed request. It is a global guard registered after AuthModule's guards, so the
 * account is known: an authenticated request counts against the account at its plan's limit, a
 * `@Public()` one against its client IP. Requests refused before it (failed authentication or
 * scope check, unknown route) are counted by RateLimitedErrorFilter instead, so that none goes
 * uncounted and none is counted twice. `@SkipThrottle()` on a route opts it out.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly rateLimits: RateLimitService,
  ) {
    super(options, storage, reflector);
  }

  protected override async handleRequest({ context }: ThrottlerRequest): Promise<boolean> {
    const http = context.switchToHttp();
    await this.rateLimits.charge(http.getRequest<AuthenticatedRequest>(), http.getResponse<Response>());
    return true;
  }
}
