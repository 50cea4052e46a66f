import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  ThrottlerModuleOptions,
  ThrottlerStorage,
} from '@nestjs/throttler';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '../platform/decorators/auth.decorator';
import { PerRouteMemo } from '../platform/routing/per-route-memo';
import { PLAN_LIMITS, RATE_WINDOW_MS } from './rate-limit.policy';
import { RateLimitService } from './rate-limit.service';

/**
 * One throttler, named `default` so that a bare `@SkipThrottle()` opts a route out; the guard
 * counts each request once, and RateLimitService picks the limit from the plan.
 */
export const RATE_LIMIT_THROTTLERS: ThrottlerModuleOptions = { throttlers: [{ ttl: RATE_WINDOW_MS, limit: PLAN_LIMITS.free }] };

/** The metadata `@SkipThrottle()` writes for the `default` throttler (the package keeps the key private). */
const SKIP_DEFAULT_THROTTLER = 'THROTTLER:SKIPdefault';

/**
 * Counts every routed request. It is a global guard registered after AuthModule's guards, so the
 * account is known: an authenticated request counts against the account at its plan's limit, a
 * `@Public()` one against its client IP. Requests refused before it (failed authentication or
 * scope check, unknown route) are counted by RateLimitedErrorFilter instead, so that none goes
 * uncounted and none is counted twice. `@SkipThrottle()` on a route opts it out.
 *
 * ThrottlerGuard's own canActivate resolves six route options through the reflector and three
 * awaits on every request; here the limit comes from the plan and the one route option, the
 * skip, is read once per handler.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly skippedRoutes: PerRouteMemo<boolean>;

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly rateLimits: RateLimitService,
  ) {
    super(options, storage, reflector);
    this.skippedRoutes = new PerRouteMemo((targets) => reflector.getAllAndOverride<boolean | undefined>(SKIP_DEFAULT_THROTTLER, targets) === true);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.skippedRoutes.get(context)) return true;
    const http = context.switchToHttp();
    await this.rateLimits.charge(http.getRequest<AuthenticatedRequest>(), http.getResponse<Response>());
    return true;
  }
}
