import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '@app/config';
import { RateLimitExceededError } from '@app/common';
import type { AuthenticatedRequest } from '../platform/decorators/auth.decorator';
import { TokenRevocationService } from '../auth/token-revocation.service';
import { FixedWindowStorage, REVOKED } from './fixed-window.storage';
import { isExemptPath, PlanLimits, quotaOf, RATE_WINDOW_MS, rateLimitHeaders } from './rate-limit.policy';

/** The per-plan request limit: counts requests in Redis and writes the rate-limit headers. */
@Injectable()
export class RateLimitService {
  private readonly enabled: boolean;
  private readonly limits: PlanLimits;
  /** Requests already counted: the guard and the error filter may both see one request. */
  private readonly charged = new WeakSet<AuthenticatedRequest>();

  constructor(
    private readonly windows: FixedWindowStorage,
    private readonly revocations: TokenRevocationService,
    config: AppConfig,
  ) {
    this.enabled = config.RATE_LIMIT_ENABLED === 'true';
    this.limits = config.planLimits;
  }

  /**
   * Counts the request, once, against its quota and writes the headers; past the limit throws
   * RateLimitExceededError (429 with Retry-After). Exempt paths are neither counted nor marked.
   * The credential's revocation is checked in the same call: a revoked one is not counted
   * against the account but refused with the 401 of authentication, the request anonymous
   * again, so that the error filter counts it by client IP like any failed authentication.
   */
  async charge(req: AuthenticatedRequest, res: Response): Promise<void> {
    if (!this.enabled || this.charged.has(req) || isExemptPath(req.path)) return;
    this.charged.add(req);
    const quota = quotaOf(req, this.limits);
    const auth = req.auth;
    const window = await this.windows.hit(quota.bucket, RATE_WINDOW_MS, quota.limit, this.revocations.pendingMarks(auth));
    if (window === REVOKED) {
      this.charged.delete(req);
      req.auth = undefined;
      throw this.revocations.revokedError(auth);
    }
    if (auth) this.revocations.settle(auth);
    res.set(rateLimitHeaders(quota, window));
    if (window.isBlocked) throw new RateLimitExceededError(window.timeToBlockExpire);
  }
}
