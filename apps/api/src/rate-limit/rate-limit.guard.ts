import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectThrottlerOptions, InjectThrottlerStorage, ThrottlerGuard, ThrottlerModuleOptions, ThrottlerRequest } from '@nestjs/throttler';
import type { Response } from 'express';
import { CredentialRevocationService } from '../auth/credential-revocation.service';
import type { AuthenticatedRequest } from '../platform/decorators/auth.decorator';
import { FixedWindowStorage } from '../platform/redis/fixed-window.storage';
import { bucketOf, planOf } from './rate-limit.policy';
import { RateLimitService } from './rate-limit.service';

/**
 * Counts every routed request, through @nestjs/throttler: its one throttler
 * (RateLimitService.throttlerOptions) and `@SkipThrottle()` decide whether and at which limit,
 * FixedWindowStorage counts. It is a global guard registered after AuthModule's authentication
 * and scope guards, so the account is known: an authenticated request counts against the account
 * at its plan's limit, as is a page whose controller tells who is signed in (`@CountedAsSignedIn`),
 * and any other `@Public()` one against its client IP. Requests refused before it
 * (failed authentication or scope check, unknown route) are counted by RateLimitedErrorFilter
 * instead, so that none goes uncounted and none is counted twice.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly windows: FixedWindowStorage,
    reflector: Reflector,
    private readonly rateLimits: RateLimitService,
    private readonly revocations: CredentialRevocationService,
  ) {
    super(options, windows, reflector);
  }

  protected override generateKey(_context: ExecutionContext, tracker: string): string {
    return bucketOf(tracker);
  }

  /**
   * Counts the request and, in the same Redis round trip, checks whether its credential was
   * revoked; then writes the headers, or refuses it past the limit (429 with Retry-After).
   */
  protected override async handleRequest({ context, limit, ttl, throttler, getTracker, generateKey }: ThrottlerRequest): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<AuthenticatedRequest>();
    const key = generateKey(context, await getTracker(req, context), throttler.name ?? 'default');
    const account = await this.rateLimits.accountOf(context);
    const [revoked, window] = await Promise.all([this.revocations.isRevoked(req.auth), this.windows.increment(key, ttl, limit)]);
    if (revoked) {
      // Not the account's to pay for: RevocationCheckGuard refuses the request next, and the
      // error filter counts it by client IP, as any failed authentication.
      await this.windows.giveBack(key);
      return true;
    }
    this.rateLimits.answer(req, http.getResponse<Response>(), { bucket: key, policy: planOf(account), limit }, window);
    return true;
  }
}
